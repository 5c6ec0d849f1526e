// The `local` updater plugin, loaded from its .so like the host does, fed
// archives built here (including hostile ones); the rule of its temporaries
// left behind, linked in from its parts.
#define BOOST_TEST_MODULE local_updater_tests
#include <boost/test/unit_test.hpp>

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "common/sync_back/content_digest.hpp"
#include "liveupdate/ext/local_containers.h"
#include "liveupdate/updater_plugin.h"
#include "tests/support/dead_pid.hpp"
#include "tests/support/temp_dir.hpp"
#include "updaters/local/left_temporaries.hpp"

namespace fs = std::filesystem;

namespace {

using liveupdate::test::TempDir;

std::string read_file(const fs::path &p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A tar archive in memory, entry by entry.
class TarBuilder {
public:
    TarBuilder() : a_(archive_write_new()) {
        archive_write_set_format_pax_restricted(a_);
        archive_write_open(a_, this, nullptr, &TarBuilder::append, nullptr);
    }
    ~TarBuilder() { archive_write_free(a_); }
    TarBuilder &file(const std::string &name, const std::string &content) {
        entry(name, AE_IFREG, 0644, content, "");
        return *this;
    }
    TarBuilder &symlink(const std::string &name, const std::string &target) {
        entry(name, AE_IFLNK, 0777, "", target);
        return *this;
    }
    std::string finish() {
        archive_write_close(a_);
        return bytes_;
    }

private:
    static la_ssize_t append(struct archive *, void *self, const void *data, size_t size) {
        static_cast<TarBuilder *>(self)->bytes_.append(static_cast<const char *>(data), size);
        return static_cast<la_ssize_t>(size);
    }
    void entry(const std::string &name, unsigned type, int mode, const std::string &content, const std::string &link) {
        archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_filetype(e, type);
        archive_entry_set_perm(e, mode);
        archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
        if (!link.empty()) archive_entry_set_symlink(e, link.c_str());
        archive_write_header(a_, e);
        if (!content.empty()) archive_write_data(a_, content.data(), content.size());
        archive_entry_free(e);
    }
    struct archive *a_;
    std::string bytes_;
};

struct MemoryStream {
    std::string bytes;
    std::size_t offset = 0;
    static int64_t read(void *ctx, void *buffer, size_t capacity) {
        auto *s = static_cast<MemoryStream *>(ctx);
        const std::size_t n = std::min(capacity, s->bytes.size() - s->offset);
        std::memcpy(buffer, s->bytes.data() + s->offset, n);
        s->offset += n;
        return static_cast<int64_t>(n);
    }
};

struct Host {
    std::mutex mutex;
    std::vector<std::string> lines;
    std::vector<std::string> restarted;
    bool offer_restart = true;
    std::string working_dir;  // non-empty: the host describes container "web" with it
    lu_host_local_containers local{sizeof(lu_host_local_containers), &Host::restart, &Host::process};

    static void log(void *ctx, int32_t, lu_str line) {
        auto *h = static_cast<Host *>(ctx);
        std::lock_guard<std::mutex> lock(h->mutex);
        h->lines.emplace_back(line.data, line.size);
    }
    static const void *extension(void *ctx, const char *id) {
        auto *h = static_cast<Host *>(ctx);
        return h->offer_restart && std::strcmp(id, LU_HOST_LOCAL_CONTAINERS_ID) == 0 ? &h->local : nullptr;
    }
    static int32_t restart(void *ctx, const lu_container_ref *c, char *, size_t) {
        static_cast<Host *>(ctx)->restarted.emplace_back(c->container_name);
        return 0;
    }
    static int32_t process(void *ctx, const lu_container_ref *c, void (*each_env)(void *, const char *, const char *),
                           void *each_ctx, char *working_dir, size_t capacity) {
        auto *h = static_cast<Host *>(ctx);
        if (h->working_dir.empty() || std::strcmp(c->container_name, "web") != 0) return 1;
        each_env(each_ctx, "GREETING", "from the container");
        std::snprintf(working_dir, capacity, "%s", h->working_dir.c_str());
        return 0;
    }
    bool logged(const std::string &text) {
        std::lock_guard<std::mutex> lock(mutex);
        for (const auto &l : lines)
            if (l.find(text) != std::string::npos) return true;
        return false;
    }
};

// A hand-made forward guard: what each container path may hold (absent from
// the map: anything), and the paths the updater said it kept.
struct Guard {
    std::mutex mutex;
    std::map<std::string, std::pair<lu_expected_kind, std::uint64_t>> expected;
    std::map<std::string, std::string> kept;  // container path → why

    void expect_content(const std::string &path, const std::string &content) {
        liveupdate::sync_back::ContentDigest digest;
        digest.update(content.data(), content.size());
        expected[path] = {LU_EXPECT_DIGEST, *liveupdate::sync_back::digest_value(digest.text())};
    }
    static int32_t expect(void *ctx, lu_str path, uint64_t *out_digest) {
        auto *g = static_cast<Guard *>(ctx);
        std::lock_guard<std::mutex> lock(g->mutex);
        const auto it = g->expected.find(std::string(path.data, path.size));
        if (it == g->expected.end()) return LU_EXPECT_ANY;
        *out_digest = it->second.second;
        return it->second.first;
    }
    static void keep(void *ctx, lu_str path, lu_str why) {
        auto *g = static_cast<Guard *>(ctx);
        std::lock_guard<std::mutex> lock(g->mutex);
        g->kept[std::string(path.data, path.size)] = std::string(why.data, why.size);
    }
};

struct Outcome {
    int kind = -1;
    int exit_code = 0;
    std::string message;
};

struct Fixture {
    void *library = nullptr;
    const lu_updater_api *api = nullptr;
    lu_updater *updater = nullptr;
    Host host;
    lu_updater_host c_host{sizeof(lu_updater_host), &host, &Host::log, &Host::extension};
    TempDir root;
    TempDir outside;
    std::vector<const char *> sync_roots;  // the request's, none by default
    Guard *guard = nullptr;                // the request's forward guard, none by default

    Fixture() {
        library = ::dlopen(LU_LOCAL_UPDATER, RTLD_NOW | RTLD_LOCAL);
        BOOST_TEST_REQUIRE(library != nullptr, ::dlerror());
        auto entry = reinterpret_cast<lu_updater_entry_fn>(::dlsym(library, LU_UPDATER_ENTRY_SYMBOL));
        BOOST_TEST_REQUIRE(entry != nullptr);
        const lu_plugin_info *info = nullptr;
        api = entry(LU_ABI_VERSION, &info);
        BOOST_TEST_REQUIRE(api != nullptr);
        BOOST_TEST(std::string(info->name) == "local");
        lu_message error{};
        const char *config = "{}";
        BOOST_TEST_REQUIRE(api->create(&c_host, lu_str{config, 2}, &updater, &error) == LU_OK);
    }
    ~Fixture() {
        api->destroy(updater);
        ::dlclose(library);
    }

    Outcome update(const std::string &archive, std::vector<const char *> deletes = {},
                   std::vector<std::vector<const char *>> runs = {}, bool restart = false) {
        MemoryStream stream{archive};
        const std::string root_text = root.path().string();
        lu_container_ref container{sizeof(lu_container_ref), "id1", "web", "", "", root_text.c_str()};
        std::vector<lu_run_step> steps;
        steps.reserve(runs.size());
        for (auto &argv : runs) steps.push_back(lu_run_step{argv.data(), argv.size(), 0});
        lu_update_request req{};
        req.struct_size = sizeof req;
        req.live_update = "lu";
        req.via = "local";
        req.container = &container;
        req.archive = lu_archive_stream{&stream, &MemoryStream::read};
        req.delete_paths = deletes.data();
        req.delete_count = deletes.size();
        req.runs = steps.data();
        req.run_count = steps.size();
        req.restart = restart ? 1 : 0;
        req.sync_roots = sync_roots.empty() ? nullptr : sync_roots.data();
        req.sync_root_count = sync_roots.size();
        if (guard != nullptr) {
            req.expected = &Guard::expect;
            req.kept = &Guard::keep;
            req.guard_ctx = guard;
        }
        lu_update_outcome out{};
        BOOST_TEST_REQUIRE(api->update(updater, &req, &out) == LU_OK);
        Outcome o{out.kind, out.exit_code, out.message.data ? std::string(out.message.data, out.message.size) : ""};
        api->free_message(&out.message);
        return o;
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(files_land_under_the_root, Fixture) {
    const Outcome o = update(TarBuilder().file("app/a.txt", "A").file("app/sub/b.txt", "B").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "app/a.txt") == "A");
    BOOST_TEST(read_file(root.path() / "app/sub/b.txt") == "B");
}

BOOST_FIXTURE_TEST_CASE(an_entry_with_dotdot_is_refused, Fixture) {
    const std::string escape = "app/../../" + outside.path().filename().string() + "/evil.txt";
    const Outcome o = update(TarBuilder().file(escape, "E").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(o.message.find("..") != std::string::npos, o.message);
    BOOST_TEST(!fs::exists(outside.path() / "evil.txt"));
}

BOOST_FIXTURE_TEST_CASE(an_absolute_entry_is_refused, Fixture) {
    const std::string target = (outside.path() / "abs.txt").string();
    const Outcome o = update(TarBuilder().file(target, "E").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(o.message.find("absolute") != std::string::npos, o.message);
    BOOST_TEST(!fs::exists(target));
}

BOOST_FIXTURE_TEST_CASE(writing_through_an_archived_symlink_that_leaves_is_refused, Fixture) {
    const Outcome o =
        update(TarBuilder().symlink("app/link", outside.path().string()).file("app/link/evil.txt", "E").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(!fs::exists(outside.path() / "evil.txt"));
}

BOOST_FIXTURE_TEST_CASE(writing_through_an_existing_symlink_that_leaves_is_refused, Fixture) {
    fs::create_directories(root.path() / "app");
    fs::create_directory_symlink(outside.path(), root.path() / "app/out");
    const Outcome o = update(TarBuilder().file("app/out/evil.txt", "E").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(!fs::exists(outside.path() / "evil.txt"));
}

// Below the sync's path a symlink where a folder comes is replaced by the
// folder, as tar does, and a delete beneath one is already done. Nothing
// outside the container folder is written or deleted.
BOOST_FIXTURE_TEST_CASE(a_container_symlink_below_the_sync_path_is_replaced_by_the_folder, Fixture) {
    fs::create_directories(root.path() / "app/real");
    fs::create_directory_symlink(outside.path(), root.path() / "app/link");
    fs::create_directory_symlink(outside.path(), root.path() / "app/real/deep");
    std::ofstream(outside.path() / "keep.txt") << "k";
    sync_roots = {"/app"};
    // A delete beneath such a symlink is already done.
    const Outcome deleted = update(TarBuilder().finish(), {"/app/link/keep.txt"});
    BOOST_TEST(deleted.kind == LU_OUTCOME_OK, deleted.message);
    BOOST_TEST(fs::exists(outside.path() / "keep.txt"));
    const Outcome o = update(TarBuilder().file("app/link/victim", "v").file("app/real/deep/sub/victim2", "w").finish());
    BOOST_TEST_REQUIRE(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(!fs::is_symlink(root.path() / "app/link"));
    BOOST_TEST(read_file(root.path() / "app/link/victim") == "v");
    BOOST_TEST(!fs::is_symlink(root.path() / "app/real/deep"));
    BOOST_TEST(read_file(root.path() / "app/real/deep/sub/victim2") == "w");
    BOOST_TEST(!fs::exists(outside.path() / "victim"));
    BOOST_TEST(!fs::exists(outside.path() / "sub"));
    BOOST_TEST(read_file(outside.path() / "keep.txt") == "k");
}

BOOST_FIXTURE_TEST_CASE(a_symlink_entry_itself_is_kept_as_a_symlink, Fixture) {
    const Outcome o = update(TarBuilder().file("app/real.txt", "R").symlink("app/alias.txt", "real.txt").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(fs::is_symlink(root.path() / "app/alias.txt"));
    BOOST_TEST(read_file(root.path() / "app/alias.txt") == "R");
}

// A git checkout swaps a folder for a file and back: the new kind replaces the old one.
BOOST_FIXTURE_TEST_CASE(a_new_kind_replaces_the_old_one, Fixture) {
    fs::create_directories(root.path() / "app/y/sub");
    std::ofstream(root.path() / "app/y/sub/old") << "o";
    std::ofstream(root.path() / "app/f") << "f";
    fs::create_directories(root.path() / "app/l/deep");
    Outcome o =
        update(TarBuilder().file("app/y", "x").file("app/f/g", "g").symlink("app/l", "y").finish(), {"/app/y/sub/old"});
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "app/y") == "x");
    BOOST_TEST(read_file(root.path() / "app/f/g") == "g");
    BOOST_TEST(fs::read_symlink(root.path() / "app/l") == "y");
    // A late delete beneath the former folder is already done.
    o = update(TarBuilder().finish(), {"/app/y/sub/old", "/app/y/sub"});
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "app/y") == "x");
}

BOOST_FIXTURE_TEST_CASE(deletes_files_and_folders_but_not_through_symlinks, Fixture) {
    fs::create_directories(root.path() / "app/dir/sub");
    std::ofstream(root.path() / "app/dir/sub/x.txt") << "x";
    std::ofstream(root.path() / "app/f.txt") << "f";
    std::ofstream(outside.path() / "keep.txt") << "k";
    fs::create_directory_symlink(outside.path(), root.path() / "app/out");

    Outcome o = update(TarBuilder().finish(), {"/app/dir", "/app/f.txt", "/app/missing.txt"});
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(!fs::exists(root.path() / "app/dir"));
    BOOST_TEST(!fs::exists(root.path() / "app/f.txt"));

    o = update(TarBuilder().finish(), {"/app/out/keep.txt"});
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(fs::exists(outside.path() / "keep.txt"));

    o = update(TarBuilder().finish(), {"/app/../../etc"});
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
}

BOOST_FIXTURE_TEST_CASE(commands_run_in_app_with_output_logged, Fixture) {
    fs::create_directories(root.path() / "app");
    const Outcome o = update(TarBuilder().file("app/in.txt", "hello").finish(), {},
                             {{"sh", "-c", "cat in.txt > out.txt; echo line-one; echo line-two >&2"}});
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "app/out.txt") == "hello");
    BOOST_TEST(host.logged("[CMD 1/1] sh -c cat in.txt > out.txt"));
    BOOST_TEST(host.logged("line-one"));
    BOOST_TEST(host.logged("line-two"));
}

BOOST_FIXTURE_TEST_CASE(commands_take_the_containers_environment_and_working_directory, Fixture) {
    host.working_dir = "/srv";
    fs::create_directories(root.path() / "srv");
    const Outcome o = update(TarBuilder().finish(), {}, {{"sh", "-c", "echo \"$GREETING\" > greeting.txt"}});
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "srv/greeting.txt") == "from the container\n");
}

BOOST_FIXTURE_TEST_CASE(the_settings_working_directory_wins_over_the_containers, Fixture) {
    host.working_dir = "/srv";
    lu_updater *configured = nullptr;
    lu_message error{};
    const std::string settings = R"({"workingDir": "/opt"})";
    BOOST_TEST_REQUIRE(api->create(&c_host, lu_str{settings.data(), settings.size()}, &configured, &error) == LU_OK);
    std::swap(updater, configured);
    fs::create_directories(root.path() / "opt");
    const Outcome o = update(TarBuilder().finish(), {}, {{"sh", "-c", "echo \"$GREETING\" > greeting.txt"}});
    std::swap(updater, configured);
    api->destroy(configured);
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "opt/greeting.txt") == "from the container\n");
    BOOST_TEST(!fs::exists(root.path() / "srv/greeting.txt"));
}

BOOST_FIXTURE_TEST_CASE(a_failing_command_is_a_run_failure_and_stops_the_rest, Fixture) {
    fs::create_directories(root.path() / "app");
    const Outcome o = update(TarBuilder().finish(), {}, {{"sh", "-c", "exit 3"}, {"touch", "never.txt"}}, true);
    BOOST_TEST(o.kind == LU_OUTCOME_RUN_FAILURE);
    BOOST_TEST(o.exit_code == 3);
    BOOST_TEST(o.message.find("exit code: 3") != std::string::npos, o.message);
    BOOST_TEST(!fs::exists(root.path() / "app/never.txt"));
    BOOST_TEST(host.restarted.empty());
}

BOOST_FIXTURE_TEST_CASE(restart_goes_through_the_host_extension, Fixture) {
    Outcome o = update(TarBuilder().file("app/a.txt", "A").finish(), {}, {}, true);
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(host.restarted == std::vector<std::string>{"web"}, boost::test_tools::per_element());

    host.offer_restart = false;
    o = update(TarBuilder().finish(), {}, {}, true);
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
}

BOOST_FIXTURE_TEST_CASE(a_missing_root_is_an_infra_failure, Fixture) {
    fs::remove_all(root.path());
    const Outcome o = update(TarBuilder().file("app/a.txt", "A").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(o.message.find(root.path().string()) != std::string::npos, o.message);
}

// The forward guard (docs/sync-back.md, "Forward writes over a container
// change"): a file the app changed since the agreement stays the app's.
BOOST_FIXTURE_TEST_CASE(a_guarded_write_keeps_a_file_the_app_changed, Fixture) {
    fs::create_directories(root.path() / "app");
    std::ofstream(root.path() / "app/changed.txt") << "app";
    std::ofstream(root.path() / "app/agreed.txt") << "agreed";
    std::ofstream(root.path() / "app/new.txt") << "app's own";
    Guard g;
    g.expect_content("/app/changed.txt", "agreed");
    g.expect_content("/app/agreed.txt", "agreed");
    g.expected["/app/new.txt"] = {LU_EXPECT_ABSENT, 0};
    g.expected["/app/fresh.txt"] = {LU_EXPECT_ABSENT, 0};
    guard = &g;
    const Outcome o = update(TarBuilder()
                                 .file("app/changed.txt", "dev")
                                 .file("app/agreed.txt", "dev")
                                 .file("app/new.txt", "dev")
                                 .file("app/fresh.txt", "dev")
                                 .file("app/free.txt", "dev")
                                 .finish());
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "app/changed.txt") == "app");
    BOOST_TEST(read_file(root.path() / "app/new.txt") == "app's own");
    BOOST_TEST(read_file(root.path() / "app/agreed.txt") == "dev");
    BOOST_TEST(read_file(root.path() / "app/fresh.txt") == "dev");
    BOOST_TEST(read_file(root.path() / "app/free.txt") == "dev");
    BOOST_TEST(g.kept.size() == 2U);
    BOOST_TEST(g.kept["/app/changed.txt"].find("changed") != std::string::npos, g.kept["/app/changed.txt"]);
    BOOST_TEST(g.kept.count("/app/new.txt") == 1U);
    // No temporary is left beside the files.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto &e : fs::directory_iterator(root.path() / "app")) ++entries;
    BOOST_TEST(entries == 5U);
}

BOOST_FIXTURE_TEST_CASE(a_guarded_write_keeps_what_is_not_the_agreed_file, Fixture) {
    fs::create_directories(root.path() / "app/became_folder");
    std::ofstream(root.path() / "app/target.txt") << "agreed";
    fs::create_symlink("target.txt", root.path() / "app/link.txt");
    Guard g;
    g.expect_content("/app/became_folder", "agreed");
    g.expect_content("/app/link.txt", "agreed");
    g.expect_content("/app/gone.txt", "agreed");
    guard = &g;
    const Outcome o = update(
        TarBuilder().file("app/became_folder", "dev").file("app/link.txt", "dev").file("app/gone.txt", "dev").finish());
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(fs::is_directory(root.path() / "app/became_folder"));
    BOOST_TEST(fs::is_symlink(root.path() / "app/link.txt"));
    BOOST_TEST(read_file(root.path() / "app/target.txt") == "agreed");
    BOOST_TEST(!fs::exists(root.path() / "app/gone.txt"));
    BOOST_TEST(g.kept.size() == 3U);
}

BOOST_FIXTURE_TEST_CASE(a_guarded_delete_keeps_a_file_the_app_changed, Fixture) {
    fs::create_directories(root.path() / "app");
    std::ofstream(root.path() / "app/changed.txt") << "app";
    std::ofstream(root.path() / "app/agreed.txt") << "agreed";
    std::ofstream(root.path() / "app/unguarded.txt") << "x";
    Guard g;
    g.expect_content("/app/changed.txt", "agreed");
    g.expect_content("/app/agreed.txt", "agreed");
    g.expect_content("/app/gone.txt", "agreed");  // the app deleted it too: both sides agree
    guard = &g;
    const Outcome o =
        update(TarBuilder().finish(), {"/app/changed.txt", "/app/agreed.txt", "/app/unguarded.txt", "/app/gone.txt"});
    BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(read_file(root.path() / "app/changed.txt") == "app");
    BOOST_TEST(!fs::exists(root.path() / "app/agreed.txt"));
    BOOST_TEST(!fs::exists(root.path() / "app/unguarded.txt"));
    BOOST_TEST(g.kept.size() == 1U);
    BOOST_TEST(g.kept.count("/app/changed.txt") == 1U);
}

namespace {

using liveupdate::test::dead_pid;  // its temporaries' writer is dead

void write_file(const fs::path &path, const std::string &text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

// A temporary's name as the updater gives it (agent_protocol's), of writer pid.
// A temporary as an lu-host of this host with that pid names it.
std::string temporary(pid_t pid, int n) { return liveupdate::local::temporary_name({pid, 7}, n); }

// One as lu-agent in a container names it: a pid of its own namespace, a token of no seal of ours.
std::string agents_temporary(pid_t pid, int n) {
    return ".lu-agent-" + std::to_string(pid) + "-" + std::to_string(n) + "-0123456789abcdef";
}

}  // namespace

// An lu-host killed between a guarded write and its rename left the
// temporary in the container folder: the updater's first update there
// removes it, and nothing else that looks like one: a developer's file with
// a like name, a symlink or a folder so named, a second link to a file,
// one outside the sync roots, one reached through a symlink.
BOOST_FIXTURE_TEST_CASE(temporaries_an_earlier_lu_host_left_go_and_nothing_else, Fixture) {
    const pid_t dead = dead_pid();
    const fs::path app = root.path() / "app";
    write_file(app / temporary(dead, 1), "half a file");
    write_file(app / "src/deep" / temporary(dead, 2), "half another");
    write_file(app / temporary(::getpid(), 3), "an earlier lu-host with this pid");
    const std::vector<fs::path> kept{app / ".lu-agent-notes.txt",
                                     app / agents_temporary(dead, 13),  // a bind mount's lu-agent may write it now
                                     app / (".lu-agent-" + std::to_string(dead) + "-4"),
                                     app / (temporary(dead, 5) + ".bak"),
                                     app / ("x" + temporary(dead, 6)),
                                     app / temporary(dead, 7) / "inside.txt",
                                     root.path() / "etc" / temporary(dead, 8),
                                     outside.path() / temporary(dead, 9),
                                     app / "data.txt"};
    for (const fs::path &path : kept) write_file(path, "mine");
    fs::create_symlink(outside.path() / temporary(dead, 9), app / temporary(dead, 10));
    fs::create_directory_symlink(outside.path(), app / "linked");
    fs::create_hard_link(app / "data.txt", app / temporary(dead, 11));
    sync_roots = {"/app"};

    const Outcome o = update(TarBuilder().file("app/a.txt", "A").finish());
    BOOST_TEST_REQUIRE(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(!fs::exists(app / temporary(dead, 1)));
    BOOST_TEST(!fs::exists(app / "src/deep" / temporary(dead, 2)));
    BOOST_TEST(!fs::exists(app / temporary(::getpid(), 3)));
    BOOST_TEST(host.logged("Removed " + (app / temporary(dead, 1)).string()));
    for (const fs::path &path : kept) BOOST_TEST(read_file(path) == "mine", path);
    BOOST_TEST(fs::is_symlink(app / temporary(dead, 10)));
    BOOST_TEST(fs::is_directory(app / temporary(dead, 7)));
    BOOST_TEST(read_file(app / temporary(dead, 11)) == "mine");
    BOOST_TEST(read_file(app / "a.txt") == "A");

    // Served already: one left later waits for the folder's next whole sync.
    write_file(app / temporary(dead, 12), "half a file");
    BOOST_TEST(update(TarBuilder().file("app/b.txt", "B").finish()).kind == LU_OUTCOME_OK);
    BOOST_TEST(fs::exists(app / temporary(dead, 12)));
}

// The rule behind it: this updater's own (its pid and token) may be being
// written; another pid's only while that process runs.
BOOST_AUTO_TEST_CASE(a_temporary_is_left_behind_only_when_its_writer_is_gone) {
    using liveupdate::local::left_behind;
    using liveupdate::local::sealed_token;
    const liveupdate::local::TemporaryWriter self{100, 0xabc};
    BOOST_TEST(!left_behind({100, sealed_token(self)}, self, true));
    BOOST_TEST(left_behind({100, sealed_token({100, 0xdef})}, self, true));  // an earlier process with this pid
    BOOST_TEST(left_behind({42, sealed_token({42, 0xabc})}, self, false));
    BOOST_TEST(!left_behind({42, sealed_token({42, 0xabc})}, self, true));
    // Not sealed here (lu-agent's in a bind-mounted folder, its pid another namespace's): never.
    BOOST_TEST(!left_behind({42, 0x0123456789abcdefull}, self, false));
    BOOST_TEST(!left_behind({100, sealed_token({42, 0xabc})}, self, false));
}
