// `lu-host up --from-cluster`: the objects of a namespace as a source. The
// operator takes its namespace's Lease (one operator per namespace), lists
// then watches each kind it takes (host/cluster/cluster_admission.hpp), one
// origin per object ("cluster:LiveUpdate/web"), and writes the statuses of
// its LiveUpdates and KubernetesDiscoveries back through their /status
// subresource: only a changed one, the latest of a burst, re-read on a 409;
// one someone else changed (it watches their statuses too) is written over.
// FileWatch statuses stay local (a saved file is not an etcd write). The
// trigger queue is the namespace's ConfigMap tilt-trigger-queue: followed
// (a kubectl edit triggers), and written when the daemon writes the queue.
// A LiveUpdate that fails, recovers, is refused or restarts a container gets
// an Event (cluster/event_rules.hpp), its repeats counted on one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/kube/api_client.hpp"
#include "common/mutex.hpp"
#include "host/cluster/cluster_admission.hpp"
#include "host/cluster/event_recorder.hpp"
#include "host/cluster/event_rules.hpp"
#include "host/cluster/operator_lease.hpp"
#include "host/cluster/resource_watch.hpp"
#include "host/cluster/status_coalescer.hpp"
#include "host/up/object_file_source.hpp"
#include "host/up/object_source.hpp"

namespace liveupdate::host::up {

struct ClusterSourceOptions {
    kube::LoadOptions kubeconfig;                  // --kubeconfig, --context, --namespace
    std::string project_dir;                       // absolute: what the objects' relative paths are relative to
    std::chrono::milliseconds status_window{250};  // a burst of statuses within it is one write per object
    cluster::ClusterAllowances allowances{};       // --allow-sync-back
};

class ClusterSource : public ObjectSource {
public:
    ClusterSource(ClusterSourceOptions options, SourceLogFn log);
    ~ClusterSource() override;

    // Takes the Lease (throws naming its holder), then lists every kind.
    std::vector<FileLoad> load() override;
    void start(ObjectSink &sink) override;
    void stop() override;
    void status_written(const ObjectKey &key, const boost::json::object &status) override;
    void object_written(const boost::json::object &object) override;
    void reconciled(const std::string &live_update, const cluster::ReconcileFacts &facts) override;
    void sync_back_conflicts(const std::string &live_update, const boost::json::array &conflicts) override;

private:
    struct Collection {
        std::string kind;
        std::string path;  // the collection's REST path
        std::unique_ptr<cluster::ResourceWatch> watch;
    };

    std::string collection_path(const std::string &plural, bool required);
    Collection follow(const std::string &kind, const std::string &path, const std::string &selector);
    bool own_queue_write(const boost::json::object &item);
    void warn_never_taken();
    FileLoad take(const boost::json::object &item);
    void refuse(const ObjectKey &key, const std::string &message) LU_REQUIRES(mutex_);
    void listed(const std::string &kind, const std::vector<boost::json::object> &items);
    void changed(std::string_view type, const boost::json::object &item);
    void offer(const ObjectKey &key, const boost::json::object &status) LU_REQUIRES(mutex_);
    void write_statuses();
    void write_status(const ObjectKey &key, const boost::json::object &status);
    const Collection *collection_of(const std::string &kind) const;

    ClusterSourceOptions options_;
    SourceLogFn log_;
    std::unique_ptr<kube::ApiClient> client_;
    std::string namespace_;
    std::unique_ptr<cluster::OperatorLease> lease_;
    std::vector<Collection> collections_;
    ObjectSink *sink_ = nullptr;

    common::Mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::map<ObjectKey, std::string> resource_versions_ LU_GUARDED_BY(mutex_);  // every object of ours in the cluster
    std::map<ObjectKey, std::string> refusals_ LU_GUARDED_BY(mutex_);           // refused objects: why
    std::set<ObjectKey> declared_ LU_GUARDED_BY(mutex_);                        // taken and handed to the daemon
    std::map<ObjectKey, std::string> uids_ LU_GUARDED_BY(mutex_);               // what an Event is regarding
    cluster::LiveUpdateEvents events_ LU_GUARDED_BY(mutex_);
    std::unique_ptr<cluster::EventRecorder> recorder_;  // made before the first listing, stopped after the writer
    cluster::StatusCoalescer coalescer_ LU_GUARDED_BY(mutex_);
    // LiveUpdates: the engine's last status and the open sync-back conflicts,
    // merged into one status to write (host/cluster/sync_back_status.hpp).
    std::map<ObjectKey, boost::json::object> engine_statuses_ LU_GUARDED_BY(mutex_);
    std::map<ObjectKey, boost::json::array> conflicts_ LU_GUARDED_BY(mutex_);
    std::thread writer_;

    // Held over a write of the trigger queue, so that its watch event (our own
    // write, already in the engine) is known as ours when it arrives.
    common::Mutex queue_write_mutex_;
    std::deque<std::string> queue_writes_ LU_GUARDED_BY(queue_write_mutex_);  // resourceVersions of our last writes
};

}  // namespace liveupdate::host::up
