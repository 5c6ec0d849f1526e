// One decoded API object of any kind the reconciler knows, with its JSON kept
// for change detection (Tilt compares statuses) and snapshots.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/json.hpp>

#include "plugin/core/api/config_map.hpp"
#include "plugin/core/api/docker_compose_service.hpp"
#include "plugin/core/api/file_watch.hpp"
#include "plugin/core/api/image_map.hpp"
#include "plugin/core/api/kubernetes_apply.hpp"
#include "plugin/core/api/kubernetes_discovery.hpp"
#include "plugin/core/api/live_update.hpp"
#include "plugin/core/api/local_container.hpp"
#include "plugin/core/api/object_meta.hpp"

namespace liveupdate::api {

enum class Kind {
    LiveUpdate,
    FileWatch,
    ImageMap,
    KubernetesDiscovery,
    KubernetesApply,
    DockerComposeService,
    ConfigMap,
    LocalContainer
};

std::string_view kind_name(Kind kind);
std::optional<Kind> kind_from_name(std::string_view name);
// The API group version of a kind ("tilt.dev/v1alpha1", "liveupdate.dev/v1alpha1").
std::string_view api_version_of(Kind kind);
// Message of a missing object, as Kubernetes API servers word it.
std::string not_found_message(Kind kind, const std::string &name);

struct LiveUpdate {
    LiveUpdateSpec spec;
    LiveUpdateStatus status;
};

using ObjectBody = std::variant<LiveUpdate, FileWatch, ImageMap, KubernetesDiscovery, KubernetesApply,
                                DockerComposeService, ConfigMap, LocalContainer>;

struct ApiObject {
    Kind kind;
    ObjectMeta meta;
    boost::json::value raw;  // the object as received
    ObjectBody body;

    // raw["spec"] / raw["status"], null when missing.
    const boost::json::value &raw_field(std::string_view key) const;
};

using ObjectPtr = std::shared_ptr<const ApiObject>;

// Decodes a whole object; throws common::DecodeError naming the field.
ApiObject decode_api_object(boost::json::value raw);

}  // namespace liveupdate::api
