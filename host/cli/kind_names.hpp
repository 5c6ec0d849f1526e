// Kind names on the command line: "liveupdates", "liveupdate", "lu" → "LiveUpdate".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::host::cli {

std::optional<std::string> kind_from_cli(std::string_view text);

}  // namespace liveupdate::host::cli
