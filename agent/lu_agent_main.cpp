// lu-agent: the resident agent copied into a container by the updaters.
// It trusts only its stdin and serves the protocol of common/agent_protocol/
// there, or on the unix socket its stdin asks it to open (OpenSocket).
// `lu-agent supervise -- CMD ARGS...` runs an app so it can be restarted in place.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent/session.hpp"
#include "agent/supervise.hpp"

namespace {

constexpr const char *kUsage =
    "Usage: lu-agent\n"
    "       lu-agent supervise -- CMD [ARGS...]\n"
    "\n"
    "lu-agent serves the liveupdate agent protocol on stdin/stdout (framed binary, version handshake first;\n"
    "the session may move to a private unix socket the host asks for):\n"
    "writes, folders, symlinks, deletes, runs, digests and restarts inside the container it runs in,\n"
    "and watches of container folders whose changed files it sends back (sync back, protocol 7).\n"
    "Started by the updaters; not meant to be run by hand.\n"
    "\n"
    "lu-agent supervise runs CMD as its child (the container's command, wrapped: annotation\n"
    "liveupdate.dev/restart: process), so that a live update can restart it in place: it forwards\n"
    "SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to CMD, reaps every child, and exits with\n"
    "CMD's exit code (128 + the signal when one ended it). A session of lu-agent asks it to restart CMD\n"
    "on a unix socket (mode 0600) at /.lu-agent/supervise.sock, else /tmp/lu-agent-supervise.sock\n"
    "($LU_SUPERVISE_SOCKET when set): SIGTERM to CMD's process group, a grace period, SIGKILL, start again.\n"
    "Exit codes: CMD's; 127 CMD not found, 126 not executable, 2 usage.\n";

int supervise_main(int argc, char **argv) {
    int first = 2;
    if (first < argc && (std::strcmp(argv[first], "--help") == 0 || std::strcmp(argv[first], "-h") == 0)) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
    if (first >= argc || argv[first][0] == '\0') {
        std::fprintf(stderr, "lu-agent supervise: no command to run\n%s", kUsage);
        return 2;
    }
    return liveupdate::agent::supervise(std::vector<std::string>(argv + first, argv + argc));
}

}  // namespace

int main(int argc, char **argv) {
    // A host that goes away ends the session through write errors, not a signal
    // (and a supervisor outlives a closed stderr); children start with SIGPIPE at its default.
    ::signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && std::strcmp(argv[1], "supervise") == 0) return supervise_main(argc, argv);
    if (argc > 1) {
        const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
        std::fputs(kUsage, help ? stdout : stderr);
        return help ? 0 : 2;
    }
    return liveupdate::agent::serve(STDIN_FILENO, STDOUT_FILENO);
}
