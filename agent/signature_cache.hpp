// The block signatures of large files this agent wrote or read, kept so the
// next delta of an unchanged file is answered without reading it again. An
// entry holds only while the file is the same inode with the same size,
// mtime and ctime (any write, chmod or replacement changes one of them).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace liveupdate::agent {

struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::int64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;
    bool operator==(const FileIdentity &) const = default;
};

FileIdentity identity_of(const struct stat &st);

class SignatureCache {
public:
    // At most this many bytes of encoded signatures (about 1.4 GiB of files
    // per MiB); the oldest entries go first.
    explicit SignatureCache(std::size_t max_bytes = std::size_t{16} << 20) : max_bytes_(max_bytes) {}
    void remember(const std::string &path, const FileIdentity &identity, std::string signature);
    // The signature remembered for path while it is still that file; a stale entry is dropped.
    std::optional<std::string> find(const std::string &path, const FileIdentity &identity);

private:
    struct Entry {
        FileIdentity identity;
        std::string signature;
        std::uint64_t added = 0;
    };
    void forget(std::map<std::string, Entry>::iterator it);
    std::map<std::string, Entry> entries_;
    std::size_t bytes_ = 0;
    std::size_t max_bytes_;
    std::uint64_t counter_ = 0;
};

}  // namespace liveupdate::agent
