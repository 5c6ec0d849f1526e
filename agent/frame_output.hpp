// Writes encoded frames to a file descriptor (the agent's stdout), whole.
// Answers queue up while more requests are already read (a pipeline of
// writes gets its results in a few writes, not one each); flush() sends them.
#pragma once

#include <string>
#include <string_view>

namespace liveupdate::agent {

class FrameOutput {
public:
    explicit FrameOutput(int fd) : fd_(fd) {}
    // False once the reader is gone: the session is over.
    bool send(std::string_view frame);
    bool flush();
    int fd() const { return fd_; }

private:
    int fd_;
    std::string pending_;
};

}  // namespace liveupdate::agent
