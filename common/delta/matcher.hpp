// rsync's matcher: streams a new file's bytes past the old file's block
// signatures and says, in order, which stretches are blocks the old file has
// (copies) and which are new (literals). A window of one block rolls byte by
// byte through unmatched data; after a match it jumps a whole block, and the
// block after a matched one is tried first by its strong hash alone (an
// unchanged stretch costs one hash per block). Memory: about one block plus
// the literal limit, whatever the file's size.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/delta/rolling_checksum.hpp"
#include "common/delta/signature.hpp"

namespace liveupdate::delta {

struct DeltaSink {
    std::function<void(std::uint64_t offset, std::uint64_t length)> copy;  // of the old file
    std::function<void(std::string_view bytes)> literal;
};

class Matcher {
public:
    // Literals are handed out in pieces of at most max_literal bytes.
    Matcher(const Signature &signature, DeltaSink sink, std::size_t max_literal = std::size_t{256} * 1024);
    void feed(std::string_view bytes);
    // The rest of the new file; every byte fed is accounted for once this returns.
    void finish();

private:
    struct Candidate {
        std::uint32_t weak;
        std::uint32_t index;
    };
    void scan();
    bool try_block(std::size_t index);
    bool try_weak_match();
    void take_match(std::size_t index);
    void flush_literal();
    void compact();
    const unsigned char *at(std::size_t position) const {
        return reinterpret_cast<const unsigned char *>(buffer_.data()) + position;
    }
    bool may_hold(std::uint32_t weak) const { return (filter_[filter_bit(weak) / 64] >> (filter_bit(weak) % 64)) & 1U; }
    static std::uint32_t filter_bit(std::uint32_t weak) { return (weak * 2654435761U) >> (32 - kFilterBits); }

    static constexpr unsigned kFilterBits = 20;
    const Signature &signature_;
    DeltaSink sink_;
    std::size_t max_literal_;
    std::size_t block_;
    std::size_t full_blocks_;            // blocks of the whole block size (a short last one matches only at the end)
    std::vector<Candidate> candidates_;  // full blocks, by weak checksum
    std::vector<std::uint64_t> filter_;
    std::string buffer_;
    std::size_t literal_start_ = 0;  // in buffer_
    std::size_t position_ = 0;       // the window's start in buffer_
    bool rolling_ = false;           // checksum_ holds the window at position_
    bool looked_up_ = false;         // the window at position_ matched nothing
    std::size_t expected_ = 0;       // the block after the last match
    RollingChecksum checksum_;
};

}  // namespace liveupdate::delta
