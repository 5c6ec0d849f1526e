// Keeps the declared objects in service: each source's declarations are
// recorded (Declarations), admitted into the engine and the store, and handed
// to what serves their kind (FileWatch → FileWatches, LocalContainer → the
// supervisor, DockerComposeService and KubernetesDiscovery → Discoveries,
// the trigger queue → ManualTriggers);
// statuses those report are stored with the object. The LiveUpdates a change
// makes due go to the due queue.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/core/object_store.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/up/activity.hpp"
#include "host/up/declarations.hpp"
#include "host/up/discoveries.hpp"
#include "host/up/due_queue.hpp"
#include "host/up/file_watches.hpp"
#include "host/up/local_container_supervisor.hpp"
#include "host/up/manual_triggers.hpp"
#include "host/up/object_source.hpp"
#include "host/up/up_log.hpp"

namespace liveupdate::host::up {

class ObjectKeeper final : public ObjectSink {
public:
    struct Parts {
        UpLog &log;
        const PluginSlot &plugin_slot;
        JsonObjectStore &store;
        Declarations &declarations;
        DueQueue &due;
        FileWatches &file_watches;
        LocalContainerSupervisor &containers;
        Discoveries &discoveries;
        Activity &activity;
        ManualTriggers &triggers;
    };

    explicit ObjectKeeper(Parts parts) : p_(parts) {}

    // The sources' first loads, all together: objects a LiveUpdate refers to first.
    void apply_all(const std::vector<FileLoad> &loads);
    void replace(const FileLoad &load) override;
    std::set<std::string> origins_in(const std::string &dir) const override;

    // Admits the object into the engine and stores it; returns the LiveUpdates it makes due, unmarked.
    std::vector<std::string> admit(const boost::json::object &object, const std::string &origin);
    // Statuses reported on the threads of the supervisor and the discoveries.
    void container_status(const std::string &name, const boost::json::object &status);
    void discovered_status(const std::string &kind, const std::string &name, const boost::json::object &status);

private:
    void apply(const DeclaredObject &d) LU_REQUIRES(replace_mutex_);
    void apply_local_container(const DeclaredObject &d, const std::string &origin) LU_REQUIRES(replace_mutex_);
    void apply_compose_service(const DeclaredObject &d, const std::string &origin) LU_REQUIRES(replace_mutex_);
    void apply_kubernetes_discovery(const DeclaredObject &d, const std::string &origin) LU_REQUIRES(replace_mutex_);
    void upsert(const boost::json::object &object, const std::string &origin);
    void remove(const ObjectKey &key) LU_REQUIRES(replace_mutex_);

    Parts p_;
    // One origin's objects replaced at a time, as the sources' threads ask.
    common::Mutex replace_mutex_;
    common::Mutex containers_mutex_;
    std::map<std::string, std::string> container_state_logged_
        LU_GUARDED_BY(containers_mutex_);  // LocalContainer → "ID state"
};

}  // namespace liveupdate::host::up
