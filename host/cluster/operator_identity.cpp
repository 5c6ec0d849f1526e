#include "host/cluster/operator_identity.hpp"

#include <charconv>
#include <vector>

namespace liveupdate::host::cluster {

namespace {

// Linux's PID_MAX_LIMIT: no pid is larger.
constexpr std::uint64_t kMaxPid = 4'194'304;
constexpr std::size_t kBootIdSize = 36;

std::vector<std::string_view> split_spaces(std::string_view text) {
    std::vector<std::string_view> parts;
    std::size_t from = 0;
    while (true) {
        const std::size_t space = text.find(' ', from);
        parts.push_back(text.substr(from, space == std::string_view::npos ? std::string_view::npos : space - from));
        if (space == std::string_view::npos) return parts;
        from = space + 1;
    }
}

std::optional<std::uint64_t> decimal(std::string_view text) {
    if (text.empty() || text.size() > 20 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// A user or host name: printable ASCII without space or '@'.
bool plain_name(std::string_view text) {
    if (text.empty() || text.size() > 255) return false;
    for (const char c : text)
        if (c <= ' ' || c > '~' || c == '@') return false;
    return true;
}

bool boot_id_shape(std::string_view text) {
    if (text.size() != kBootIdSize) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        const char c = text[i];
        if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

bool same_process_space(const OperatorProcess &a, const OperatorProcess &b) {
    return a.user == b.user && a.host == b.host && a.boot_id == b.boot_id && a.pid_namespace == b.pid_namespace;
}

}  // namespace

std::string operator_name(const OperatorProcess &process) {
    return process.user + "@" + process.host + " pid " + std::to_string(process.pid);
}

std::string format_operator_identity(const OperatorProcess &process) {
    return operator_name(process) + " start " + std::to_string(process.start_ticks) + " boot " + process.boot_id +
           " pidns " + std::to_string(process.pid_namespace);
}

std::optional<OperatorProcess> parse_operator_identity(std::string_view identity) {
    const std::vector<std::string_view> parts = split_spaces(identity);
    if (parts.size() != 9 || parts[1] != "pid" || parts[3] != "start" || parts[5] != "boot" || parts[7] != "pidns")
        return std::nullopt;
    const std::size_t at = parts[0].find('@');
    if (at == std::string_view::npos) return std::nullopt;
    OperatorProcess process;
    process.user = std::string(parts[0].substr(0, at));
    process.host = std::string(parts[0].substr(at + 1));
    const auto pid = decimal(parts[2]);
    const auto start = decimal(parts[4]);
    const auto pid_namespace = decimal(parts[8]);
    if (!plain_name(process.user) || !plain_name(process.host) || !pid || *pid == 0 || *pid > kMaxPid || !start ||
        !boot_id_shape(parts[6]) || !pid_namespace)
        return std::nullopt;
    process.pid = static_cast<int>(*pid);
    process.start_ticks = *start;
    process.boot_id = std::string(parts[6]);
    process.pid_namespace = *pid_namespace;
    return process;
}

PidState parse_proc_stat(std::string_view stat) {
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and ')', so the fields start after the last ')'.
    const std::size_t close = stat.rfind(')');
    if (close == std::string_view::npos || close + 2 >= stat.size() || stat[close + 1] != ' ') return {};
    const std::vector<std::string_view> fields = split_spaces(stat.substr(close + 2));
    constexpr std::size_t kStartTime = 22 - 3;  // field 22, counted from the state (field 3)
    if (fields.size() <= kStartTime || fields[0].size() != 1) return {};
    if (fields[0] == "Z" || fields[0] == "X" || fields[0] == "x") return {PidState::Kind::absent, 0};
    const auto start = decimal(fields[kStartTime]);
    if (!start) return {};
    return {PidState::Kind::running, *start};
}

bool may_take_over(std::string_view holder, const OperatorProcess &me, const std::function<PidState(int)> &state_of) {
    const std::optional<OperatorProcess> held = parse_operator_identity(holder);
    if (!held || !same_process_space(*held, me)) return false;
    if (held->pid == me.pid && held->start_ticks == me.start_ticks) return false;
    const PidState now = state_of(held->pid);
    switch (now.kind) {
    case PidState::Kind::absent: return true;
    case PidState::Kind::running: return now.start_ticks != held->start_ticks;
    case PidState::Kind::unreadable: return false;
    }
    return false;
}

}  // namespace liveupdate::host::cluster
