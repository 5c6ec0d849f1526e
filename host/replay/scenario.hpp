// A replay scenario file (replay.md), parsed and checked before anything runs:
// a malformed file is one ScenarioError, never a half-run scenario.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::host::replay {

class ScenarioError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ScenarioStep {
    std::string key;           // "apply", "delete", "clock", ..., "expect"
    boost::json::value value;  // its value, ${ROOT} substituted
};

struct Scenario {
    std::string description;
    common::MicroTime clock;
    std::vector<std::pair<std::string, std::string>> files;  // relative path → content
    std::vector<ScenarioStep> steps;
};

// The step keys replay.md defines.
const std::vector<std::string> &step_keys();

// Replaces ${ROOT} in every string (and object key) of value.
boost::json::value substitute_root(const boost::json::value &value, std::string_view root);

// Parses text as a scenario, with ${ROOT} replaced by root. Throws ScenarioError.
Scenario parse_scenario(std::string_view text, std::string_view root);

}  // namespace liveupdate::host::replay
