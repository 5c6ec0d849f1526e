// One live update of one file into a pod, four ways, on the same pod in the
// same run: the kubernetes updater through its lu-agent session (one
// long-lived exec WebSocket), the same updater with one API exec per update
// ("agent": false), with "exec": "kubectl", and a raw
// `kubectl exec -i POD -- tar -C / -x -f -` of the same archive (the reference).
// Then the time from creating a pod to discovery reporting it Running, and from
// there to its first sync done. Needs $KUBECONFIG (a cluster where the pod of
// ../shared/k8s's minimal mode runs) and kubectl on PATH or $KUBECTL.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "common/kube/api_client.hpp"
#include "host/kubernetes/kubernetes_discovery.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/kubernetes/k8s_test_support.hpp"

extern char **environ;

namespace {

namespace json = boost::json;
namespace kube = liveupdate::kube;
namespace k8s = liveupdate::host::kubernetes;
using lu_bench::Clock;
using namespace std::chrono_literals;

const std::string kNamespace = "default";

using lu_bench::ms_since;

std::string env_or(const char *name, const std::string &fallback) {
    const char *v = std::getenv(name);
    return v != nullptr && *v != 0 ? v : fallback;
}

double raw_kubectl_exec(const std::string &kubectl, const std::string &pod, const std::string &archive_file) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, archive_file.c_str(), O_RDONLY, 0);
    std::vector<std::string> args{kubectl, "exec", "-i", "-n", kNamespace, pod,  "-c", "main",
                                  "--",    "tar",  "-C", "/",  "-x",       "-f", "-"};
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const auto start = Clock::now();
    pid_t pid = 0;
    if (posix_spawnp(&pid, kubectl.c_str(), &actions, nullptr, argv.data(), environ) != 0)
        throw std::runtime_error("cannot run " + kubectl);
    int status = 0;
    waitpid(pid, &status, 0);
    const double ms = ms_since(start);
    posix_spawn_file_actions_destroy(&actions);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("kubectl exec tar failed");
    return ms;
}

long rss_kib() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

bool running_in(const std::optional<json::object> &status, const std::string &name) {
    if (!status) return false;
    for (const auto &p : status->at("pods").as_array())
        if (p.at("name").as_string() == name && p.at("phase").as_string() == "Running" &&
            p.at("containers").as_array().at(0).at("ready").as_bool())
            return true;
    return false;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
        const std::string kubectl = env_or("KUBECTL", "kubectl");
        kube::ApiClient admin(kube::load_client_config({}));
        const std::string pod = "lu-bench-" + std::to_string(::getpid());
        const std::string pods = "/api/v1/namespaces/" + kNamespace + "/pods";

        // From creation to discovery reporting Running, then to the first sync.
        k8s::PodDiscoveryWatcher discovery({}, nullptr, nullptr);
        discovery.watch("bench", k8s::discovery_spec_of(
                                     json::parse(R"({"spec":{"watches":[{"namespace":")" + kNamespace +
                                                 R"("}],"extraSelectors":[{"matchLabels":{"app":")" + pod + R"("}}]}})")
                                         .as_object()));
        while (!discovery.status("bench")) std::this_thread::sleep_for(5ms);
        lu_test::DockerUpdater agent(R"({})", LU_KUBERNETES_UPDATER_PATH);
        lu_test::Update u;
        u.pod = pod;
        u.namespace_name = kNamespace;
        u.archive = lu_test::TarBuilder().file("tmp/bench/index.html", std::string(2048, 'x')).finish();
        u.copies = {{"/src/index.html", "/tmp/bench/index.html"}};
        const auto created = Clock::now();
        if (admin.request("POST", pods, json::serialize(lu_test::k8s::busybox_pod(pod, {{"app", pod}}))).status / 100 !=
            2) {
            std::fprintf(stderr, "k8s_bench: cannot create pod %s\n", pod.c_str());
            return 1;
        }
        while (!running_in(discovery.status("bench"), pod)) {
            if (ms_since(created) > 120000) throw std::runtime_error("the pod did not become Running");
            std::this_thread::sleep_for(2ms);
        }
        const double to_running = ms_since(created);
        const auto seen = Clock::now();
        const auto first = agent.update("", "main", u);
        const double to_sync = ms_since(seen);
        if (first.kind != LU_OUTCOME_OK) throw std::runtime_error("first sync failed: " + first.message);

        // The three ways, interleaved so that load hits them alike.
        const std::string archive_file = "/tmp/" + pod + ".tar";
        std::ofstream(archive_file, std::ios::binary) << u.archive;
        lu_test::DockerUpdater via_kubectl(R"({"exec": "kubectl", "kubectl": ")" + kubectl + R"("})",
                                           LU_KUBERNETES_UPDATER_PATH);
        lu_test::DockerUpdater api(R"({"agent": false})", LU_KUBERNETES_UPDATER_PATH);
        std::vector<double> agent_ms, api_ms, kubectl_ms, raw_ms;
        for (int i = 0; i < rounds; ++i) {
            auto t = Clock::now();
            if (agent.update("", "main", u).kind != LU_OUTCOME_OK) throw std::runtime_error("lu-agent update failed");
            agent_ms.push_back(ms_since(t));
            t = Clock::now();
            if (api.update("", "main", u).kind != LU_OUTCOME_OK) throw std::runtime_error("API exec update failed");
            api_ms.push_back(ms_since(t));
            t = Clock::now();
            if (via_kubectl.update("", "main", u).kind != LU_OUTCOME_OK)
                throw std::runtime_error("kubectl exec update failed");
            kubectl_ms.push_back(ms_since(t));
            raw_ms.push_back(raw_kubectl_exec(kubectl, pod, archive_file));
        }
        admin.request("DELETE", pods + "/" + pod + "?gracePeriodSeconds=0");
        std::remove(archive_file.c_str());

        // Memory of discovery following 100 pods. Without nodeName they stay
        // Pending (minimal mode has no scheduler): full pod objects, no kubelet load.
        const std::string many = pod + "-many";
        const long rss_before = rss_kib();
        discovery.watch("many", k8s::discovery_spec_of(
                                    json::parse(R"({"spec":{"watches":[{"namespace":")" + kNamespace +
                                                R"("}],"extraSelectors":[{"matchLabels":{"app":")" + many + R"("}}]}})")
                                        .as_object()));
        for (int i = 0; i < 100; ++i) {
            json::object manifest = lu_test::k8s::busybox_pod(many + "-" + std::to_string(i), {{"app", many}});
            manifest["spec"].as_object().erase("nodeName");
            admin.request("POST", pods, json::serialize(manifest));
        }
        const auto watched = [&] {
            const auto st = discovery.status("many");
            return st ? st->at("pods").as_array().size() : 0;
        };
        const auto memory_start = Clock::now();
        while (watched() < 100 && ms_since(memory_start) < 60000) std::this_thread::sleep_for(20ms);
        const std::size_t followed = watched();
        const long rss_after = rss_kib();
        admin.request("DELETE", pods + "?labelSelector=app%3D" + many + "&gracePeriodSeconds=0");

        const double g = lu_bench::median(agent_ms), a = lu_bench::median(api_ms), k = lu_bench::median(kubectl_ms),
                     r = lu_bench::median(raw_ms);
        std::printf(
            "one-file update, median of %d (ms): lu-agent session %.1f, API exec per update %.1f, updater via "
            "kubectl exec %.1f, raw kubectl exec tar %.1f\n",
            rounds, g, a, k, r);
        std::printf(
            "ratios to raw kubectl exec: lu-agent %.3f, API exec %.2f, updater via kubectl %.2f; API exec / lu-agent "
            "%.1fx\n",
            g / r, a / r, k / r, a / g);
        std::printf("pod created -> discovery reports Running %.0f ms; -> first sync done %.0f ms more\n", to_running,
                    to_sync);
        std::printf("discovery following %zu pods: RSS %.1f MiB (+%.1f MiB for them)\n", followed, rss_after / 1024.0,
                    (rss_after - rss_before) / 1024.0);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "k8s_bench: %s\n", e.what());
        return 1;
    }
}
