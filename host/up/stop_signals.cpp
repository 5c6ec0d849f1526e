#include "host/up/stop_signals.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <stdexcept>

#include "common/yaml_load.hpp"

namespace liveupdate::host::up {

namespace {

int g_signal_pipe[2] = {-1, -1};
std::atomic<int> g_signals{0};

void on_signal(int) {
    if (g_signals.fetch_add(1) >= 2) ::_exit(130);
    const char byte = 1;
    if (::write(g_signal_pipe[1], &byte, 1) < 0) {
        // Nothing can be done in a signal handler; the pipe is never full here.
    }
}

}  // namespace

void install_stop_signals() {
    if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create the signal pipe");
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    // A stop does not wait for a large compose or object file to be read.
    common::abandon_yaml_reads_when([]() noexcept { return g_signals.load() > 0; });
}

void wait_for_stop_signal() {
    char byte = 0;
    while (::read(g_signal_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
}

}  // namespace liveupdate::host::up
