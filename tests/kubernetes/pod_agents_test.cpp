// updaters/kubernetes/pod_agents: where lu-agent cannot run, it is not tried
// again at every update, but a refusal lapses as the docker updater's does
// (a new container, or a bounded number of updates). No cluster: the agent
// binary is missing, so the agent is refused before any exec; the
// kubeconfig too, so a digest cannot ask a cluster whether the pod is gone.
#define BOOST_TEST_MODULE pod_agents
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "common/agent_client/agent_refusals.hpp"
#include "updaters/kubernetes/pod_agents.hpp"

using namespace liveupdate;
using namespace liveupdate::kubernetes;

namespace {

struct Fixture {
    KubectlConfig config = [] {
        KubectlConfig c;
        c.agent_path = "/nonexistent/lu-agent";
        c.kubeconfig = "/nonexistent/kubeconfig";  // no cluster, whatever $KUBECONFIG says
        return c;
    }();
    PodAgents agents{config, std::make_shared<ApiExec>(config)};
    std::vector<std::string> warnings;

    // How many times the agent was tried (each try that fails warns once).
    std::size_t tries_after_update(const std::string &container_id) {
        updater::Request request;
        request.container = {container_id, "app", "web-0", "default", ""};
        request.log = updater::UpdateLog(
            [](void *ctx, std::int32_t level, lu_str line) {
                if (level == LU_LOG_WARN)
                    static_cast<std::vector<std::string> *>(ctx)->emplace_back(line.data, line.size);
            },
            &warnings);
        BOOST_TEST(!agents.update(request, nullptr).has_value());
        return warnings.size();
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_refusal_is_remembered_for_a_bounded_number_of_updates, Fixture) {
    BOOST_TEST(tries_after_update("containerd://a") == 1u);
    BOOST_TEST(warnings[0].find("lu-agent cannot run in pod default/web-0 container app") == 0u, warnings[0]);
    for (int i = 0; i < agent_client::AgentRefusals::kUpdatesBeforeRetry; ++i)
        BOOST_TEST(tries_after_update("containerd://a") == 1u);
    BOOST_TEST(tries_after_update("containerd://a") == 2u);  // used up: tried again
}

BOOST_FIXTURE_TEST_CASE(a_new_container_is_tried_again_and_the_old_refusal_forgotten, Fixture) {
    BOOST_TEST(tries_after_update("containerd://a") == 1u);
    BOOST_TEST(tries_after_update("containerd://b") == 2u);  // restarted: a new container ID
    BOOST_TEST(tries_after_update("containerd://b") == 2u);
}

// A digest (`lu-host verify`, a restarted daemon's start) is the agent's:
// where it cannot run, the outcome says so for the user; a container
// without a pod or an unusable path fails before any exec.
BOOST_FIXTURE_TEST_CASE(a_digest_where_the_agent_cannot_run_is_unavailable_saying_why, Fixture) {
    const updater::ContainerRef container{"containerd://a", "app", "web-0", "default", ""};
    agent_protocol::Digest request;
    request.path = "/app";
    const auto never = [](const agent_protocol::DigestEntry &) { return true; };
    const auto outcome = agents.digest(container, request, never, {});
    BOOST_TEST((outcome.kind == agent_client::DigestOutcome::Kind::unavailable));
    BOOST_TEST(outcome.message.find("verify needs lu-agent in the container: ") == 0u, outcome.message);

    const updater::ContainerRef no_pod{"containerd://a", "app", "", "default", ""};
    const auto without_pod = agents.digest(no_pod, request, never, {});
    BOOST_TEST((without_pod.kind == agent_client::DigestOutcome::Kind::failed));
    BOOST_TEST(without_pod.message == "no pod to digest /app in");

    request.path = "/app/../etc";
    const auto climbing = agents.digest(container, request, never, {});
    BOOST_TEST((climbing.kind == agent_client::DigestOutcome::Kind::failed));
    BOOST_TEST(climbing.message.find("cannot digest /app/../etc: ") == 0u, climbing.message);
}
