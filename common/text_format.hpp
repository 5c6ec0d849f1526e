// Formatting that reproduces how Tilt (Go) prints values in messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::common {

// Go's %q: a double-quoted string with \" \\ and control characters escaped.
std::string go_quote(std::string_view s);
// Go's %v of a []string: "[a b c]".
std::string go_list(const std::vector<std::string> &items);
// Tilt's FormatFileChangeList: at most 5 paths, then "...".
std::string format_file_change_list(const std::vector<std::string> &paths);

}  // namespace liveupdate::common
