#include "host/core/build_entry.hpp"

#include <cstddef>
#include <vector>

#include "common/paths.hpp"
#include "common/text_format.hpp"

namespace liveupdate::host {

std::string build_entry_line(const boost::json::array &files, const std::string &working_dir) {
    // One more than the list prints, so that it ends with "..." when there are more.
    constexpr std::size_t kShown = 6;
    std::size_t count = 0;
    std::vector<std::string> shown;
    for (const boost::json::value &file : files) {
        if (!file.is_string()) continue;
        ++count;
        if (shown.size() == kShown) continue;
        const std::string path(file.get_string());
        const auto relative = common::child_path(working_dir, path);
        shown.push_back(relative && *relative != "." ? *relative : path);
    }
    if (count == 0) return "";
    return std::to_string(count) + (count == 1 ? " File" : " Files") +
           " Changed: " + common::format_file_change_list(shown);
}

}  // namespace liveupdate::host
