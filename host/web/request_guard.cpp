#include "host/web/request_guard.hpp"

#include <array>
#include <random>

namespace liveupdate::host::web {

Guard Guard::for_address(const std::string &address, unsigned short port, std::string token, std::string secret) {
    Guard g;
    g.token = std::move(token);
    g.secret = std::move(secret);
    g.cookie_name = "lu-host-" + std::to_string(port);
    const std::string p = ":" + std::to_string(port);
    const bool v6 = address.find(':') != std::string::npos;
    g.hosts.insert((v6 ? "[" + address + "]" : address) + p);
    if (address == "127.0.0.1" || address == "::1" || address == "localhost")
        for (const char *name : {"127.0.0.1", "localhost", "[::1]"}) g.hosts.insert(name + p);
    return g;
}

std::string random_token() {
    std::random_device source;  // getrandom(2) on Linux
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 4; ++i) {
        const std::uint32_t r = source();
        for (int shift = 0; shift < 32; shift += 4) out += kHex[(r >> shift) & 0xf];
    }
    return out;
}

bool same_secret(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;  // the length is no secret: every token has 32 digits
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

std::optional<std::string> refuse_request(const Guard &guard, std::string_view host) {
    if (!guard.hosts.contains(std::string(host)))
        return "Host \"" + std::string(host) + "\" is not an address this server answers as";
    return std::nullopt;
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// Each "name=value" of a list split at sep, trimmed; stops when visit returns true.
template <typename Visit>
bool any_pair(std::string_view list, char sep, Visit visit) {
    while (!list.empty()) {
        const auto end = list.find(sep);
        const std::string_view pair = trim(list.substr(0, end));
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos && visit(trim(pair.substr(0, eq)), trim(pair.substr(eq + 1)))) return true;
        if (end == std::string_view::npos) break;
        list.remove_prefix(end + 1);
    }
    return false;
}

}  // namespace

Credential credential_of(const Guard &guard, std::string_view cookie_header, std::string_view authorization) {
    constexpr std::string_view kBearer = "Bearer ";
    if (authorization.starts_with(kBearer) && same_secret(trim(authorization.substr(kBearer.size())), guard.secret))
        return Credential::bearer;
    const bool cookie = any_pair(cookie_header, ';', [&](std::string_view name, std::string_view value) {
        return name == guard.cookie_name && same_secret(value, guard.secret);
    });
    return cookie ? Credential::cookie : Credential::none;
}

std::optional<std::string> query_parameter(std::string_view target, std::string_view key) {
    const auto q = target.find('?');
    if (q == std::string_view::npos) return std::nullopt;
    std::optional<std::string> found;
    any_pair(target.substr(q + 1), '&', [&](std::string_view name, std::string_view value) {
        if (name != key) return false;
        found = std::string(value);
        return true;
    });
    return found;
}

std::optional<std::string> refuse_state_change(const Guard &guard, std::string_view host, std::string_view origin,
                                               std::string_view token, Credential credential) {
    if (auto refused = refuse_request(guard, host)) return refused;
    if (credential == Credential::none) return std::string("no credential: open the URL lu-host up printed");
    if (origin.empty() && credential == Credential::bearer) return std::nullopt;
    if (origin.empty()) return std::string("no Origin header: only the status page may change state");
    if (origin != "http://" + std::string(host))
        return "Origin \"" + std::string(origin) + "\" is not this status page (http://" + std::string(host) + ")";
    if (credential == Credential::bearer) return std::nullopt;
    if (token.empty() || !same_secret(token, guard.token)) return std::string("missing or wrong X-LU-Token");
    return std::nullopt;
}

}  // namespace liveupdate::host::web
