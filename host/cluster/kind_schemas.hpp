// The openAPIV3Schemas of the cluster kinds' spec and status: Tilt's API types
// (pkg/apis/core/v1alpha1/*_types.go) with this project's additions the
// plugin reads (plugin/core/api/), so that no field the plugin reads is pruned.
#pragma once

#include "host/cluster/openapi_schema.hpp"

namespace liveupdate::host::cluster {

schema::Schema live_update_spec();
schema::Schema live_update_status();
schema::Schema file_watch_spec();
schema::Schema file_watch_status();
schema::Schema kubernetes_discovery_spec();
schema::Schema kubernetes_discovery_status();
schema::Schema image_map_spec();
schema::Schema image_map_status();
schema::Schema kubernetes_apply_spec();
schema::Schema kubernetes_apply_status();

}  // namespace liveupdate::host::cluster
