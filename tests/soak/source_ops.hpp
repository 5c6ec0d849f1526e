// Random operations on the local source tree, as a developer and their tools
// make them: create, modify, append, truncate, delete, rename, kind flips
// (file, folder, symlink into one another), symlinks (dangling, looping,
// leading out of the tree) and bursts. Paths come from a small set of names,
// so that operations keep meeting the same paths. Nothing is ever written
// through a symlink: every parent is checked to be a real folder first.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tests/soak/soak_paths.hpp"
#include "tests/soak/soak_random.hpp"

namespace lu_soak {

class SourceOps {
public:
    // without: operation kinds (kinds()) never made, and "symlink-loop": no
    // symlink that loops, to look past a known bug while its fix is pending.
    SourceOps(std::filesystem::path root, std::set<std::string> without)
        : root_(std::move(root)), without_(std::move(without)) {}

    static const std::vector<std::string> &kinds();

    // Performs one random operation; what it did, e.g. "rename a/b -> c".
    std::string random_op(Random &random);
    // Writes (or rewrites) a file at rel, making its folders; false when a
    // parent is not a folder.
    bool write(const std::string &rel, const std::string &content);

private:
    std::string create(Random &random);
    std::string modify(Random &random);
    std::string append(Random &random);
    std::string truncate(Random &random);
    std::string remove(Random &random);
    std::string rename(Random &random);
    std::string flip(Random &random);
    std::string symlink(Random &random);
    std::string burst(Random &random);

    std::string random_path(Random &random) const;
    std::string random_content(Random &random) const;
    std::string symlink_target(Random &random, const std::string &rel) const;
    // Existing paths of one kind (relative), never beneath a symlink.
    std::vector<std::string> existing(std::filesystem::file_type type) const;
    std::vector<std::string> existing_any() const;
    // Creates the missing folders of rel's parent; false when one is not a folder.
    bool make_parents(const std::string &rel) const;
    bool exists(const std::string &rel) const;

    std::filesystem::path root_;
    std::set<std::string> without_;
};

}  // namespace lu_soak
