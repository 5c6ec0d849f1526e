// Who may use the status page: the Host a request names must be one the
// server answers as (no DNS rebinding), and a state-changing request
// (trigger) must come from the page itself: the page's Origin and the
// per-daemon token the page embeds. Pure functions, unit-tested.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace liveupdate::host::web {

struct Guard {
    std::set<std::string> hosts;  // Host header values accepted, e.g. "127.0.0.1:10351"
    std::string token;            // per daemon, random

    // For a server on address:port: the address itself and, on loopback, the
    // names of loopback (localhost, 127.0.0.1, [::1]).
    static Guard for_address(const std::string &address, unsigned short port, std::string token);
};

// 32 hex digits from the system's random source.
std::string random_token();

// Equal strings, in a time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b);

// Why a request may not be served at all (nullopt: it may).
std::optional<std::string> refuse_request(const Guard &guard, std::string_view host);

// Why a state-changing request is refused (nullopt: allowed). origin and
// token are the request's Origin and X-LU-Token headers ("" when absent).
std::optional<std::string> refuse_state_change(const Guard &guard, std::string_view host, std::string_view origin,
                                               std::string_view token);

}  // namespace liveupdate::host::web
