// rsync's weak checksum: two running sums over a window of bytes, updated in
// constant time as the window slides one byte (the rolling in "rolling hash").
#pragma once

#include <cstddef>
#include <cstdint>

namespace liveupdate::delta {

class RollingChecksum {
public:
    // The sums of one window, from scratch.
    void reset(const unsigned char *data, std::size_t length) noexcept;
    // The window drops `out` at its start and takes `in` at its end.
    void roll(unsigned char out, unsigned char in) noexcept {
        a_ += static_cast<std::uint32_t>(in) - out;
        b_ += a_ - length_ * (out + kOffset);
    }
    std::uint32_t value() const noexcept { return (a_ & 0xFFFF) | (b_ << 16); }

    // rsync's CHAR_OFFSET: runs of zero bytes still move the sums.
    static constexpr std::uint32_t kOffset = 31;

private:
    std::uint32_t a_ = 0;
    std::uint32_t b_ = 0;
    std::uint32_t length_ = 0;
};

std::uint32_t weak_checksum(const unsigned char *data, std::size_t length) noexcept;

}  // namespace liveupdate::delta
