// An update's forward guard through the real lu-agent (updaters/shared's
// update_through_agent over an AgentSession): a path the app changed since
// both sides agreed is kept and told to the guard, the rest is written and
// the update succeeds; without a guard, or with an agent older than
// protocol 8, every write replaces as before, and the exec path says once
// per container that it does.
#define BOOST_TEST_MODULE agent_guarded_update
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/agent_client/agent_session.hpp"
#include "tests/agent/pipe_agent_stream.hpp"
#include "tests/agent/process_transport.hpp"
#include "tests/support/temp_dir.hpp"
#include "updaters/shared/agent_update.hpp"
#include "updaters/shared/unguarded_notice.hpp"

namespace ac = liveupdate::agent_client;
namespace fs = std::filesystem;
namespace updater = liveupdate::updater;
using liveupdate::test::TempDir;

namespace {

constexpr std::chrono::seconds kTimeout{20};

std::string read_file(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What the test's host agreed on per container path, and what the update kept.
struct Agreed {
    std::map<std::string, updater::ExpectedContent> expected;
    std::vector<std::string> kept;  // "path: why"

    void agree(const std::string &path, std::string_view content) {
        expected[path] = {updater::ExpectedContent::Kind::digest, XXH3_64bits(content.data(), content.size())};
    }
    void none_agreed(const std::string &path) { expected[path] = {updater::ExpectedContent::Kind::absent, 0}; }

    static std::int32_t expected_fn(void *ctx, lu_str path, std::uint64_t *digest) {
        const auto &self = *static_cast<Agreed *>(ctx);
        const auto found = self.expected.find(std::string(path.data, path.size));
        if (found == self.expected.end()) return LU_EXPECT_ANY;
        *digest = found->second.digest;
        return static_cast<std::int32_t>(found->second.kind);
    }
    static void kept_fn(void *ctx, lu_str path, lu_str why) {
        static_cast<Agreed *>(ctx)->kept.push_back(std::string(path.data, path.size) + ": " +
                                                   std::string(why.data, why.size));
    }
    updater::ForwardGuard guard() { return {&Agreed::expected_fn, &Agreed::kept_fn, this}; }
};

struct Log {
    std::vector<std::pair<int, std::string>> lines;
    static void log_fn(void *ctx, std::int32_t level, lu_str line) {
        static_cast<Log *>(ctx)->lines.emplace_back(level, std::string(line.data, line.size));
    }
    updater::UpdateLog sink() { return {&Log::log_fn, this}; }
    std::size_t count(lu_log_level level, const std::string &part) const {
        std::size_t n = 0;
        for (const auto &[l, text] : lines)
            if (l == level && text.find(part) != std::string::npos) ++n;
        return n;
    }
};

// A container's files: an update writes a.txt, b.txt, c.txt and big.bin and deletes d.txt and e.txt.
struct Container {
    TempDir dir{"lu-guarded-update"};
    std::string app = (dir / "app").string();
    std::string big_content = std::string(std::size_t{3} << 20, 'n');

    Container() {
        dir.write("app/a.txt", "a0");
        dir.write("app/b.txt", "the app's");        // agreed "b0", changed by the app since
        dir.write("app/big.bin", "the app's big");  // agreed "big0"
        dir.write("app/d.txt", "the app's");        // agreed "d0"
        dir.write("app/e.txt", "e0");
    }
    std::string path(const std::string &name) const { return app + "/" + name; }
    // What both sides last agreed on: b, big and d changed in the container since.
    void agree(Agreed &agreed) const {
        agreed.agree(path("a.txt"), "a0");
        agreed.agree(path("b.txt"), "b0");
        agreed.none_agreed(path("c.txt"));
        agreed.agree(path("big.bin"), "big0");
        agreed.agree(path("d.txt"), "d0");
        agreed.agree(path("e.txt"), "e0");
    }
    std::string archive() const {
        const std::string rel = app.substr(1) + "/";
        return lu_agent_test::tar_of(
            {{rel + "a.txt", "a1"}, {rel + "b.txt", "b1"}, {rel + "c.txt", "c1"}, {rel + "big.bin", big_content}});
    }
};

updater::Outcome update(ac::AgentStream &session, const Container &c, const std::string &archive,
                        updater::ForwardGuard guard, updater::UpdateLog log) {
    updater::Request request;
    request.live_update = "guarded";
    request.copies = {{"/local", c.app}};
    request.delete_paths = {c.path("d.txt"), c.path("e.txt")};
    request.sync_roots = {c.app};
    request.guard = guard;
    request.log = log;
    liveupdate::updaters::AgentUpdateSettings settings;
    settings.words.shown = "container test";
    settings.stall = kTimeout;
    settings.run_limit = kTimeout;
    bool run_started = false;
    return liveupdate::updaters::update_through_agent(session, request, lu_agent_test::reader_of(archive), settings,
                                                      run_started);
}

std::unique_ptr<ac::AgentSession> start_agent() {
    return ac::AgentSession::start(
        std::make_unique<lu_agent_test::ProcessTransport>(std::vector<std::string>{LU_AGENT_PATH}), kTimeout,
        [](std::string_view) {});
}

// A session with the real agent that says it speaks protocol 7, as an older agent would.
class Version7 final : public ac::AgentStream {
public:
    explicit Version7(ac::AgentSession &session) : session_(session) {}
    void send(std::string_view frames, Clock::time_point deadline) override { session_.send(frames, deadline); }
    liveupdate::agent_protocol::Frame receive(Clock::time_point deadline) override {
        return session_.receive(deadline);
    }
    std::uint32_t protocol_version() const noexcept override { return 7; }
    bool take_unguarded_notice() noexcept override { return session_.take_unguarded_notice(); }

private:
    ac::AgentSession &session_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_guarded_update_keeps_what_the_app_changed_and_writes_the_rest) {
    Container c;
    Agreed agreed;
    c.agree(agreed);
    Log log;
    auto session = start_agent();
    const auto outcome = update(*session, c, c.archive(), agreed.guard(), log.sink());
    BOOST_TEST((outcome.kind == updater::Outcome::Kind::ok), outcome.message);
    const std::vector<std::string> kept = {c.path("d.txt") + ": holds other content (9 bytes)",
                                           c.path("b.txt") + ": holds other content (9 bytes)",
                                           c.path("big.bin") + ": holds other content (13 bytes)"};
    BOOST_TEST(agreed.kept == kept, boost::test_tools::per_element());
    BOOST_TEST(read_file(c.path("a.txt")) == "a1");
    BOOST_TEST(read_file(c.path("b.txt")) == "the app's");
    BOOST_TEST(read_file(c.path("c.txt")) == "c1");
    BOOST_TEST(read_file(c.path("big.bin")) == "the app's big");
    BOOST_TEST(read_file(c.path("d.txt")) == "the app's");
    BOOST_TEST(!fs::exists(c.path("e.txt")));
    BOOST_TEST(log.count(LU_LOG_WARN, "kept the container's " + c.path("b.txt") +
                                          ": it changed since both sides last agreed (holds other content (9 "
                                          "bytes)); sync back judges it") == 1u);
    BOOST_TEST(log.count(LU_LOG_INFO, "unguarded") == 0u);
}

BOOST_AUTO_TEST_CASE(an_unguarded_update_replaces_whatever_is_there) {
    Container c;
    Log log;
    auto session = start_agent();
    const auto outcome = update(*session, c, c.archive(), {}, log.sink());
    BOOST_TEST((outcome.kind == updater::Outcome::Kind::ok), outcome.message);
    BOOST_TEST(read_file(c.path("b.txt")) == "b1");
    BOOST_TEST(read_file(c.path("big.bin")) == c.big_content);
    BOOST_TEST(!fs::exists(c.path("d.txt")));
    BOOST_TEST(log.count(LU_LOG_WARN, "kept") == 0u);
}

BOOST_AUTO_TEST_CASE(an_older_agent_writes_unguarded_and_says_so_once_a_session) {
    Container c;
    Agreed agreed;
    c.agree(agreed);
    Log log;
    auto session = start_agent();
    Version7 older(*session);
    for (int i = 0; i < 2; ++i) {
        const auto outcome = update(older, c, c.archive(), agreed.guard(), log.sink());
        BOOST_TEST((outcome.kind == updater::Outcome::Kind::ok), outcome.message);
    }
    BOOST_TEST(agreed.kept.empty());
    BOOST_TEST(read_file(c.path("b.txt")) == "b1");
    BOOST_TEST(!fs::exists(c.path("d.txt")));
    BOOST_TEST(
        log.count(LU_LOG_INFO, "Forward writes to container test are unguarded: its lu-agent speaks protocol 7") == 1u);
}

BOOST_AUTO_TEST_CASE(the_exec_path_says_once_a_container_that_it_writes_unguarded) {
    Agreed agreed;
    Log log;
    updater::Request guarded;
    guarded.guard = agreed.guard();
    guarded.log = log.sink();
    updater::Request unguarded;
    unguarded.log = log.sink();
    liveupdate::updaters::UnguardedNotices notices;
    for (int i = 0; i < 3; ++i) {
        notices.note(guarded, "id-a", "container a", "lu-agent cannot run in it");
        notices.note(guarded, "id-b", "container b", "lu-agent cannot run in it");
        notices.note(unguarded, "id-c", "container c", "lu-agent cannot run in it");
    }
    BOOST_TEST(log.lines.size() == 2u);
    BOOST_TEST(log.count(LU_LOG_INFO,
                         "Forward writes to container a are unguarded: lu-agent cannot run in it, so an "
                         "app change that sync back has not judged yet may be overwritten") == 1u);
    BOOST_TEST(log.count(LU_LOG_INFO, "Forward writes to container b are unguarded") == 1u);
}
