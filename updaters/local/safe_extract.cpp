#include "updaters/local/safe_extract.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/agent_protocol/messages.hpp"
#include "common/archive_errors.hpp"
#include "common/tar_reader.hpp"
#include "updaters/local/container_paths.hpp"
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

// Writes one entry under root; false (with result.error set) when it cannot.
bool extract_entry(common::TarReader &reader, archive *writer, archive_entry *entry, const std::string &root,
                   const std::vector<std::string> &sync_roots, ExtractResult &result) {
    const std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    const RelativePath rel = archive_entry_relative(name);
    if (!rel.refusal.empty()) {
        result.error = "refusing archive entry \"" + name + "\": " + rel.refusal;
        return false;
    }
    if (const std::string cleared = clear_way_for(root, rel.path, archive_entry_filetype(entry), sync_roots);
        !cleared.empty()) {
        result.error = entry_error("cannot make way for", name, root, cleared);
        return false;
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
    if (archive_entry_filetype(entry) != AE_IFDIR) ++result.files;
    return true;
}

}  // namespace

ExtractResult extract_under_root(const std::string &root, const lu_archive_stream &stream,
                                 const std::vector<std::string> &sync_roots,
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
            if (!extract_entry(reader, writer.get(), entry, root, sync_roots, result)) return result;
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
