#include "host/core/admission_warnings.hpp"

#include "common/ignore_patterns.hpp"
#include "common/json_fields.hpp"
#include "common/paths.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

bool is_within(const std::string &path, const std::string &base) {
    if (base == "/") return true;
    return path == base ||
           (path.size() > base.size() && path.compare(0, base.size(), base) == 0 && path[base.size()] == '/');
}

bool is_text(const json::value *v) { return v != nullptr && v->is_string() && !v->get_string().empty(); }

}  // namespace

// Runs before the plugin's admission: a member of another type is not a
// warning but an error the plugin names, so it is passed over here.
std::vector<std::string> admission_warnings(const json::object &object) {
    std::vector<std::string> out;
    const json::value *kind = common::member(object, "kind");
    const json::value *spec = common::member(object, "spec");
    if (kind == nullptr || !kind->is_string() || spec == nullptr || !spec->is_object()) return out;
    if (kind->get_string() == "LiveUpdate") {
        const json::value *base = common::member(spec->get_object(), "basePath");
        const json::value *syncs = common::member(spec->get_object(), "syncs");
        if (!is_text(base) || base->get_string().front() != '/' || syncs == nullptr || !syncs->is_array()) return out;
        const std::string clean_base = common::clean_path(base->get_string());
        for (std::size_t i = 0; i < syncs->get_array().size(); ++i) {
            const json::value &sync = syncs->get_array()[i];
            const json::value *local_path = sync.is_object() ? common::member(sync.get_object(), "localPath") : nullptr;
            if (!is_text(local_path)) continue;
            const std::string local(local_path->get_string());
            const std::string resolved =
                local.front() == '/' ? common::clean_path(local) : common::join_path(clean_base, local);
            if (is_within(resolved, clean_base)) continue;
            std::string warning = "spec.syncs[" + std::to_string(i) + "].localPath ";
            warning.append(resolved).append(" is outside spec.basePath ").append(clean_base);
            warning.append(": its files are synced, but are they the ones meant? (check the path, or widen basePath)");
            out.push_back(std::move(warning));
        }
    } else if (kind->get_string() == "LocalContainer") {
        const json::value *root = common::member(spec->get_object(), "root");
        if (is_text(root) && common::clean_path(root->get_string()) == "/")
            out.push_back(
                "spec.root is \"/\": the container is this whole machine, so a live update writes and "
                "deletes files anywhere in it (give the container a folder of its own)");
    }
    return out;
}

}  // namespace liveupdate::host
