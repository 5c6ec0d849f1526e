// A replay scenario file (replay.md), parsed and checked before anything runs:
// a malformed file is one ScenarioError, never a half-run scenario.
#pragma once

#include <filesystem>
#include <functional>
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
    boost::json::value value;  // its value, ${ROOT} substituted, its includes resolved
    // Where the step is written, for messages: "step 3", or for a step of an
    // included file "step 0: include fixtures/a.json: step 2".
    std::string where;
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

// Returns the text of a file an include names (its path resolved against the
// including file's folder); throws std::exception saying why it cannot.
using IncludeReader = std::function<std::string(const std::filesystem::path &)>;

// Parses text as a scenario, with ${ROOT} replaced by root. file is where the
// text was read from and read reads the files it includes (replay.md,
// "Fixtures"): the `include` step splices in the steps of a fixture file and an
// applied object's "$include" starts from the object of one. Without read, an
// include is a malformed scenario. Throws ScenarioError.
Scenario parse_scenario(std::string_view text, std::string_view root, const std::filesystem::path &file = {},
                        const IncludeReader &read = {});

}  // namespace liveupdate::host::replay
