// updaters/kubernetes/agent_start_failure: which failures of lu-agent's start
// in a pod last (the agent refused there, a digest `unavailable`) and which
// pass (the digest fails and is asked again). A passing cause taken for a
// lasting one would let a restarted daemon's initial sync overwrite what the
// app changed in the pod.
#define BOOST_TEST_MODULE agent_start_failure
#include <boost/test/unit_test.hpp>

#include "updaters/kubernetes/agent_start_failure.hpp"

using liveupdate::kubernetes::AgentStartFailure;
using liveupdate::kubernetes::lasting_agent_refusal;

namespace {

using Step = AgentStartFailure::Step;

AgentStartFailure copy(int exit_code, const char *said) { return {Step::copy, exit_code, 0, said}; }
AgentStartFailure start(int exit_code, const char *said) { return {Step::start, exit_code, 0, said}; }
AgentStartFailure refused(Step step, long status, const char *said) { return {step, -1, status, said}; }

}  // namespace

BOOST_AUTO_TEST_CASE(causes_that_pass_are_not_lasting) {
    // The API server's 5xx while the agent's exec ran (its Status on the stream), and on the copy's.
    BOOST_TEST(!lasting_agent_refusal(start(-1,
                                            "starting it: the agent ended the session (Internal error occurred: "
                                            "error sending request: Post \"https://10.0.0.5:10250/exec\": EOF)")));
    BOOST_TEST(!lasting_agent_refusal(copy(-1, "Internal error occurred: error executing command in container")));
    BOOST_TEST(
        !lasting_agent_refusal(refused(Step::start, 503, "the server is currently unable to handle the request")));
    // A timeout and a reset connection during the handshake.
    BOOST_TEST(!lasting_agent_refusal(start(-1, "the agent did not answer in time")));
    BOOST_TEST(!lasting_agent_refusal(start(-1, "starting it: the exec stream broke: Connection reset by peer")));
    // The pod not running yet, or its container restarted between the copy and the start.
    BOOST_TEST(!lasting_agent_refusal(start(-1, "container not found (\"app\")")));
    BOOST_TEST(!lasting_agent_refusal(refused(Step::start, 400, "pod web-0 does not have a host assigned")));
    BOOST_TEST(!lasting_agent_refusal(start(127, "starting it: agent exit code 127")));
    // tar failing for a cause that passes (a full disk), or its exec cut short.
    BOOST_TEST(!lasting_agent_refusal(copy(2, "tar: lu-agent: Cannot write: No space left on device")));
    BOOST_TEST(!lasting_agent_refusal(copy(-1, "")));
    // The agent ending early for its own reason.
    BOOST_TEST(!lasting_agent_refusal(start(1, "starting it: agent exit code 1")));
}

BOOST_AUTO_TEST_CASE(causes_that_last_as_long_as_the_container_are_lasting) {
    // No tar in the image, and a read-only root (GNU tar and busybox say it alike).
    BOOST_TEST(lasting_agent_refusal(copy(127, "exec: \"tar\": executable file not found in $PATH")));
    BOOST_TEST(lasting_agent_refusal(copy(2, "tar: .lu-agent: Cannot mkdir: Read-only file system")));
    BOOST_TEST(lasting_agent_refusal(copy(1, "tar: can't create directory '.lu-agent': Read-only file system")));
    // Found but not executable: by its exit code, or the runtime's words where it gives none.
    BOOST_TEST(lasting_agent_refusal(start(126, "starting it: agent exit code 126")));
    BOOST_TEST(lasting_agent_refusal(start(-1, "exec /.lu-agent/lu-agent: exec format error")));
    BOOST_TEST(lasting_agent_refusal(start(-1, "exec: \"/.lu-agent/lu-agent\": permission denied")));
    // RBAC forbids pods/exec, on the agent's exec or the copy's.
    BOOST_TEST(lasting_agent_refusal(refused(Step::start, 403, "pods \"web-0\" is forbidden")));
    BOOST_TEST(lasting_agent_refusal(refused(Step::copy, 403, "pods \"web-0\" is forbidden")));
}

BOOST_AUTO_TEST_CASE(tars_read_only_words_last_without_an_exit_code) {
    // tar ends on EROFS while its input still streams: the exec ends without a
    // status, as the real cluster shows (k8s_agent's read-only root).
    BOOST_TEST(lasting_agent_refusal(copy(-1, "tar: can't make dir .lu-agent: Read-only file system")));
}
