// This host's side of operator_identity.hpp: who this process is, and what
// /proc says of another pid.
#pragma once

#include "host/cluster/operator_identity.hpp"

namespace liveupdate::host::cluster {

// This process: its user, hostname, pid, start time, boot id, pid namespace.
// What cannot be read stays empty or 0, so that no holder matches it.
OperatorProcess this_operator_process();

// /proc/PID/stat of this pid namespace: absent when there is no such file.
PidState read_pid_state(int pid);

}  // namespace liveupdate::host::cluster
