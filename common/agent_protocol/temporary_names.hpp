// The names lu-agent gives the temporary entries it writes beside a path and
// renames into place (agent/fs_ops.cpp): ".lu-agent-<pid>-<n>-<token>", the
// token 16 hex digits drawn when the agent starts. One still there was left by
// an agent killed between writing and renaming it: liveupdate's own, never the
// app's. The token is what keeps an app's file that merely looks like one
// (".lu-agent-1-2") from being taken for ours and deleted.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::agent_protocol {

inline constexpr std::string_view kTemporaryPrefix = ".lu-agent-";
inline constexpr std::size_t kTemporaryTokenDigits = 16;

inline std::string temporary_name(long pid, unsigned long n, std::uint64_t token) {
    char hex[kTemporaryTokenDigits + 1] = {};
    for (std::size_t i = 0; i < kTemporaryTokenDigits; ++i)
        hex[i] = "0123456789abcdef"[(token >> (4 * (kTemporaryTokenDigits - 1 - i))) & 0xf];
    return std::string(kTemporaryPrefix) + std::to_string(pid) + "-" + std::to_string(n) + "-" + hex;
}

// A temporary entry's name taken apart: its writer's pid and token.
struct TemporaryName {
    long owner = 0;
    std::uint64_t token = 0;
};

// The parts of a temporary entry's name (one path component), or nullopt
// when the name is not exactly one of ours.
inline std::optional<TemporaryName> parse_temporary_name(std::string_view name) {
    if (!name.starts_with(kTemporaryPrefix)) return std::nullopt;
    name.remove_prefix(kTemporaryPrefix.size());
    const auto is_all = [](std::string_view s, std::string_view of) {
        return !s.empty() && s.find_first_not_of(of) == std::string_view::npos;
    };
    const auto first = name.find('-');
    const auto second = first == std::string_view::npos ? first : name.find('-', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    const auto pid = name.substr(0, first);
    const auto token = name.substr(second + 1);
    if (!is_all(pid, "0123456789") || !is_all(name.substr(first + 1, second - first - 1), "0123456789") ||
        token.size() != kTemporaryTokenDigits || !is_all(token, "0123456789abcdef"))
        return std::nullopt;
    TemporaryName parts;
    const auto [end, error] = std::from_chars(pid.data(), pid.data() + pid.size(), parts.owner);
    if (error != std::errc() || end != pid.data() + pid.size() || parts.owner <= 0) return std::nullopt;
    if (std::from_chars(token.data(), token.data() + token.size(), parts.token, 16).ec != std::errc())
        return std::nullopt;
    return parts;
}

// The pid in a temporary entry's name (one path component), or 0 when the
// name is not one of ours.
inline long temporary_owner(std::string_view name) {
    const auto parts = parse_temporary_name(name);
    return parts ? parts->owner : 0;
}

inline bool is_temporary_name(std::string_view name) { return temporary_owner(name) > 0; }

}  // namespace liveupdate::agent_protocol
