#include "up/builtin_ignores.hpp"

#include <fnmatch.h>

#include <array>
#include <string>

namespace liveupdate::up {
namespace {

constexpr std::array<const char *, 11> kEditorTemporaries = {
    "*.swp", "*.swx", "*.swo", "4913",           // vim
    ".#*", "#*#",                                // emacs
    "*~",                                        // backups
    "*___jb_tmp___", "*___jb_old___",            // JetBrains safe write
    ".*.kate-swp", ".goutputstream-*"            // kate, gedit/GIO
};

bool has_git_segment(std::string_view path) {
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        if (path.substr(start, end - start) == ".git") return true;
        start = end + 1;
    }
    return false;
}

}  // namespace

bool is_builtin_ignored(std::string_view absolute_path) {
    if (has_git_segment(absolute_path)) return true;
    const std::size_t slash = absolute_path.rfind('/');
    const std::string base(slash == std::string_view::npos ? absolute_path : absolute_path.substr(slash + 1));
    for (const char *pattern : kEditorTemporaries)
        if (fnmatch(pattern, base.c_str(), 0) == 0) return true;
    return false;
}

}  // namespace liveupdate::up
