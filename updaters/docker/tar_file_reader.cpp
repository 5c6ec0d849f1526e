#include "updaters/docker/tar_file_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <stdexcept>

namespace liveupdate::docker {
namespace {

struct ReaderFree {
    void operator()(archive *a) const { archive_read_free(a); }
};

std::runtime_error unreadable(archive *a) {
    const char *why = archive_error_string(a);
    return std::runtime_error(std::string("not a readable tar: ") + (why != nullptr ? why : "unknown error"));
}

}  // namespace

std::optional<std::string> first_file_in_tar(std::string_view tar) {
    std::unique_ptr<archive, ReaderFree> reader(archive_read_new());
    if (!reader) throw std::runtime_error("libarchive: out of memory");
    archive_read_support_format_tar(reader.get());
    archive_read_support_format_empty(reader.get());
    if (archive_read_open_memory(reader.get(), tar.data(), tar.size()) != ARCHIVE_OK) throw unreadable(reader.get());
    archive_entry *entry = nullptr;
    for (;;) {
        const int rc = archive_read_next_header(reader.get(), &entry);
        if (rc == ARCHIVE_EOF) return std::nullopt;
        if (rc < ARCHIVE_WARN) throw unreadable(reader.get());
        if (archive_entry_filetype(entry) != AE_IFREG) continue;
        std::string content;
        char buffer[16 * 1024];
        for (la_ssize_t got; (got = archive_read_data(reader.get(), buffer, sizeof buffer)) != 0;) {
            if (got < 0) throw unreadable(reader.get());
            content.append(buffer, static_cast<std::size_t>(got));
        }
        return content;
    }
}

}  // namespace liveupdate::docker
