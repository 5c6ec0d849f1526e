// Kind names on the command line: "liveupdates", "liveupdate", "lu" → "LiveUpdate".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::up {

std::optional<std::string> kind_from_cli(std::string_view text);

}  // namespace liveupdate::up
