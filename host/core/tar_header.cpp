#include "host/core/tar_header.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace liveupdate::host {

namespace {

// Field offsets and sizes of the ustar header (POSIX.1-1988).
constexpr std::size_t kName = 0, kNameSize = 100;
constexpr std::size_t kMode = 100, kUid = 108, kGid = 116, kNumberSize = 8;
constexpr std::size_t kSize = 124, kMtime = 136, kTimeSize = 12;
constexpr std::size_t kChecksum = 148, kChecksumSize = 8;
constexpr std::size_t kType = 156;
constexpr std::size_t kLink = 157, kLinkSize = 100;
constexpr std::size_t kMagic = 257;
constexpr std::size_t kDevMajor = 329, kDevMinor = 337;
constexpr std::size_t kPrefix = 345, kPrefixSize = 155;
// The largest value of an 11-digit octal field: 8 GiB - 1 bytes, or 2242 as a time.
constexpr std::int64_t kOctal11Max = 077777777777;

using Block = std::array<char, kTarBlock>;

// size - 1 octal digits, zero-filled, then NUL (what libarchive writes).
void octal(Block &h, std::size_t offset, std::size_t size, std::uint64_t value) {
    for (std::size_t i = size - 1; i-- > 0; value >>= 3) h[offset + i] = static_cast<char>('0' + (value & 7));
    h[offset + size - 1] = '\0';
}

void text(Block &h, std::size_t offset, std::size_t size, std::string_view value) {
    // copy_n, not memcpy: an empty view may hold a null pointer.
    std::copy_n(value.data(), std::min(size, value.size()), h.data() + offset);
}

bool ascii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Where to split a path into ustar's prefix and name, or npos when it cannot be.
std::size_t ustar_split(std::string_view path) {
    if (path.size() <= kNameSize) return 0;
    // The first "/" that leaves at most kNameSize bytes after it.
    std::size_t at = path.find('/', path.size() - kNameSize - 1);
    if (at == std::string_view::npos || at > kPrefixSize || at + 1 == path.size()) return std::string_view::npos;
    return at;
}

// One "LENGTH key=value\n" record; LENGTH counts the whole record, itself included.
void append_record(std::string &records, std::string_view key, std::string_view value) {
    const std::size_t rest = 1 + key.size() + 1 + value.size() + 1;
    std::size_t length = rest + 1;
    while (std::to_string(length).size() + rest != length) ++length;
    records += std::to_string(length);
    records += ' ';
    records += key;
    records += '=';
    records += value;
    records += '\n';
}

Block ustar_block(std::string_view name, char type, std::uint32_t perm, std::uint64_t size, std::uint64_t mtime,
                  std::string_view link) {
    Block h{};
    const std::size_t split = ustar_split(name);
    if (split == 0 || split == std::string_view::npos) {
        text(h, kName, kNameSize, name);
    } else {
        text(h, kPrefix, kPrefixSize, name.substr(0, split));
        text(h, kName, kNameSize, name.substr(split + 1));
    }
    octal(h, kMode, kNumberSize, perm & 07777);
    octal(h, kUid, kNumberSize, 0);
    octal(h, kGid, kNumberSize, 0);
    octal(h, kSize, kTimeSize, size);
    octal(h, kMtime, kTimeSize, mtime);
    h[kType] = type;
    text(h, kLink, kLinkSize, link);
    std::memcpy(h.data() + kMagic,
                "ustar\0"
                "00",
                8);
    octal(h, kDevMajor, kNumberSize, 0);
    octal(h, kDevMinor, kNumberSize, 0);
    std::memset(h.data() + kChecksum, ' ', kChecksumSize);
    std::uint64_t sum = 0;
    for (const char c : h) sum += static_cast<unsigned char>(c);
    octal(h, kChecksum, kChecksumSize - 1, sum);
    h[kChecksum + kChecksumSize - 1] = ' ';
    return h;
}

void append_block(std::string &out, const Block &block) { out.append(block.data(), block.size()); }

// The extended header's own name, as libarchive makes it: "DIR/PaxHeader/BASE".
std::string pax_name(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::string_view dir = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash + 1);
    std::string name = std::string(dir) + "PaxHeader/" + std::string(base);
    if (name.size() > kNameSize) name = "PaxHeader/" + std::string(base.substr(0, kNameSize - 10));
    return name;
}

}  // namespace

void append_tar_header(std::string &out, const TarEntry &entry) {
    std::string path(entry.name);
    if (entry.type == TarType::directory) path += '/';
    const bool long_or_wide_path = ustar_split(path) == std::string_view::npos || !ascii(path);
    const bool long_or_wide_link = entry.link.size() > kLinkSize || !ascii(entry.link);
    const bool big_size = entry.size > kOctal11Max;
    const bool odd_time = entry.mtime < 0 || entry.mtime > kOctal11Max;
    if (long_or_wide_path || long_or_wide_link || big_size || odd_time) {
        std::string records;
        // As libarchive marks names it cannot read as UTF-8 in the C locale:
        // readers take them as bytes, without a conversion that could fail.
        if (!ascii(path) || !ascii(entry.link)) append_record(records, "hdrcharset", "BINARY");
        if (long_or_wide_path) append_record(records, "path", path);
        if (long_or_wide_link) append_record(records, "linkpath", entry.link);
        if (big_size) append_record(records, "size", std::to_string(entry.size));
        if (odd_time) append_record(records, "mtime", std::to_string(entry.mtime));
        append_block(out, ustar_block(pax_name(path), 'x', 0644, records.size(), odd_time ? 0 : entry.mtime, {}));
        out += records;
        out.append(tar_padding(static_cast<std::int64_t>(records.size())), '\0');
    }
    // Fields that do not fit are cut (names) or zeroed (numbers): the pax header holds them.
    append_block(out, ustar_block(path, static_cast<char>(entry.type), entry.perm,
                                  big_size ? 0 : static_cast<std::uint64_t>(entry.size),
                                  odd_time ? 0 : static_cast<std::uint64_t>(entry.mtime), entry.link));
}

}  // namespace liveupdate::host
