// Kubernetes discovery: keeps the status.pods of KubernetesDiscovery objects
// current from a real API server. Each namespace in use is listed, then
// watched from the list's resourceVersion; a 410 Gone re-lists, a lost
// connection reconnects with backoff and resumes from the last
// resourceVersion. Status is reported only when it changes.
//
//   KubernetesDiscovery discovery({}, [&](const std::string &name, const json::object &status) {
//       ... write status into KubernetesDiscovery `name` ...
//   }, [&](std::string_view warning) { ... });
//   discovery.watch("web", discovery_spec_of(object));
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <boost/json.hpp>

#include "common/kube/api_client.hpp"
#include "common/stream_cancel.hpp"
#include "host/core/status_board.hpp"
#include "host/kubernetes/discovery_rules.hpp"

namespace liveupdate::host::kubernetes {

class PodDiscoveryWatcher {
public:
    struct Options {
        kube::LoadOptions kubeconfig;  // which kubeconfig, context and namespace
        std::chrono::milliseconds min_backoff{250};
        std::chrono::milliseconds max_backoff{5000};
        int watch_timeout_seconds = 300;  // the server ends each watch after this; it is resumed
    };
    // Called from the discovery's own thread, never with its lock held.
    using StatusFn = std::function<void(const std::string &object_name, const boost::json::object &status)>;
    using WarningFn = std::function<void(std::string_view)>;

    // An unusable kubeconfig is reported through on_warning (naming file and
    // field); nothing is discovered then.
    PodDiscoveryWatcher(Options options, StatusFn on_status, WarningFn on_warning);
    ~PodDiscoveryWatcher();
    PodDiscoveryWatcher(const PodDiscoveryWatcher &) = delete;
    PodDiscoveryWatcher &operator=(const PodDiscoveryWatcher &) = delete;

    // Follows the pods the spec names; the status is reported once its
    // namespaces are listed, then on every change.
    void watch(const std::string &object_name, DiscoverySpec spec);
    void unwatch(const std::string &object_name);
    std::optional<boost::json::object> status(const std::string &object_name) const;

    // The kubeconfig's namespace (for watches that name none).
    std::string default_namespace() const;

    // How often a namespace was listed (the first list and every re-list).
    int lists_of(const std::string &namespace_name) const;

private:
    // Beside each spec: when its monitoring started (status.monitorStartTime).
    using Board = StatusBoard<DiscoverySpec, std::string>;
    using Watched = Board::Watched;
    struct Namespace {
        std::map<std::string, boost::json::object> pods;  // by UID
        bool listed = false;
        int lists = 0;
        common::StreamCancel cancel;
        std::thread thread;
    };

    void follow_namespace(const std::string &ns, Namespace &state);
    // One line of the pods' watch: false ends the stream (an ERROR, after which
    // need_list may be set). Throws DecodeError when the event is unreadable.
    bool on_watch_event(const std::string &ns, Namespace &state, const boost::json::value &event,
                        std::string &resource_version, bool &need_list);
    void refresh_loop();
    boost::json::object current_status(const std::string &name, const Watched &w,
                                       const std::vector<boost::json::object> &pods);
    std::vector<Ancestor> ancestors_of(const boost::json::object &pod);
    void ensure_namespaces(const DiscoverySpec &spec);
    void mark_namespace_dirty(const std::string &ns);
    void warn(const std::string &text);

    StatusFn on_status_;
    WarningFn on_warning_;
    Options options_;
    std::unique_ptr<kube::ApiClient> client_;
    std::string config_error_;

    // Its lock also guards namespaces_ and owner_cache_.
    Board board_;
    std::map<std::string, std::unique_ptr<Namespace>> namespaces_;
    struct OwnerInfo {
        std::string creation_timestamp;
        std::optional<OwnerRef> parent;  // its own controller owner
    };
    std::map<std::string, OwnerInfo> owner_cache_;  // by the owner's UID
    std::thread refresh_thread_;
};

}  // namespace liveupdate::host::kubernetes
