// Loads a Compose project from its files (the I/O edge of host/compose):
// reads the .env beside the first file and the compose files, interpolates,
// merges, names the project and maps its develop.watch rules to Tilt objects.
//
//   ProjectLoad load = load_compose_project({{"/src/shop/compose.yaml"}, std::nullopt}, process_environment());
//   for (auto &o : load.objects) ...; for (auto &e : load.errors) ...;
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "host/compose/compose_model.hpp"
#include "host/compose/interpolation.hpp"

namespace liveupdate::host::compose {

struct ProjectOptions {
    std::vector<std::string> files;   // merge order; relative to the current folder or absolute
    std::optional<std::string> name;  // -p
};

struct ProjectLoad {
    std::string name;                        // empty when the project could not be named
    std::string directory;                   // absolute
    std::vector<std::string> files;          // absolute compose files
    std::vector<std::string> watched_files;  // the compose files and the .env beside the first
    std::vector<boost::json::object> objects;
    std::vector<std::string> errors;                     // "file:line:column: why" (or "file: why")
    std::vector<std::string> warnings;                   // same shape
    std::map<std::string, std::string> rebuild_watches;  // FileWatch of a rebuild rule → its service
};

ProjectLoad load_compose_project(const ProjectOptions &options, const VariableLookup &environment);

// The process environment as a lookup.
VariableLookup process_environment();

}  // namespace liveupdate::host::compose
