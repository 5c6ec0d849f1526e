// Who holds the operator's Lease, written so that a daemon on the same host
// can tell a holder whose process is gone (killed, crashed) from a live one:
// "user@host pid N start T boot B pidns P", T the process's start time in
// clock ticks since boot (/proc/PID/stat field 22: a reused pid has another),
// B the kernel's boot id (two machines of one hostname differ), P the inode of
// its pid namespace (a pid means one process only inside it). Pure: the
// caller reads /proc (operator_process.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::host::cluster {

struct OperatorProcess {
    std::string user;
    std::string host;
    int pid = 0;
    std::uint64_t start_ticks = 0;
    std::string boot_id;
    std::uint64_t pid_namespace = 0;
};

// The Lease's holderIdentity.
std::string format_operator_identity(const OperatorProcess &process);
// "user@host pid N": short, for where a person reads it (an Event's reporting instance).
std::string operator_name(const OperatorProcess &process);
// Strict: any other shape (an older operator's "user@host pid N", or text
// someone wrote into the Lease) is nullopt.
std::optional<OperatorProcess> parse_operator_identity(std::string_view identity);

// What this host's /proc says of a pid.
struct PidState {
    enum class Kind { absent, running, unreadable };
    Kind kind = Kind::unreadable;
    std::uint64_t start_ticks = 0;  // running
};
// /proc/PID/stat's text: running with its start time; a zombie or dead task
// is absent; text of another shape is unreadable.
PidState parse_proc_stat(std::string_view stat);

// A Lease held by `holder` may be taken at once when the holder is an
// operator of this user, host, boot and pid namespace whose pid now runs no
// process, or one started at another time. state_of is asked only then;
// anything unparsable or unreadable keeps the Lease its holder's.
bool may_take_over(std::string_view holder, const OperatorProcess &me, const std::function<PidState(int)> &state_of);

}  // namespace liveupdate::host::cluster
