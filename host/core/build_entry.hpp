// The line Tilt's build controller writes when a build starts because files
// changed (buildcontrols.LogBuildEntry): "1 File Changed: [src/a.txt]",
// "3 Files Changed: [a b c]", at most five paths then "...", each relative to
// the working directory when it lies beneath it.
#pragma once

#include <string>
#include <vector>

namespace liveupdate::host {

// files: absolute paths; working_dir: absolute. "" when files is empty.
std::string build_entry_line(const std::vector<std::string> &files, const std::string &working_dir);

}  // namespace liveupdate::host
