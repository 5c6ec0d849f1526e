#include "common/kube/exec_frames.hpp"

namespace liveupdate::kube {

void append_exec_frame(std::string_view frame, ExecChannels &into) {
    if (frame.empty()) return;
    const auto channel = static_cast<unsigned char>(frame[0]);
    if (channel == kExecStdout)
        into.out.append(frame.substr(1));
    else if (channel == kExecStderr)
        into.err.append(frame.substr(1));
    else if (channel == kExecStatus)
        into.status.append(frame.substr(1));
}

}  // namespace liveupdate::kube
