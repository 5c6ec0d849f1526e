// Lexical path rules shared by the plugin, the host and the updaters: no
// file system access, "/" as the only separator.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::common {

// The non-empty segments between slashes.
std::vector<std::string> split_segments(std::string_view path);

// Lexically normalises an absolute or relative path: collapses "//", "." and
// "..", drops a trailing "/". "" stays "".
std::string clean_path(std::string_view path);
// base joined with rel (rel absolute: rel itself), cleaned.
std::string join_path(std::string_view base, std::string_view rel);

// The path of file relative to dir when file is dir or beneath it.
std::optional<std::string> child_path(const std::string &dir, const std::string &file);

// Paths (relative to base unless absolute) of which file is one or a child.
bool matches_file_or_child(const std::vector<std::string> &paths, const std::string &base, const std::string &file);

}  // namespace liveupdate::common
