#include "host/cluster/cluster_admission.hpp"

#include <algorithm>
#include <filesystem>

#include "common/json_fields.hpp"
#include "common/paths.hpp"
#include "host/cluster/cluster_objects.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

json::object stripped(const json::object &item) {
    json::object metadata{{"name", common::string_field(item, {"metadata", "name"})}};
    if (const std::string ns = common::string_field(item, {"metadata", "namespace"}); !ns.empty())
        metadata["namespace"] = ns;
    if (const json::object *m = common::object_field(item, {"metadata"}))
        for (const char *key : {"labels", "annotations"})
            if (const json::value *v = common::member(*m, key); v != nullptr && v->is_object()) metadata[key] = *v;
    json::object out{{"apiVersion", common::string_field(item, {"apiVersion"})},
                     {"kind", common::string_field(item, {"kind"})},
                     {"metadata", std::move(metadata)}};
    if (const json::value *spec = common::member_as_written(item, "spec")) out["spec"] = *spec;
    return out;
}

bool within(const fs::path &path, const fs::path &root) {
    const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
    return r == root.end();
}

// The absolute local paths of a resolved object, each with its field.
std::vector<std::pair<std::string, std::string>> local_paths(const json::object &object) {
    std::vector<std::pair<std::string, std::string>> out;
    const json::object *spec = common::object_field(object, {"spec"});
    if (spec == nullptr) return out;
    const std::string kind = common::string_field(object, {"kind"});
    if (kind == "FileWatch") {
        if (const json::value *paths = common::member(*spec, "watchedPaths"); paths != nullptr && paths->is_array())
            for (std::size_t i = 0; i < paths->as_array().size(); ++i)
                if (paths->as_array()[i].is_string())
                    out.emplace_back("spec.watchedPaths[" + std::to_string(i) + "]",
                                     std::string(paths->as_array()[i].as_string()));
    } else if (kind == "LiveUpdate") {
        const std::string base = common::string_field(*spec, {"basePath"});
        if (base.empty()) return out;
        out.emplace_back("spec.basePath", base);
        if (const json::value *syncs = common::member(*spec, "syncs"); syncs != nullptr && syncs->is_array())
            for (std::size_t i = 0; i < syncs->as_array().size(); ++i)
                if (const json::value &s = syncs->as_array()[i]; s.is_object())
                    if (const std::string local = common::string_field(s.as_object(), {"localPath"}); !local.empty())
                        out.emplace_back("spec.syncs[" + std::to_string(i) + "].localPath",
                                         common::join_path(base, local));
    }
    return out;
}

// Each sync of a LiveUpdate that asks for files to come back.
std::vector<PathFieldError> sync_back_requests(const json::object &object) {
    std::vector<PathFieldError> out;
    if (common::string_field(object, {"kind"}) != "LiveUpdate") return out;
    const json::object *spec = common::object_field(object, {"spec"});
    const json::value *syncs = spec != nullptr ? common::member(*spec, "syncs") : nullptr;
    if (syncs == nullptr || !syncs->is_array()) return out;
    for (std::size_t i = 0; i < syncs->as_array().size(); ++i) {
        const json::value &s = syncs->as_array()[i];
        const json::value *back = s.is_object() ? common::member_as_written(s.as_object(), "syncBack") : nullptr;
        if (back == nullptr || (back->is_array() && back->as_array().empty())) continue;
        out.push_back({"spec.syncs[" + std::to_string(i) + "].syncBack",
                       "Forbidden: files coming back from the container would be written into the project "
                       "folder; start lu-host up with --allow-sync-back to allow it"});
    }
    return out;
}

}  // namespace

bool is_taken_kind(std::string_view kind) {
    return std::find(std::begin(kTakenKinds), std::end(kTakenKinds), kind) != std::end(kTakenKinds);
}

std::string symlink_escape(std::string_view root, const std::string &path) {
    std::error_code ec;
    const fs::path real_root = fs::weakly_canonical(fs::path(root), ec);
    if (ec) return "cannot resolve the project folder " + std::string(root) + ": " + ec.message();
    const fs::path real = fs::weakly_canonical(fs::path(path), ec);
    if (ec) return "cannot resolve " + path + ": " + ec.message();
    if (!within(real, real_root)) return "must not leave the project folder (a symlink leads to " + real.string() + ")";
    return {};
}

ClusterVerdict judge_cluster_object(const json::object &item, std::string_view root,
                                    const ClusterAllowances &allowances) {
    const std::string kind = common::string_field(item, {"kind"});
    const std::string name = common::string_field(item, {"metadata", "name"});
    if (!is_taken_kind(kind))
        return {ClusterVerdict::Decision::ignored,
                {},
                kind + " " + name + ": objects of kind " + kind + " are never taken from a cluster"};
    ResolvedObject resolved = resolve_cluster_object(stripped(item), root);
    if (!allowances.sync_back)
        for (PathFieldError &issue : sync_back_requests(resolved.object)) resolved.errors.push_back(std::move(issue));
    if (resolved.errors.empty())
        for (const auto &[field, path] : local_paths(resolved.object))
            if (std::string why = symlink_escape(root, path); !why.empty())
                resolved.errors.push_back(
                    {field, std::string("Invalid value: \"").append(path).append("\": ").append(why)});
    if (resolved.errors.empty()) return {ClusterVerdict::Decision::taken, std::move(resolved.object), {}};
    std::string message;
    for (const auto &e : resolved.errors) message += (message.empty() ? "" : "; ") + e.field + ": " + e.message;
    return {ClusterVerdict::Decision::refused, {}, std::move(message)};
}

}  // namespace liveupdate::host::cluster
