// Reading a tar archive with libarchive, set up one way for every reader:
// tar and the empty archive, a read callback over an ArchiveReadFn that marks
// a failed source, and error texts that are never NULL.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/archive_stream.hpp"

namespace liveupdate::common {

// Why the archive could not be read: libarchive's reason.
class TarReadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An entry's path as the archive names it, without leading "./" or "/" and
// trailing "/": "./a/b/" and "/a/b" are both "a/b"; NULL is "".
std::string tar_entry_name(const char *path);

class TarReader {
public:
    // Reads the archive that source produces, chunk by chunk.
    explicit TarReader(ArchiveReadFn source);
    // Reads the archive held in bytes, which must outlive the reader.
    explicit TarReader(std::string_view bytes);
    TarReader(const TarReader &) = delete;
    TarReader &operator=(const TarReader &) = delete;
    ~TarReader();

    // The next entry, or nullptr after the last one; throws TarReadError.
    archive_entry *next();
    // Up to capacity bytes of the current entry's data: the count, 0 at its
    // end; throws TarReadError.
    std::size_t read_data(void *buffer, std::size_t capacity);
    // True once the source returned -1: its owner knows why, the reader does not.
    bool source_failed() const;
    // The libarchive handle, for calls this class does not wrap.
    archive *get() const { return reader_.get(); }

private:
    struct Source;
    struct Free {
        void operator()(archive *a) const { archive_read_free(a); }
    };

    [[noreturn]] void fail() const;

    std::unique_ptr<Source> source_;
    std::unique_ptr<archive, Free> reader_;
};

}  // namespace liveupdate::common
