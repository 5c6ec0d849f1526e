#include "frame_output.hpp"

#include <unistd.h>

#include <cerrno>

namespace liveupdate::agent {

bool FrameOutput::send(std::string_view frame) {
    while (!frame.empty()) {
        const auto wrote = ::write(fd_, frame.data(), frame.size());
        if (wrote < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        frame.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return true;
}

}  // namespace liveupdate::agent
