#include "common/paths.hpp"

namespace liveupdate::common {

std::vector<std::string> split_segments(std::string_view path) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t end = path.find('/', start);
        const std::string_view seg =
            path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!seg.empty()) out.emplace_back(seg);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return out;
}

std::string clean_path(std::string_view path) {
    if (path.empty()) return {};
    const bool absolute = path.front() == '/';
    std::vector<std::string> out;
    for (auto &seg : split_segments(path)) {
        if (seg == ".") continue;
        if (seg == "..") {
            if (!out.empty() && out.back() != "..") {
                out.pop_back();
            } else if (!absolute) {
                out.push_back(seg);
            }
            continue;
        }
        out.push_back(std::move(seg));
    }
    std::string result;
    if (absolute) result.push_back('/');
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (i > 0) result.push_back('/');
        result.append(out[i]);
    }
    if (result.empty()) result.push_back('.');
    return result;
}

std::string join_path(std::string_view base, std::string_view rel) {
    if (!rel.empty() && rel.front() == '/') return clean_path(rel);
    std::string joined(base);
    if (!rel.empty()) {
        joined += '/';
        joined += rel;
    }
    return clean_path(joined);
}

std::optional<std::string> child_path(const std::string &dir, const std::string &file) {
    if (dir.empty()) return std::nullopt;
    const std::string d = clean_path(dir);
    const std::string f = clean_path(file);
    if (f == d) return std::string(".");
    if (d == "/") return f.size() > 1 && f.front() == '/' ? std::optional<std::string>(f.substr(1)) : std::nullopt;
    if (f.size() > d.size() && f.compare(0, d.size(), d) == 0 && f[d.size()] == '/') return f.substr(d.size() + 1);
    return std::nullopt;
}

bool matches_file_or_child(const std::vector<std::string> &paths, const std::string &base, const std::string &file) {
    for (const auto &p : paths) {
        const std::string abs = (!p.empty() && p.front() == '/') ? clean_path(p) : join_path(base, p);
        if (child_path(abs, file)) return true;
    }
    return false;
}

}  // namespace liveupdate::common
