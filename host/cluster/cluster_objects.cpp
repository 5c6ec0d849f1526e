#include "host/cluster/cluster_objects.hpp"

#include "common/json_fields.hpp"
#include "common/text_format.hpp"
#include "host/cluster/cluster_paths.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

class Resolver {
public:
    Resolver(std::string_view root, std::vector<PathFieldError> &errors) : root_(root), errors_(errors) {}

    // Checks the string at v (a field relative to from); returns its resolved path.
    std::string check(const json::value &v, std::string_view from, const std::string &field) {
        if (!v.is_string()) return {};
        const std::string_view text = v.as_string();
        const ClusterPath path = resolve_cluster_path(root_, from, text);
        if (!path.ok()) errors_.push_back({field, "Invalid value: " + common::go_quote(text) + ": " + path.error});
        return path.resolved;
    }

    // Replaces the string at v by its path resolved from the root.
    void replace(json::value &v, const std::string &field) {
        const std::string resolved = check(v, root_, field);
        if (!resolved.empty()) v = resolved;
    }

    void check_strings(const json::object &o, std::string_view key, std::string_view from, const std::string &field) {
        const json::value *arr = common::member(o, key);
        if (arr == nullptr || !arr->is_array()) return;
        for (std::size_t i = 0; i < arr->as_array().size(); ++i)
            check(arr->as_array()[i], from, field + "[" + std::to_string(i) + "]");
    }

    // Tilt's basePath "cannot be empty"; in a cluster no file's folder stands in for it.
    void require(const std::string &field) {
        errors_.push_back({field, "Required value: a path relative to the project folder (\".\": the folder itself)"});
    }

    const std::string &root() const { return root_; }

private:
    std::string root_;
    std::vector<PathFieldError> &errors_;
};

void resolve_file_watch(json::object &spec, Resolver &r) {
    if (json::value *paths = common::member_as_written(spec, "watchedPaths"); paths != nullptr && paths->is_array())
        for (std::size_t i = 0; i < paths->as_array().size(); ++i)
            r.replace(paths->as_array()[i], "spec.watchedPaths[" + std::to_string(i) + "]");
    if (json::value *ignores = common::member_as_written(spec, "ignores"); ignores != nullptr && ignores->is_array())
        for (std::size_t i = 0; i < ignores->as_array().size(); ++i) {
            json::value &ignore = ignores->as_array()[i];
            if (!ignore.is_object()) continue;
            if (json::value *base = common::member_as_written(ignore.as_object(), "basePath"))
                r.replace(*base, "spec.ignores[" + std::to_string(i) + "].basePath");
        }
}

void resolve_live_update(json::object &spec, Resolver &r) {
    json::value *base = common::member_as_written(spec, "basePath");
    if (base == nullptr) return r.require("spec.basePath");
    const std::string from = r.check(*base, r.root(), "spec.basePath");
    if (from.empty()) return;  // refused or not a string: the paths under it cannot be judged
    *base = from;
    if (const json::value *syncs = common::member(spec, "syncs"); syncs != nullptr && syncs->is_array())
        for (std::size_t i = 0; i < syncs->as_array().size(); ++i) {
            const json::value &sync = syncs->as_array()[i];
            if (!sync.is_object()) continue;
            if (const json::value *local = common::member_as_written(sync.as_object(), "localPath"))
                r.check(*local, from, "spec.syncs[" + std::to_string(i) + "].localPath");
        }
    r.check_strings(spec, "stopPaths", from, "spec.stopPaths");
    r.check_strings(spec, "restartPaths", from, "spec.restartPaths");
    if (const json::value *execs = common::member(spec, "execs"); execs != nullptr && execs->is_array())
        for (std::size_t i = 0; i < execs->as_array().size(); ++i)
            if (execs->as_array()[i].is_object())
                r.check_strings(execs->as_array()[i].as_object(), "triggerPaths", from,
                                "spec.execs[" + std::to_string(i) + "].triggerPaths");
}

}  // namespace

ResolvedObject resolve_cluster_object(json::object object, std::string_view root) {
    ResolvedObject out;
    Resolver resolver(root, out.errors);
    const std::string kind = common::string_field(object, {"kind"});
    // A spec of another type is left to the plugin's admission, which names it.
    json::value *spec_value = common::member_as_written(object, "spec");
    if (json::object *spec = spec_value != nullptr ? spec_value->if_object() : nullptr) {
        if (kind == "FileWatch") resolve_file_watch(*spec, resolver);
        if (kind == "LiveUpdate") resolve_live_update(*spec, resolver);
    } else if (kind == "LiveUpdate" && spec_value == nullptr) {
        resolver.require("spec.basePath");
    }
    out.object = std::move(object);
    return out;
}

}  // namespace liveupdate::host::cluster
