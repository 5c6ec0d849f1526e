// The docker updater's failures as they travel to its update's outcome.
#pragma once

#include <stdexcept>

namespace liveupdate::docker {

// A failure already worded for the user.
class InfraFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Found paused before anything changed in it: the update is due again once it runs.
class ContainerPaused : public InfraFailure {
public:
    using InfraFailure::InfraFailure;
};

}  // namespace liveupdate::docker
