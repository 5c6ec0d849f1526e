#include "common/docker_engine/frame_demuxer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace liveupdate::docker_engine {

void FrameDemuxer::feed(std::string_view bytes) {
    while (!bytes.empty()) {
        if (payload_left_ > 0) {
            const auto n = std::min<std::size_t>(payload_left_, bytes.size());
            sink_(current_, bytes.substr(0, n));
            payload_left_ -= static_cast<std::uint32_t>(n);
            bytes.remove_prefix(n);
            continue;
        }
        const auto n = std::min(header_.size() - header_fill_, bytes.size());
        std::copy_n(bytes.begin(), n, header_.begin() + static_cast<std::ptrdiff_t>(header_fill_));
        header_fill_ += n;
        bytes.remove_prefix(n);
        if (header_fill_ < header_.size()) return;
        header_fill_ = 0;
        if (header_[0] > 2)
            throw std::runtime_error("exec stream: frame header names unknown stream " + std::to_string(header_[0]));
        current_ = static_cast<OutputStream>(header_[0]);
        payload_left_ = (std::uint32_t{header_[4]} << 24) | (std::uint32_t{header_[5]} << 16) |
                        (std::uint32_t{header_[6]} << 8) | std::uint32_t{header_[7]};
    }
}

}  // namespace liveupdate::docker_engine
