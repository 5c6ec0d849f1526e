// The host's side of the forward guard (docs/sync-back.md, "Forward writes
// over a container change"): the executor tells the updater what each
// forward write or delete of a file that comes back may replace (the
// agreement from before the update), and a path the container kept goes back
// to that agreement, so that the app's change there is judged as a conflict.
// Through a test updater (plugins/guard_updater.cpp) that reads the whole
// archive before it asks, and calls kept() from threads of its own.
#define BOOST_TEST_MODULE forward_guard
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "common/sync_back/content_digest.hpp"
#include "host/core/executor.hpp"
#include "host/sync_back/local_sync_back.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;
namespace sb = liveupdate::sync_back;
using Kind = sync_back::SyncBackEvent::Kind;

namespace {

void write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::trunc) << text;
}

std::string text_of(const fs::path &p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string digest_of(const std::string &text) {
    sb::ContentDigest digest;
    digest.update(text.data(), text.size());
    return digest.text();
}

// A local container's folder (its /app), the developer's folder, the
// journals, and the guard updater serving "guard" with config.
struct World {
    TempDir dir{"lu-forward-guard-test"};
    fs::path top = dir.path();
    fs::path container = top / "container";
    fs::path local = top / "local";
    SyncedJournals journals{(top / "state").string()};
    UpdaterRegistry updaters;
    bool sync_back = true;
    Executor executor{updaters, &journals, [this](const liveupdate::update_step::ContainerUpdate &) {
                          ForwardSyncBack out;
                          if (sync_back)
                              out.comes_back = [](const std::string &path) { return path.starts_with("/app/"); };
                          return out;
                      }};
    std::mutex mutex;
    std::vector<std::string> lines;

    explicit World(const std::string &config) {
        fs::create_directories(container / "app");
        fs::create_directories(local);
        updaters.set("guard", std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_GUARD_UPDATER),
                                                        std::make_shared<UpdaterHostServices>(), config));
    }
    std::shared_ptr<SyncedJournal> journal() { return journals.journal(SyncedKey::of("lu", "guard", "c1", "")); }

    // Copies each local name to /app/name, deletes each container path.
    liveupdate::updater::Outcome run(const std::vector<std::string> &names, const std::vector<std::string> &deletes,
                                     ForwardScope scope = ForwardScope::change) {
        liveupdate::update_step::ContainerUpdate update;
        update.live_update = "lu";
        update.via = "guard";
        update.container.id = "c1";
        for (const std::string &name : names) update.copy.push_back({(local / name).string(), "/app/" + name});
        update.delete_paths = deletes;
        return executor.execute(
            update,
            [this](liveupdate::common::LogLevel level, std::string_view line) {
                const std::lock_guard lock(mutex);
                lines.push_back(std::string(liveupdate::common::to_string(level)) + " " + std::string(line));
            },
            nullptr, scope);
    }
    bool logged(const std::string &line) {
        const std::lock_guard lock(mutex);
        for (const std::string &l : lines)
            if (l == line) return true;
        return false;
    }
    std::string log_text() {
        const std::lock_guard lock(mutex);
        std::string out;
        for (const std::string &l : lines) out += l + "\n";
        return out;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(forward_guard)

// The archive agrees on the new digest before the updater asks: the answer
// is still the agreement from before the update.
BOOST_AUTO_TEST_CASE(each_path_that_comes_back_expects_the_agreement_from_before_the_update) {
    World w(R"({"ask": "/app/a.txt /app/b.txt /srv/c.txt /app/../app/a.txt"})");
    write(w.local / "a.txt", "new");
    write(w.local / "b.txt", "b");
    const auto journal = w.journal();
    journal->agree("/app/a.txt", "00000000000000aa");
    journal->agree("/app/old.txt", "00000000000000bb");
    journal->add({"/app/gen", "/app/gen/x.txt"});
    const auto outcome = w.run({"a.txt", "b.txt"}, {"/app/gen", "/app/old.txt", "/app/never.txt"});
    BOOST_TEST((outcome.kind == liveupdate::updater::Outcome::Kind::ok), outcome.message);
    const std::string log = w.log_text();
    BOOST_TEST(w.logged("info expected /app/a.txt: digest 00000000000000aa"), log);
    BOOST_TEST(w.logged("info expected /app/../app/a.txt: digest 00000000000000aa"), log);
    BOOST_TEST(w.logged("info expected /app/b.txt: absent"), log);
    BOOST_TEST(w.logged("info expected /srv/c.txt: any"), log);
    // A folder the forward sync carried: its files are judged by the held deletes.
    BOOST_TEST(w.logged("info expected /app/gen: any"), log);
    BOOST_TEST(w.logged("info expected /app/old.txt: digest 00000000000000bb"), log);
    BOOST_TEST(w.logged("info expected /app/never.txt: absent"), log);
    // Written as asked: the new digests are agreed on, the deletes left the journal.
    BOOST_TEST(journal->agreed("/app/a.txt").value_or("") == digest_of("new"));
    BOOST_TEST(journal->agreed("/app/b.txt").value_or("") == digest_of("b"));
    BOOST_TEST(!journal->agreed("/app/old.txt"));
}

// The developer saved a file the app had just changed in the container; the
// updater found the app's bytes and kept them. The agreement is the old one
// again, so the app's change is a conflict (both modified), not written over
// the developer's save nor taken for a late look at the forward write.
BOOST_AUTO_TEST_CASE(a_file_the_container_kept_is_judged_as_a_conflict) {
    World w(R"({"keep": "/app/a.txt"})");
    write(w.local / "a.txt", "old");
    write(w.container / "app" / "a.txt", "old");
    const auto journal = w.journal();
    journal->agree("/app/a.txt", digest_of("old"));
    write(w.local / "a.txt", "dev");
    write(w.container / "app" / "a.txt", "app");
    const auto outcome = w.run({"a.txt"}, {});
    BOOST_TEST((outcome.kind == liveupdate::updater::Outcome::Kind::ok), outcome.message);
    BOOST_TEST(journal->agreed("/app/a.txt").value_or("") == digest_of("old"));
    BOOST_TEST(!journal->is_late_forward("/app/a.txt", digest_of("dev")));
    BOOST_TEST(w.logged("warn Sync back: /app/a.txt is left as the container holds it (holds other content (3 "
                        "bytes)): its change there is judged by sync back, not overwritten"),
               w.log_text());
    sync_back::LocalSyncBack back(sb::SyncBackMapping(w.local.string(), "/app", {"a.txt"}), w.container.string(),
                                  journal);
    const auto event = back.on_container_change("/app/a.txt", 0);
    BOOST_TEST((event.kind == Kind::conflict), event.message);
    BOOST_TEST((event.conflict == sb::ConflictKind::both_modified));
    BOOST_TEST(text_of(w.local / "a.txt") == "dev");
    BOOST_TEST(text_of(w.container / "app" / "a.txt") == "app");
}

// A new file where the app made one: no agreement before, none after.
BOOST_AUTO_TEST_CASE(a_new_file_the_container_kept_has_no_agreement) {
    World w(R"({"keep": "/app/n.txt"})");
    write(w.local / "n.txt", "dev");
    const auto journal = w.journal();
    w.run({"n.txt"}, {});
    BOOST_TEST(!journal->agreed("/app/n.txt"));
    BOOST_TEST(!journal->is_late_forward("/app/n.txt", digest_of("dev")));
}

// A delete the container kept leaves the path and its agreement in the
// journal; the others leave it.
BOOST_AUTO_TEST_CASE(a_delete_the_container_kept_stays_in_the_journal) {
    World w(R"({"keep": "/app/old.txt"})");
    const auto journal = w.journal();
    journal->add({"/app/old.txt", "/app/gone.txt"});
    journal->agree("/app/old.txt", "00000000000000bb");
    journal->agree("/app/gone.txt", "00000000000000cc");
    w.run({}, {"/app/gone.txt", "/app/old.txt"});
    BOOST_TEST(journal->paths().count("/app/old.txt") == 1u);
    BOOST_TEST(journal->agreed("/app/old.txt").value_or("") == "00000000000000bb");
    BOOST_TEST(journal->paths().count("/app/gone.txt") == 0u);
    BOOST_TEST(!journal->agreed("/app/gone.txt"));
}

// No sync back, or an update that sets the container whole (it read the
// container first, and a recreated one must get everything): no guard.
BOOST_AUTO_TEST_CASE(an_update_without_sync_back_or_a_whole_one_is_unguarded) {
    World w(R"({"ask": "/app/a.txt"})");
    write(w.local / "a.txt", "new");
    w.run({"a.txt"}, {}, ForwardScope::whole);
    BOOST_TEST(w.logged("info unguarded"), w.log_text());
    w.sync_back = false;
    w.lines.clear();
    w.run({"a.txt"}, {});
    BOOST_TEST(w.logged("info unguarded"), w.log_text());
}

BOOST_AUTO_TEST_SUITE_END()
