// Where the Docker Engine API answers: a unix socket (the default) or a TCP
// address, as DOCKER_HOST spells it.
#pragma once

#include <string>
#include <string_view>

namespace liveupdate::docker_engine {

inline constexpr std::string_view kDefaultDockerHost = "unix:///var/run/docker.sock";

struct Endpoint {
    enum class Kind { unix_socket, tcp };
    Kind kind = Kind::unix_socket;
    std::string socket_path;  // unix_socket
    std::string host;         // tcp
    int port = 0;             // tcp

    // "unix:///var/run/docker.sock" or "tcp://host:port", for messages.
    std::string describe() const;
    // The URL prefix curl is given; for a unix socket the host part is a dummy.
    std::string base_url() const;
};

// Parses DOCKER_HOST syntax: unix:///path, tcp://host[:port] (port 2375 when
// omitted), or a bare absolute socket path. Throws std::invalid_argument
// saying what is wrong (https://, ssh:// and npipe:// are not supported).
Endpoint parse_docker_host(std::string_view text);

// The host to use: the explicit one when not empty, else DOCKER_HOST from the
// environment when set and not empty, else the default socket.
Endpoint resolve_endpoint(std::string_view explicit_host);

}  // namespace liveupdate::docker_engine
