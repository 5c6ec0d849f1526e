// `lu-agent supervise -- CMD ARGS...`: runs the app as its child so that a
// live update can restart it in place (Kubernetes has no container restart):
// forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to it, reaps
// every child (it may be the container's PID 1, or their subreaper), exits
// with the app's code (128 + signal when a signal ended it), and restarts the
// app when a session of the agent asks on its control socket
// (agent/supervisor_link.hpp): SIGTERM, the grace asked for, SIGKILL, start.
#pragma once

#include <string>
#include <vector>

namespace liveupdate::agent {

// argv: the app's command (PATH searched) and arguments, not empty. Returns the exit code.
int supervise(const std::vector<std::string> &argv);

}  // namespace liveupdate::agent
