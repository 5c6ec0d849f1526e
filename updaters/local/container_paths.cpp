#include "updaters/local/container_paths.hpp"

#include <climits>

namespace liveupdate::local {
namespace {

RelativePath normalise(std::string_view text) {
    RelativePath out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('/', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view seg = text.substr(start, end - start);
        if (seg == "..") {
            out.refusal = "it contains a \"..\" segment";
            return out;
        }
        if (!seg.empty() && seg != ".") {
            if (!out.path.empty()) out.path.push_back('/');
            out.path.append(seg);
        }
        start = end + 1;
    }
    // libarchive falls back to chdir() for paths longer than PATH_MAX, which
    // a multithreaded host must never do.
    if (out.path.size() >= PATH_MAX / 2) out.refusal = "it is too long";
    return out;
}

}  // namespace

RelativePath archive_entry_relative(std::string_view entry_name) {
    if (entry_name.empty()) return {{}, "it is empty"};
    if (entry_name.front() == '/') return {{}, "it is absolute"};
    RelativePath out = normalise(entry_name);
    if (out.refusal.empty() && out.path.empty()) out.refusal = "it names the container root";
    return out;
}

RelativePath container_path_relative(std::string_view container_path) {
    if (container_path.empty() || container_path.front() != '/') return {{}, "it is not an absolute container path"};
    return normalise(container_path);
}

std::string under_root(std::string_view root, std::string_view relative) {
    std::string out(root);
    if (relative.empty()) return out;
    if (out.empty() || out.back() != '/') out.push_back('/');
    out.append(relative);
    return out;
}

}  // namespace liveupdate::local
