#include "agent/frame_output.hpp"

#include <unistd.h>

#include <cerrno>

namespace liveupdate::agent {

namespace {
constexpr std::size_t kFlushAt = std::size_t{64} * 1024;
}

bool FrameOutput::send(std::string_view frame) {
    pending_.append(frame);
    return pending_.size() < kFlushAt || flush();
}

bool FrameOutput::flush() {
    std::string_view bytes(pending_);
    while (!bytes.empty()) {
        const auto wrote = ::write(fd_, bytes.data(), bytes.size());
        if (wrote < 0) {
            if (errno == EINTR) continue;
            pending_.clear();
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(wrote));
    }
    pending_.clear();
    return true;
}

}  // namespace liveupdate::agent
