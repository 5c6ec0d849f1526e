#include "host/up/admission_warnings.hpp"

#include "common/ignore_patterns.hpp"
#include "common/paths.hpp"

namespace liveupdate::up {
namespace json = boost::json;

namespace {

const json::value *member(const json::value &v, std::string_view key) {
    return v.is_object() ? v.as_object().if_contains(key) : nullptr;
}

std::string string_of(const json::value *v) { return v != nullptr && v->is_string() ? std::string(v->as_string()) : ""; }

bool is_within(const std::string &path, const std::string &base) {
    if (base == "/") return true;
    return path == base || (path.size() > base.size() && path.compare(0, base.size(), base) == 0 &&
                            path[base.size()] == '/');
}

}  // namespace

std::vector<std::string> admission_warnings(const json::object &object) {
    std::vector<std::string> out;
    const json::value *kind = object.if_contains("kind");
    const json::value *spec = object.if_contains("spec");
    if (kind == nullptr || !kind->is_string() || spec == nullptr || !spec->is_object()) return out;
    if (kind->as_string() == "LiveUpdate") {
        const std::string base = string_of(member(*spec, "basePath"));
        const json::value *syncs = member(*spec, "syncs");
        if (base.empty() || base.front() != '/' || syncs == nullptr || !syncs->is_array()) return out;
        const std::string clean_base = clean_path(base);
        for (std::size_t i = 0; i < syncs->as_array().size(); ++i) {
            const std::string local = string_of(member(syncs->as_array()[i], "localPath"));
            if (local.empty()) continue;
            const std::string resolved = local.front() == '/' ? clean_path(local) : join_path(clean_base, local);
            if (!is_within(resolved, clean_base))
                out.push_back("spec.syncs[" + std::to_string(i) + "].localPath " + resolved +
                              " is outside spec.basePath " + clean_base +
                              ": its files are synced, but are they the ones meant? (check the path, or widen basePath)");
        }
    } else if (kind->as_string() == "LocalContainer") {
        if (clean_path(string_of(member(*spec, "root"))) == "/")
            out.push_back("spec.root is \"/\": the container is this whole machine, so a live update writes and "
                          "deletes files anywhere in it (give the container a folder of its own)");
    }
    return out;
}

}  // namespace liveupdate::up
