#include "plugin/core/api/config_map.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

namespace {
bool is_name_key(const std::string &key) {
    constexpr std::string_view suffix = "-name";
    return key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

ConfigMap decode_config_map(const json::object &object) { return ConfigMap{string_map_field(object, "data", "")}; }

std::vector<std::string> names_in_trigger_queue(const ConfigMap &queue) {
    std::vector<std::string> out;
    for (const auto &[k, v] : queue.data)
        if (is_name_key(k)) out.push_back(v);
    return out;
}

bool in_trigger_queue(const ConfigMap &queue, const std::string &manifest) {
    for (const auto &[k, v] : queue.data)
        if (is_name_key(k) && v == manifest) return true;
    return false;
}

}  // namespace liveupdate::api
