#include "host/up/cluster_source.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/micro_time.hpp"
#include "host/cluster/cluster_admission.hpp"
#include "host/cluster/cluster_kinds.hpp"
#include "host/cluster/lease_rules.hpp"
#include "host/cluster/operator_process.hpp"
#include "host/cluster/sync_back_status.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;
using common::LogLevel;

namespace {

constexpr int kStatusAttempts = 4;  // a 409 reads the object again, then writes again

std::string origin_of(const ObjectKey &key) { return "cluster:" + key.text(); }

ObjectKey key_from_text(const std::string &text) {
    const auto slash = text.find('/');
    return ObjectKey{text.substr(0, slash), text.substr(slash + 1)};
}

ObjectKey key_of_item(const json::object &item) {
    return ObjectKey{common::string_field(item, {"kind"}), common::string_field(item, {"metadata", "name"})};
}

std::string resource_version_in(const std::string &body) {
    const json::value answer = common::parse_limited(body);
    return answer.is_object() ? common::string_field(answer, {"metadata", "resourceVersion"}) : std::string();
}

json::object with_kind(json::object item, const std::string &kind) {
    if (!item.contains("kind")) item["kind"] = kind;
    return item;
}

// The trigger queue as the plugin reads it (Tilt's ConfigMap kind, as
// host/up/trigger_queue.hpp makes it): its name and entries, nothing else.
json::object trigger_queue_object(const json::object &item) {
    json::object data;
    if (const json::object *entries = common::object_field(item, {"data"}))
        for (const auto &[k, v] : *entries)
            if (v.is_string()) data[k] = v;
    return json::object{{"apiVersion", std::string(cluster::kGroup) + "/" + std::string(cluster::kVersion)},
                        {"kind", "ConfigMap"},
                        {"metadata", json::object{{"name", cluster::kTriggerQueueConfigMap}}},
                        {"data", std::move(data)}};
}

bool writes_status_back(const std::string &kind) { return kind == "LiveUpdate" || kind == "KubernetesDiscovery"; }

std::string lower_plural(std::string_view kind) {
    std::string plural;
    for (const char c : kind) plural.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return plural + "s";
}

}  // namespace

ClusterSource::ClusterSource(ClusterSourceOptions options, SourceLogFn log)
    : options_(std::move(options)), log_(std::move(log)) {}

ClusterSource::~ClusterSource() { stop(); }

// The collection in the namespace (the CRDs of `lu-host crds` are
// Namespaced); "" when the API server does not serve it (no such CRD, or an
// old cluster-scoped one).
std::string ClusterSource::collection_path(const std::string &plural, bool required) {
    std::string path = "/apis/" + std::string(cluster::kGroup) + "/" + std::string(cluster::kVersion) + "/namespaces/" +
                       kube::url_escape(namespace_) + "/" + plural;
    const kube::ApiResponse r = client_->request("GET", path + "?limit=1");
    if (r.status / 100 == 2) return path;
    if (r.status != 404)
        throw kube::ApiError(r.status, kube::status_reason(r.body),
                             "GET " + path + ": " + std::to_string(r.status) + " " + kube::status_message(r.body));
    if (required)
        throw std::runtime_error("the API server " + client_->config().server + " does not serve " + plural + "." +
                                 std::string(cluster::kGroup) +
                                 " in a namespace: install the CRDs (Namespaced): lu-host crds | kubectl apply -f -");
    return {};
}

std::vector<FileLoad> ClusterSource::load() {
    client_ = std::make_unique<kube::ApiClient>(kube::load_client_config(options_.kubeconfig));
    namespace_ = client_->config().namespace_name;
    const cluster::OperatorProcess me = cluster::this_operator_process();
    lease_ = std::make_unique<cluster::OperatorLease>(*client_, namespace_, me);
    if (const std::string taken = lease_->acquire(); !taken.empty())
        log_(LogLevel::info, "up: lease " + namespace_ + "/" + cluster::kOperatorLeaseName + " " + taken);
    recorder_ = std::make_unique<cluster::EventRecorder>(
        *client_, namespace_, cluster::operator_name(me),
        [this](const std::string &warning) { log_(LogLevel::warn, "up: " + warning); });
    log_(LogLevel::info, "up: operator of namespace " + namespace_ + " (lease " + namespace_ + "/" +
                             cluster::kOperatorLeaseName + "), project folder " + options_.project_dir);
    std::vector<FileLoad> loads;
    for (const std::string_view kind : cluster::kTakenKinds) {
        const cluster::ClusterKind *known = cluster::find_cluster_kind(kind);
        const std::string path = collection_path(known->plural, kind == "LiveUpdate");
        if (path.empty()) {
            log_(LogLevel::info, "up: the cluster has no " + std::string(kind) + " kind: none followed");
            continue;
        }
        Collection c = follow(std::string(kind), path, "");
        for (const auto &item : c.watch->list()) loads.push_back(take(item));
        collections_.push_back(std::move(c));
    }
    Collection queue = follow("ConfigMap", "/api/v1/namespaces/" + kube::url_escape(namespace_) + "/configmaps",
                              std::string("fieldSelector=metadata.name%3D") + cluster::kTriggerQueueConfigMap);
    for (const auto &item : queue.watch->list()) loads.push_back(take(with_kind(item, "ConfigMap")));
    collections_.push_back(std::move(queue));
    warn_never_taken();
    return loads;
}

// Items of a list carry no kind (core kinds): it is the collection's.
ClusterSource::Collection ClusterSource::follow(const std::string &kind, const std::string &path,
                                                const std::string &selector) {
    Collection c{kind, path, nullptr};
    c.watch = std::make_unique<cluster::ResourceWatch>(
        *client_, path, selector,
        cluster::ResourceWatch::Handlers{
            [this, kind](const std::vector<json::object> &items) {
                std::vector<json::object> kinded;
                kinded.reserve(items.size());
                for (const auto &item : items) kinded.push_back(with_kind(item, kind));
                listed(kind, kinded);
            },
            [this, kind](std::string_view type, const json::object &item) { changed(type, with_kind(item, kind)); },
            [this](const std::string &warning) { log_(LogLevel::warn, "up: " + warning); }});
    return c;
}

// Kinds that run local processes are never taken: one warning per kind at start.
void ClusterSource::warn_never_taken() {
    for (const std::string_view kind : cluster::kNeverTakenKinds) {
        json::value list;
        try {
            const std::string path = collection_path(lower_plural(kind), false);
            if (path.empty()) continue;
            list = common::parse_limited(client_->get(path));
        } catch (const kube::ApiError &e) {
            // Not ours to list (`lu-host rbac` grants no such right): nothing of it is taken either way.
            log_(LogLevel::debug, "up: " + std::string(kind) + " objects not listed: " + e.what());
            continue;
        }
        std::string names;
        const json::value *items = common::member(list.as_object(), "items");
        const std::size_t count = items != nullptr && items->is_array() ? items->as_array().size() : 0;
        for (std::size_t i = 0; i < count; ++i)
            if (items->as_array()[i].is_object())
                names += (i == 0 ? "" : ", ") + key_of_item(items->as_array()[i].as_object()).name;
        if (count > 0)
            log_(LogLevel::warn, "up: ignored: " + std::to_string(count) + " " + std::string(kind) + " object(s) (" +
                                     names + "): kinds that run local processes are never taken from a cluster");
    }
}

// The object as the daemon gets it: taken, or no object at all (refused).
FileLoad ClusterSource::take(const json::object &item) {
    const ObjectKey key = key_of_item(item);
    FileLoad load;
    load.file = origin_of(key);
    common::MutexLock lock(mutex_);
    resource_versions_[key] = common::string_field(item, {"metadata", "resourceVersion"});
    uids_[key] = common::string_field(item, {"metadata", "uid"});
    if (key.kind == "ConfigMap") {
        load.objects.push_back(DeclaredObject{load.file, key.kind, key.name, trigger_queue_object(item)});
        return load;
    }
    const cluster::ClusterVerdict verdict =
        cluster::judge_cluster_object(item, options_.project_dir, options_.allowances);
    // What the cluster holds: an equal status is not written, one someone else wrote is written over.
    const json::object *status = common::object_field(item, {"status"});
    if (coalescer_.observed(key.text(), status != nullptr ? *status : json::object{})) wake_.notify_all();
    if (verdict.decision != cluster::ClusterVerdict::Decision::taken) {
        declared_.erase(key);
        refuse(key, verdict.message);
        return load;
    }
    refusals_.erase(key);
    declared_.insert(key);
    load.objects.push_back(DeclaredObject{load.file, key.kind, key.name, verdict.object});
    return load;
}

// [locked] Logged and written to its status once per reason.
void ClusterSource::refuse(const ObjectKey &key, const std::string &message) {
    if (auto found = refusals_.find(key); found != refusals_.end() && found->second == message) return;
    refusals_[key] = message;
    log_(LogLevel::error, origin_of(key) + ": refused: " + message);
    const std::string now = common::MicroTime::from_system(std::chrono::system_clock::now()).format();
    if (key.kind == "LiveUpdate") {
        recorder_->record(cluster::EventRegarding{key.kind, key.name, uids_[key]}, events_.refused(key.name, message));
        coalescer_.offer(key.text(), json::object{{"failed", json::object{{"reason", "ObjectRefused"},
                                                                          {"message", message},
                                                                          {"lastTransitionTime", now}}}});
    } else if (key.kind == "FileWatch") {
        coalescer_.offer(key.text(), json::object{{"error", message}});
    }
    wake_.notify_all();
}

void ClusterSource::listed(const std::string &kind, const std::vector<json::object> &items) {
    std::set<ObjectKey> present;
    for (const auto &item : items) {
        present.insert(key_of_item(item));
        sink_->replace(take(item));
    }
    std::vector<ObjectKey> gone;
    {
        common::MutexLock lock(mutex_);
        for (const auto &[key, _] : resource_versions_)
            if (key.kind == kind && !present.contains(key)) gone.push_back(key);
    }
    for (const auto &key : gone)
        changed("DELETED", json::object{{"kind", key.kind}, {"metadata", {{"name", key.name}}}});
}

void ClusterSource::changed(std::string_view type, const json::object &item) {
    if (type != "DELETED") {
        if (own_queue_write(item)) return;
        sink_->replace(take(item));
        return;
    }
    const ObjectKey key = key_of_item(item);
    {
        common::MutexLock lock(mutex_);
        resource_versions_.erase(key);
        refusals_.erase(key);
        declared_.erase(key);
        uids_.erase(key);
        coalescer_.forget(key.text());
        engine_statuses_.erase(key);
        conflicts_.erase(key);
        if (key.kind == "LiveUpdate") {
            events_.forget(key.name);
            recorder_->forget(key.kind, key.name);
        }
    }
    FileLoad none;
    none.file = origin_of(key);
    sink_->replace(none);
}

void ClusterSource::start(ObjectSink &sink) {
    sink_ = &sink;
    writer_ = std::thread([this] { write_statuses(); });
    for (auto &c : collections_) c.watch->start();
    lease_->start_renewing([this](const std::string &warning) { log_(LogLevel::warn, "up: " + warning); });
}

void ClusterSource::stop() {
    for (auto &c : collections_) c.watch->stop();
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (writer_.joinable()) writer_.join();
    if (recorder_) recorder_->stop();
    if (lease_) lease_->release();
}

void ClusterSource::status_written(const ObjectKey &key, const json::object &status) {
    if (!writes_status_back(key.kind)) return;
    common::MutexLock lock(mutex_);
    if (!declared_.contains(key)) return;
    if (key.kind != "LiveUpdate") {
        offer(key, status);
        return;
    }
    engine_statuses_[key] = status;
    const auto conflicts = conflicts_.find(key);
    offer(key, conflicts == conflicts_.end() ? status : cluster::with_sync_back_conflicts(status, conflicts->second));
}

void ClusterSource::sync_back_conflicts(const std::string &live_update, const json::array &conflicts) {
    const ObjectKey key{"LiveUpdate", live_update};
    common::MutexLock lock(mutex_);
    if (!declared_.contains(key)) return;
    const auto held = conflicts_.find(key);
    if (held == conflicts_.end() ? conflicts.empty() : held->second == conflicts) return;
    if (conflicts.empty())
        conflicts_.erase(key);
    else
        conflicts_[key] = conflicts;
    // Merged into the engine's status: the plugin's fields are written as it last wrote them.
    const auto engine = engine_statuses_.find(key);
    if (engine != engine_statuses_.end()) offer(key, cluster::with_sync_back_conflicts(engine->second, conflicts));
}

void ClusterSource::reconciled(const std::string &live_update, const cluster::ReconcileFacts &facts) {
    const ObjectKey key{"LiveUpdate", live_update};
    common::MutexLock lock(mutex_);
    if (!declared_.contains(key)) return;
    for (const cluster::EventNote &note : events_.reconciled(live_update, facts))
        recorder_->record(cluster::EventRegarding{key.kind, key.name, uids_[key]}, note);
}

// [locked]
void ClusterSource::offer(const ObjectKey &key, const json::object &status) {
    if (coalescer_.offer(key.text(), status)) wake_.notify_all();
}

// The writer: once a status is pending, waits the window for the burst to
// settle, then writes the latest of each object; what is pending at stop is written too.
void ClusterSource::write_statuses() {
    common::MutexLock lock(mutex_);
    for (;;) {
        lock.wait(wake_, [this]() LU_REQUIRES(mutex_) { return stopping_ || coalescer_.pending(); });
        if (!stopping_)
            lock.wait_for(wake_, options_.status_window, [this]() LU_REQUIRES(mutex_) { return stopping_; });
        const auto batch = coalescer_.take();
        lock.unlock();
        for (const auto &[key, status] : batch) write_status(key_from_text(key), status);
        lock.lock();
        if (stopping_ && !coalescer_.pending()) return;
    }
}

void ClusterSource::write_status(const ObjectKey &key, const json::object &status) {
    const Collection *c = collection_of(key.kind);
    if (c == nullptr) return;
    const std::string path = c->path + "/" + kube::url_escape(key.name);
    for (int attempt = 0; attempt < kStatusAttempts; ++attempt) {
        std::string resource_version;
        {
            common::MutexLock lock(mutex_);
            const auto found = resource_versions_.find(key);
            if (found == resource_versions_.end()) return;  // deleted meanwhile
            resource_version = found->second;
        }
        const json::object body{{"apiVersion", std::string(cluster::kGroup) + "/" + std::string(cluster::kVersion)},
                                {"kind", key.kind},
                                {"metadata", json::object{{"name", key.name}, {"resourceVersion", resource_version}}},
                                {"status", status}};
        try {
            const kube::ApiResponse put = client_->request("PUT", path + "/status", json::serialize(body));
            if (put.status / 100 == 2) {
                common::MutexLock lock(mutex_);
                if (!resource_versions_.contains(key)) return;
                const json::value answer = common::parse_limited(put.body);
                const json::object *stored =
                    answer.is_object() ? common::object_field(answer.as_object(), {"status"}) : nullptr;
                resource_versions_[key] = resource_version_in(put.body);
                coalescer_.written(key.text(), status, stored != nullptr ? *stored : status);
                return;
            }
            if (put.status == 404) return;
            if (put.status != 409) {
                const std::string hint = put.status == 403 ? " (`lu-host rbac --namespace " + namespace_ +
                                                                 "` prints the Role the operator needs)"
                                                           : "";
                log_(LogLevel::warn, "up: " + origin_of(key) + ": status not written: " + std::to_string(put.status) +
                                         " " + kube::status_message(put.body) + hint);
                return;
            }
            // Someone wrote it in between: read it again, then write on its resourceVersion.
            const kube::ApiResponse got = client_->request("GET", path);
            if (got.status / 100 != 2) return;
            common::MutexLock lock(mutex_);
            if (!resource_versions_.contains(key)) return;
            resource_versions_[key] = resource_version_in(got.body);
        } catch (const std::exception &e) {
            log_(LogLevel::warn, "up: " + origin_of(key) + ": status not written: " + e.what());
            return;
        }
    }
    log_(LogLevel::warn, "up: " + origin_of(key) + ": status not written: the object changed on every attempt");
}

// Unconditional (no resourceVersion): the daemon's queue is what it just
// computed from the latest it saw; a kubectl edit racing with it is lost, as
// a concurrent edit of the same entries would be.
void ClusterSource::object_written(const json::object &object) {
    const ObjectKey key = key_of_item(object);
    if (key.kind != "ConfigMap" || key.name != cluster::kTriggerQueueConfigMap || client_ == nullptr) return;
    const json::object *data = common::object_field(object, {"data"});
    const std::string body =
        json::serialize(json::object{{"apiVersion", "v1"},
                                     {"kind", "ConfigMap"},
                                     {"metadata", json::object{{"name", key.name}, {"namespace", namespace_}}},
                                     {"data", data != nullptr ? *data : json::object{}}});
    const Collection *c = collection_of("ConfigMap");
    if (c == nullptr) return;
    common::MutexLock lock(queue_write_mutex_);
    kube::ApiResponse r = client_->request("PUT", c->path + "/" + key.name, body);
    if (r.status == 404) r = client_->request("POST", c->path, body);
    if (r.status / 100 != 2)
        throw std::runtime_error("the trigger queue ConfigMap " + namespace_ + "/" + key.name +
                                 " was not written: " + std::to_string(r.status) + " " + kube::status_message(r.body));
    queue_writes_.push_back(resource_version_in(r.body));
    if (queue_writes_.size() > 16) queue_writes_.pop_front();  // an echo lost in a re-list is never awaited long
}

// Whether the event is the echo of a write of ours, already in the engine.
bool ClusterSource::own_queue_write(const json::object &item) {
    if (common::string_field(item, {"kind"}) != "ConfigMap") return false;
    const std::string rv = common::string_field(item, {"metadata", "resourceVersion"});
    common::MutexLock lock(queue_write_mutex_);
    const auto found = std::find(queue_writes_.begin(), queue_writes_.end(), rv);
    if (found == queue_writes_.end()) return false;
    queue_writes_.erase(found);
    return true;
}

const ClusterSource::Collection *ClusterSource::collection_of(const std::string &kind) const {
    for (const auto &c : collections_)
        if (c.kind == kind) return &c;
    return nullptr;
}

}  // namespace liveupdate::host::up
