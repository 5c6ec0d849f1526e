// D01: which LiveUpdates a changed object makes due (Tilt's indexLiveUpdate),
// and D02: which ones a trigger queue makes due.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/api/api_object.hpp"

namespace liveupdate {

using DependencyKey = std::pair<api::Kind, std::string>;

// The objects a LiveUpdate reads: sources' FileWatches and ImageMaps, the
// Kubernetes selector's discovery/apply/ImageMap, the Docker Compose service,
// the LocalContainer.
std::vector<DependencyKey> referenced_objects(const api::LiveUpdateSpec &spec);

class DependencyIndex {
public:
    // Records (or, with spec null, forgets) what a LiveUpdate references.
    void set(const std::string &live_update, const api::LiveUpdateSpec *spec);
    // LiveUpdates that reference the object, sorted.
    std::vector<std::string> referencing(api::Kind kind, const std::string &name) const;

private:
    std::map<DependencyKey, std::set<std::string>> by_object_;
    std::map<std::string, std::vector<DependencyKey>> keys_of_;
};

// D02: of the given (LiveUpdate name, manifest) pairs, those whose manifest is queued; sorted.
std::vector<std::string> due_for_trigger_queue(const api::ConfigMap &queue,
                                               const std::vector<std::pair<std::string, std::string>> &manifests);

}  // namespace liveupdate
