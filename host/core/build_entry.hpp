// The line Tilt's build controller writes when a build starts because files
// changed (buildcontrols.LogBuildEntry): "1 File Changed: [src/a.txt]",
// "3 Files Changed: [a b c]", at most five paths then "...", each relative to
// the working directory when it lies beneath it.
#pragma once

#include <string>

#include <boost/json.hpp>

namespace liveupdate::host {

// files: a "started" event's filesChanged, absolute paths (what is not a
// string is left out), read in place: an initial sync lists 100,000 of them.
// working_dir: absolute. "" when there is no file.
std::string build_entry_line(const boost::json::array &files, const std::string &working_dir);

}  // namespace liveupdate::host
