#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent_protocol {

std::string path_problem(std::string_view path) {
    if (path.empty() || path.front() != '/') return "path '" + std::string(path) + "' is not absolute";
    if (path.find('\0') != std::string_view::npos) return "path contains a NUL byte";
    std::size_t start = 1;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        if (path.substr(start, end - start) == "..") return "path '" + std::string(path) + "' contains '..'";
        start = end + 1;
    }
    return {};
}

}  // namespace liveupdate::agent_protocol
