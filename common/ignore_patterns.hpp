// .dockerignore-style patterns, as Tilt's FileWatch ignores use them: globs
// with *, ?, [...] and ** (any number of directories), "!" exceptions, the
// last matching pattern wins, and a pattern that matches a directory matches
// everything beneath it.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::common {

class IgnorePatterns {
public:
    // base_path is absolute; relative patterns are taken relative to it.
    // Throws std::invalid_argument naming the pattern when one is malformed.
    IgnorePatterns(const std::string &base_path, const std::vector<std::string> &patterns);

    bool matches(std::string_view absolute_path) const;
    // True when the directory and everything beneath it is ignored and no
    // exception could bring any of it back: a walker may skip it.
    bool matches_entire_dir(std::string_view absolute_dir) const;

private:
    struct Rule {
        std::vector<std::string> segments;
        bool exclusion;
    };
    std::vector<Rule> rules_;
};

// Several pattern sets (one per FileWatch ignore entry): a path is ignored
// when any set ignores it.
class IgnoreSet {
public:
    void add(IgnorePatterns patterns) { sets_.push_back(std::move(patterns)); }
    // Absolute, clean paths ignored as named, whatever their characters
    // (no pattern syntax): what a forward sync leaves alone.
    void add_exact(const std::set<std::string, std::less<>> &paths) { exact_.insert(paths.begin(), paths.end()); }
    bool matches(std::string_view absolute_path) const;
    bool matches_entire_dir(std::string_view absolute_dir) const;
    bool empty() const { return sets_.empty() && exact_.empty(); }

private:
    std::vector<IgnorePatterns> sets_;
    std::set<std::string, std::less<>> exact_;
};

}  // namespace liveupdate::common
