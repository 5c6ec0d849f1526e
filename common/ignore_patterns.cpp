#include "common/ignore_patterns.hpp"

#include <fnmatch.h>

#include <stdexcept>

#include "common/paths.hpp"

namespace liveupdate::common {
namespace {

bool segment_matches(const std::string &pattern, const std::string &name) {
    return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

// Does the pattern match path[pi..] completely (whole == true) or match some
// leading part of it, i.e. one of its parent directories (whole == false)?
bool match_from(const std::vector<std::string> &pat, std::size_t qi, const std::vector<std::string> &path,
                std::size_t pi, bool whole) {
    if (qi == pat.size()) return whole ? pi == path.size() : true;
    if (pat[qi] == "**") {
        for (std::size_t skip = pi; skip <= path.size(); ++skip)
            if (match_from(pat, qi + 1, path, skip, whole)) return true;
        return false;
    }
    if (pi == path.size()) return false;
    return segment_matches(pat[qi], path[pi]) && match_from(pat, qi + 1, path, pi + 1, whole);
}

// Could the pattern match something strictly beneath dir (used for "!" rules)?
bool could_match_beneath(const std::vector<std::string> &pat, std::size_t qi, const std::vector<std::string> &dir,
                         std::size_t pi) {
    if (pi == dir.size()) return qi < pat.size();
    if (qi == pat.size()) return false;
    if (pat[qi] == "**") return true;
    return segment_matches(pat[qi], dir[pi]) && could_match_beneath(pat, qi + 1, dir, pi + 1);
}

}  // namespace

IgnorePatterns::IgnorePatterns(const std::string &base_path, const std::vector<std::string> &patterns) {
    for (const auto &raw : patterns) {
        std::string_view p = raw;
        while (!p.empty() && (p.back() == ' ' || p.back() == '\t')) p.remove_suffix(1);
        while (!p.empty() && (p.front() == ' ' || p.front() == '\t')) p.remove_prefix(1);
        if (p.empty() || p.front() == '#') continue;
        bool exclusion = false;
        if (p.front() == '!') {
            exclusion = true;
            p.remove_prefix(1);
            if (p.empty()) throw std::invalid_argument("ignore pattern \"" + raw + "\": \"!\" with no pattern");
        }
        auto segments = split_segments(join_path(base_path, p));
        for (const auto &seg : segments) {
            if (seg != "**" && seg.find("**") != std::string::npos) continue;
            // fnmatch cannot report syntax errors; an unterminated class is the one we reject.
            const auto open = seg.find('[');
            if (open != std::string::npos && seg.find(']', open) == std::string::npos)
                throw std::invalid_argument("ignore pattern \"" + raw + "\": unterminated [");
        }
        for (auto &seg : segments) {
            if (seg != "**" && seg.find("**") != std::string::npos) {
                std::string collapsed;
                for (char c : seg)
                    if (!(c == '*' && !collapsed.empty() && collapsed.back() == '*')) collapsed += c;
                seg = collapsed;
            }
        }
        rules_.push_back({std::move(segments), exclusion});
    }
}

bool IgnorePatterns::matches(std::string_view absolute_path) const {
    const auto path = split_segments(clean_path(absolute_path));
    bool matched = false;
    for (const auto &rule : rules_) {
        if (match_from(rule.segments, 0, path, 0, false)) matched = !rule.exclusion;
    }
    return matched;
}

bool IgnorePatterns::matches_entire_dir(std::string_view absolute_dir) const {
    const auto dir = split_segments(clean_path(absolute_dir));
    bool matched = false;
    for (const auto &rule : rules_) {
        if (rule.exclusion) {
            if (match_from(rule.segments, 0, dir, 0, false) || could_match_beneath(rule.segments, 0, dir, 0))
                matched = false;
        } else if (match_from(rule.segments, 0, dir, 0, false)) {
            matched = true;
        }
    }
    return matched;
}

bool IgnoreSet::matches(std::string_view absolute_path) const {
    if (exact_.contains(absolute_path)) return true;
    for (const auto &s : sets_)
        if (s.matches(absolute_path)) return true;
    return false;
}

bool IgnoreSet::matches_entire_dir(std::string_view absolute_dir) const {
    if (exact_.contains(absolute_dir)) return true;
    for (const auto &s : sets_)
        if (s.matches_entire_dir(absolute_dir)) return true;
    return false;
}

}  // namespace liveupdate::common
