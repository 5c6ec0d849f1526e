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
#include "common/mutex.hpp"

namespace liveupdate::kube {

namespace asio = boost::asio;

// Written by the io thread, read by the caller.
struct PodExecStream::State {
    common::Mutex mutex;
    std::condition_variable arrived;
    ExecChannels channels LU_GUARDED_BY(mutex);
    std::string read_error LU_GUARDED_BY(mutex);
    bool ended LU_GUARDED_BY(mutex) = false;
    bool interrupted LU_GUARDED_BY(mutex) = false;

    asio::executor_work_guard<asio::io_context::executor_type> guard;
    std::thread io;

    explicit State(asio::io_context &ioc) : guard(asio::make_work_guard(ioc)) {}
};

namespace {

constexpr std::size_t kChunk = std::size_t{64} * 1024;

// [io thread] Reads frames until the connection ends.
void read_next(ExecConnection &c, const std::shared_ptr<PodExecStream::State> &state) {
    c.async_read_frame([&c, state](ExecConnection::Read read) {
        common::MutexLock lock(state->mutex);
        if (read.ended) {
            state->read_error = std::move(read.error);
            state->ended = true;
            state->arrived.notify_all();
            return;
        }
        append_exec_frame(read.frame, state->channels);
        state->arrived.notify_all();
        read_next(c, state);
    });
}

}  // namespace

PodExecStream::PodExecStream(ApiClient &client, const PodExecTarget &target, const std::vector<std::string> &command,
                             std::chrono::milliseconds connect_timeout)
    : connection_(open_exec_connection(client, target, command, true, connect_timeout)),
      state_(std::make_shared<State>(connection_->io())) {
    read_next(*connection_, state_);
    state_->io = std::thread([c = connection_.get()] { c->io().run(); });
}

PodExecStream::~PodExecStream() {
    try {
        asio::post(connection_->io(), [c = connection_.get()] { c->close_socket(); });
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
            common::MutexLock lock(state_->mutex);
            if (state_->ended) return false;
        }
        std::string frame(1, static_cast<char>(kExecStdin));
        frame.append(data.substr(off, kChunk));
        auto done = std::make_shared<std::promise<bool>>();
        auto written = done->get_future();
        asio::post(connection_->io(), [c = connection_.get(), frame = std::move(frame), done]() mutable {
            c->async_write_frame(std::make_shared<const std::string>(std::move(frame)),
                                 [done](bool ok) { done->set_value(ok); });
        });
        if (written.wait_until(deadline) != std::future_status::ready) {
            // Nothing else can be sent on a stream with a write stuck halfway.
            asio::post(connection_->io(), [c = connection_.get()] { c->close_socket(); });
            written.wait();
            return false;
        }
        if (!written.get()) return false;
    }
    return true;
}

PodExecStream::Read PodExecStream::read_stdout(std::string &out, Clock::time_point deadline) {
    common::MutexLock lock(state_->mutex);
    lock.wait_until(state_->arrived, deadline, [this]() LU_REQUIRES(state_->mutex) {
        return !state_->channels.out.empty() || state_->ended || state_->interrupted;
    });
    if (state_->interrupted) return Read::timed_out;
    if (!state_->channels.out.empty()) {
        out.append(state_->channels.out);
        state_->channels.out.clear();
        return Read::data;
    }
    return state_->ended ? Read::ended : Read::timed_out;
}

void PodExecStream::interrupt() {
    {
        const common::MutexLock lock(state_->mutex);
        state_->interrupted = true;
    }
    state_->arrived.notify_all();
}

std::string PodExecStream::take_stderr() {
    common::MutexLock lock(state_->mutex);
    return std::exchange(state_->channels.err, {});
}

bool PodExecStream::idle_and_open() {
    common::MutexLock lock(state_->mutex);
    return !state_->ended && state_->channels.out.empty();
}

PodExecStream::End PodExecStream::end() {
    common::MutexLock lock(state_->mutex);
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
