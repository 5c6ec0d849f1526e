// updaters/kubernetes/pod_agents' digest and update against the real
// single-node cluster (../shared/k8s, started by the k8s_cluster fixture): an
// exec reaches a pod by name, so a digest asked for a container that was
// replaced (a pod deleted and made again under its name) or deleted fails,
// saying so, rather than read another container or pass for an agent that
// cannot run (a restarted daemon's initial sync overwrites on both); and an
// update meant for the replaced container is not sent to the new one, through
// lu-agent or, with the agent off, over per-update exec (the updater's .so),
// even when the pod is made again after the look at it and before the exec
// reaches it (a stand-in exec that replaces the pod first: exec_gate.hpp).
// Pods live in namespace lu-k8s-replaced-h3-PID (a run of its own: worktrees share
// the cluster). Without the cluster folder: exit 77 (skipped).
#define BOOST_TEST_MODULE k8s_pod_replaced
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/kube/api_client.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/kubernetes/k8s_test_support.hpp"
#include "updaters/kubernetes/pod_agents.hpp"
#include "updaters/kubernetes/pod_state.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
namespace kube = liveupdate::kube;
namespace ac = liveupdate::agent_client;
namespace ap = liveupdate::agent_protocol;
using namespace std::chrono_literals;
using liveupdate::kubernetes::KubectlConfig;
using liveupdate::kubernetes::PodAgents;
using lu_test::k8s::admin;
using lu_test::k8s::admin_kubeconfig;
using lu_test::k8s::wait_until;

namespace {

const std::string kNamespace = "lu-k8s-replaced-h3-" + std::to_string(::getpid());
const std::string kPod = "digest";

json::value pod_json() { return json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods/" + kPod)); }

// The pod's container "main" once it runs: its ID without the runtime's scheme.
std::string running_container_id() {
    std::string id;
    wait_until(
        [&] {
            const json::value p = pod_json();
            const auto *statuses = p.at("status").as_object().if_contains("containerStatuses");
            if (statuses == nullptr || statuses->as_array().empty()) return false;
            const json::object &status = statuses->as_array()[0].as_object();
            if (!status.at("state").as_object().contains("running")) return false;
            id = std::string(status.at("containerID").as_string());
            return true;
        },
        60s);
    if (id.empty()) throw std::runtime_error("pod " + kNamespace + "/" + kPod + " does not run");
    return id.substr(id.find("://") + 3);
}

void create_pod() {
    const auto r = admin().request("POST", "/api/v1/namespaces/" + kNamespace + "/pods",
                                   json::serialize(lu_test::k8s::busybox_pod(kPod)));
    if (r.status / 100 != 2) throw std::runtime_error("creating pod " + kPod + ": " + kube::status_message(r.body));
}

// A graceful delete: the kubelet removes the pod only once its containers
// stopped. A forced one (grace 0) removes it at once while the old container
// and its lu-agent may still run a moment, and an update meant for it then
// rightly lands there rather than fail as the test expects.
void delete_pods() {
    admin().request("DELETE", "/api/v1/namespaces/" + kNamespace + "/pods?gracePeriodSeconds=1");
    wait_until(
        [] {
            return json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods"))
                .at("items")
                .as_array()
                .empty();
        },
        60s);
}

struct Cluster {
    Cluster() {
        if (!fs::exists(std::string(LU_K8S_DIR) + "/cluster.sh")) {
            std::cout << "SKIPPED: no cluster: " << LU_K8S_DIR << " not found" << std::endl;
            std::exit(77);
        }
        for (const auto &[path, body] : std::vector<std::pair<std::string, std::string>>{
                 {"/api/v1/namespaces",
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + kNamespace + "\"}}"},
                 {"/api/v1/namespaces/" + kNamespace + "/serviceaccounts",
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})"}}) {
            const auto r = admin().request("POST", path, body);
            if (r.status / 100 != 2 && r.status != 409)
                throw std::runtime_error("POST " + path + ": " + kube::status_message(r.body));
        }
        delete_pods();
    }
    ~Cluster() { admin().request("DELETE", "/api/v1/namespaces/" + kNamespace); }
};

struct Agents {
    KubectlConfig config = [] {
        KubectlConfig c;
        c.kubeconfig = admin_kubeconfig();
        c.agent_path = LU_AGENT_PATH;
        c.timeout = std::chrono::seconds(20);
        return c;
    }();
    PodAgents agents{config, std::make_shared<liveupdate::kubernetes::ApiExec>(config)};

    // Runs `touch path` in the container through its agent.
    liveupdate::updater::Outcome touch(const std::string &container_id, const std::string &path) {
        liveupdate::updater::Request request;
        request.live_update = "replaced";
        request.via = "kubernetes";
        request.container = {container_id, "main", kPod, kNamespace, ""};
        request.runs = {liveupdate::updater::RunStep{.argv = {"touch", path}}};
        const auto outcome = agents.update(request, nullptr);
        if (!outcome) throw std::runtime_error("lu-agent cannot run in pod " + kNamespace + "/" + kPod);
        return *outcome;
    }

    ac::DigestOutcome digest(const std::string &container_id, std::size_t &entries) {
        const liveupdate::updater::ContainerRef container{container_id, "main", kPod, kNamespace, ""};
        ap::Digest request;
        request.path = "/etc";
        return agents.digest(container, request,
                             [&entries](const ap::DigestEntry &) {
                                 ++entries;
                                 return true;
                             },
                             {});
    }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(Cluster);

BOOST_FIXTURE_TEST_CASE(a_digest_of_a_replaced_or_deleted_pod_fails_saying_so, Agents) {
    create_pod();
    const std::string first = running_container_id();
    std::size_t entries = 0;
    const auto found = digest(first, entries);
    BOOST_TEST((found.kind == ac::DigestOutcome::Kind::ok), found.message);
    BOOST_TEST(entries > 0u);

    // The same name, another container: the exec reaches the new one.
    delete_pods();
    create_pod();
    BOOST_TEST_REQUIRE(running_container_id() != first);
    const auto replaced = digest(first, entries);
    BOOST_TEST((replaced.kind == ac::DigestOutcome::Kind::failed), replaced.message);
    BOOST_TEST(replaced.message.find("was started again since") != std::string::npos, replaced.message);

    // No pod at all: gone, not an agent that cannot run.
    delete_pods();
    const auto deleted = digest(first, entries);
    BOOST_TEST((deleted.kind == ac::DigestOutcome::Kind::failed), deleted.message);
    BOOST_TEST(deleted.message.find("is gone (deleted)") != std::string::npos, deleted.message);
}

// The session of the first container ends with it; the update for it then
// starts a session by the pod's name, which reaches the new container: it
// is not sent there, and says the container meant is not running (C07).
BOOST_FIXTURE_TEST_CASE(an_update_for_a_replaced_pods_container_is_not_sent_to_the_new_one, Agents) {
    create_pod();
    const std::string first = running_container_id();
    const auto sent = touch(first, "/tmp/first");
    BOOST_TEST((sent.kind == liveupdate::updater::Outcome::Kind::ok), sent.message);

    delete_pods();
    create_pod();
    const std::string second = running_container_id();
    BOOST_TEST_REQUIRE(second != first);
    const auto stale = touch(first, "/tmp/stale");
    BOOST_TEST((stale.kind == liveupdate::updater::Outcome::Kind::container_not_running), stale.message);
    BOOST_TEST(stale.message.find("pod " + kNamespace + "/" + kPod) != std::string::npos, stale.message);
    BOOST_TEST(stale.message.find("was started again since") != std::string::npos, stale.message);
    BOOST_TEST(lu_test::k8s::exec_sh(kNamespace, kPod, "test -e /tmp/stale").first == 1);

    // The new container's own update goes through.
    const auto fresh = touch(second, "/tmp/fresh");
    BOOST_TEST((fresh.kind == liveupdate::updater::Outcome::Kind::ok), fresh.message);
    BOOST_TEST(lu_test::k8s::exec_sh(kNamespace, kPod, "test -e /tmp/fresh").first == 0);
    delete_pods();
}

// Without lu-agent ("agent": false: tar and the runs over per-update exec)
// the same: the pod is looked at once before anything is sent.
BOOST_AUTO_TEST_CASE(an_update_over_exec_for_a_replaced_pods_container_is_not_sent_to_the_new_one) {
    lu_test::DockerUpdater plain(R"({"kubeconfig": ")" + admin_kubeconfig() + R"(", "agent": false})",
                                 LU_KUBERNETES_UPDATER_PATH);
    const auto update_of = [](const std::string &file) {
        lu_test::Update u;
        u.pod = kPod;
        u.namespace_name = kNamespace;
        u.archive = lu_test::TarBuilder().file("tmp/" + file, "sent\n").finish();
        u.copies = {{"/src/" + file, "/tmp/" + file}};
        u.runs = {{{"touch", "/tmp/" + file + "-ran"}, false}};
        return u;
    };
    create_pod();
    const std::string first = running_container_id();
    const auto sent = plain.update(first, "main", update_of("first"));
    BOOST_TEST(sent.kind == LU_OUTCOME_OK, sent.message);
    BOOST_TEST(!sent.logged("lu-agent"));
    BOOST_TEST(lu_test::k8s::exec_sh(kNamespace, kPod, "cat /tmp/first").second == "sent\n");

    delete_pods();
    create_pod();
    const std::string second = running_container_id();
    BOOST_TEST_REQUIRE(second != first);
    const auto stale = plain.update(first, "main", update_of("stale"));
    BOOST_TEST(stale.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, stale.message);
    BOOST_TEST(stale.message.find("pod " + kNamespace + "/" + kPod) != std::string::npos, stale.message);
    BOOST_TEST(stale.message.find("was started again since") != std::string::npos, stale.message);
    BOOST_TEST(lu_test::k8s::exec_sh(kNamespace, kPod, "test -e /tmp/stale || test -e /tmp/stale-ran").first == 1);

    const auto fresh = plain.update(second, "main", update_of("fresh"));
    BOOST_TEST(fresh.kind == LU_OUTCOME_OK, fresh.message);
    BOOST_TEST(lu_test::k8s::exec_sh(kNamespace, kPod, "test -e /tmp/fresh && test -e /tmp/fresh-ran").first == 0);
    delete_pods();
}

// The window an exec's name leaves: the pod is made again after the update
// began and before its first exec reaches the pod (the stand-in exec below
// replaces it, then execs as the updater does). The update's writes and
// deletes must not reach the new container, whose own file /tmp/keep the
// update would delete.
BOOST_AUTO_TEST_CASE(a_pod_made_again_before_the_exec_reaches_it_is_sent_nothing) {
    KubectlConfig config;
    config.kubeconfig = admin_kubeconfig();
    config.timeout = std::chrono::seconds(20);
    const auto api = std::make_shared<liveupdate::kubernetes::ApiExec>(config);
    create_pod();
    const std::string first = running_container_id();

    bool replaced = false;
    const liveupdate::kubernetes::PodExecFn replacing_exec =
        [&](const kube::PodExecTarget &target, const std::vector<std::string> &command, const kube::ExecStdinFn *input,
            std::chrono::seconds timeout, const liveupdate::updater::UpdateLog &log) {
            if (!replaced) {
                replaced = true;
                delete_pods();
                create_pod();
                running_container_id();
                BOOST_TEST_REQUIRE(lu_test::k8s::exec_sh(kNamespace, kPod, "echo mine > /tmp/keep").first == 0);
            }
            return (*api)(target, command, input, timeout, log);
        };

    const std::string tar = lu_test::TarBuilder().file("tmp/stale", "sent\n").finish();
    std::size_t at = 0;
    liveupdate::updater::Request request;
    request.live_update = "replaced";
    request.via = "kubernetes";
    request.container = {first, "main", kPod, kNamespace, ""};
    request.copies = {{"/src/stale", "/tmp/stale"}};
    request.archive = [&](void *buffer, std::size_t capacity) -> std::int64_t {
        const std::size_t n = std::min(capacity, tar.size() - at);
        std::memcpy(buffer, tar.data() + at, n);
        at += n;
        return static_cast<std::int64_t>(n);
    };
    request.delete_paths = {"/tmp/keep"};
    request.sync_roots = {"/tmp"};
    request.runs = {liveupdate::updater::RunStep{.argv = {"touch", "/tmp/stale-ran"}}};
    const auto outcome = liveupdate::kubernetes::update_pod_container(replacing_exec, config, request, [&] {
        return liveupdate::kubernetes::container_gone_reason(*api, request.container);
    });

    BOOST_TEST_REQUIRE(replaced);
    BOOST_TEST((outcome.kind == liveupdate::updater::Outcome::Kind::container_not_running), outcome.message);
    BOOST_TEST(outcome.message.find("pod " + kNamespace + "/" + kPod) != std::string::npos, outcome.message);
    BOOST_TEST(outcome.message.find("was started again since") != std::string::npos, outcome.message);
    const auto kept = lu_test::k8s::exec_sh(kNamespace, kPod, "cat /tmp/keep");
    BOOST_TEST(kept.second == "mine\n", "the new container's /tmp/keep: " << kept.second);
    BOOST_TEST(lu_test::k8s::exec_sh(kNamespace, kPod, "test -e /tmp/stale || test -e /tmp/stale-ran").first == 1);
    delete_pods();
}
