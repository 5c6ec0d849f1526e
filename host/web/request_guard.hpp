// Who may use the status page. Every request must name a Host the server
// answers as (no DNS rebinding) and carry the daemon's secret: the cookie
// that opening the printed URL (…/?token=SECRET) sets, or an
// `Authorization: Bearer SECRET` header (scripts). A state-changing request
// (trigger) through the cookie must also come from the page itself: the
// page's Origin and the per-daemon token the page embeds. Pure functions,
// unit-tested.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace liveupdate::host::web {

struct Guard {
    std::set<std::string> hosts;  // Host header values accepted, e.g. "127.0.0.1:10351"
    std::string token;            // the page's token for state changes (X-LU-Token), per daemon, random
    std::string secret;           // what lets a user in (URL, cookie, Bearer), per daemon, random
    std::string cookie_name;      // "lu-host-10351": cookies are not kept apart by port

    // For a server on address:port: the address itself and, on loopback, the
    // names of loopback (localhost, 127.0.0.1, [::1]).
    static Guard for_address(const std::string &address, unsigned short port, std::string token, std::string secret);
};

// How a request proved it knows the secret.
enum class Credential { none, cookie, bearer };

// 32 hex digits from the system's random source.
std::string random_token();

// Equal strings, in a time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b);

// Why a request may not be served at all (nullopt: it may).
std::optional<std::string> refuse_request(const Guard &guard, std::string_view host);

// The credential a request carries: its Cookie and Authorization headers ("" when absent).
Credential credential_of(const Guard &guard, std::string_view cookie_header, std::string_view authorization);

// The value of the query parameter key in target ("/?token=x&a=b"), if present.
std::optional<std::string> query_parameter(std::string_view target, std::string_view key);

// Why a state-changing request is refused (nullopt: allowed). origin and
// token are the request's Origin and X-LU-Token headers ("" when absent).
// A Bearer credential is no ambient authority (a browser never adds it by
// itself), so it needs no page token; an Origin it sends must still be the page's.
std::optional<std::string> refuse_state_change(const Guard &guard, std::string_view host, std::string_view origin,
                                               std::string_view token, Credential credential);

}  // namespace liveupdate::host::web
