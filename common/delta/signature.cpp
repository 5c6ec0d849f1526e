#include "common/delta/signature.hpp"

#include <algorithm>
#include <cmath>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/delta/byte_order.hpp"
#include "common/delta/rolling_checksum.hpp"

namespace liveupdate::delta {

StrongHash strong_hash(std::string_view bytes) noexcept {
    const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
    return {h.low64, h.high64};
}

std::uint32_t Signature::block_length(std::size_t index) const {
    const std::uint64_t start = block_offset(index);
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(block_size, file_size - start));
}

std::uint32_t block_size_for(std::uint64_t file_size) noexcept {
    const auto root = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(file_size)));
    const std::uint64_t rounded = (root + 63) / 64 * 64;
    return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(rounded, kMinBlockSize, kMaxBlockSize));
}

SignatureBuilder::SignatureBuilder(std::uint32_t block_size) {
    if (block_size == 0) throw DeltaError("a block size of 0");
    signature_.block_size = block_size;
    partial_.reserve(block_size);
}

void SignatureBuilder::add_block(std::string_view block) {
    const auto *data = reinterpret_cast<const unsigned char *>(block.data());
    signature_.blocks.push_back({weak_checksum(data, block.size()), strong_hash(block)});
    signature_.file_size += block.size();
}

void SignatureBuilder::feed(std::string_view bytes) {
    const std::size_t block = signature_.block_size;
    if (!partial_.empty()) {
        const auto take = std::min(block - partial_.size(), bytes.size());
        partial_.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        if (partial_.size() < block) return;
        add_block(partial_);
        partial_.clear();
    }
    while (bytes.size() >= block) {
        add_block(bytes.substr(0, block));
        bytes.remove_prefix(block);
    }
    partial_.assign(bytes);
}

Signature SignatureBuilder::finish() {
    if (!partial_.empty()) add_block(partial_);
    partial_.clear();
    return std::move(signature_);
}

std::string encode_signature(const Signature &signature) {
    std::string out;
    out.reserve(kSignatureHead + signature.blocks.size() * kBlockBytes);
    byte_order::put(out, signature.block_size, 4);
    byte_order::put(out, signature.file_size, 8);
    byte_order::put(out, signature.blocks.size(), 4);
    for (const auto &b : signature.blocks) {
        byte_order::put(out, b.weak, 4);
        byte_order::put(out, b.strong.low, 8);
        byte_order::put(out, b.strong.high, 8);
    }
    return out;
}

Signature decode_signature(std::string_view in) {
    try {
        Signature s;
        s.block_size = static_cast<std::uint32_t>(byte_order::take(in, 4, "the block size"));
        s.file_size = byte_order::take(in, 8, "the file size");
        const auto count = byte_order::take(in, 4, "the block count");
        if (s.block_size == 0) throw DeltaError("a block size of 0");
        if (count != (s.file_size + s.block_size - 1) / s.block_size)
            throw DeltaError(std::to_string(count) + " blocks for " + std::to_string(s.file_size) +
                             " bytes in blocks of " + std::to_string(s.block_size));
        if (in.size() != count * 20)
            throw DeltaError(std::to_string(in.size()) + " bytes for " + std::to_string(count) + " blocks");
        s.blocks.resize(count);
        for (auto &b : s.blocks) {
            b.weak = static_cast<std::uint32_t>(byte_order::take(in, 4, "a weak checksum"));
            b.strong.low = byte_order::take(in, 8, "a strong hash");
            b.strong.high = byte_order::take(in, 8, "a strong hash");
        }
        return s;
    } catch (const DeltaError &e) {
        throw DeltaError(std::string("block signatures: ") + e.what());
    }
}

}  // namespace liveupdate::delta
