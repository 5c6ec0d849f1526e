#include "common/docker_engine/exec_session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

namespace liveupdate::docker_engine {
namespace {

using Clock = std::chrono::steady_clock;

// The process closed its side before taking all of stdin.
struct PeerClosed {};

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

std::string short_id(std::string_view id) { return std::string(id.substr(0, 12)); }

std::string create_exec(EngineClient &client, const ExecSpec &spec, bool attach_stdin) {
    boost::json::object body{
        {"AttachStdin", attach_stdin}, {"AttachStdout", true}, {"AttachStderr", true}, {"Tty", false}};
    boost::json::array cmd;
    for (const auto &arg : spec.argv) cmd.emplace_back(arg);
    body["Cmd"] = std::move(cmd);
    if (!spec.user.empty()) body["User"] = spec.user;
    if (!spec.working_dir.empty()) body["WorkingDir"] = spec.working_dir;
    if (!spec.env.empty()) {
        boost::json::array env;
        for (const auto &e : spec.env) env.emplace_back(e);
        body["Env"] = std::move(env);
    }
    if (spec.privileged) body["Privileged"] = true;
    const std::string path = "/containers/" + spec.container_id + "/exec";
    const auto response = client.post(path, boost::json::serialize(body));
    std::string id = EngineClient::read_answer(response, "POST " + path, [](const boost::json::value &answer) {
        return common::string_field(answer, {"Id"});
    });
    if (id.empty())
        throw EngineError(EngineFailure::protocol, "POST " + path + ": no exec Id in the answer: " + response.body);
    return id;
}

// The upgraded connection: owns the socket's non-blocking I/O and the demuxer.
class ExecStream final : public StdinSink {
public:
    ExecStream(RawConnection connection, const OutputHandler &on_output, std::string what,
               std::chrono::milliseconds stall)
        : connection_(std::move(connection)),
          demuxer_([&on_output](OutputStream s, std::string_view d) { on_output(s, d); }),
          what_(std::move(what)),
          stall_(stall) {
        const int fd = connection_.fd();
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }

    void send_all(std::string_view bytes, Clock::time_point deadline) {
        while (!bytes.empty()) {
            wait_for(POLLOUT, deadline, "sending the request");
            const auto sent = ::send(connection_.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
            if (sent < 0) {
                if (errno == EAGAIN || errno == EINTR) continue;
                throw EngineError(EngineFailure::protocol, what_ + ": send failed: " + std::strerror(errno));
            }
            bytes.remove_prefix(static_cast<std::size_t>(sent));
        }
    }

    // Reads the HTTP answer head; returns the status and keeps what follows it.
    long read_head(Clock::time_point deadline, std::string &head) {
        std::string buffer;
        for (;;) {
            const auto end = buffer.find("\r\n\r\n");
            if (end != std::string::npos) {
                head = buffer.substr(0, end);
                leftover_ = buffer.substr(end + 4);
                break;
            }
            if (buffer.size() > std::size_t{64} * 1024)
                throw EngineError(EngineFailure::protocol, what_ + ": oversized answer head");
            wait_for(POLLIN, deadline, "waiting for the daemon's answer");
            char chunk[4096];
            const auto got = ::recv(connection_.fd(), chunk, sizeof chunk, 0);
            if (got == 0)
                throw EngineError(EngineFailure::protocol,
                                  what_ + ": the daemon closed the connection without answering");
            if (got < 0) {
                if (errno == EAGAIN || errno == EINTR) continue;
                throw EngineError(EngineFailure::protocol, what_ + ": recv failed: " + std::strerror(errno));
            }
            buffer.append(chunk, static_cast<std::size_t>(got));
        }
        long status = 0;
        if (std::sscanf(head.c_str(), "HTTP/%*d.%*d %ld", &status) != 1)
            throw EngineError(EngineFailure::protocol, what_ + ": not an HTTP answer: " + head.substr(0, 80));
        return status;
    }

    // Reads an error answer's body (Content-Length or up to EOF).
    std::string read_error_body(const std::string &head, Clock::time_point deadline) {
        std::string body = std::move(leftover_);
        std::optional<std::size_t> length;
        const auto pos = head.find("Content-Length:");
        if (pos != std::string::npos) length = std::strtoull(head.c_str() + pos + 15, nullptr, 10);
        while (!length || body.size() < *length) {
            if (remaining_ms(deadline) == 0) break;
            pollfd p{connection_.fd(), POLLIN, 0};
            if (::poll(&p, 1, remaining_ms(deadline)) <= 0) break;
            char chunk[4096];
            const auto got = ::recv(connection_.fd(), chunk, sizeof chunk, 0);
            if (got <= 0) break;
            body.append(chunk, static_cast<std::size_t>(got));
        }
        return body;
    }

    RawConnection release() && { return std::move(connection_); }
    std::string take_leftover() { return std::move(leftover_); }

    void start_stream() {
        if (!leftover_.empty()) demuxer_.feed(leftover_);
        leftover_.clear();
    }

    void write(const char *data, std::size_t size) override {
        std::string_view bytes(data, size);
        while (!bytes.empty()) {
            if (peer_closed_) throw PeerClosed{};
            const auto deadline = Clock::now() + stall_;
            pollfd p{connection_.fd(), POLLOUT | POLLIN, 0};
            const int ready = ::poll(&p, 1, remaining_ms(deadline));
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0)
                throw EngineError(EngineFailure::timeout, what_ + ": the container took no input for " +
                                                              std::to_string(stall_.count() / 1000) +
                                                              "s (exec stalled)");
            if (p.revents & (POLLIN | POLLHUP | POLLERR)) drain();
            if (peer_closed_) throw PeerClosed{};
            if (p.revents & POLLOUT) {
                const auto sent = ::send(connection_.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
                if (sent < 0) {
                    if (errno == EAGAIN || errno == EINTR) continue;
                    if (errno == EPIPE || errno == ECONNRESET) throw PeerClosed{};
                    throw EngineError(EngineFailure::protocol, what_ + ": send failed: " + std::strerror(errno));
                }
                bytes.remove_prefix(static_cast<std::size_t>(sent));
            }
        }
    }

    void close_stdin() { ::shutdown(connection_.fd(), SHUT_WR); }

    void read_to_end(Clock::time_point deadline, std::chrono::milliseconds total) {
        const std::string doing =
            "waiting for the command to finish (it may still run in the container): the limit is " +
            std::to_string(total.count() / 1000) + "s";
        while (!peer_closed_) {
            wait_for(POLLIN, deadline, doing.c_str());
            drain();
        }
    }

private:
    void wait_for(short events, Clock::time_point deadline, const char *doing) {
        for (;;) {
            pollfd p{connection_.fd(), events, 0};
            const int ready = ::poll(&p, 1, remaining_ms(deadline));
            if (ready > 0) return;
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) throw EngineError(EngineFailure::protocol, what_ + ": poll failed: " + std::strerror(errno));
            throw EngineError(EngineFailure::timeout, what_ + ": timed out " + doing);
        }
    }

    // Reads whatever is there without blocking.
    void drain() {
        char chunk[64 * 1024];
        for (;;) {
            const auto got = ::recv(connection_.fd(), chunk, sizeof chunk, 0);
            if (got > 0) {
                demuxer_.feed(std::string_view(chunk, static_cast<std::size_t>(got)));
                continue;
            }
            if (got == 0) {
                peer_closed_ = true;
                return;
            }
            if (errno == EINTR) continue;
            if (errno == EAGAIN) return;
            if (errno == ECONNRESET) {
                peer_closed_ = true;
                return;
            }
            throw EngineError(EngineFailure::protocol, what_ + ": recv failed: " + std::strerror(errno));
        }
    }

    RawConnection connection_;
    FrameDemuxer demuxer_;
    std::string what_;
    std::chrono::milliseconds stall_;
    std::string leftover_;
    bool peer_closed_ = false;
};

int wait_exit_code(EngineClient &client, const std::string &exec_id) {
    const std::string path = "/exec/" + exec_id + "/json";
    const auto deadline = Clock::now() + client.timeout();
    for (auto pause = std::chrono::milliseconds(2);; pause = std::min(pause * 2, std::chrono::milliseconds(100))) {
        const auto response = client.get(path);
        const auto [running, code] =
            EngineClient::read_answer(response, "GET " + path, [](const boost::json::value &answer) {
                const auto &o = common::expect_object(answer, "");
                std::optional<std::int64_t> exit_code;
                if (common::member(o, {"ExitCode"}) != nullptr) exit_code = common::int_field(o, {"ExitCode"});
                return std::pair(common::bool_field(o, {"Running"}, true), exit_code);
            });
        if (!running && code) return static_cast<int>(*code);
        if (Clock::now() >= deadline)
            throw EngineError(EngineFailure::timeout,
                              "exec " + short_id(exec_id) + ": output ended but the daemon still reports it running");
        std::this_thread::sleep_for(pause);
    }
}

}  // namespace

int exec_exit_code(EngineClient &client, const std::string &exec_id) { return wait_exit_code(client, exec_id); }

namespace {

// Sends the start request on a fresh connection and reads the daemon's answer head.
void start_exec(EngineClient &client, const std::string &exec_id, ExecStream &stream, const std::string &what) {
    const std::string path = client.versioned("/exec/" + exec_id + "/start");
    const auto setup_deadline = Clock::now() + client.timeout();
    const std::string body = R"({"Detach":false,"Tty":false})";
    const std::string request = "POST " + path +
                                " HTTP/1.1\r\nHost: docker\r\nContent-Type: application/json\r\n"
                                "Connection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    stream.send_all(request, setup_deadline);
    std::string head;
    const long status = stream.read_head(setup_deadline, head);
    if (status != 101 && status != 200) {
        EngineResponse response;
        response.status = status;
        response.body = stream.read_error_body(head, setup_deadline);
        EngineClient::expect_success(response, what);
        throw EngineError(EngineFailure::protocol, what + ": unexpected HTTP " + std::to_string(status));
    }
}

}  // namespace

OpenExec open_exec(EngineClient &client, const ExecSpec &spec) {
    const std::string exec_id = create_exec(client, spec, true);
    const std::string what = "POST /exec/" + short_id(exec_id) + "/start";
    const OutputHandler ignore = [](OutputStream, std::string_view) {};
    ExecStream stream(client.connect_raw(), ignore, what, client.timeout());
    start_exec(client, exec_id, stream, what);
    std::string first = stream.take_leftover();
    return {exec_id, std::move(stream).release(), std::move(first)};
}

ExecResult run_exec(EngineClient &client, const ExecSpec &spec, const StdinProducer *stdin_producer,
                    const OutputHandler &on_output, const ExecTimeouts &timeouts) {
    const std::string exec_id = create_exec(client, spec, stdin_producer != nullptr);
    const std::string what = "POST " + client.versioned("/exec/" + exec_id + "/start");
    const auto total_deadline = Clock::now() + timeouts.total;

    ExecStream stream(client.connect_raw(), on_output, what, timeouts.stall);
    start_exec(client, exec_id, stream, what);
    stream.start_stream();

    ExecResult result;
    if (stdin_producer != nullptr) {
        try {
            (*stdin_producer)(stream);
        } catch (const PeerClosed &) {
            // The process stopped reading (it ended early); its exit code tells why.
        }
    }
    stream.close_stdin();
    stream.read_to_end(total_deadline, timeouts.total);
    result.exit_code = wait_exit_code(client, exec_id);
    return result;
}

}  // namespace liveupdate::docker_engine
