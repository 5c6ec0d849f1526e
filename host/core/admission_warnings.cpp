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

}  // namespace

std::vector<std::string> admission_warnings(const json::object &object) {
    std::vector<std::string> out;
    const json::value *kind = object.if_contains("kind");
    const json::value *spec = object.if_contains("spec");
    if (kind == nullptr || !kind->is_string() || spec == nullptr || !spec->is_object()) return out;
    if (kind->as_string() == "LiveUpdate") {
        const std::string base = common::string_field(*spec, {"basePath"});
        const json::value *syncs = common::member(*spec, {"syncs"});
        if (base.empty() || base.front() != '/' || syncs == nullptr || !syncs->is_array()) return out;
        const std::string clean_base = common::clean_path(base);
        for (std::size_t i = 0; i < syncs->as_array().size(); ++i) {
            const std::string local = common::string_field(syncs->as_array()[i], {"localPath"});
            if (local.empty()) continue;
            const std::string resolved =
                local.front() == '/' ? common::clean_path(local) : common::join_path(clean_base, local);
            if (is_within(resolved, clean_base)) continue;
            std::string warning = "spec.syncs[" + std::to_string(i) + "].localPath ";
            warning.append(resolved).append(" is outside spec.basePath ").append(clean_base);
            warning.append(": its files are synced, but are they the ones meant? (check the path, or widen basePath)");
            out.push_back(std::move(warning));
        }
    } else if (kind->as_string() == "LocalContainer") {
        if (common::clean_path(common::string_field(*spec, {"root"})) == "/")
            out.push_back(
                "spec.root is \"/\": the container is this whole machine, so a live update writes and "
                "deletes files anywhere in it (give the container a folder of its own)");
    }
    return out;
}

}  // namespace liveupdate::host
