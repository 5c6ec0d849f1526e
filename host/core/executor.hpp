// Runs one container update step of a reconcile: builds the archive from the
// step's copies, hands it with the deletes and runs to the updater serving the
// step's "via", and turns the updater's answer into an outcome for
// reconcile_continue.
#pragma once

#include <boost/json.hpp>

#include "host/core/archive_builder.hpp"
#include "host/core/log.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"

namespace liveupdate::host {

class Executor {
public:
    explicit Executor(const UpdaterRegistry &updaters) : updaters_(updaters) {}

    // update: the step's "update" object. Never throws for a bad step or a
    // failing updater: those are infra-failure outcomes. Log lines (archive
    // warnings, updater output) go to log, which must be thread-safe.
    UpdateOutcome execute(const boost::json::object &update, const LogSinkFn &log) const;

private:
    const UpdaterRegistry &updaters_;
};

}  // namespace liveupdate::host
