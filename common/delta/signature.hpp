// The block signatures of a file (rsync's first message): the file cut into
// blocks of one size (the last may be shorter), each with a weak rolling
// checksum and a strong hash (XXH3-128). Pure: bytes in, values out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::delta {

// Malformed signatures or instructions (bytes from the other side).
class DeltaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct StrongHash {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    bool operator==(const StrongHash &) const = default;
};

StrongHash strong_hash(std::string_view bytes) noexcept;

// An encoded signature's size: its head, then this much a block.
inline constexpr std::uint64_t kSignatureHead = 16;
inline constexpr std::uint64_t kBlockBytes = 20;

struct BlockSignature {
    std::uint32_t weak = 0;
    StrongHash strong;
};

struct Signature {
    std::uint64_t file_size = 0;
    std::uint32_t block_size = 0;
    std::vector<BlockSignature> blocks;

    std::uint64_t block_offset(std::size_t index) const { return std::uint64_t{block_size} * index; }
    std::uint32_t block_length(std::size_t index) const;
};

inline constexpr std::uint32_t kMinBlockSize = 2048;
inline constexpr std::uint32_t kMaxBlockSize = 128 * 1024;

// About the square root of the size (rsync's choice: signature and delta
// grow alike), a multiple of 64 within [kMinBlockSize, kMaxBlockSize].
std::uint32_t block_size_for(std::uint64_t file_size) noexcept;

// Builds a signature from a file's bytes fed in pieces of any size.
class SignatureBuilder {
public:
    explicit SignatureBuilder(std::uint32_t block_size);
    void feed(std::string_view bytes);
    Signature finish();

private:
    void add_block(std::string_view block);
    Signature signature_;
    std::string partial_;
};

// [block size u32][file size u64][count u32] then per block [weak u32][strong low u64][strong high u64], little-endian.
std::string encode_signature(const Signature &signature);
// Throws DeltaError when the bytes do not describe a consistent signature.
Signature decode_signature(std::string_view bytes);

}  // namespace liveupdate::delta
