// Against the real single-node cluster (../shared/k8s, started by the
// k8s_cluster fixture): discovery of pods through list + watch, live updates
// through the API server's exec WebSocket, and their failures. Without the
// cluster folder the whole suite says so and exits 77 (CTest: skipped).
#define BOOST_TEST_MODULE k8s_cluster
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>

#include "common/kube/api_client.hpp"
#include "common/kube/kubeconfig.hpp"
#include "common/kube/pod_exec.hpp"
#include "host/kubernetes/kubernetes_discovery.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/kubernetes/k8s_test_support.hpp"
#include "tests/kubernetes/tcp_proxy.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
namespace kube = liveupdate::kube;
namespace k8s = liveupdate::host::kubernetes;
using namespace std::chrono_literals;
using lu_test::DockerUpdater;
using lu_test::TarBuilder;
using lu_test::Update;
using lu_test::k8s::admin;
using lu_test::k8s::admin_kubeconfig;
using lu_test::k8s::busybox_pod;
using lu_test::k8s::state_dir;
using lu_test::k8s::wait_until;

namespace {

const std::string kNamespace = "lu-k8s-test";

void post_ignoring_conflict(const std::string &path, const json::object &body) {
    const auto r = admin().request("POST", path, json::serialize(body));
    if (r.status / 100 != 2 && r.status != 409)
        throw std::runtime_error("POST " + path + ": " + std::to_string(r.status) + " " + kube::status_message(r.body));
}

std::string create_pod(const std::string &name, const std::string &app) {
    const json::object pod = busybox_pod(name, {{"app", app}});
    const auto r = admin().request("POST", "/api/v1/namespaces/" + kNamespace + "/pods", json::serialize(pod));
    if (r.status / 100 != 2) throw std::runtime_error("creating pod " + name + ": " + kube::status_message(r.body));
    return std::string(json::parse(r.body).at("metadata").at("uid").as_string());
}

json::object get_pod(const std::string &name) {
    return json::parse(admin().get("/api/v1/namespaces/" + kNamespace + "/pods/" + name)).as_object();
}

bool pod_gone(const std::string &name) {
    return admin().request("GET", "/api/v1/namespaces/" + kNamespace + "/pods/" + name).status == 404;
}

void delete_pod(const std::string &name, int grace = 0) {
    admin().request("DELETE", "/api/v1/namespaces/" + kNamespace + "/pods/" + name +
                                  "?gracePeriodSeconds=" + std::to_string(grace));
}

void delete_pod_and_wait(const std::string &name) {
    delete_pod(name);
    if (!wait_until([&] { return pod_gone(name); }, 30s)) throw std::runtime_error("pod " + name + " was not deleted");
}

bool running(const std::string &name) {
    const auto pod = get_pod(name);
    const auto *phase = pod.at("status").as_object().if_contains("phase");
    return phase != nullptr && phase->as_string() == "Running";
}

void wait_running(const std::string &name) {
    if (!wait_until([&] { return running(name); }, 60s)) throw std::runtime_error("pod " + name + " is not Running");
}

std::pair<int, std::string> exec_sh(const std::string &pod, const std::string &script) {
    return lu_test::k8s::exec_sh(kNamespace, pod, script);
}

bool process_gone(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    return !(stat >> pid_text >> name >> state) || state == "Z";
}

// Kills kube-apiserver (SIGTERM would wait a minute for open connections) and
// lets the cluster script start it again; etcd, the kubelet and the pods keep running.
void restart_api_server() {
    const std::string pid_file = state_dir() + "/run/kube-apiserver.pid";
    std::ifstream in(pid_file);
    pid_t pid = 0;
    in >> pid;
    BOOST_REQUIRE_MESSAGE(pid > 0, "no kube-apiserver pid in " + pid_file);
    // A write discovery does not watch: the revision moves past the one it holds.
    admin().request("POST", "/api/v1/namespaces/" + kNamespace + "/configmaps",
                    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"tick-"}})");
    ::kill(pid, SIGKILL);
    BOOST_REQUIRE(wait_until([pid] { return process_gone(pid); }, 30s));
    // Meanwhile etcd's history is compacted (a real API server does so every
    // five minutes): the resourceVersion discovery holds is gone for good.
    const auto compacted = lu_test::sh(
        "e='etcdctl --endpoints http://127.0.0.1:12379'; export ETCDCTL_API=3; "
        "rev=$($e endpoint status -w json | grep -o '\"revision\":[0-9]*' | head -n1 | cut -d: -f2); $e compact "
        "\"$rev\"");
    BOOST_REQUIRE_MESSAGE(compacted.exit_code == 0, "etcdctl compact failed: " + compacted.output);
    const auto started = lu_test::sh(std::string(LU_K8S_DIR) + "/cluster.sh start >/dev/null 2>&1");
    BOOST_REQUIRE_MESSAGE(started.exit_code == 0, "cluster.sh start did not bring kube-apiserver back");
}

std::string kubeconfig_through(int port) {
    std::ifstream in(admin_kubeconfig());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto at = text.find("server: https://127.0.0.1:");
    BOOST_REQUIRE(at != std::string::npos);
    const auto end = text.find('\n', at);
    text.replace(at, end - at, "server: https://127.0.0.1:" + std::to_string(port));
    std::string file = fs::temp_directory_path() / ("lu-k8s-proxy-" + std::to_string(::getpid()) + ".kubeconfig");
    std::ofstream(file) << text;
    return file;
}

int api_port() { return std::stoi(admin().config().server.substr(admin().config().server.rfind(':') + 1)); }

// The pods of the status, by name.
std::map<std::string, json::object> pods_of(const std::optional<json::object> &status) {
    std::map<std::string, json::object> out;
    if (!status) return out;
    for (const auto &p : status->at("pods").as_array()) out[std::string(p.at("name").as_string())] = p.as_object();
    return out;
}

std::string container_field(const json::object &pod, const char *field) {
    const auto &c = pod.at("containers").as_array().at(0).as_object();
    return c.at(field).is_string() ? std::string(c.at(field).as_string()) : json::serialize(c.at(field));
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
            std::cout << "the cluster is not started: " << admin_kubeconfig() << " is missing (run " << dir
                      << "/cluster.sh start)" << std::endl;
            std::exit(1);
        }
        post_ignoring_conflict("/api/v1/namespaces",
                               {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}});
        // No controller-manager in minimal mode: the namespace's default ServiceAccount is ours to make.
        post_ignoring_conflict("/api/v1/namespaces/" + kNamespace + "/serviceaccounts",
                               {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "default"}}}});
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

BOOST_AUTO_TEST_CASE(live_update_syncs_deletes_and_runs_through_the_api) {
    create_pod("upd", "lu-upd");
    wait_running("upd");
    DockerUpdater updater(R"({"kubeconfig": ")" + admin_kubeconfig() + R"("})", LU_KUBERNETES_UPDATER_PATH);
    Update u;
    u.pod = "upd";
    u.namespace_name = kNamespace;
    u.archive = TarBuilder().dir("app").file("app/index.html", "v1\n").file("app/old.txt", "old\n").finish();
    u.copies = {{"/src/index.html", "/app/index.html"}, {"/src/old.txt", "/app/old.txt"}};
    auto outcome = updater.update("", "main", u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(exec_sh("upd", "cat /app/index.html").second == "v1\n");

    // An edit, a deleted file and a run step.
    u.archive = TarBuilder().file("app/index.html", "v2\n").finish();
    u.copies = {{"/src/index.html", "/app/index.html"}};
    u.deletes = {"/app/old.txt"};
    u.runs = {{{"sh", "-c", "cat /app/index.html > /app/ran.txt"}, false}};
    outcome = updater.update("", "main", u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(exec_sh("upd", "cat /app/index.html").second == "v2\n");
    BOOST_TEST(exec_sh("upd", "test -e /app/old.txt").first == 1);
    BOOST_TEST(exec_sh("upd", "cat /app/ran.txt").second == "v2\n");
    BOOST_TEST(outcome.logged("[CMD 1/1] sh -c cat /app/index.html > /app/ran.txt"));

    // A failing run step is a run failure with its exit code and output.
    Update fails;
    fails.pod = "upd";
    fails.namespace_name = kNamespace;
    fails.runs = {{{"sh", "-c", "echo broken build >&2; exit 3"}, false}};
    outcome = updater.update("", "main", fails);
    BOOST_TEST(outcome.kind == LU_OUTCOME_RUN_FAILURE, outcome.message);
    BOOST_TEST(outcome.exit_code == 3);
    BOOST_TEST(outcome.message.find("failed with exit code: 3") != std::string::npos, outcome.message);
    BOOST_TEST(outcome.logged("broken build"));

    // A command that does not exist: the runtime's complaint, as exit code 127.
    fails.runs = {{{"no-such-program"}, false}};
    outcome = updater.update("", "main", fails);
    BOOST_TEST(outcome.kind == LU_OUTCOME_RUN_FAILURE, outcome.message);
    BOOST_TEST(outcome.exit_code == 127);

    // Kubernetes cannot restart a container in place; a process not under lu-agent supervise cannot be either.
    Update restart;
    restart.pod = "upd";
    restart.namespace_name = kNamespace;
    restart.restart = true;
    outcome = updater.update("", "main", restart);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("liveupdate.dev/restart: process") != std::string::npos, outcome.message);

    // kubectl exec stays available by setting, on the same pod.
    DockerUpdater kubectl(R"({"exec": "kubectl", "kubectl": ")" + state_dir() + R"(/bin/kubectl", "kubeconfig": ")" +
                              admin_kubeconfig() + R"("})",
                          LU_KUBERNETES_UPDATER_PATH);
    u.archive = TarBuilder().file("app/index.html", "v3\n").finish();
    u.deletes.clear();
    u.runs.clear();
    outcome = kubectl.update("", "main", u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(exec_sh("upd", "cat /app/index.html").second == "v3\n");
    delete_pod("upd");
}

BOOST_AUTO_TEST_CASE(a_pod_deleted_mid_update_is_not_running_and_its_successor_is_synced) {
    create_pod("mid", "lu-mid");
    wait_running("mid");
    DockerUpdater updater(R"({"kubeconfig": ")" + admin_kubeconfig() + R"("})", LU_KUBERNETES_UPDATER_PATH);
    Update slow;
    slow.pod = "mid";
    slow.namespace_name = kNamespace;
    slow.runs = {{{"sh", "-c", "touch /tmp/started; sleep 30"}, false}};
    lu_test::Outcome outcome;
    std::thread update([&] { outcome = updater.update("", "main", slow); });
    wait_until([] { return exec_sh("mid", "test -e /tmp/started").first == 0; }, 20s);
    delete_pod("mid");
    update.join();
    // C07: a container gone during its update is not running, not the LiveUpdate's failure.
    BOOST_TEST(outcome.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, outcome.message);
    BOOST_TEST(outcome.message.find("pod " + kNamespace + "/mid") != std::string::npos, outcome.message);

    // An update of the pod once it is gone names it and says so.
    BOOST_REQUIRE(wait_until([] { return pod_gone("mid"); }, 30s));
    Update after;
    after.pod = "mid";
    after.namespace_name = kNamespace;
    after.archive = TarBuilder().file("tmp/synced.txt", "again\n").finish();
    after.copies = {{"/src/synced.txt", "/tmp/synced.txt"}};
    outcome = updater.update("", "main", after);
    BOOST_TEST(outcome.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, outcome.message);
    // The exec is refused; the look at the pod then says it is gone, and where the next update goes.
    BOOST_TEST(outcome.message.find("pod " + kNamespace + "/mid is gone") != std::string::npos, outcome.message);
    BOOST_TEST(outcome.message.find("the next update goes to the pod that replaces it") != std::string::npos,
               outcome.message);

    create_pod("mid", "lu-mid");
    wait_running("mid");
    outcome = updater.update("", "main", after);
    BOOST_TEST(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(exec_sh("mid", "cat /tmp/synced.txt").second == "again\n");
    delete_pod("mid");
}

BOOST_AUTO_TEST_CASE(a_user_without_pods_exec_gets_the_forbidden_message) {
    create_pod("rbac", "lu-rbac");
    const fs::path dir = fs::temp_directory_path() / ("lu-k8s-nobody-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string pki = state_dir() + "/pki";
    // A user the cluster's CA vouches for, with no RBAC binding at all.
    const auto made =
        lu_test::sh("cd " + dir.string() +
                    " && openssl req -new -newkey rsa:2048 -nodes -keyout user.key -subj /CN=lu-nobody"
                    " -out user.csr 2>/dev/null && openssl x509 -req -in user.csr -CA " +
                    pki + "/ca.crt -CAkey " + pki + "/ca.key -set_serial 4242 -days 1 -out user.crt 2>/dev/null");
    BOOST_REQUIRE(made.exit_code == 0);
    const std::string kubeconfig = (dir / "kubeconfig").string();
    std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: nobody\n"
                                 "clusters: [{name: c, cluster: {server: '"
                              << admin().config().server << "', certificate-authority: " << pki
                              << "/ca.crt}}]\n"
                                 "users: [{name: nobody, user: {client-certificate: user.crt, client-key: user.key}}]\n"
                                 "contexts: [{name: nobody, context: {cluster: c, user: nobody}}]\n";
    wait_running("rbac");
    DockerUpdater updater(R"({"kubeconfig": ")" + kubeconfig + R"("})", LU_KUBERNETES_UPDATER_PATH);
    Update u;
    u.pod = "rbac";
    u.namespace_name = kNamespace;
    u.runs = {{{"true"}, false}};
    const auto outcome = updater.update("", "main", u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("forbidden: User \"lu-nobody\" cannot") != std::string::npos, outcome.message);
    BOOST_TEST(outcome.message.find("resource \"pods/exec\"") != std::string::npos, outcome.message);
    BOOST_TEST(outcome.message.find("RBAC permission to create pods/exec") != std::string::npos, outcome.message);
    fs::remove_all(dir);
    delete_pod("rbac");
}

BOOST_AUTO_TEST_CASE(a_bad_kubeconfig_is_named_in_the_update_failure) {
    Update u;
    u.pod = "any";
    u.namespace_name = kNamespace;
    u.runs = {{{"true"}, false}};
    DockerUpdater missing(R"({"kubeconfig": "/nonexistent/lu-kubeconfig"})", LU_KUBERNETES_UPDATER_PATH);
    auto outcome = missing.update("", "main", u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("kubeconfig /nonexistent/lu-kubeconfig: no such file") != std::string::npos,
               outcome.message);

    DockerUpdater unknown(R"({"kubeconfig": ")" + admin_kubeconfig() + R"(", "context": "nope"})",
                          LU_KUBERNETES_UPDATER_PATH);
    outcome = unknown.update("", "main", u);
    BOOST_TEST(outcome.message.find("--context: context \"nope\" not found") != std::string::npos, outcome.message);
}

// Last: it restarts the API server, after which the kubelet takes a while to see new pods.
BOOST_AUTO_TEST_CASE(discovery_follows_pods_through_restarts_and_outages) {
    lu_test::TcpProxy proxy("127.0.0.1", api_port());
    const std::string kubeconfig = kubeconfig_through(proxy.port());
    std::vector<std::string> warnings;
    std::mutex mutex;
    k8s::PodDiscoveryWatcher::Options options;
    options.kubeconfig.kubeconfig = kubeconfig;
    options.min_backoff = 100ms;
    options.max_backoff = 1000ms;
    int reports = 0;
    k8s::PodDiscoveryWatcher discovery(
        options,
        [&](const std::string &, const json::object &) {
            std::lock_guard l(mutex);
            ++reports;
        },
        [&](std::string_view w) {
            std::lock_guard l(mutex);
            warnings.emplace_back(w);
        });
    discovery.watch("disc",
                    k8s::discovery_spec_of(json::parse(R"({"spec":{"watches":[{"namespace":")" + kNamespace +
                                                       R"("}],"extraSelectors":[{"matchLabels":{"app":"lu-disc"}}]}})")
                                               .as_object()));
    const auto pods = [&] { return pods_of(discovery.status("disc")); };
    BOOST_REQUIRE(wait_until([&] { return discovery.status("disc").has_value(); }, 10s));
    BOOST_TEST(pods().empty());

    // Appears, then Running, with its container.
    create_pod("other", "not-this");  // another label: never reported
    create_pod("disc-a", "lu-disc");
    BOOST_REQUIRE(wait_until([&] { return pods().contains("disc-a"); }, 10s));
    BOOST_REQUIRE(wait_until(
        [&] {
            const auto p = pods();
            return p.contains("disc-a") && p.at("disc-a").at("phase") == "Running" &&
                   container_field(p.at("disc-a"), "ready") == "true";
        },
        60s));
    const std::string first_id = container_field(pods().at("disc-a"), "id");
    BOOST_TEST(!first_id.empty());
    BOOST_TEST(container_field(pods().at("disc-a"), "image").find("busybox") != std::string::npos);
    BOOST_TEST(!pods().contains("other"));
    BOOST_TEST(pods().at("disc-a").at("namespace").as_string() == kNamespace);
    BOOST_TEST(pods().at("disc-a").contains("createdAt"));

    // The container restarts (its process ends): restarts 1, a new container ID.
    BOOST_TEST(exec_sh("disc-a", "kill 1").first == 0);
    BOOST_REQUIRE(wait_until(
        [&] {
            const auto p = pods();
            return p.contains("disc-a") && container_field(p.at("disc-a"), "restarts") == "1" &&
                   container_field(p.at("disc-a"), "id") != first_id &&
                   container_field(p.at("disc-a"), "ready") == "true";
        },
        60s));
    const std::string restarted_id = container_field(pods().at("disc-a"), "id");

    // Deleted, then created again under the same name: a new pod, a new container.
    const int reports_before = reports;
    delete_pod_and_wait("disc-a");
    BOOST_REQUIRE(wait_until([&] { return !pods().contains("disc-a"); }, 10s));
    create_pod("disc-a", "lu-disc");
    BOOST_REQUIRE(wait_until(
        [&] {
            const auto p = pods();
            return p.contains("disc-a") && p.at("disc-a").at("phase") == "Running" &&
                   !container_field(p.at("disc-a"), "id").empty();
        },
        60s));
    BOOST_TEST(container_field(pods().at("disc-a"), "id") != restarted_id);
    BOOST_TEST(reports > reports_before);

    // The API server goes away; meanwhile a pod comes and one goes; once it is
    // back, discovery resumes and has missed nothing.
    wait_running("disc-a");
    proxy.cut();
    create_pod("disc-b", "lu-disc");
    delete_pod_and_wait("disc-a");
    std::this_thread::sleep_for(1500ms);    // a few failed reconnects
    BOOST_TEST(pods().contains("disc-a"));  // nothing is known while it is away
    proxy.reopen();
    BOOST_REQUIRE(wait_until(
        [&] {
            const auto p = pods();
            return p.contains("disc-b") && !p.contains("disc-a");
        },
        20s));
    {
        std::lock_guard l(mutex);
        bool told = false;
        for (const auto &w : warnings) told = told || w.find("cannot reach the API server") != std::string::npos;
        BOOST_TEST(told, "the outage was reported");
    }

    // The API server itself restarts mid-watch, and the container restarts
    // while it is away (the kubelet reports that once it is back). The new
    // server no longer has discovery's resourceVersion: 410 Gone, a re-list,
    // and the restart is seen.
    wait_running("disc-b");
    BOOST_REQUIRE(wait_until(
        [&] { return pods().contains("disc-b") && !container_field(pods().at("disc-b"), "id").empty(); }, 20s));
    const std::string before_id = container_field(pods().at("disc-b"), "id");
    const int lists = discovery.lists_of(kNamespace);
    BOOST_TEST(exec_sh("disc-b", "(sleep 3; kill 1) >/dev/null 2>&1 &").first == 0);
    restart_api_server();
    BOOST_REQUIRE(wait_until(
        [&] {
            const auto p = pods();
            return p.contains("disc-b") && container_field(p.at("disc-b"), "restarts") == "1" &&
                   container_field(p.at("disc-b"), "id") != before_id;
        },
        60s));
    BOOST_TEST(discovery.lists_of(kNamespace) > lists);

    for (const char *p : {"other", "disc-b"}) delete_pod(p);
    fs::remove(kubeconfig);
}
