// What the tests against the single-node cluster share: its admin client,
// a busybox pod manifest, and `sh -c` in a pod through the API server.
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "common/kube/api_client.hpp"

namespace lu_test::k8s {

// The cluster's state folder (LU_K8S_STATE, else /tmp/lu-k8s) and its admin kubeconfig.
std::string state_dir();
std::string admin_kubeconfig();
liveupdate::kube::ApiClient &admin();

bool wait_until(const std::function<bool()> &done, std::chrono::milliseconds limit);

// A pod on the cluster's one node running busybox's sleep loop in container "main".
boost::json::object busybox_pod(const std::string &name, const boost::json::object &labels = {});

// `sh -c SCRIPT` in the pod's container "main" through the API (not through
// an updater): its exit code and stdout.
std::pair<int, std::string> exec_sh(const std::string &namespace_name, const std::string &pod,
                                    const std::string &script);

}  // namespace lu_test::k8s
