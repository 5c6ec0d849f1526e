// Reads one compose file (yaml-cpp) into the values lu-host needs, after
// Compose's interpolation of every scalar; merges several files as Compose
// does (later files override a service's fields; a service's develop.watch
// list is replaced as a whole).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/compose/compose_model.hpp"
#include "host/compose/interpolation.hpp"

namespace liveupdate::host::compose {

struct FileRead {
    std::optional<ComposeFile> compose;  // nullopt when errors make the file unusable
    std::vector<ComposeIssue> errors;
    std::vector<ComposeIssue> warnings;  // variables without a value, read as blank
};

// Malformed YAML, a failing interpolation anywhere in the file and a
// develop.watch of the wrong shape are errors with their line and column.
FileRead read_compose_file(const std::string &file, std::string_view text, const VariableLookup &variables);

// Later files win: top-level name, a service's build context, its watch list.
ComposeFile merge_compose_files(const std::vector<ComposeFile> &files);

}  // namespace liveupdate::host::compose
