// The frames a pod's exec stream receives from the API server, sorted by
// their channel byte: what the stream keeps of them until they are read,
// and the exit code the final Status gives. (lu_kube_frames: no I/O, what
// fuzz_exec_frames fuzzes.)
#pragma once

#include <string>
#include <string_view>

namespace liveupdate::kube {

// Channel bytes: the first byte of every frame.
inline constexpr unsigned char kExecStdin = 0, kExecStdout = 1, kExecStderr = 2, kExecStatus = 3, kExecClose = 255;

struct ExecChannels {
    std::string out, err, status;
};

// Appends the frame's payload (all but its first byte) to the channel that
// byte names; an empty frame, or one on another channel, adds nothing.
void append_exec_frame(std::string_view frame, ExecChannels &into);

// The exit code a channel-3 Status stands for: 0 Success; N for
// NonZeroExitCode with an ExitCode cause; 127 when the command could not be
// started (its executable missing); else -1 with the message in `failure`.
int exit_code_of_status(std::string_view status_json, std::string &failure);

}  // namespace liveupdate::kube
