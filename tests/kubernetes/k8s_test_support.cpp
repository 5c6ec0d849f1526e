#include "tests/kubernetes/k8s_test_support.hpp"

#include <cstdlib>
#include <thread>

#include "common/kube/kubeconfig.hpp"
#include "common/kube/pod_exec.hpp"

namespace lu_test::k8s {
namespace json = boost::json;
namespace kube = liveupdate::kube;
using namespace std::chrono_literals;

std::string state_dir() {
    const char *s = std::getenv("LU_K8S_STATE");
    return s != nullptr && *s != 0 ? s : "/tmp/lu-k8s";
}

std::string admin_kubeconfig() { return state_dir() + "/admin.kubeconfig"; }

kube::ApiClient &admin() {
    static kube::ApiClient client([] {
        kube::LoadOptions o;
        o.kubeconfig = admin_kubeconfig();
        return kube::load_client_config(o);
    }());
    return client;
}

bool wait_until(const std::function<bool()> &done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (done()) return true;
        std::this_thread::sleep_for(100ms);
    }
    return done();
}

json::object busybox_pod(const std::string &name, const json::object &labels) {
    json::object metadata{{"name", name}};
    if (!labels.empty()) metadata["labels"] = labels;
    const json::object container{
        {"name", "main"},
        {"image", "localhost/busybox:local"},
        {"imagePullPolicy", "Never"},
        {"command", json::array{"/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"}}};
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", metadata},
            {"spec",
             {{"nodeName", "127.0.0.1"},
              {"hostNetwork", true},
              {"automountServiceAccountToken", false},
              {"enableServiceLinks", false},
              {"terminationGracePeriodSeconds", 1},
              {"containers", json::array{container}}}}};
}

std::pair<int, std::string> exec_sh(const std::string &namespace_name, const std::string &pod,
                                    const std::string &script) {
    std::string out;
    const auto r = kube::exec_in_pod(
        admin(), {namespace_name, pod, "main"}, {"sh", "-c", script}, nullptr,
        [&out](bool is_err, std::string_view d) {
            if (!is_err) out.append(d);
        },
        30s);
    return {r.exit_code, out};
}

}  // namespace lu_test::k8s
