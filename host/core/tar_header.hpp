// The header blocks of one tar entry, as libarchive's "pax restricted" format
// writes them: a plain ustar header, preceded by a pax extended header only
// when a field does not fit ustar (a long or non-ASCII path or link target, a
// size of 8 GiB or more, a modification time before 1970 or after 2242).
// Written here rather than through libarchive, whose pax writer clones and
// frees the entry for every header: on 100,000 small files that was most of
// the archive step's own CPU time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace liveupdate::host {

inline constexpr std::size_t kTarBlock = 512;

enum class TarType : char { file = '0', symlink = '2', directory = '5' };

struct TarEntry {
    std::string_view name;  // relative, no trailing "/" (a directory gets one)
    TarType type = TarType::file;
    std::uint32_t perm = 0;  // the permission bits (07777)
    std::int64_t size = 0;   // bytes of content (files only)
    std::int64_t mtime = 0;  // seconds since the epoch
    std::string_view link;   // a symlink's target
};

// Appends the entry's header blocks to out (a multiple of kTarBlock bytes).
void append_tar_header(std::string &out, const TarEntry &entry);

// Zero bytes that follow size bytes of content to end its last block.
inline std::size_t tar_padding(std::int64_t size) {
    return static_cast<std::size_t>((kTarBlock - static_cast<std::uint64_t>(size) % kTarBlock) % kTarBlock);
}

}  // namespace liveupdate::host
