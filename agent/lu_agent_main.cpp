// lu-agent: the resident agent copied into a container by the docker updater.
// It trusts only its stdin and serves the protocol of common/agent_protocol/
// there, or on the unix socket its stdin asks it to open (OpenSocket).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "agent/session.hpp"

int main(int argc, char **argv) {
    if (argc > 1) {
        const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
        std::fprintf(help ? stdout : stderr,
                     "Usage: lu-agent\n"
                     "Serves the liveupdate agent protocol on stdin/stdout (framed binary, version handshake first;\n"
                     "the session may move to a private unix socket the host asks for):\n"
                     "writes, folders, symlinks, deletes, runs and digests inside the container it runs in.\n"
                     "Started by the docker updater; not meant to be run by hand.\n");
        return help ? 0 : 2;
    }
    // A host that goes away ends the session through write errors, not a signal.
    ::signal(SIGPIPE, SIG_IGN);
    return liveupdate::agent::serve(STDIN_FILENO, STDOUT_FILENO);
}
