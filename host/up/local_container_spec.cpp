#include "host/up/local_container_spec.hpp"

#include <stdexcept>

#include "common/ignore_patterns.hpp"
#include "common/json_fields.hpp"
#include "common/paths.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

namespace {

std::string required_string(const json::value &v, const std::string &field) {
    if (!v.is_string()) throw std::invalid_argument(field + ": must be a string");
    return std::string(v.as_string());
}

}  // namespace

LocalProcessSpec parse_local_container_spec(const json::object &object) {
    const json::value *spec_v = common::member(object, "spec");
    if (spec_v == nullptr || !spec_v->is_object()) throw std::invalid_argument("spec: must be an object");
    const json::object &spec = spec_v->as_object();
    LocalProcessSpec out;

    const json::value *root = common::member(spec, "root");
    if (root == nullptr) throw std::invalid_argument("spec.root: required");
    out.root = common::clean_path(required_string(*root, "spec.root"));
    if (out.root.empty() || out.root.front() != '/') throw std::invalid_argument("spec.root: must be an absolute path");

    if (const json::value *cmd = common::member(spec, "command")) {
        if (!cmd->is_array()) throw std::invalid_argument("spec.command: must be an array of strings");
        const json::array &args = cmd->as_array();
        for (std::size_t i = 0; i < args.size(); ++i)
            out.command.push_back(required_string(args[i], "spec.command[" + std::to_string(i) + "]"));
    }
    if (const json::value *wd = common::member(spec, "workingDir")) {
        out.working_dir = required_string(*wd, "spec.workingDir");
        if (out.working_dir.empty() || out.working_dir.front() != '/' ||
            common::clean_path(out.working_dir).find("..") != std::string::npos)
            throw std::invalid_argument("spec.workingDir: must be an absolute container path without \"..\"");
        out.working_dir = common::clean_path(out.working_dir);
    }
    if (const json::value *env = common::member(spec, "env")) {
        if (env->is_object()) {
            for (const auto &[k, v] : env->as_object())
                out.env.emplace_back(std::string(k), required_string(v, "spec.env." + std::string(k)));
        } else if (env->is_array()) {
            const json::array &items = env->as_array();
            for (std::size_t i = 0; i < items.size(); ++i) {
                const std::string entry = required_string(items[i], "spec.env[" + std::to_string(i) + "]");
                const std::size_t eq = entry.find('=');
                if (eq == std::string::npos || eq == 0)
                    throw std::invalid_argument("spec.env[" + std::to_string(i) + "]: must be \"NAME=value\"");
                out.env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
            }
        } else {
            throw std::invalid_argument("spec.env: must be an object or an array");
        }
    }
    return out;
}

std::string host_path_in(const LocalProcessSpec &spec, const std::string &container_path) {
    const std::string rel = common::clean_path(container_path);
    if (rel == "/" || rel.empty()) return spec.root;
    return common::clean_path(spec.root + "/" + rel);
}

}  // namespace liveupdate::host::up
