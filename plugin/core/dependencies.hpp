// Reading a LiveUpdate's dependencies into its monitor at reconcile time
// (Tilt's reconcileSources / reconcileKubernetesResource / ... ): each returns
// whether something it watches changed, or throws ObjectNotFound (D05).
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/containers.hpp"
#include "plugin/core/monitor.hpp"

namespace liveupdate {

class ObjectNotFound : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using ObjectLookup = std::function<api::ObjectPtr(api::Kind, const std::string &)>;

bool refresh_sources(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup);
bool refresh_kubernetes(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup);
bool refresh_docker_compose(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup);
bool refresh_local_container(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup);
// The trigger queue's absence reads as an empty queue, as in Tilt.
bool refresh_trigger_queue(Monitor &monitor, const ObjectLookup &lookup);

// D06: the message of a selector that cannot be reconciled, if any.
std::optional<std::string> invalid_selector_message(const api::LiveUpdateSpec &spec);

// The selected containers from what the monitor last saw; an error message
// (failure reason Invalid) when the selector has nothing to select from.
std::variant<SelectedResource, std::string> resource_of(const Monitor &monitor, const api::LiveUpdateSpec &spec);

}  // namespace liveupdate
