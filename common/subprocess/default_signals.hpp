// A new program starts as under `docker exec` or a login shell: every signal
// at its default action, none blocked. What its starter ignores (lu-agent and
// lu-host ignore SIGPIPE) or blocks must not leak into it: with SIGPIPE
// ignored, `yes | head -1` never ends.
#pragma once

#include <signal.h>

namespace liveupdate::subprocess {

// Async-signal-safe: for a child between fork and exec.
inline void restore_default_signals() noexcept {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);  // fails harmlessly for some
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace liveupdate::subprocess
