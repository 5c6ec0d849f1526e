#include "common/kube/pod_exec_stream.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <thread>

#include "common/kube/exec_connection.hpp"
#include "common/kube/exec_frames.hpp"

namespace liveupdate::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

// Written by the io thread, read by the caller; guarded by `mutex`.
struct PodExecStream::State {
    std::mutex mutex;
    std::condition_variable arrived;
    ExecChannels channels;
    std::string read_error;
    bool ended = false;

    asio::executor_work_guard<asio::io_context::executor_type> guard;
    beast::flat_buffer buffer;
    std::thread io;

    explicit State(asio::io_context &ioc) : guard(asio::make_work_guard(ioc)) {}
};

namespace {

constexpr std::size_t kChunk = std::size_t{64} * 1024;

// [io thread] Reads frames until the connection ends.
void read_next(ExecConnection::Ws &ws, const std::shared_ptr<PodExecStream::State> &state) {
    ws.async_read(state->buffer, [&ws, state](beast::error_code ec, std::size_t) {
        std::lock_guard lock(state->mutex);
        if (ec) {
            if (ec != websocket::error::closed && ec != asio::error::operation_aborted)
                state->read_error = ec.message();
            state->ended = true;
            state->arrived.notify_all();
            return;
        }
        const auto data = state->buffer.cdata();
        append_exec_frame(std::string_view(static_cast<const char *>(data.data()), data.size()), state->channels);
        state->buffer.consume(state->buffer.size());
        state->arrived.notify_all();
        read_next(ws, state);
    });
}

// [io thread] Closes the socket: pending operations end with an error.
void close_socket(ExecConnection &c) {
    beast::error_code ignored;
    beast::get_lowest_layer(*c.ws).socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(*c.ws).close();
}

}  // namespace

PodExecStream::PodExecStream(ApiClient &client, const PodExecTarget &target, const std::vector<std::string> &command,
                             std::chrono::milliseconds connect_timeout)
    : connection_(open_exec_connection(client, target, command, true, connect_timeout)),
      state_(std::make_shared<State>(connection_->ioc)) {
    connection_->ws->binary(true);
    read_next(*connection_->ws, state_);
    state_->io = std::thread([c = connection_.get()] { c->ioc.run(); });
}

PodExecStream::~PodExecStream() {
    try {
        asio::post(connection_->ioc, [c = connection_.get()] { close_socket(*c); });
        state_->guard.reset();
        state_->io.join();
    } catch (const std::exception &e) {
        // The io thread would go on using the connection freed on return.
        std::fprintf(stderr, "lu: a pod exec stream cannot stop its io thread: %s\n", e.what());
        std::abort();
    }
}

bool PodExecStream::write_stdin(std::string_view data, Clock::time_point deadline) {
    for (std::size_t off = 0; off < data.size(); off += kChunk) {
        {
            std::lock_guard lock(state_->mutex);
            if (state_->ended) return false;
        }
        auto frame = std::make_shared<std::string>(1, static_cast<char>(kExecStdin));
        frame->append(data.substr(off, kChunk));
        auto done = std::make_shared<std::promise<bool>>();
        auto written = done->get_future();
        asio::post(connection_->ioc, [c = connection_.get(), frame, done] {
            c->ws->async_write(asio::buffer(*frame),
                               [frame, done](beast::error_code ec, std::size_t) { done->set_value(!ec); });
        });
        if (written.wait_until(deadline) != std::future_status::ready) {
            // Nothing else can be sent on a stream with a write stuck halfway.
            asio::post(connection_->ioc, [c = connection_.get()] { close_socket(*c); });
            written.wait();
            return false;
        }
        if (!written.get()) return false;
    }
    return true;
}

PodExecStream::Read PodExecStream::read_stdout(std::string &out, Clock::time_point deadline) {
    std::unique_lock lock(state_->mutex);
    state_->arrived.wait_until(lock, deadline, [this] { return !state_->channels.out.empty() || state_->ended; });
    if (!state_->channels.out.empty()) {
        out.append(state_->channels.out);
        state_->channels.out.clear();
        return Read::data;
    }
    return state_->ended ? Read::ended : Read::timed_out;
}

std::string PodExecStream::take_stderr() {
    std::lock_guard lock(state_->mutex);
    return std::exchange(state_->channels.err, {});
}

bool PodExecStream::idle_and_open() {
    std::lock_guard lock(state_->mutex);
    return !state_->ended && state_->channels.out.empty();
}

PodExecStream::End PodExecStream::end() {
    std::lock_guard lock(state_->mutex);
    End e;
    if (state_->channels.status.empty()) {
        e.failure = "the exec stream ended without a status" +
                    (state_->read_error.empty() ? std::string() : ": " + state_->read_error);
        return e;
    }
    e.exit_code = exit_code_of_status(state_->channels.status, e.failure);
    return e;
}

}  // namespace liveupdate::kube
