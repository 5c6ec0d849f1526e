#include "common/tar_reader.hpp"

#include <cerrno>
#include <memory>
#include <string_view>
#include <utility>

#include "common/archive_errors.hpp"

namespace liveupdate::common {

namespace {

// What libarchive gets per read (a large file's data passes through it): as
// much as the updaters' replayable archive reads ahead, so it fills this
// buffer directly.
constexpr std::size_t kChunk = std::size_t{1} << 20;

}  // namespace

struct TarReader::Source {
    ArchiveReadFn read;
    // Not zeroed: only what the source wrote is read back.
    std::unique_ptr<char[]> buffer = std::make_unique_for_overwrite<char[]>(kChunk);
    bool failed = false;

    static la_ssize_t callback(archive *a, void *user, const void **data) {
        auto *source = static_cast<Source *>(user);
        const auto got = source->read(source->buffer.get(), kChunk);
        if (got < 0) {
            source->failed = true;
            archive_set_error(a, EIO, "its source failed");
            return -1;
        }
        *data = source->buffer.get();
        return static_cast<la_ssize_t>(got);
    }
};

namespace {

archive *new_tar_reader() {
    archive *a = archive_read_new();
    if (a == nullptr) throw TarReadError("libarchive: out of memory");
    archive_read_support_format_tar(a);
    archive_read_support_format_empty(a);
    return a;
}

}  // namespace

std::string tar_entry_name(const char *path) {
    std::string_view p = path == nullptr ? std::string_view() : std::string_view(path);
    while (p.starts_with("./")) p.remove_prefix(2);
    while (p.starts_with("/")) p.remove_prefix(1);
    while (p.ends_with("/")) p.remove_suffix(1);
    return std::string(p);
}

TarReader::TarReader(ArchiveReadFn source)
    : source_(std::make_unique<Source>(Source{std::move(source)})), reader_(new_tar_reader()) {
    if (archive_read_open(reader_.get(), source_.get(), nullptr, &Source::callback, nullptr) != ARCHIVE_OK) fail();
}

TarReader::TarReader(std::string_view bytes) : reader_(new_tar_reader()) {
    if (archive_read_open_memory(reader_.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) fail();
}

TarReader::~TarReader() = default;

archive_entry *TarReader::next() {
    archive_entry *entry = nullptr;
    const int rc = archive_read_next_header(reader_.get(), &entry);
    if (rc == ARCHIVE_EOF) return nullptr;
    if (rc < ARCHIVE_WARN) fail();
    return entry;
}

std::size_t TarReader::read_data(void *buffer, std::size_t capacity) {
    const la_ssize_t got = archive_read_data(reader_.get(), buffer, capacity);
    if (got < 0) fail();
    return static_cast<std::size_t>(got);
}

bool TarReader::source_failed() const { return source_ && source_->failed; }

void TarReader::fail() const { throw TarReadError(archive_error_text(reader_.get())); }

}  // namespace liveupdate::common
