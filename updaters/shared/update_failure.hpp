// An updater's failures as they travel to its update's outcome (docker and
// kubernetes throw them; the update's outcome is made from what was caught).
#pragma once

#include <stdexcept>

namespace liveupdate::updaters {

// A failure already worded for the user.
class InfraFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Found not running (stopped, killed, removed) before or during the update:
// the container's state, as one stopped before the update, not a failure of
// the update (C07). Its changes go out once it runs again.
class ContainerNotRunning : public InfraFailure {
public:
    using InfraFailure::InfraFailure;
};

// Found paused before anything changed in it: the update is due again once it runs.
class ContainerPaused : public ContainerNotRunning {
public:
    using ContainerNotRunning::ContainerNotRunning;
};

}  // namespace liveupdate::updaters
