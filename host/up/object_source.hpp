// Where the daemon's objects come from. A source reads its objects once at
// start (load), then follows their changes (start .. stop) and hands the
// daemon each origin's objects anew (ObjectSink::replace): objects the
// origin no longer declares are removed, another origin's declaration of
// them taking over. The object files and the Compose projects given to
// `lu-host up` are sources; a cluster (CRs listed and watched) would be one
// more, with one origin per object: replace with the object is an upsert,
// replace without it a delete. status_written hands every source the
// statuses the daemon writes, for a source that writes them back;
// object_written the objects it writes itself (the trigger queue), for a
// source that keeps them (the cluster's ConfigMap); reconciled what each
// reconcile of a LiveUpdate came to, for a source that reports it (the
// cluster's Events).
#pragma once

#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "host/cluster/event_rules.hpp"
#include "host/core/object_store.hpp"
#include "host/up/object_files.hpp"

namespace liveupdate::host::up {

class ObjectSink {
public:
    // Thread-safe; calls are applied one at a time.
    virtual void replace(const FileLoad &load) = 0;
    // The origins declaring objects that are files directly in dir.
    virtual std::set<std::string> origins_in(const std::string &dir) const = 0;

protected:
    ~ObjectSink() = default;
};

class ObjectSource {
public:
    virtual ~ObjectSource() = default;
    // Its objects now, one FileLoad per origin (errors already logged).
    virtual std::vector<FileLoad> load() = 0;
    // Follows changes until stop(); returns once changes after it are seen.
    virtual void start(ObjectSink &sink) = 0;
    virtual void stop() = 0;
    // A status the daemon wrote (any thread): a file source has nowhere to put it.
    virtual void status_written(const ObjectKey &, const boost::json::object &) {}
    // An object the daemon writes (the trigger queue), before it enters the
    // engine: a source that keeps it writes it there, and throws
    // std::runtime_error (what, where, why) when it cannot.
    virtual void object_written(const boost::json::object &) {}
    // A reconcile of the LiveUpdate ended (any thread, one at a time per LiveUpdate).
    virtual void reconciled(const std::string &, const cluster::ReconcileFacts &) {}
    // The LiveUpdate's open sync-back conflicts now (any thread), as
    // host/sync_back/conflicts_json.hpp makes them; empty when none.
    virtual void sync_back_conflicts(const std::string &, const boost::json::array &) {}
};

}  // namespace liveupdate::host::up
