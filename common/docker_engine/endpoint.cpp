#include "common/docker_engine/endpoint.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace liveupdate::docker_engine {
namespace {

constexpr std::string_view kUnixScheme = "unix://";
constexpr std::string_view kTcpScheme = "tcp://";
constexpr int kDefaultTcpPort = 2375;

Endpoint parse_tcp(std::string_view text, std::string_view rest) {
    while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    if (rest.find('/') != std::string_view::npos)
        throw std::invalid_argument("docker host '" + std::string(text) + "': a path after host:port is not supported");
    Endpoint ep;
    ep.kind = Endpoint::Kind::tcp;
    ep.port = kDefaultTcpPort;
    std::string_view host = rest;
    const bool bracketed = !rest.empty() && rest.front() == '[';
    const auto colon = bracketed ? rest.find("]:") : rest.rfind(':');
    if (colon != std::string_view::npos) {
        const auto port_text = rest.substr(colon + (bracketed ? 2 : 1));
        int port = 0;
        const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (ec != std::errc{} || end != port_text.data() + port_text.size() || port <= 0 || port > 65535)
            throw std::invalid_argument("docker host '" + std::string(text) + "': invalid port '" +
                                        std::string(port_text) + "'");
        ep.port = port;
        host = rest.substr(0, colon + (bracketed ? 1 : 0));
    }
    if (host.empty() || host == "[]")
        throw std::invalid_argument("docker host '" + std::string(text) + "': missing host name");
    ep.host = std::string(host);
    return ep;
}

}  // namespace

std::string Endpoint::describe() const {
    if (kind == Kind::unix_socket) return std::string(kUnixScheme) + socket_path;
    return std::string(kTcpScheme) + host + ":" + std::to_string(port);
}

std::string Endpoint::base_url() const {
    if (kind == Kind::unix_socket) return "http://docker";
    return "http://" + host + ":" + std::to_string(port);
}

Endpoint parse_docker_host(std::string_view text) {
    if (text.starts_with(kUnixScheme) || text.starts_with("/")) {
        const auto path = text.starts_with("/") ? text : text.substr(kUnixScheme.size());
        if (!path.starts_with("/"))
            throw std::invalid_argument("docker host '" + std::string(text) + "': the socket path must be absolute");
        Endpoint ep;
        ep.socket_path = std::string(path);
        return ep;
    }
    if (text.starts_with(kTcpScheme)) return parse_tcp(text, text.substr(kTcpScheme.size()));
    const auto scheme_end = text.find("://");
    const auto scheme =
        scheme_end == std::string_view::npos ? std::string("none") : std::string(text.substr(0, scheme_end));
    throw std::invalid_argument("docker host '" + std::string(text) + "': scheme '" + scheme +
                                "' is not supported (use unix:// or tcp://)");
}

Endpoint resolve_endpoint(std::string_view explicit_host) {
    if (!explicit_host.empty()) return parse_docker_host(explicit_host);
    const char *env = std::getenv("DOCKER_HOST");
    if (env != nullptr && *env != '\0') return parse_docker_host(env);
    return parse_docker_host(kDefaultDockerHost);
}

}  // namespace liveupdate::docker_engine
