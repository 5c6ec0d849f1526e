#include "updaters/local/safe_extract.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/agent_protocol/messages.hpp"
#include "common/archive_errors.hpp"
#include "common/tar_reader.hpp"
#include "updaters/local/container_paths.hpp"
#include "updaters/local/found_content.hpp"
#include "updaters/local/left_temporaries.hpp"
#include "updaters/local/safe_delete.hpp"

namespace liveupdate::local {
namespace {

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive *)>;

// What is in the way of the entry's kind gives way, as tar makes it: a file
// where a folder comes (a parent too), a folder where a file or a symlink
// comes (libarchive only replaces an empty one), a symlink where a folder
// comes below the sync root. A symlink on the way at or above the sync root
// is left for libarchive to refuse.
std::string clear_way_for(const std::string &root, const std::string &relative, unsigned type,
                          const std::vector<std::string> &sync_roots) {
    struct stat st {};
    const std::string sync_root = agent_protocol::root_for("/" + relative, sync_roots);
    for (auto slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1)) {
        const std::string parent = under_root(root, relative.substr(0, slash));
        if (::lstat(parent.c_str(), &st) != 0) return "";
        if (S_ISLNK(st.st_mode) && slash + 1 <= sync_root.size()) return "";
        if (S_ISDIR(st.st_mode)) continue;
        if (::unlink(parent.c_str()) != 0) return "cannot delete " + parent + ": " + std::strerror(errno);
        return "";
    }
    const std::string path = under_root(root, relative);
    if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return "";
    if (S_ISDIR(st.st_mode)) return type == AE_IFDIR ? "" : delete_under_root(root, "/" + relative, sync_roots);
    if (type == AE_IFDIR && ::unlink(path.c_str()) != 0) return "cannot delete " + path + ": " + std::strerror(errno);
    return "";
}

constexpr int kSecureFlags =
    ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT;

// "cannot <doing> "<name>" under <root>: <why>"
std::string entry_error(std::string_view doing, const std::string &name, const std::string &root,
                        const std::string &why) {
    std::string text(doing);
    text.append(" \"").append(name).append("\" under ").append(root).append(": ").append(why);
    return text;
}

// Writes the entry's header and data where its pathname now says.
bool write_entry(common::TarReader &reader, archive *writer, archive_entry *entry, const std::string &name,
                 const std::string &root, ExtractResult &result) {
    if (archive_write_header(writer, entry) != ARCHIVE_OK) {
        result.error = entry_error("cannot write", name, root, common::archive_error_text(writer));
        return false;
    }
    const void *block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    for (;;) {
        const int d = archive_read_data_block(reader.get(), &block, &size, &offset);
        if (d == ARCHIVE_EOF) break;
        if (d != ARCHIVE_OK) {
            result.error = "cannot read \"" + name + "\" from the archive: " + common::archive_error_text(reader.get());
            return false;
        }
        if (archive_write_data_block(writer, block, size, offset) != ARCHIVE_OK) {
            result.error = entry_error("cannot write", name, root, common::archive_error_text(writer));
            return false;
        }
        result.bytes += size;
    }
    if (archive_write_finish_entry(writer) != ARCHIVE_OK) {
        result.error = entry_error("cannot finish", name, root, common::archive_error_text(writer));
        return false;
    }
    return true;
}

// Puts the written temporary in relative's place when relative still holds
// what the guard expects; else removes it and says kept(). False (with
// result.error set) when neither can be done.
bool replace_if_expected(const std::string &root, const std::string &relative, const std::string &temporary,
                         const updater::ExpectedContent &expected, const updater::ForwardGuard &guard,
                         ExtractResult &result) {
    std::string error;
    const common::UniqueFd parent = parent_beneath(root, relative, error);
    if (parent.get() < 0) {
        result.error = "cannot put \"" + relative + "\" in place under " + root + ": " + error;
        return false;
    }
    const std::string leaf = relative.substr(relative.rfind('/') + 1);
    if (const std::string found = unexpected_content(expected, found_beneath(root, relative)); !found.empty()) {
        if (::unlinkat(parent.get(), temporary.c_str(), 0) != 0) {
            result.error = "cannot remove the temporary " + temporary + " beside " + under_root(root, relative) + ": " +
                           std::strerror(errno);
            return false;
        }
        guard.kept("/" + relative, found);
        ++result.kept;
        return true;
    }
    if (::renameat(parent.get(), temporary.c_str(), parent.get(), leaf.c_str()) != 0) {
        result.error = "cannot rename " + temporary + " to " + under_root(root, relative) + ": " + std::strerror(errno);
        ::unlinkat(parent.get(), temporary.c_str(), 0);
        return false;
    }
    ++result.files;
    return true;
}

// Writes one entry under root; false (with result.error set) when it cannot.
bool extract_entry(common::TarReader &reader, archive *writer, archive_entry *entry, const std::string &root,
                   const std::vector<std::string> &sync_roots, const updater::ForwardGuard &guard,
                   ExtractResult &result) {
    const std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    const RelativePath rel = archive_entry_relative(name);
    if (!rel.refusal.empty()) {
        result.error = "refusing archive entry \"" + name + "\": " + rel.refusal;
        return false;
    }
    // Only a regular file comes back, so only one can hold an app change to keep.
    const bool guarded = guard && !rel.path.empty() && archive_entry_filetype(entry) == AE_IFREG &&
                         archive_entry_hardlink(entry) == nullptr;
    const updater::ExpectedContent expected = guarded ? guard.expected("/" + rel.path) : updater::ExpectedContent{};
    if (expected.kind != updater::ExpectedContent::Kind::any) {
        // Looked at before anything in the way is cleared: a folder there is not what was agreed either.
        if (const std::string found = unexpected_content(expected, found_beneath(root, rel.path)); !found.empty()) {
            guard.kept("/" + rel.path, found);
            ++result.kept;
            return true;  // the next header skips this entry's data
        }
    }
    if (const std::string cleared = clear_way_for(root, rel.path, archive_entry_filetype(entry), sync_roots);
        !cleared.empty()) {
        result.error = entry_error("cannot make way for", name, root, cleared);
        return false;
    }
    if (expected.kind != updater::ExpectedContent::Kind::any) {
        const std::string temporary = temporary_name();
        const std::size_t slash = rel.path.rfind('/');
        const std::string beside = slash == std::string::npos ? temporary : rel.path.substr(0, slash + 1) + temporary;
        archive_entry_set_pathname(entry, under_root(root, beside).c_str());
        return write_entry(reader, writer, entry, name, root, result) &&
               replace_if_expected(root, rel.path, temporary, expected, guard, result);
    }
    archive_entry_set_pathname(entry, under_root(root, rel.path).c_str());
    if (const char *link = archive_entry_hardlink(entry); link != nullptr) {
        const RelativePath target = archive_entry_relative(link);
        if (!target.refusal.empty()) {
            result.error = "refusing hard link \"" + name + "\" to \"" + link + "\": " + target.refusal;
            return false;
        }
        archive_entry_set_hardlink(entry, under_root(root, target.path).c_str());
    }
    if (!write_entry(reader, writer, entry, name, root, result)) return false;
    if (archive_entry_filetype(entry) != AE_IFDIR) ++result.files;
    return true;
}

}  // namespace

ExtractResult extract_under_root(const std::string &root, const lu_archive_stream &stream,
                                 const std::vector<std::string> &sync_roots, const updater::ForwardGuard &guard,
                                 const std::function<void(const ExtractResult &)> &progress) {
    ExtractResult result;
    auto next_report = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    if (stream.read == nullptr) return result;  // nothing to unpack

    ArchivePtr writer(archive_write_disk_new(), archive_write_free);
    archive_write_disk_set_options(writer.get(), kSecureFlags);
    try {
        common::TarReader reader(
            [&stream](void *buffer, std::size_t capacity) { return stream.read(stream.ctx, buffer, capacity); });
        while (archive_entry *entry = reader.next()) {
            if (!extract_entry(reader, writer.get(), entry, root, sync_roots, guard, result)) return result;
            if (progress && std::chrono::steady_clock::now() >= next_report) {
                progress(result);
                next_report = std::chrono::steady_clock::now() + std::chrono::seconds(1);
            }
        }
    } catch (const common::TarReadError &e) {
        result.error = std::string("cannot read the archive: ") + e.what();
        return result;
    }
    if (archive_write_close(writer.get()) != ARCHIVE_OK)
        result.error = "cannot finish unpacking under " + root + ": " + common::archive_error_text(writer.get());
    return result;
}

}  // namespace liveupdate::local
