#include "common/agent_protocol/messages.hpp"

#include <algorithm>

namespace liveupdate::agent_protocol {

std::string file_part_head(std::string_view instructions_head, std::size_t rest) {
    const std::size_t instructions = instructions_head.size() + rest;
    if (instructions > kMaxPayload - 4)
        throw ProtocolError("file part of " + std::to_string(instructions) + " bytes is too large");
    std::string head = frame_header(MessageType::file_part, 4 + instructions);
    const auto size = static_cast<std::uint32_t>(instructions);
    for (int i = 0; i < 4; ++i) head.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
    head.append(instructions_head);
    return head;
}

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

namespace {

std::vector<std::string_view> names_of(std::string_view path) {
    std::vector<std::string_view> names;
    for (std::size_t start = 0; start <= path.size();) {
        const auto end = std::min(path.find('/', start), path.size());
        const auto name = path.substr(start, end - start);
        if (!name.empty() && name != ".") names.push_back(name);
        start = end + 1;
    }
    return names;
}

}  // namespace

bool is_within(std::string_view root, std::string_view path) {
    const auto root_names = names_of(root);
    const auto names = names_of(path);
    return names.size() >= root_names.size() && std::equal(root_names.begin(), root_names.end(), names.begin());
}

std::string root_for(const std::string &path, const std::vector<std::string> &roots) {
    const std::string *best = nullptr;
    std::size_t best_depth = 0;
    for (const auto &root : roots) {
        const auto depth = names_of(root).size();
        if (is_within(root, path) && (best == nullptr || depth > best_depth)) {
            best = &root;
            best_depth = depth;
        }
    }
    return best != nullptr ? *best : path;
}

}  // namespace liveupdate::agent_protocol
