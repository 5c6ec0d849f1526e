// The ConfigMap kind; the reconciler reads one: the trigger queue.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::api {

inline constexpr const char *kTriggerQueueName = "tilt-trigger-queue";

struct ConfigMap {
    std::map<std::string, std::string> data;
};

ConfigMap decode_config_map(const boost::json::object &object);

// Manifest names queued for a trigger: the values of keys ending in "-name".
std::vector<std::string> names_in_trigger_queue(const ConfigMap &queue);
bool in_trigger_queue(const ConfigMap &queue, const std::string &manifest);

}  // namespace liveupdate::api
