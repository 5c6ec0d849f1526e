// Docker's multiplexed exec/attach stream (no TTY): frames of an 8-byte
// header [stream, 0, 0, 0, size as 4 bytes big-endian] and a payload.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace liveupdate::docker_engine {

enum class OutputStream : std::uint8_t { stdin_echo = 0, stdout_stream = 1, stderr_stream = 2 };

class FrameDemuxer {
public:
    using Sink = std::function<void(OutputStream, std::string_view)>;
    explicit FrameDemuxer(Sink sink) : sink_(std::move(sink)) {}

    // Takes any slice of the stream; payload pieces go to the sink as they come.
    // Throws std::runtime_error on a header with an unknown stream id.
    void feed(std::string_view bytes);
    // True when the stream stopped at a frame boundary.
    bool at_boundary() const noexcept { return header_fill_ == 0 && payload_left_ == 0; }

private:
    Sink sink_;
    std::array<unsigned char, 8> header_{};
    std::size_t header_fill_ = 0;
    std::uint32_t payload_left_ = 0;
    OutputStream current_ = OutputStream::stdout_stream;
};

}  // namespace liveupdate::docker_engine
