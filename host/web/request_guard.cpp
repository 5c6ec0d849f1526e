#include "host/web/request_guard.hpp"

#include <array>
#include <random>

namespace liveupdate::host::web {

Guard Guard::for_address(const std::string &address, unsigned short port, std::string token) {
    Guard g;
    g.token = std::move(token);
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

std::optional<std::string> refuse_state_change(const Guard &guard, std::string_view host, std::string_view origin,
                                               std::string_view token) {
    if (auto refused = refuse_request(guard, host)) return refused;
    if (origin.empty()) return std::string("no Origin header: only the status page may change state");
    if (origin != "http://" + std::string(host))
        return "Origin \"" + std::string(origin) + "\" is not this status page (http://" + std::string(host) + ")";
    if (token.empty() || !same_secret(token, guard.token)) return std::string("missing or wrong X-LU-Token");
    return std::nullopt;
}

}  // namespace liveupdate::host::web
