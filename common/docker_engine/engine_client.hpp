// HTTP calls to the Docker Engine API through libcurl: versioned paths,
// a timeout on every call, failures turned into EngineError.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/docker_engine/endpoint.hpp"
#include "common/docker_engine/engine_error.hpp"
#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "common/stream_cancel.hpp"

namespace liveupdate::docker_engine {

struct EngineResponse {
    long status = 0;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
    std::string header(std::string_view lower_name) const;
};

// Supplies a streamed request body: bytes written into buffer, 0 at the end,
// -1 to abort the request.
using BodyReader = std::function<std::int64_t(char *buffer, std::size_t capacity)>;

// A connection handed over by curl (CURLOPT_CONNECT_ONLY): the caller speaks
// HTTP on the socket itself. Closing happens when this object dies.
class RawConnection {
public:
    RawConnection(void *curl_handle, int fd) noexcept : curl_(curl_handle), fd_(fd) {}
    RawConnection(RawConnection &&other) noexcept;
    RawConnection &operator=(RawConnection &&) = delete;
    RawConnection(const RawConnection &) = delete;
    ~RawConnection();
    int fd() const noexcept { return fd_; }

private:
    void *curl_;
    int fd_;
};

// Lets another thread end a stream_lines() call promptly.
using StreamCancel = common::StreamCancel;

class EngineClient {
public:
    // api_version empty: negotiated with the daemon on first use.
    EngineClient(Endpoint endpoint, std::string api_version, std::chrono::milliseconds timeout);
    ~EngineClient();
    EngineClient(const EngineClient &) = delete;
    EngineClient &operator=(const EngineClient &) = delete;

    const Endpoint &endpoint() const noexcept { return endpoint_; }
    std::chrono::milliseconds timeout() const noexcept { return timeout_; }
    // "/v1.41" + path; negotiates the version first when needed.
    std::string versioned(std::string_view path);

    // These throw EngineError only when no HTTP answer came; callers judge the status.
    EngineResponse get(std::string_view path);
    EngineResponse head(std::string_view path);
    EngineResponse post(std::string_view path, std::string_view json_body = {});
    // PUT with a chunked body; fails when no byte moves for stall_timeout.
    EngineResponse put_stream(std::string_view path, std::string_view content_type, const BodyReader &reader,
                              std::chrono::milliseconds stall_timeout);

    // Throws EngineError (not_found, conflict or http) unless 200 <= status < 300,
    // with the daemon's message and `what` (e.g. "POST /containers/abc/exec").
    static void expect_success(const EngineResponse &response, std::string_view what);

    // A successful answer's body as JSON (size-limited), read by read; a body
    // that is not JSON, or a field read of the wrong type (DecodeError), is
    // EngineError(protocol) saying what was asked and which field.
    template <class Read>
    static auto read_answer(const EngineResponse &response, std::string_view what, Read read) {
        expect_success(response, what);
        try {
            return read(common::parse_limited(response.body));
        } catch (const common::DecodeError &e) {
            throw EngineError(EngineFailure::protocol, std::string(what) + ": " + e.what());
        }
    }

    // A connected socket to the daemon, within the timeout.
    RawConnection connect_raw();

    // GET a never-ending stream (e.g. /events) and hand each line to on_line
    // until on_line returns false, the daemon closes it, or cancel fires.
    // Throws EngineError when it cannot connect or the status is not 200.
    void stream_lines(std::string_view path, const std::function<bool(std::string_view)> &on_line,
                      StreamCancel &cancel);

    static std::string query_escape(std::string_view text);

private:
    struct Transfer;
    EngineResponse perform(std::string_view method, std::string_view path, Transfer &transfer);
    void *acquire_handle();
    void release_handle(void *handle);
    void configure(void *handle, const std::string &url) const;
    [[noreturn]] void throw_transport(void *handle, int code, std::string_view what) const;
    std::string negotiate_version();

    Endpoint endpoint_;
    std::chrono::milliseconds timeout_;
    common::Mutex mutex_;
    std::optional<std::string> api_version_ LU_GUARDED_BY(mutex_);
    std::vector<void *> idle_handles_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::docker_engine
