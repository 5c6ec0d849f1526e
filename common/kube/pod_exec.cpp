#include "common/kube/pod_exec.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <exception>
#include <future>
#include <optional>
#include <thread>

#include "common/kube/exec_connection.hpp"
#include "common/kube/exec_frames.hpp"

namespace liveupdate::kube {
namespace {

namespace asio = boost::asio;

constexpr std::size_t kChunk = std::size_t{64} * 1024;

// One exec session on an io_context run by the calling thread; the stdin
// feeder runs on its own thread and hands each chunk over, waiting for it to
// be written, so the session reads output while stdin is being sent.
class ExecSession {
public:
    ExecSession(ExecConnection &connection, const ExecOutputFn &on_output)
        : connection_(connection), ioc_(connection.io()), v5_(connection.v5()), on_output_(on_output), timer_(ioc_) {}

    PodExecResult run(const ExecStdinFn *stdin_feeder, std::chrono::milliseconds timeout) {
        auto guard = asio::make_work_guard(ioc_);
        timer_.expires_after(timeout);
        timer_.async_wait([this](boost::system::error_code ec) {
            if (ec) return;
            timed_out_ = true;
            finish();
        });
        read_next();
        std::thread feeder;
        std::exception_ptr feeder_error;
        if (stdin_feeder != nullptr) {
            feeder = std::thread([&] {
                try {
                    (*stdin_feeder)([this](const char *d, std::size_t n) {
                        if (n == 0) return probe();
                        for (std::size_t off = 0; off < n; off += kChunk) {
                            std::string frame(1, static_cast<char>(kExecStdin));
                            frame.append(d + off, std::min(kChunk, n - off));
                            send(std::move(frame));
                        }
                    });
                    // v4 has no way to say "end of stdin": the command sees it when the session ends.
                    if (v5_) send(std::string{static_cast<char>(kExecClose), static_cast<char>(kExecStdin)});
                } catch (const StdinRefused &) {
                    // The session ended first (the command exited early): its status tells why.
                } catch (...) {
                    feeder_error = std::current_exception();
                    asio::post(ioc_, [this] { finish(); });
                }
                asio::post(ioc_, [&guard] { guard.reset(); });
            });
        } else {
            guard.reset();
        }
        ioc_.run();
        if (feeder.joinable()) feeder.join();
        if (feeder_error) std::rethrow_exception(feeder_error);
        PodExecResult r;
        r.timed_out = timed_out_;
        if (timed_out_) {
            r.exit_code = -1;
            r.failure = "did not finish within " + std::to_string(timeout.count() / 1000) + "s";
            return r;
        }
        if (!read_error_.empty() && status_.empty()) {
            r.exit_code = -1;
            r.failure = "the exec stream ended without a status: " + read_error_;
            return r;
        }
        r.exit_code = exit_code_of_status(status_, r.failure);
        return r;
    }

private:
    struct StdinRefused {};

    // [feeder thread] Sends one frame through the io thread and waits for it.
    void send(std::string frame) {
        auto done = std::make_shared<std::promise<bool>>();
        auto result = done->get_future();
        asio::post(ioc_, [this, frame = std::move(frame), done]() mutable {
            if (finished_) {
                done->set_value(false);
                return;
            }
            connection_.async_write_frame(std::make_shared<const std::string>(std::move(frame)),
                                          [done](bool written) { done->set_value(written); });
        });
        if (!result.get()) throw StdinRefused{};
    }

    // [feeder thread] Sends nothing; throws StdinRefused once the session has ended.
    void probe() {
        auto open = std::make_shared<std::promise<bool>>();
        auto result = open->get_future();
        asio::post(ioc_, [this, open] { open->set_value(!finished_); });
        if (!result.get()) throw StdinRefused{};
    }

    void read_next() {
        connection_.async_read_frame([this](ExecConnection::Read read) {
            if (read.ended) {
                if (!finished_) read_error_ = std::move(read.error);
                finish();
                return;
            }
            const std::string_view frame = read.frame;
            if (!frame.empty()) {
                const auto channel = static_cast<unsigned char>(frame[0]);
                if (channel == kExecStdout || channel == kExecStderr)
                    on_output_(channel == kExecStderr, frame.substr(1));
                else if (channel == kExecStatus)
                    status_.append(frame.substr(1));
            }
            read_next();
        });
    }

    // [io thread] Ends the session: the socket closes, pending operations end.
    void finish() {
        if (finished_) return;
        finished_ = true;
        timer_.cancel();
        connection_.close_socket();
    }

    ExecConnection &connection_;
    asio::io_context &ioc_;
    bool v5_;
    const ExecOutputFn &on_output_;
    asio::steady_timer timer_;
    std::string status_;
    std::string read_error_;
    bool finished_ = false;
    bool timed_out_ = false;
};

}  // namespace

std::string exec_path(const PodExecTarget &t, const std::vector<std::string> &command, bool with_stdin) {
    std::string path = "/api/v1/namespaces/" + url_escape(t.namespace_name.empty() ? "default" : t.namespace_name) +
                       "/pods/" + url_escape(t.pod) + "/exec?stdout=true&stderr=true";
    if (with_stdin) path += "&stdin=true";
    if (!t.container.empty()) path += "&container=" + url_escape(t.container);
    for (const auto &c : command) path += "&command=" + url_escape(c);
    return path;
}

PodExecResult exec_in_pod(ApiClient &client, const PodExecTarget &target, const std::vector<std::string> &command,
                          const ExecStdinFn *stdin_feeder, const ExecOutputFn &on_output,
                          std::chrono::milliseconds timeout) {
    const auto connection =
        open_exec_connection(client, target, command, stdin_feeder != nullptr,
                             std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(30)));
    ExecSession session(*connection, on_output);
    PodExecResult r = session.run(stdin_feeder, timeout);
    r.protocol = connection->protocol();
    return r;
}

}  // namespace liveupdate::kube
