// What `lu-host get / describe / plugins / trigger / activity / verify` ask
// the daemon, on the control socket and from the status page: a request
// object in, an answer object out ({"error": ...} when it cannot answer).
#pragma once

#include <functional>

#include <boost/json.hpp>

#include "host/core/object_store.hpp"
#include "host/up/activity.hpp"
#include "host/up/declarations.hpp"
#include "host/up/manual_triggers.hpp"

namespace liveupdate::host::up {

class ControlOperations {
public:
    struct Parts {
        const JsonObjectStore &store;
        const Declarations &declarations;
        const Activity &activity;
        ManualTriggers &triggers;
        std::function<boost::json::array()> plugins;  // the plugins in service
        std::function<boost::json::value(const boost::json::object &request)> verify;
        // A LiveUpdate's open sync-back conflicts (host/sync_back/conflicts_json.hpp).
        std::function<boost::json::array(const std::string &live_update)> sync_back_conflicts;
    };

    explicit ControlOperations(Parts parts) : p_(std::move(parts)) {}

    // Thread-safe.
    boost::json::value handle(const boost::json::object &request) const;

private:
    boost::json::value get(const std::string &kind) const;
    boost::json::value describe(const std::string &kind, const std::string &name) const;
    boost::json::value activity(const boost::json::object &request) const;
    // The LiveUpdate object as answered: with its open sync-back conflicts
    // in status.syncBackConflicts (the daemon's, not the engine's status).
    boost::json::object with_conflicts(boost::json::object live_update) const;

    Parts p_;
};

}  // namespace liveupdate::host::up
