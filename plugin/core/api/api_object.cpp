#include "plugin/core/api/api_object.hpp"

#include <array>

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

namespace {

struct KindInfo {
    Kind kind;
    std::string_view name;
    std::string_view api_version;
    std::string_view resource;  // plural.group, as in API errors
};

constexpr std::array<KindInfo, 8> kKinds{{
    {Kind::LiveUpdate, "LiveUpdate", "tilt.dev/v1alpha1", "liveupdates.tilt.dev"},
    {Kind::FileWatch, "FileWatch", "tilt.dev/v1alpha1", "filewatches.tilt.dev"},
    {Kind::ImageMap, "ImageMap", "tilt.dev/v1alpha1", "imagemaps.tilt.dev"},
    {Kind::KubernetesDiscovery, "KubernetesDiscovery", "tilt.dev/v1alpha1", "kubernetesdiscoverys.tilt.dev"},
    {Kind::KubernetesApply, "KubernetesApply", "tilt.dev/v1alpha1", "kubernetesapplys.tilt.dev"},
    {Kind::DockerComposeService, "DockerComposeService", "tilt.dev/v1alpha1", "dockercomposeservices.tilt.dev"},
    {Kind::ConfigMap, "ConfigMap", "tilt.dev/v1alpha1", "configmaps.tilt.dev"},
    {Kind::LocalContainer, "LocalContainer", "liveupdate.dev/v1alpha1", "localcontainers.liveupdate.dev"},
}};

const KindInfo &info(Kind kind) {
    for (const auto &k : kKinds)
        if (k.kind == kind) return k;
    return kKinds[0];
}

ObjectBody decode_body(Kind kind, const json::object &o) {
    switch (kind) {
    case Kind::LiveUpdate:
        return LiveUpdate{decode_live_update_spec(object_field(o, "spec", "")),
                          decode_live_update_status(object_field(o, "status", ""))};
    case Kind::FileWatch: return decode_file_watch(o);
    case Kind::ImageMap: return decode_image_map(o);
    case Kind::KubernetesDiscovery: return decode_kubernetes_discovery(o);
    case Kind::KubernetesApply: return decode_kubernetes_apply(o);
    case Kind::DockerComposeService: return decode_docker_compose_service(o);
    case Kind::ConfigMap: return decode_config_map(o);
    case Kind::LocalContainer: return decode_local_container(o);
    }
    throw DecodeError("kind", "unhandled kind");
}

}  // namespace

std::string_view kind_name(Kind kind) { return info(kind).name; }

std::optional<Kind> kind_from_name(std::string_view name) {
    for (const auto &k : kKinds)
        if (k.name == name) return k.kind;
    return std::nullopt;
}

std::string_view api_version_of(Kind kind) { return info(kind).api_version; }

std::string not_found_message(Kind kind, const std::string &name) {
    return std::string(info(kind).resource) + " \"" + name + "\" not found";
}

const json::value &ApiObject::raw_field(std::string_view key) const {
    static const json::value null_value;
    if (!raw.is_object()) return null_value;
    const json::value *v = common::member(raw.get_object(), key);
    return v == nullptr ? null_value : *v;
}

ApiObject decode_api_object(json::value raw) {
    const auto &o = expect_object(raw, "");
    const std::string kind_text = string_field(o, "kind", "");
    if (kind_text.empty()) throw DecodeError("kind", "required");
    const auto kind = kind_from_name(kind_text);
    if (!kind) throw DecodeError("kind", "unknown kind \"" + kind_text + "\"");
    const std::string api_version = string_field(o, "apiVersion", "");
    if (!api_version.empty() && api_version != api_version_of(*kind))
        throw DecodeError("apiVersion", "expected \"" + std::string(api_version_of(*kind)) + "\" for kind " +
                                            kind_text + ", got \"" + api_version + "\"");
    ObjectMeta meta = decode_object_meta(o);
    ObjectBody body = decode_body(*kind, o);
    return ApiObject{*kind, std::move(meta), std::move(raw), std::move(body)};
}

}  // namespace liveupdate::api
