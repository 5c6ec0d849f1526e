#include "host/core/build_entry.hpp"

#include "common/paths.hpp"
#include "common/text_format.hpp"

namespace liveupdate::host {

std::string build_entry_line(const std::vector<std::string> &files, const std::string &working_dir) {
    if (files.empty()) return "";
    std::vector<std::string> shown;
    shown.reserve(files.size());
    for (const std::string &file : files) {
        const auto relative = common::child_path(working_dir, file);
        shown.push_back(relative && *relative != "." ? *relative : file);
    }
    return std::to_string(files.size()) + (files.size() == 1 ? " File" : " Files") +
           " Changed: " + common::format_file_change_list(shown);
}

}  // namespace liveupdate::host
