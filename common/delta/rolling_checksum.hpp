// rsync's weak checksum: two running sums over a window of bytes, updated in
// constant time as the window slides one byte (the rolling in "rolling hash").
#pragma once

#include <cstddef>
#include <cstdint>

namespace liveupdate::delta {

class RollingChecksum {
public:
    // The sums of one window, from scratch.
    void reset(const unsigned char *data, std::size_t length) noexcept {
        std::uint32_t a = 0;
        std::uint32_t b = 0;
        // Independent per-byte terms (no carried dependency): the compiler vectorises this.
        for (std::size_t i = 0; i < length; ++i) {
            a += data[i] + kOffset;
            b += static_cast<std::uint32_t>(length - i) * (data[i] + kOffset);
        }
        a_ = a;
        b_ = b;
        length_ = static_cast<std::uint32_t>(length);
    }
    // The window drops `out` at its start and takes `in` at its end.
    void roll(unsigned char out, unsigned char in) noexcept {
        a_ += static_cast<std::uint32_t>(in) - out;
        b_ += a_ - length_ * (out + kOffset);
    }
    std::uint32_t value() const noexcept { return (a_ & 0xFFFF) | (b_ << 16); }

private:
    // rsync's CHAR_OFFSET: runs of zero bytes still move the sums.
    static constexpr std::uint32_t kOffset = 31;
    std::uint32_t a_ = 0;
    std::uint32_t b_ = 0;
    std::uint32_t length_ = 0;
};

inline std::uint32_t weak_checksum(const unsigned char *data, std::size_t length) noexcept {
    RollingChecksum sum;
    sum.reset(data, length);
    return sum.value();
}

}  // namespace liveupdate::delta
