// The host's side of sync back (AgentSession::watch_changes, take_changes)
// over lu-agent on this machine: changes kept apart from the answers of
// forward requests; an agent of version 6 leaves the session one-way and
// says so once.
#define BOOST_TEST_MODULE agent_sync_back_client
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/agent_client/agent_session.hpp"
#include "tests/agent/process_transport.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::agent_protocol;
using liveupdate::agent_client::AgentSession;
using Clock = std::chrono::steady_clock;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr std::chrono::seconds kTimeout{20};

std::unique_ptr<AgentSession> start(const std::vector<std::string> &argv) {
    return AgentSession::start(std::make_unique<lu_agent_test::ProcessTransport>(argv), kTimeout,
                               [](std::string_view) {});
}

}  // namespace

BOOST_AUTO_TEST_CASE(changes_come_between_answers_and_are_kept_apart) {
    TempDir dir{"lu-sync-back-client"};
    auto session = start({LU_AGENT_PATH});
    BOOST_TEST(session->protocol_version() == kProtocolVersion);
    std::vector<std::string> logged;
    const auto log = [&logged](std::string_view line) { logged.emplace_back(line); };
    BOOST_TEST(session->watch_changes(WatchChanges{4, dir.path().string(), {"back/**"}, 1 << 20, 10, 0, {}, {}},
                                      Clock::now() + kTimeout, log) == "");
    BOOST_TEST(logged.empty());
    fs::create_directories(dir.path() / "back");
    std::ofstream(dir.path() / "back/lock.json") << "{}";
    // A forward write meanwhile gets its answer; the change waits in the session.
    for (int i = 0; i < 50; ++i) {
        session->send(encode(WriteFile{dir.path().string() + "/fwd.txt", dir.path().string(), 0644, kKeepOwner,
                                       kKeepOwner, std::to_string(i)}),
                      Clock::now() + kTimeout);
        BOOST_TEST(decode<Result>(session->receive(Clock::now() + kTimeout)).error == 0);
    }
    // One wait returns as soon as a change is there, not at its deadline.
    const auto deadline = Clock::now() + std::chrono::minutes(10);
    session->wait_for_changes(deadline);
    BOOST_TEST((Clock::now() < deadline - std::chrono::minutes(9)), "the wait lasted to its deadline");
    const auto changes = session->take_changes();
    BOOST_REQUIRE(!changes.empty());
    BOOST_TEST(changes.front().watch_id == 4u);
    BOOST_TEST(changes.front().path == "back/lock.json");
    BOOST_TEST(changes.front().content == "{}");
    // The forward writes did not come back: the patterns do not ask for them.
    for (const auto &c : changes) BOOST_TEST(c.path != "fwd.txt");
    BOOST_TEST(session->alive());
}

BOOST_AUTO_TEST_CASE(an_agent_of_version_6_stays_one_way_and_says_so_once) {
    // The HelloReply of a version 6 agent, which then reads requests and answers none.
    auto session =
        start({"sh", "-c", R"(printf '\017\000\000\000\100\006\000\000\000\007\000\000\000old one'; cat >/dev/null)"});
    BOOST_TEST(session->protocol_version() == 6u);
    std::vector<std::string> logged;
    const auto log = [&logged](std::string_view line) { logged.emplace_back(line); };
    const auto why =
        session->watch_changes(WatchChanges{1, "/app", {"*"}, 1024, 0, 0, {}, {}}, Clock::now() + kTimeout, log);
    BOOST_TEST(why.find("protocol version 6") != std::string::npos, why);
    BOOST_TEST(why.find("one-way") != std::string::npos, why);
    BOOST_TEST(!session->watch_changes(WatchChanges{2, "/lib", {"*"}, 1024, 0, 0, {}, {}}, Clock::now() + kTimeout, log)
                    .empty());
    BOOST_REQUIRE(logged.size() == 1u);
    BOOST_TEST(logged.front() == why);
    // Nothing was sent to it: the session is as it was.
    BOOST_TEST(session->alive());
}

BOOST_AUTO_TEST_CASE(a_change_with_no_watch_asked_for_breaks_the_session) {
    // An agent that greets in version 7, then sends a change nobody asked for.
    TempDir dir{"lu-sync-back-client"};
    std::ofstream(dir.path() / "hello", std::ios::binary) << encode(HelloReply{7, "new one"});
    std::ofstream(dir.path() / "change", std::ios::binary)
        << encode(ContainerChange{1, "x", static_cast<std::uint8_t>(ChangeKind::deleted), 0, 0, 0, 0, "", ""});
    auto session =
        start({"sh", "-c", "cd " + dir.path().string() + " && cat hello && sleep 0.2 && cat change && cat >/dev/null"});
    BOOST_TEST(session->protocol_version() == 7u);
    BOOST_CHECK_THROW(session->wait_for_changes(Clock::now() + kTimeout), liveupdate::agent_client::AgentSessionBroken);
    BOOST_TEST(!session->alive());
}

BOOST_AUTO_TEST_CASE(a_file_past_one_frame_comes_back_whole_in_parts) {
    TempDir dir{"lu-sync-back-client"};
    auto session = start({LU_AGENT_PATH});
    BOOST_REQUIRE(session->watch_changes(WatchChanges{5, dir.path().string(), {"big.bin"}, 64u << 20, 5, 0, {}, {}},
                                         Clock::now() + kTimeout, {}) == "");
    // 40 MiB, each MiB different, so that a part lost, repeated or out of order shows.
    std::string content(std::size_t{40} << 20, '\0');
    for (std::size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>((i * 7 + (i >> 20)) & 0xff);
    { std::ofstream(dir.path() / "big.tmp", std::ios::binary) << content; }
    fs::rename(dir.path() / "big.tmp", dir.path() / "big.bin");
    std::vector<ContainerChange> changes;
    const auto deadline = Clock::now() + kTimeout;
    while (changes.empty() && Clock::now() < deadline) {
        // A forward write meanwhile is answered, between the parts or after them.
        session->send(
            encode(WriteFile{dir.path().string() + "/fwd.txt", dir.path().string(), 0644, kKeepOwner, kKeepOwner, "x"}),
            Clock::now() + kTimeout);
        BOOST_TEST(decode<Result>(session->receive(Clock::now() + kTimeout)).error == 0);
        session->wait_for_changes(Clock::now() + std::chrono::milliseconds(100));
        changes = session->take_changes();
    }
    BOOST_REQUIRE(changes.size() == 1u);
    BOOST_TEST(changes.front().path == "big.bin");
    BOOST_TEST(changes.front().has_content == 1u);
    BOOST_TEST(changes.front().size == content.size());
    BOOST_TEST((changes.front().content == content), "the content came back other than written");
    BOOST_TEST(session->alive());
}

namespace {

// A session with a scripted agent of version 7 that answers the watch
// (limit 1000 bytes) and then sends `frames`.
std::unique_ptr<AgentSession> watched_by_script(const TempDir &dir, const std::string &frames) {
    std::ofstream(dir.path() / "hello", std::ios::binary) << encode(HelloReply{7, "scripted"});
    std::ofstream(dir.path() / "frames", std::ios::binary) << encode(Result{0, ""}) + frames;
    auto session = start({"sh", "-c", "cd " + dir.path().string() + " && cat hello frames && cat >/dev/null"});
    BOOST_REQUIRE(
        session->watch_changes(WatchChanges{1, "/app", {"*"}, 1000, 0, 0, {}, {}}, Clock::now() + kTimeout, {}) == "");
    return session;
}

ContainerChange written(const std::string &path, std::uint64_t size, const std::string &content) {
    return {1, path, static_cast<std::uint8_t>(ChangeKind::written), 0644, size, 0, 1, content, ""};
}

}  // namespace

BOOST_AUTO_TEST_CASE(parts_are_joined_to_their_change_in_order) {
    TempDir dir{"lu-sync-back-client"};
    auto session =
        watched_by_script(dir, encode(ContainerChangePart{1, "a", "ab"}) + encode(ContainerChangePart{1, "a", "cd"}) +
                                   encode(written("a", 6, "ef")) + encode(written("b", 1, "z")));
    std::vector<ContainerChange> changes;
    for (const auto deadline = Clock::now() + kTimeout; changes.size() < 2 && Clock::now() < deadline;) {
        session->wait_for_changes(deadline);
        for (auto &c : session->take_changes()) changes.push_back(std::move(c));
    }
    BOOST_REQUIRE(changes.size() == 2u);
    BOOST_TEST(changes[0].content == "abcdef");
    BOOST_TEST(changes[1].content == "z");
}

BOOST_AUTO_TEST_CASE(parts_past_the_limit_or_of_another_file_break_the_session) {
    const std::string part(600, 'p');
    for (const std::string &frames :
         {encode(ContainerChangePart{1, "a", part}) + encode(ContainerChangePart{1, "a", part}),
          encode(ContainerChangePart{1, "a", "ab"}) + encode(ContainerChangePart{1, "b", "cd"}),
          encode(ContainerChangePart{1, "a", "ab"}) + encode(written("b", 4, "cd")),
          encode(ContainerChangePart{1, "a", "ab"}) + encode(written("a", 9, "cd"))}) {
        TempDir dir{"lu-sync-back-client"};
        auto session = watched_by_script(dir, frames);
        BOOST_CHECK_THROW(session->wait_for_changes(Clock::now() + kTimeout),
                          liveupdate::agent_client::AgentSessionBroken);
        BOOST_TEST(!session->alive());
        BOOST_TEST(session->take_changes().empty());
    }
}
