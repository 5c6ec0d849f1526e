// Sync back's agent half in a real container: lu-agent run by `docker exec
// -i` in an lu-busybox container watches /app, and the host's session
// (AgentSession) gets what the container did: a written file with its bytes
// and digest, a delete, a hostile name as it is, a symlink to /etc as a
// symlink, never followed.
#define BOOST_TEST_MODULE agent_sync_back_docker
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/agent_client/agent_session.hpp"
#include "common/sync_back/sync_back_limits.hpp"
#include "tests/agent/process_transport.hpp"
#include "tests/docker/docker_test_support.hpp"

using namespace liveupdate::agent_protocol;
using liveupdate::agent_client::AgentSession;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::chrono::seconds kTimeout{30};
const std::string kAgentInContainer = "/lu-sync-back-agent";

struct Watched {
    lu_test::TestContainer container{"lu-busybox:latest", "sleep 100000"};
    std::unique_ptr<AgentSession> session;
    std::map<std::string, ContainerChange> last;  // by path

    Watched() {
        lu_test::sh_ok("docker cp " + lu_test::shell_quote(LU_AGENT_PATH) + " " + container.name() + ":" +
                       kAgentInContainer);
        container.exec("mkdir -p /app/gen");
        session = AgentSession::start(std::make_unique<lu_agent_test::ProcessTransport>(std::vector<std::string>{
                                          "docker", "exec", "-i", container.name(), kAgentInContainer}),
                                      kTimeout, [](std::string_view) {});
        const auto refused = session->watch_changes(
            WatchChanges{1, "/app", {"*.txt", "gen", "link", "..*", "?bad", "etc-*"}, 64u << 20, 20, 0, {}, {}},
            Clock::now() + kTimeout, {});
        BOOST_REQUIRE_MESSAGE(refused.empty(), refused);
    }
    // Waits until path's last change is of `kind` (and of `mode`, unless 0).
    const ContainerChange &await(const std::string &path, ChangeKind kind, std::uint32_t mode = 0) {
        const auto deadline = Clock::now() + kTimeout;
        for (;;) {
            const auto found = last.find(path);
            if (found != last.end() && found->second.kind == static_cast<std::uint8_t>(kind) &&
                (mode == 0 || found->second.mode == mode))
                return found->second;
            BOOST_REQUIRE_MESSAGE(Clock::now() < deadline, "no " << static_cast<int>(kind) << " change of " << path);
            session->wait_for_changes(deadline);
            for (auto &c : session->take_changes()) last[c.path] = std::move(c);
        }
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_written_in_the_container_arrives_with_its_digest_and_bytes_then_its_delete) {
    Watched w;
    w.container.exec("printf 'lock\\001\\377v2' > /app/package.txt && chmod 640 /app/package.txt");
    // Sent once its writer closed it, and again for the chmod after.
    const auto &written = w.await("package.txt", ChangeKind::written, 0640);
    const std::string expected("lock\001\377v2", 8);
    BOOST_TEST(written.has_content == 1u);
    BOOST_TEST(written.content == expected);
    BOOST_TEST(written.size == expected.size());
    BOOST_TEST(written.hash == XXH3_64bits(expected.data(), expected.size()));
    BOOST_TEST(written.mode == 0640u);
    w.container.exec("mkdir -p /app/gen/db && echo 'create table t;' > /app/gen/db/001.sql");
    BOOST_TEST(w.await("gen/db/001.sql", ChangeKind::written).content == "create table t;\n");

    w.container.exec("rm /app/package.txt");
    const auto &deleted = w.await("package.txt", ChangeKind::deleted);
    BOOST_TEST(!deleted.has_content);
    BOOST_TEST(w.session->alive());
}

BOOST_AUTO_TEST_CASE(hostile_names_and_symlinks_arrive_as_they_are_never_followed) {
    Watched w;
    w.container.exec("ln -s /etc /app/link && ln -s /etc/passwd /app/etc-passwd && mkfifo /app/etc-fifo");
    w.container.exec(
        "echo dots > '/app/..' 2>/dev/null; echo dots > '/app/..hidden' && echo x > \"/app/$(printf "
        "'\\377')bad\"");
    const auto &link = w.await("link", ChangeKind::symlink);
    BOOST_TEST(!link.has_content);
    BOOST_TEST(link.hash == XXH3_64bits("/etc", 4));
    const auto &passwd = w.await("etc-passwd", ChangeKind::symlink);
    BOOST_TEST(!passwd.has_content);
    BOOST_TEST(passwd.content.empty());
    BOOST_TEST(w.await("etc-fifo", ChangeKind::other).content.empty());
    BOOST_TEST(w.await("..hidden", ChangeKind::written).content == "dots\n");
    // A name that is not UTF-8 arrives as its bytes; the host's rules refuse it.
    const auto &bad = w.await("\377bad", ChangeKind::written);
    BOOST_TEST(!liveupdate::sync_back::name_refusal(bad.path, {}).empty());
    // Nothing beneath the symlinked folder came: /etc was never walked.
    for (const auto &[path, change] : w.last) BOOST_TEST(path.rfind("link/", 0) != 0, path);
}
