// One lu-agent session: the handshake, then requests read from `in` and
// answered on `out` in order, until EOF or a malformed frame.
#pragma once

namespace liveupdate::agent {

// The process exit code: 0 after a clean EOF, 1 after a protocol error (a
// Fatal frame says why, on `out` and on stderr).
int serve(int in, int out);

}  // namespace liveupdate::agent
