// Writes encoded frames to a file descriptor (the agent's stdout), whole.
#pragma once

#include <string_view>

namespace liveupdate::agent {

class FrameOutput {
public:
    explicit FrameOutput(int fd) : fd_(fd) {}
    // False once the reader is gone: the session is over.
    bool send(std::string_view frame);

private:
    int fd_;
};

}  // namespace liveupdate::agent
