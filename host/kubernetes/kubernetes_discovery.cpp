#include "host/kubernetes/kubernetes_discovery.hpp"

#include <algorithm>
#include <cctype>

#include "common/json_fields.hpp"
#include "common/micro_time.hpp"
#include "common/mutex.hpp"

namespace liveupdate::host::kubernetes {
namespace {

namespace json = boost::json;

// The REST path of a namespaced owner (ReplicaSet, Deployment, StatefulSet, Job...).
std::string owner_path(const std::string &ns, const OwnerRef &ref) {
    std::string plural;
    for (const char c : ref.kind) plural.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    plural += "s";
    const std::string group = ref.api_version == "v1" ? "/api/v1" : "/apis/" + ref.api_version;
    return group + "/namespaces/" + kube::url_escape(ns) + "/" + plural + "/" + kube::url_escape(ref.name);
}

}  // namespace

PodDiscoveryWatcher::PodDiscoveryWatcher(Options options, StatusFn on_status, WarningFn on_warning)
    : on_status_(std::move(on_status)), on_warning_(std::move(on_warning)), options_(std::move(options)) {
    try {
        client_ = std::make_unique<kube::ApiClient>(kube::load_client_config(options_.kubeconfig));
    } catch (const std::exception &e) {
        config_error_ = std::string("kubernetes discovery: ") + e.what();
    }
    refresh_thread_ = std::thread([this] { refresh_loop(); });
}

PodDiscoveryWatcher::~PodDiscoveryWatcher() {
    board_.stop([this] {
        for (auto &[_, ns] : namespaces_) ns->cancel.cancel();
    });
    refresh_thread_.join();
    for (auto &[_, ns] : namespaces_)
        if (ns->thread.joinable()) ns->thread.join();
}

std::string PodDiscoveryWatcher::default_namespace() const {
    return client_ ? client_->config().namespace_name : "default";
}

void PodDiscoveryWatcher::watch(const std::string &object_name, DiscoverySpec spec) {
    if (!config_error_.empty()) {
        warn(config_error_);
        return;
    }
    // Selectors alone look in the kubeconfig's namespace (--namespace, else the context's).
    if (spec.watches.empty()) spec.watches.push_back(WatchRef{default_namespace(), "", ""});
    board_.watch(object_name, std::move(spec), [this](Watched &w) {
        w.state = common::MicroTime::from_system(std::chrono::system_clock::now()).format();
        ensure_namespaces(w.spec);
    });
}

void PodDiscoveryWatcher::unwatch(const std::string &object_name) { board_.unwatch(object_name); }

std::optional<json::object> PodDiscoveryWatcher::status(const std::string &object_name) const {
    return board_.status(object_name);
}

int PodDiscoveryWatcher::lists_of(const std::string &ns) const {
    common::MutexLock lock(board_.lock());
    const auto found = namespaces_.find(ns);
    return found == namespaces_.end() ? 0 : found->second->lists;
}

// [locked] One watcher thread per namespace, started with its first user and
// kept: watching an idle namespace costs one open stream.
void PodDiscoveryWatcher::ensure_namespaces(const DiscoverySpec &spec) {
    for (const auto &ns : namespaces_of(spec)) {
        if (namespaces_.contains(ns)) continue;
        auto state = std::make_unique<Namespace>();
        Namespace &ref = *state;
        namespaces_.emplace(ns, std::move(state));
        ref.thread = std::thread([this, ns, &ref] { follow_namespace(ns, ref); });
    }
}

void PodDiscoveryWatcher::mark_namespace_dirty(const std::string &ns) {
    board_.mark_dirty_if([&ns](const DiscoverySpec &spec) { return namespaces_of(spec).contains(ns); });
}

void PodDiscoveryWatcher::warn(const std::string &text) {
    if (board_.first_time(text) && on_warning_) on_warning_(text);
}

bool PodDiscoveryWatcher::on_watch_event(const std::string &ns, Namespace &state, const json::value &event,
                                         std::string &resource_version, bool &need_list) {
    const std::string type = common::string_field(event, {"type"});
    const json::object *object = common::object_field(event, {"object"});
    if (type.empty() || object == nullptr) throw common::DecodeError("", "a watch event needs a type and an object");
    const json::object &o = *object;
    if (type == "ERROR") {
        if (common::int_field(o, "code", "object") == 410)
            need_list = true;
        else
            warn("kubernetes discovery: watch of namespace " + ns + ": " + kube::status_message(json::serialize(o)));
        return false;
    }
    if (const std::string rv = common::string_field(o, {"metadata", "resourceVersion"}); !rv.empty())
        resource_version = rv;
    if (type == "BOOKMARK") return true;
    const std::string uid = common::string_field(o, {"metadata", "uid"});
    {
        common::MutexLock lock(board_.lock());
        if (type == "DELETED")
            state.pods.erase(uid);
        else
            state.pods[uid] = o;
    }
    mark_namespace_dirty(ns);
    return true;
}

void PodDiscoveryWatcher::follow_namespace(const std::string &ns, Namespace &state) {
    const std::string base = "/api/v1/namespaces/" + kube::url_escape(ns) + "/pods";
    std::string resource_version;
    bool need_list = true;
    auto backoff = options_.min_backoff;
    while (!state.cancel.cancelled()) {
        try {
            if (need_list) {
                const json::value list = common::parse_limited(client_->get(base));
                std::map<std::string, json::object> pods;
                const json::array *items = common::array_field(list, {"items"});
                for (std::size_t i = 0; items != nullptr && i < items->size(); ++i) {
                    const json::object &item = common::expect_object((*items)[i], common::index("items", i));
                    pods[common::string_field(item, {"metadata", "uid"})] = item;
                }
                resource_version = common::string_field(list, {"metadata", "resourceVersion"});
                {
                    common::MutexLock lock(board_.lock());
                    state.pods = std::move(pods);
                    state.listed = true;
                    ++state.lists;
                }
                board_.source_answers();
                need_list = false;
                mark_namespace_dirty(ns);
            }
            client_->stream_lines(
                base + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + kube::url_escape(resource_version) +
                    "&timeoutSeconds=" + std::to_string(options_.watch_timeout_seconds),
                [&](std::string_view line) {
                    try {
                        return on_watch_event(ns, state, common::parse_limited(line), resource_version, need_list);
                    } catch (const common::DecodeError &e) {
                        // Which pod changed is unknown: a fresh list misses nothing.
                        warn("kubernetes discovery: watch of namespace " + ns + ": an unreadable event (" + e.what() +
                             "); listing again");
                        need_list = true;
                        return false;
                    }
                },
                state.cancel);
            backoff = options_.min_backoff;
        } catch (const kube::ApiError &e) {
            if (e.status == 410) {
                need_list = true;  // our resourceVersion is too old: start again from a list
                continue;
            }
            warn("kubernetes discovery: namespace " + ns + ": " + e.what() + "; retrying");
            if (!board_.sleep_for(backoff)) return;
            backoff = std::min(backoff * 2, options_.max_backoff);
        } catch (const std::exception &e) {
            warn("kubernetes discovery: namespace " + ns + ": " + e.what() + "; retrying");
            need_list = true;
            if (!board_.sleep_for(backoff)) return;
            backoff = std::min(backoff * 2, options_.max_backoff);
        }
    }
}

std::vector<Ancestor> PodDiscoveryWatcher::ancestors_of(const json::object &pod) {
    std::vector<Ancestor> chain;
    const std::string ns = common::string_field(pod, {"metadata", "namespace"});
    std::optional<OwnerRef> next = controller_owner(pod);
    for (int depth = 0; next && depth < 5; ++depth) {
        std::optional<OwnerInfo> info;
        {
            common::MutexLock lock(board_.lock());
            if (auto found = owner_cache_.find(next->uid); found != owner_cache_.end()) info = found->second;
        }
        if (!info) {
            const kube::ApiResponse r = client_->request("GET", owner_path(ns, *next));
            if (r.status == 404 || r.status == 403) break;  // gone, or not ours to read: the chain stops here
            if (r.status / 100 != 2)
                throw kube::ApiError(r.status, kube::status_reason(r.body),
                                     "GET " + owner_path(ns, *next) + ": " + kube::status_message(r.body));
            const json::value owner = common::parse_limited(r.body);
            if (common::string_field(owner, {"metadata", "uid"}) != next->uid) break;
            info = OwnerInfo{common::string_field(owner, {"metadata", "creationTimestamp"}),
                             controller_owner(owner.as_object())};
            common::MutexLock lock(board_.lock());
            owner_cache_[next->uid] = *info;
        }
        chain.push_back({*next, info->creation_timestamp});
        next = info->parent;
    }
    return chain;
}

json::object PodDiscoveryWatcher::current_status(const std::string &, const Watched &w,
                                                 const std::vector<json::object> &pods) {
    std::vector<json::object> entries;
    for (const auto &pod : pods) {
        try {
            const auto ancestors = ancestors_of(pod);
            const PodMatch match = match_pod(w.spec, pod, ancestors);
            if (match.matches) entries.push_back(pod_status_entry(pod, match.ancestor_uid, ancestors));
        } catch (const common::DecodeError &e) {
            // Said by refresh_loop, which tries again: the pod is not left out of the status.
            throw std::runtime_error("pod " + common::string_field(pod, {"metadata", "namespace"}) + "/" +
                                     common::string_field(pod, {"metadata", "name"}) + ": " + e.what());
        }
    }
    std::sort(entries.begin(), entries.end(), [](const json::object &a, const json::object &b) {
        const auto key = [](const json::object &o) {
            return std::make_pair(common::string_field(o, "createdAt", "pod"), common::string_field(o, "name", "pod"));
        };
        return key(a) < key(b);
    });
    json::array list;
    for (auto &e : entries) list.push_back(std::move(e));
    return json::object{{"monitorStartTime", w.state}, {"pods", std::move(list)}};
}

void PodDiscoveryWatcher::refresh_loop() {
    std::vector<json::object> pods;
    // [locked] The pods of the watch's namespaces, once each is listed (its list marks the watch dirty again).
    const auto gather_pods = [this, &pods](const std::string &, const Watched &w) {
        pods.clear();
        for (const auto &ns : namespaces_of(w.spec)) {
            const auto n = namespaces_.find(ns);
            if (n == namespaces_.end() || !n->second->listed) return false;
            for (const auto &[_, pod] : n->second->pods) pods.push_back(pod);
        }
        return true;
    };
    while (auto next = board_.next_dirty(gather_pods)) {
        const auto &[name, watched] = *next;
        json::object status;
        try {
            status = current_status(name, watched, pods);
        } catch (const std::exception &e) {
            warn(std::string("kubernetes discovery: ") + name + ": " + e.what());
            if (!board_.sleep_for(options_.max_backoff)) return;
            board_.mark_dirty_quietly(name);  // tried again after a pause
            continue;
        }
        if (board_.record(name, watched.spec, status) && on_status_) on_status_(name, status);
    }
}

}  // namespace liveupdate::host::kubernetes
