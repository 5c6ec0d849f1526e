// Kind names on the command line: "liveupdates", "liveupdate", "lu" → "LiveUpdate".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::cli {

std::optional<std::string> kind_from_cli(std::string_view text);
// "liveupdates", "filewatches", ...: what `lu-host completion` offers for KIND.
std::vector<std::string> kind_plurals();

}  // namespace liveupdate::host::cli
