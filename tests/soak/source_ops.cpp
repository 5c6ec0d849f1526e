#include "tests/soak/source_ops.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

namespace lu_soak {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kNames = {"a", "b", "c", "d", "e", "f"};

void write_bytes(const fs::path &path, const std::string &content, int flags) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | flags, 0644);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "soak: cannot write " + path.string());
    for (std::size_t done = 0; done < content.size();) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            throw std::system_error(error, std::generic_category(), "soak: cannot write " + path.string());
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

std::string parent_of(const std::string &rel) {
    const auto slash = rel.rfind('/');
    return slash == std::string::npos ? "" : rel.substr(0, slash);
}

}  // namespace

const std::vector<std::string> &SourceOps::kinds() {
    static const std::vector<std::string> names{"create", "modify", "append",  "truncate", "delete",
                                                "rename", "flip",   "symlink", "burst"};
    return names;
}

std::string SourceOps::random_op(Random &random) {
    using Op = std::string (SourceOps::*)(Random &);
    static const std::vector<std::pair<std::size_t, Op>> by_weight{
        {18, &SourceOps::create},  {14, &SourceOps::modify},  {8, &SourceOps::append},
        {6, &SourceOps::truncate}, {12, &SourceOps::remove},  {10, &SourceOps::rename},
        {12, &SourceOps::flip},    {12, &SourceOps::symlink}, {8, &SourceOps::burst}};
    for (;;) {
        std::size_t roll = random.below(100);
        for (std::size_t i = 0; i < by_weight.size(); ++i) {
            if (roll >= by_weight[i].first) {
                roll -= by_weight[i].first;
                continue;
            }
            if (!without_.contains(kinds()[i])) return (this->*by_weight[i].second)(random);
            break;
        }
    }
}

bool SourceOps::write(const std::string &rel, const std::string &content) {
    if (!make_parents(rel)) return false;
    std::error_code ec;
    const auto status = fs::symlink_status(root_ / rel, ec);
    if (fs::exists(status) && !fs::is_regular_file(status)) return false;
    write_bytes(root_ / rel, content, O_TRUNC);
    return true;
}

std::string SourceOps::create(Random &random) {
    for (int attempt = 0; attempt < 8; ++attempt) {
        const std::string rel = random_path(random);
        if (exists(rel)) continue;
        const std::string content = random_content(random);
        if (write(rel, content)) return "create " + rel + " (" + std::to_string(content.size()) + " bytes)";
    }
    return modify(random);
}

std::string SourceOps::modify(Random &random) {
    const auto files = existing(fs::file_type::regular);
    if (files.empty()) return create(random);
    const std::string &rel = random.pick(files);
    const std::string content = random_content(random);
    write_bytes(root_ / rel, content, O_TRUNC);
    return "modify " + rel + " (" + std::to_string(content.size()) + " bytes)";
}

std::string SourceOps::append(Random &random) {
    const auto files = existing(fs::file_type::regular);
    if (files.empty()) return create(random);
    const std::string &rel = random.pick(files);
    const std::string more = random.text(random.between(1, 300));
    write_bytes(root_ / rel, more, O_APPEND);
    return "append " + rel + " (+" + std::to_string(more.size()) + " bytes)";
}

std::string SourceOps::truncate(Random &random) {
    const auto files = existing(fs::file_type::regular);
    if (files.empty()) return create(random);
    const std::string &rel = random.pick(files);
    const auto size = fs::file_size(root_ / rel);
    const auto kept = size == 0 ? 0 : random.below(size);
    fs::resize_file(root_ / rel, kept);
    return "truncate " + rel + " to " + std::to_string(kept) + " bytes";
}

std::string SourceOps::remove(Random &random) {
    const auto paths = existing_any();
    if (paths.empty()) return create(random);
    const std::string &rel = random.pick(paths);
    const bool folder = fs::is_directory(fs::symlink_status(root_ / rel));
    fs::remove_all(root_ / rel);
    return std::string(folder ? "delete folder " : "delete ") + rel;
}

std::string SourceOps::rename(Random &random) {
    const auto paths = existing_any();
    if (paths.empty()) return create(random);
    const std::string from = random.pick(paths);
    const bool from_file = fs::is_regular_file(fs::symlink_status(root_ / from));
    for (int attempt = 0; attempt < 8; ++attempt) {
        const std::string to = random_path(random);
        if (to == from || to.starts_with(from + "/") || from.starts_with(to + "/")) continue;
        // A parent of `to` may be a symlink (a loop even): not a place to rename to.
        std::error_code ec;
        const auto target = fs::symlink_status(root_ / to, ec);
        if (ec && target.type() != fs::file_type::not_found) continue;
        // Over an existing file only from a file, as an editor's save does.
        if (fs::exists(target) && !(from_file && fs::is_regular_file(target))) continue;
        if (!make_parents(to)) continue;
        const bool replaced = fs::exists(target);
        fs::rename(root_ / from, root_ / to);
        std::string what = "rename " + from;
        return what.append(" -> ").append(to).append(replaced ? " (replacing a file)" : "");
    }
    return modify(random);
}

std::string SourceOps::flip(Random &random) {
    const auto paths = existing_any();
    if (paths.empty()) return create(random);
    const std::string rel = random.pick(paths);
    const auto type = fs::symlink_status(root_ / rel).type();
    fs::remove_all(root_ / rel);
    // Into one of the other kinds.
    std::vector<fs::file_type> kinds_into;
    for (const auto kind : {fs::file_type::regular, fs::file_type::directory, fs::file_type::symlink})
        if (kind != type && !(kind == fs::file_type::symlink && without_.contains("symlink")))
            kinds_into.push_back(kind);
    const fs::file_type into = random.pick(kinds_into);
    if (into == fs::file_type::directory) {
        fs::create_directory(root_ / rel);
        const std::size_t children = random.between(0, 2);
        for (std::size_t i = 0; i < children; ++i)
            write_bytes(root_ / rel / kNames[i], random_content(random), O_TRUNC);
        return "flip " + rel + " into a folder with " + std::to_string(children) + " file(s)";
    }
    if (into == fs::file_type::regular) {
        write_bytes(root_ / rel, random_content(random), O_TRUNC);
        return "flip " + rel + " into a file";
    }
    const std::string target = symlink_target(random, rel);
    fs::create_symlink(target, root_ / rel);
    return "flip " + rel + " into a symlink -> " + target;
}

std::string SourceOps::symlink(Random &random) {
    for (int attempt = 0; attempt < 8; ++attempt) {
        const std::string rel = random_path(random);
        if (exists(rel) || !make_parents(rel)) continue;
        const std::string target = symlink_target(random, rel);
        fs::create_symlink(target, root_ / rel);
        std::string what = "symlink " + rel;
        return what.append(" -> ").append(target);
    }
    return modify(random);
}

std::string SourceOps::burst(Random &random) {
    const std::size_t count = random.between(5, 25);
    std::size_t created = 0, modified = 0, deleted = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t roll = random.below(10);
        if (roll < 5) {
            create(random);
            ++created;
        } else if (roll < 8) {
            modify(random);
            ++modified;
        } else {
            const auto files = existing(fs::file_type::regular);
            if (files.empty()) continue;
            fs::remove(root_ / random.pick(files));
            ++deleted;
        }
    }
    return "burst of " + std::to_string(count) + " (" + std::to_string(created) + " create, " +
           std::to_string(modified) + " modify, " + std::to_string(deleted) + " delete)";
}

std::string SourceOps::random_path(Random &random) const {
    std::string rel = random.pick(kNames);
    const std::size_t depth = random.between(0, 2);
    for (std::size_t i = 0; i < depth; ++i) rel += "/" + random.pick(kNames);
    return rel;
}

std::string SourceOps::random_content(Random &random) const {
    if (random.percent(5)) return "";
    if (random.percent(5)) return random.text(random.between(std::size_t{64} * 1024, std::size_t{300} * 1024));
    return random.text(random.between(1, 2000));
}

std::string SourceOps::symlink_target(Random &random, const std::string &rel) const {
    const std::size_t depth = static_cast<std::size_t>(std::count(rel.begin(), rel.end(), '/'));
    std::string up_to_top;
    for (std::size_t i = 0; i < depth; ++i) up_to_top += "../";
    // Without loops: out of the tree or dangling only.
    static const std::vector<std::size_t> no_loops{4, 5, 7};
    switch (without_.contains("symlink-loop") ? random.pick(no_loops) : random.below(8)) {
    case 0: return random.pick(kNames);                                     // a sibling, there or not
    case 1: return ".";                                                     // its own folder: a loop
    case 2: return "..";                                                    // the folder above: a loop, or out
    case 3: return rel.substr(rel.rfind('/') + 1);                          // itself
    case 4: return kOutsideDir;                                             // out of the tree, absolute
    case 5: return up_to_top + "../" + std::string(kOutsideDir).substr(1);  // out of the tree, relative
    case 6: return up_to_top + random_path(random);                         // anywhere in the tree
    default: return "missing-" + std::to_string(random.below(100));         // dangling
    }
}

std::vector<std::string> SourceOps::existing(fs::file_type type) const {
    std::vector<std::string> out;
    for (const auto &rel : existing_any())
        if (fs::symlink_status(root_ / rel).type() == type) out.push_back(rel);
    return out;
}

std::vector<std::string> SourceOps::existing_any() const {
    std::vector<std::string> out;
    for (auto it = fs::recursive_directory_iterator(root_); it != fs::recursive_directory_iterator(); ++it) {
        const std::string rel = it->path().lexically_relative(root_).string();
        if (rel == kMarkerFile) continue;
        if (rel == kSyncBackDir) {  // the app's to write: left alone
            it.disable_recursion_pending();
            continue;
        }
        out.push_back(rel);
    }
    std::sort(out.begin(), out.end());  // directory order is not the seed's
    return out;
}

bool SourceOps::make_parents(const std::string &rel) const {
    const std::string parent = parent_of(rel);
    if (parent.empty()) return true;
    if (!make_parents(parent)) return false;
    const auto status = fs::symlink_status(root_ / parent);
    if (fs::exists(status)) return fs::is_directory(status);
    fs::create_directory(root_ / parent);
    return true;
}

bool SourceOps::exists(const std::string &rel) const {
    std::error_code ec;
    return fs::exists(fs::symlink_status(root_ / rel, ec));
}

}  // namespace lu_soak
