// SIGINT and SIGTERM as the daemon's stop request. The first signal starts a
// clean stop; tools like timeout(1) send a second one to the whole group, so
// only a third one gives up waiting (exit 130).
#pragma once

namespace liveupdate::host::up {

// Throws std::runtime_error when the signal pipe cannot be made.
void install_stop_signals();
// Blocks until the first signal.
void wait_for_stop_signal();

}  // namespace liveupdate::host::up
