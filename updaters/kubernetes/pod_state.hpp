// Whether an update's container still runs, from its pod as the API server
// has it: an update that failed while the pod was deleted or its container
// stopped counts as "container not running" (C07), as one stopped before the
// update, never as the LiveUpdate's failure.
#pragma once

#include <string>

#include <boost/json.hpp>

#include "liveupdate/updater.hpp"
#include "updaters/kubernetes/api_exec.hpp"

namespace liveupdate::kubernetes {

// Why the container the update was for no longer runs in pod (the object
// the API server answered): the pod being deleted or finished, the container
// terminated or waiting, or started again since (another container ID; not
// compared when container.id is empty). "" when it runs.
std::string gone_reason_of(const boost::json::value &pod, const updater::ContainerRef &container);

// The same, asking the API server (api's client); a pod it no longer has
// (404) is gone. "" also when it cannot tell (an unusable kubeconfig, the
// server unreachable or refusing): the failure then stays the update's.
std::string container_gone_reason(ApiExec &api, const updater::ContainerRef &container);

}  // namespace liveupdate::kubernetes
