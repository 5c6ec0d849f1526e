// The kubernetes updater through lu-agent against the real single-node
// cluster (../shared/k8s, started by the k8s_cluster fixture): copies,
// deletes and runs over one session, a killed agent replaced without an
// update applied twice, and a read-only root filesystem falling back to
// per-update exec, or, with an agent injected at admission, live-updating
// without a copy. Pods live in namespace lu-k8s-agent. Without the cluster
// folder: exit 77 (skipped).
#define BOOST_TEST_MODULE k8s_agent
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <thread>

#include "common/kube/api_client.hpp"
#include "common/kube/kubeconfig.hpp"
#include "common/kube/pod_exec.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/kubernetes/k8s_test_support.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
namespace kube = liveupdate::kube;
using namespace std::chrono_literals;
using lu_test::DockerUpdater;
using lu_test::TarBuilder;
using lu_test::Update;
using lu_test::k8s::admin;
using lu_test::k8s::admin_kubeconfig;
using lu_test::k8s::busybox_pod;
using lu_test::k8s::wait_until;

namespace {

const std::string kNamespace = "lu-k8s-agent";

enum class Root { writable, read_only };
enum class Command { plain, supervised };
// copied: the updater copies its agent in; injected: this build's lu-agent
// mounted read-only at /.lu-agent/injected as `lu-host webhook --mutate`
// mounts it, a supervised command's socket in a writable run folder as the
// webhook's patch sets it up.
enum class Agent { copied, injected };

const std::string kInjectedFolder = "/.lu-agent/injected";

void add_volume(json::object &spec, json::object &container, const std::string &name, json::object source,
                const std::string &at, bool read_only = false) {
    if (!spec.contains("volumes")) spec["volumes"] = json::array{};
    if (!container.contains("volumeMounts")) container["volumeMounts"] = json::array{};
    source["name"] = name;
    spec["volumes"].as_array().push_back(std::move(source));
    container["volumeMounts"].as_array().push_back({{"name", name}, {"mountPath", at}, {"readOnly", read_only}});
}

// The file a supervised app writes its PID to: in /app where the root is read-only.
std::string pid_file(Root root) { return root == Root::read_only ? "/app/app.pid" : "/tmp/app.pid"; }

// A busybox pod; read_only: its root filesystem read-only, /app an emptyDir.
// supervised: its command wrapped by hand as the webhook wraps it
// (`lu-agent supervise -- ...`), this build's lu-agent mounted from the host;
// the app writes its PID to pid_file ($$ is how a pod's command says $).
void create_pod(const std::string &name, Root root = Root::writable, Command command = Command::plain,
                Agent agent = Agent::copied) {
    json::object pod = busybox_pod(name);
    json::object &spec = pod["spec"].as_object();
    json::object &container = spec["containers"].as_array()[0].as_object();
    const std::string agent_folder = fs::path(LU_AGENT_PATH).parent_path().string();
    const json::object host_agent{{"hostPath", {{"path", agent_folder}, {"type", "Directory"}}}};
    if (agent == Agent::injected) add_volume(spec, container, "lu-injected", host_agent, kInjectedFolder, true);
    if (command == Command::supervised) {
        const std::string bin = agent == Agent::injected ? kInjectedFolder : "/lu-bin";
        container["command"] =
            json::array{bin + "/lu-agent",
                        "supervise",
                        "--",
                        "/bin/sh",
                        "-c",
                        "echo $$$$ > " + pid_file(root) + "; trap 'exit 0' TERM; while true; do sleep 1; done"};
        if (agent == Agent::copied) add_volume(spec, container, "lu-bin", host_agent, "/lu-bin", true);
        if (agent == Agent::injected) {
            add_volume(spec, container, "lu-run", {{"emptyDir", json::object{}}}, "/.lu-agent/run");
            container["env"] =
                json::array{{{"name", "LU_SUPERVISE_SOCKET"}, {"value", "/.lu-agent/run/supervise.sock"}}};
        }
    }
    if (root == Root::read_only) {
        container["securityContext"] = {{"readOnlyRootFilesystem", true}};
        add_volume(spec, container, "app", {{"emptyDir", json::object{}}}, "/app");
    }
    const auto r = admin().request("POST", "/api/v1/namespaces/" + kNamespace + "/pods", json::serialize(pod));
    if (r.status / 100 != 2) throw std::runtime_error("creating pod " + name + ": " + kube::status_message(r.body));
    const bool up = wait_until(
        [&] {
            const auto p = json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods/" + name)).as_object();
            const auto *phase = p.at("status").as_object().if_contains("phase");
            return phase != nullptr && phase->as_string() == "Running";
        },
        60s);
    if (!up) throw std::runtime_error("pod " + name + " is not Running");
}

void delete_pod(const std::string &name) {
    admin().request("DELETE", "/api/v1/namespaces/" + kNamespace + "/pods/" + name + "?gracePeriodSeconds=0");
}

std::pair<int, std::string> exec_sh(const std::string &pod, const std::string &script) {
    return lu_test::k8s::exec_sh(kNamespace, pod, script);
}

// The pids of the lu-agent processes in the pod.
std::string agent_pids(const std::string &pod) {
    return exec_sh(pod,
                   "for p in /proc/[0-9]*; do case $(cat $p/cmdline 2>/dev/null | tr '\\0' ' ') in "
                   "/.lu-agent/*) echo ${p#/proc/};; esac; done")
        .second;
}

Update update_of(const std::string &pod) {
    Update u;
    u.pod = pod;
    u.namespace_name = kNamespace;
    return u;
}

std::string config(const std::string &extra = "") {
    return R"({"kubeconfig": ")" + admin_kubeconfig() + "\"" + extra + "}";
}

// "agent-pid=N" in a run's output: the pid of the process that started the command.
std::string logged_agent_pid(const lu_test::Outcome &o) {
    for (const auto &line : o.logs)
        if (line.starts_with("agent-pid=")) return line.substr(10);
    return "";
}

struct ClusterCheck {
    ClusterCheck() {
        const std::string dir = LU_K8S_DIR;
        if (!fs::exists(dir + "/cluster.sh")) {
            std::cout << "SKIPPED: no cluster: " << dir << " not found (the Kubernetes tests need ../shared/k8s)"
                      << std::endl;
            std::exit(77);
        }
        if (!fs::exists(admin_kubeconfig())) {
            std::cout << "the cluster is not started: " << admin_kubeconfig() << " is missing" << std::endl;
            std::exit(1);
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
        admin().request("DELETE", "/api/v1/namespaces/" + kNamespace + "/pods?gracePeriodSeconds=0");
        wait_until(
            [] {
                return json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods"))
                    .at("items")
                    .as_array()
                    .empty();
            },
            30s);
    }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(ClusterCheck);

BOOST_AUTO_TEST_CASE(copies_deletes_and_runs_go_through_one_agent_session) {
    create_pod("one");
    DockerUpdater updater(config(R"(, "runTimeoutSeconds": 2)"), LU_KUBERNETES_UPDATER_PATH);
    auto u = update_of("one");
    u.archive = TarBuilder().dir("app").file("app/a/b/c.txt", "nested\n", 0640).file("app/old.txt", "old\n").finish();
    u.copies = {{"/src/a/b/c.txt", "/app/a/b/c.txt"}, {"/src/old.txt", "/app/old.txt"}};
    u.runs = {{{"sh", "-c", "echo agent-pid=$PPID"}, false}};
    const auto first = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("Started lu-agent"));
    BOOST_TEST(!first.logged("cannot run"));
    BOOST_TEST(exec_sh("one", "cat /app/a/b/c.txt").second == "nested\n");
    BOOST_TEST(exec_sh("one", "stat -c %a /app/a/b/c.txt").second == "640\n");
    const std::string pid = logged_agent_pid(first);
    BOOST_TEST_REQUIRE(!pid.empty());

    // The next update goes over the same session: the same agent runs its command.
    auto second = update_of("one");
    second.deletes = {"/app/old.txt"};
    second.runs = {{{"sh", "-c", "echo agent-pid=$PPID"}, false}};
    const auto again = updater.update("", "main", second);
    BOOST_TEST_REQUIRE(again.kind == LU_OUTCOME_OK, again.message);
    BOOST_TEST(!again.logged("Started lu-agent"));
    BOOST_TEST(logged_agent_pid(again) == pid);
    BOOST_TEST(exec_sh("one", "test -e /app/old.txt").first == 1);
    BOOST_TEST(agent_pids("one") == pid + "\n");

    // A failing run keeps its exit code; past its limit a command is killed.
    auto fails = update_of("one");
    fails.runs = {{{"sh", "-c", "echo broken build >&2; exit 3"}, false}};
    const auto failed = updater.update("", "main", fails);
    BOOST_TEST(failed.kind == LU_OUTCOME_RUN_FAILURE, failed.message);
    BOOST_TEST(failed.exit_code == 3);
    BOOST_TEST(failed.logged("broken build"));
    auto slow = update_of("one");
    slow.runs = {{{"sleep", "30"}, false}};
    const auto start = std::chrono::steady_clock::now();
    const auto limited = updater.update("", "main", slow);
    BOOST_TEST(limited.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(limited.message.find("the limit is 2s; lu-agent killed") != std::string::npos, limited.message);
    BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));
    BOOST_TEST(exec_sh("one", "ps -o args | grep -c '^sleep 30' || true").second == "0\n");

    // "agent": false: per-update exec, no agent involved.
    DockerUpdater plain(config(R"(, "agent": false)"), LU_KUBERNETES_UPDATER_PATH);
    auto p = update_of("one");
    p.archive = TarBuilder().file("app/plain.txt", "plain\n").finish();
    p.copies = {{"/src/plain.txt", "/app/plain.txt"}};
    const auto plain_outcome = plain.update("", "main", p);
    BOOST_TEST(plain_outcome.kind == LU_OUTCOME_OK, plain_outcome.message);
    BOOST_TEST(!plain_outcome.logged("lu-agent"));
    BOOST_TEST(exec_sh("one", "cat /app/plain.txt").second == "plain\n");
    delete_pod("one");
}

int restart_count(const std::string &pod) {
    const auto p = json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods/" + pod)).as_object();
    return static_cast<int>(p.at("status").at("containerStatuses").at(0).at("restartCount").as_int64());
}

std::size_t log_index(const lu_test::Outcome &o, const std::string &needle) {
    for (std::size_t i = 0; i < o.logs.size(); ++i)
        if (o.logs[i].find(needle) != std::string::npos) return i;
    return o.logs.size();
}

// Kubernetes restarts no container in place: the process under lu-agent
// supervise is restarted instead, after the sync and the runs (Tilt's order).
BOOST_AUTO_TEST_CASE(a_restart_starts_the_supervised_process_again_in_the_same_container) {
    create_pod("sup", Root::writable, Command::supervised);
    const std::string before = exec_sh("sup", "cat " + pid_file(Root::writable)).second;
    BOOST_TEST_REQUIRE(!before.empty());
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    auto u = update_of("sup");
    u.archive = TarBuilder().dir("app").file("app/v.txt", "v2\n").finish();
    u.copies = {{"/src/v.txt", "/app/v.txt"}};
    u.runs = {{{"sh", "-c", "cat /app/v.txt > /app/ran.txt"}, false}};
    u.restart = true;
    const auto restarted = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(restarted.kind == LU_OUTCOME_OK, restarted.message + "\n" + restarted.log_text());
    BOOST_TEST(exec_sh("sup", "cat /app/ran.txt").second == "v2\n");
    const auto ran = log_index(restarted, "[CMD 1/1]");
    const auto restart = log_index(restarted, "Restarted the process of pod " + kNamespace + "/sup container main");
    BOOST_TEST(ran < restart, restarted.log_text());
    BOOST_TEST(restart < restarted.logs.size(), restarted.log_text());
    std::string after;
    wait_until(
        [&] {
            after = exec_sh("sup", "cat " + pid_file(Root::writable)).second;
            return !after.empty() && after != before;
        },
        10s);
    BOOST_TEST(after != before);
    BOOST_TEST(restarted.logged("pid " + before.substr(0, before.size() - 1) + ", now pid " +
                                after.substr(0, after.size() - 1)),
               restarted.log_text());
    BOOST_TEST(restart_count("sup") == 0);

    // A pod whose process runs unsupervised: the failure names the annotation to add.
    create_pod("nosup");
    auto plain = update_of("nosup");
    plain.restart = true;
    const auto refused = updater.update("", "main", plain);
    BOOST_TEST(refused.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(refused.message.find("liveupdate.dev/restart: process") != std::string::npos, refused.message);
    BOOST_TEST(refused.message.find("pod " + kNamespace + "/nosup container main") != std::string::npos,
               refused.message);
    delete_pod("sup");
    delete_pod("nosup");
}

// The warm first save (lu_updater_api.prepare): the agent runs before the first update, which uses its session.
BOOST_AUTO_TEST_CASE(prepare_starts_the_agent_ahead_of_the_first_update) {
    create_pod("warm");
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    BOOST_TEST_REQUIRE(updater.prepare("", "main", update_of("warm")) == "");
    const std::string prepared = agent_pids("warm");
    BOOST_TEST_REQUIRE(!prepared.empty());
    auto u = update_of("warm");
    u.runs = {{{"sh", "-c", "echo agent-pid=$PPID"}, false}};
    const auto first = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(!first.logged("Started lu-agent"));
    BOOST_TEST(logged_agent_pid(first) + "\n" == prepared);
    delete_pod("warm");
}

BOOST_AUTO_TEST_CASE(a_killed_agent_is_replaced_and_no_update_is_applied_twice) {
    create_pod("kill");
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    auto u = update_of("kill");
    u.archive = TarBuilder().file("k/1.txt", "1\n").finish();
    u.copies = {{"/src/1.txt", "/k/1.txt"}};
    BOOST_TEST_REQUIRE(updater.update("", "main", u).kind == LU_OUTCOME_OK);
    const std::string before = agent_pids("kill");
    BOOST_TEST_REQUIRE(!before.empty());

    // Killed between updates: the next one goes through a new session.
    BOOST_TEST_REQUIRE(exec_sh("kill", "kill -9 " + before).first == 0);
    u.archive = TarBuilder().file("k/2.txt", "2\n").finish();
    u.copies = {{"/src/2.txt", "/k/2.txt"}};
    const auto second = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
    BOOST_TEST((second.logged("ended; starting a new one") || second.logged("sending the update again")));
    BOOST_TEST(exec_sh("kill", "cat /k/2.txt").second == "2\n");
    const std::string after = agent_pids("kill");
    BOOST_TEST(!after.empty());
    BOOST_TEST(after != before);

    // Killed during a run: a failure, and the run is not sent again.
    auto run = update_of("kill");
    run.runs = {{{"sh", "-c", "echo ran >> /k/runs; kill -9 $PPID; sleep 5"}, false}};
    const auto killed = updater.update("", "main", run);
    BOOST_TEST(killed.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(killed.message.find("during a run: not sent again") != std::string::npos, killed.message);
    BOOST_TEST(exec_sh("kill", "cat /k/runs").second == "ran\n");

    // And the following update works again, through a third session.
    u.archive = TarBuilder().file("k/3.txt", "3\n").finish();
    u.copies = {{"/src/3.txt", "/k/3.txt"}};
    const auto third = updater.update("", "main", u);
    BOOST_TEST(third.kind == LU_OUTCOME_OK, third.message);
    BOOST_TEST(exec_sh("kill", "cat /k/3.txt").second == "3\n");
    BOOST_TEST(exec_sh("kill", "cat /k/runs").second == "ran\n");
    delete_pod("kill");
}

BOOST_AUTO_TEST_CASE(a_read_only_root_filesystem_falls_back_to_exec_and_says_why_once) {
    create_pod("ro", Root::read_only);
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    auto u = update_of("ro");
    u.archive = TarBuilder().file("app/ro1", "1\n").finish();
    u.copies = {{"/src/ro1", "/app/ro1"}};
    const auto first = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("lu-agent cannot run in pod " + kNamespace + "/ro container main"), first.log_text());
    BOOST_TEST(first.logged("Read-only file system"));
    BOOST_TEST(exec_sh("ro", "cat /app/ro1").second == "1\n");
    u.archive = TarBuilder().file("app/ro2", "2\n").finish();
    u.copies = {{"/src/ro2", "/app/ro2"}};
    const auto second = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
    BOOST_TEST(!second.logged("lu-agent cannot run"));
    BOOST_TEST(exec_sh("ro", "cat /app/ro2").second == "2\n");
    delete_pod("ro");
}

// Issue 36: an agent injected at admission is used as it is: nothing is copied in.
BOOST_AUTO_TEST_CASE(an_injected_agent_is_used_without_copying_one_in) {
    create_pod("inj", Root::writable, Command::plain, Agent::injected);
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    auto u = update_of("inj");
    u.archive = TarBuilder().file("app/i.txt", "injected\n").finish();
    u.copies = {{"/src/i.txt", "/app/i.txt"}};
    const auto first = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(
        first.logged("in pod " + kNamespace + "/inj container main (injected at " + kInjectedFolder + "/lu-agent)"),
        first.log_text());
    BOOST_TEST(!first.logged("cannot run"));
    BOOST_TEST(exec_sh("inj", "cat /app/i.txt").second == "injected\n");
    // The copies' folder holds the injected one's mount point only.
    BOOST_TEST(exec_sh("inj", "ls -A /.lu-agent").second == "injected\n");
    delete_pod("inj");
}

// A hardened pod: read-only root filesystem, an emptyDir at the sync path,
// lu-agent injected and the process supervised. It live-updates through the
// agent and restarts in place (on a copy-only updater the agent could not
// get in, and there would be no restart without it).
BOOST_AUTO_TEST_CASE(a_read_only_root_filesystem_with_an_injected_agent_live_updates_and_restarts) {
    create_pod("hard", Root::read_only, Command::supervised, Agent::injected);
    const std::string pids = pid_file(Root::read_only);
    std::string before;
    BOOST_TEST_REQUIRE(wait_until(
        [&] {
            before = exec_sh("hard", "cat " + pids).second;
            return !before.empty();
        },
        10s));
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    auto u = update_of("hard");
    u.archive = TarBuilder().file("app/v.txt", "v2\n").finish();
    u.copies = {{"/src/v.txt", "/app/v.txt"}};
    u.restart = true;
    const auto updated = updater.update("", "main", u);
    BOOST_TEST_REQUIRE(updated.kind == LU_OUTCOME_OK, updated.message + "\n" + updated.log_text());
    BOOST_TEST(updated.logged("(injected at " + kInjectedFolder + "/lu-agent)"), updated.log_text());
    BOOST_TEST(!updated.logged("cannot run"));
    BOOST_TEST(exec_sh("hard", "cat /app/v.txt").second == "v2\n");
    std::string after;
    wait_until(
        [&] {
            after = exec_sh("hard", "cat " + pids).second;
            return !after.empty() && after != before;
        },
        10s);
    BOOST_TEST(after != before);
    BOOST_TEST(restart_count("hard") == 0);
    delete_pod("hard");
}

namespace {

// The ID of the pod's container "main" as KubernetesDiscovery gives it (without "containerd://").
std::string container_id(const std::string &pod) {
    const auto p = json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods/" + pod));
    const std::string id(p.at("status").at("containerStatuses").at(0).at("containerID").as_string());
    return id.substr(id.find("://") + 3);
}

}  // namespace

// Issue 33: a container that stops, or a pod deleted, while its update runs is
// "not running" (C07), as one stopped before the update: never an update
// failure that would hold the LiveUpdate's other pods (C11).
BOOST_AUTO_TEST_CASE(a_container_stopped_or_a_pod_deleted_during_an_update_is_not_running) {
    create_pod("gone");
    DockerUpdater updater(config(), LU_KUBERNETES_UPDATER_PATH);
    // The container's main process ends on TERM: the run dies with it, and the
    // kubelet starts the container again under another ID.
    auto stop = update_of("gone");
    stop.runs = {{{"sh", "-c", "kill 1; sleep 20"}, false}};
    const std::string first_id = container_id("gone");
    const auto stopped = updater.update(first_id, "main", stop);
    BOOST_TEST(stopped.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, stopped.message);
    BOOST_TEST(stopped.message.find("container main of pod lu-k8s-agent/gone") != std::string::npos, stopped.message);

    // A run still going when the pod is deleted.
    // The pod's status names the new container a moment after its exec works:
    // an update meant for the old one is refused by its session's check.
    BOOST_TEST_REQUIRE(wait_until(
        [&first_id] { return exec_sh("gone", "true").first == 0 && container_id("gone") != first_id; }, 60s));
    auto slow = update_of("gone");
    slow.runs = {{{"sleep", "30"}, false}};
    std::thread deleter([] {
        std::this_thread::sleep_for(2s);
        delete_pod("gone");
    });
    const auto deleted = updater.update(container_id("gone"), "main", slow);
    deleter.join();
    BOOST_TEST(deleted.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, deleted.message);
    BOOST_TEST(deleted.message.find("pod lu-k8s-agent/gone is") != std::string::npos, deleted.message);
}
