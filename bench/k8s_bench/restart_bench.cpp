// Restart in place against a new pod, on the same cluster in the same run:
// from a save (an update asking for a restart) until the restarted HTTP
// server answers, through the kubernetes updater and `lu-agent supervise`;
// and from `DELETE pod` + creating it again (what a pod without a restart in
// place costs; minimal mode has no Deployment to do it) until the new pod's
// server answers. The server is busybox httpd on 127.0.0.1 (hostNetwork, a port per run);
// it answers /pid with its PID, so an answer from the new process is told
// from the old one's. Needs $KUBECONFIG (../shared/k8s, minimal mode).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "common/kube/api_client.hpp"
#include "common/kube/kubeconfig.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/kubernetes/k8s_test_support.hpp"

namespace {

namespace json = boost::json;
using lu_bench::Clock;
using lu_bench::ms_since;
using namespace std::chrono_literals;

const std::string kNamespace = "default";
// One port per run: a pod of an earlier run may still hold its own while it goes.
const int kPort = 18000 + static_cast<int>(::getpid() % 1000);

// The body of GET /pid from the server, or "" when it does not answer.
std::string get_pid() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return {};
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(kPort);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0) {
        const std::string request = "GET /pid HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
            char buffer[4096];
            for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
                response.append(buffer, static_cast<std::size_t>(got));
        }
    }
    ::close(fd);
    if (!response.starts_with("HTTP/1.0 200") && !response.starts_with("HTTP/1.1 200")) return {};
    const auto body = response.find("\r\n\r\n");
    return body == std::string::npos ? std::string() : response.substr(body + 4);
}

// Waits until the server answers with a PID other than `old`; that PID.
std::string await_new_pid(const std::string &old, Clock::time_point start) {
    for (;;) {
        std::string pid = get_pid();
        if (!pid.empty() && pid != old) return pid;
        if (ms_since(start) > 120000) throw std::runtime_error("the server did not answer with a new PID");
        std::this_thread::sleep_for(2ms);
    }
}

// A pod whose command is wrapped as the webhook wraps it, this build's lu-agent mounted from the host.
json::object server_pod(const std::string &name) {
    json::object pod = lu_test::k8s::busybox_pod(name);
    json::object &spec = pod["spec"].as_object();
    json::object &container = spec["containers"].as_array()[0].as_object();
    container["command"] = json::array{
        "/lu-bin/lu-agent",
        "supervise",
        "--",
        "/bin/sh",
        "-c",
        "mkdir -p /www && echo $$$$ > /www/pid && exec httpd -f -p 127.0.0.1:" + std::to_string(kPort) + " -h /www"};
    container["volumeMounts"] = json::array{{{"name", "lu-bin"}, {"mountPath", "/lu-bin"}, {"readOnly", true}}};
    spec["volumes"] = json::array{
        {{"name", "lu-bin"},
         {"hostPath", {{"path", std::filesystem::path(LU_AGENT_PATH).parent_path().string()}, {"type", "Directory"}}}}};
    return pod;
}

}  // namespace

int main(int argc, char **argv) {
    const std::string pod = "lu-restart-bench-" + std::to_string(::getpid());
    const std::string pods = "/api/v1/namespaces/" + kNamespace + "/pods";
    const std::string delete_pod = pods + "/" + pod + "?gracePeriodSeconds=0";
    try {
        const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
        liveupdate::kube::ApiClient admin(liveupdate::kube::load_client_config({}));
        // The container's ID as discovery would pass it: each pod created again is another container.
        int created = 0;
        const auto generation = [&] { return "pod-" + std::to_string(created); };
        const auto create = [&] {
            ++created;
            if (admin.request("POST", pods, json::serialize(server_pod(pod))).status / 100 != 2)
                throw std::runtime_error("cannot create pod " + pod);
        };
        const auto gone = [&] { return admin.request("GET", pods + "/" + pod, "").status == 404; };
        create();
        std::string pid = await_new_pid("", Clock::now());

        lu_test::DockerUpdater updater(R"({})", LU_KUBERNETES_UPDATER_PATH);
        lu_test::Update save;
        save.pod = pod;
        save.namespace_name = kNamespace;
        save.archive = lu_test::TarBuilder().file("www/index.html", std::string(2048, 'x')).finish();
        save.copies = {{"/src/index.html", "/www/index.html"}};
        save.restart = true;
        // The first save starts the agent session: not what a save costs.
        if (const auto o = updater.update(generation(), "main", save); o.kind != LU_OUTCOME_OK)
            throw std::runtime_error("the first restart failed: " + o.message);
        pid = await_new_pid(pid, Clock::now());

        lu_test::Update sync_only = save;
        sync_only.restart = false;
        std::vector<double> in_place_ms, update_ms, sync_ms, new_pod_ms;
        for (int i = 0; i < rounds; ++i) {
            auto start = Clock::now();
            if (const auto o = updater.update(generation(), "main", sync_only); o.kind != LU_OUTCOME_OK)
                throw std::runtime_error("a save failed: " + o.message);
            sync_ms.push_back(ms_since(start));

            start = Clock::now();
            if (const auto o = updater.update(generation(), "main", save); o.kind != LU_OUTCOME_OK)
                throw std::runtime_error("a restart failed: " + o.message);
            update_ms.push_back(ms_since(start));
            pid = await_new_pid(pid, start);
            in_place_ms.push_back(ms_since(start));

            start = Clock::now();
            admin.request("DELETE", delete_pod, "");
            while (!gone()) std::this_thread::sleep_for(5ms);
            create();
            pid = await_new_pid(pid, start);
            new_pod_ms.push_back(ms_since(start));
            // The new pod's first save starts its agent session (the first-save figure of k8s_bench), untimed.
            if (const auto o = updater.update(generation(), "main", sync_only); o.kind != LU_OUTCOME_OK)
                throw std::runtime_error("the first save into the new pod failed: " + o.message);
        }
        admin.request("DELETE", delete_pod, "");
        const double in_place = lu_bench::median(in_place_ms), new_pod = lu_bench::median(new_pod_ms);
        std::printf(
            "save -> restarted server answering, median of %d (ms): in place (lu-agent supervise) %.0f, "
            "pod deleted and created again %.0f; ratio %.3f (the update itself: %.0f; the same save without a restart: "
            "%.0f)\n",
            rounds, in_place, new_pod, in_place / new_pod, lu_bench::median(update_ms), lu_bench::median(sync_ms));
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "k8s_restart_bench: %s\n", e.what());
        try {
            liveupdate::kube::ApiClient(liveupdate::kube::load_client_config({})).request("DELETE", delete_pod, "");
        } catch (const std::exception &cleanup) {
            std::fprintf(stderr, "k8s_restart_bench: deleting pod %s: %s\n", pod.c_str(), cleanup.what());
        }
        return 1;
    }
}
