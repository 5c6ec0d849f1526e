// A small client of the Kubernetes API server over HTTPS (libcurl): requests
// answered whole, and streams of newline-delimited JSON (watches). TLS and
// credentials come from a resolved kubeconfig. Thread-safe: every call uses
// its own connection.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/kube/credentials.hpp"
#include "common/kube/kubeconfig.hpp"
#include "common/stream_cancel.hpp"

namespace liveupdate::kube {

// A request that failed: `status` is the HTTP status (0: no answer at all),
// `reason` the Status object's reason (NotFound, Forbidden, Expired...).
class ApiError : public std::runtime_error {
public:
    ApiError(long status, std::string reason, const std::string &message)
        : std::runtime_error(message), status(status), reason(std::move(reason)) {}
    long status;
    std::string reason;
};

struct ApiResponse {
    long status = 0;
    std::string body;
};

// The `message` of a Kubernetes Status object, else the body's start.
std::string status_message(std::string_view body);
std::string status_reason(std::string_view body);

// Percent-encodes a query value or path segment.
std::string url_escape(std::string_view text);

class ApiClient {
public:
    explicit ApiClient(ClientConfig config, std::chrono::milliseconds timeout = std::chrono::seconds(30));

    const ClientConfig &config() const { return config_; }
    CredentialSource &credentials() { return *credentials_; }

    // Any status comes back; throws ApiError(0, ...) when the server cannot be reached.
    ApiResponse request(const std::string &method, const std::string &path, const std::string &body = {});
    // GET that must answer 2xx; else ApiError naming the path and the server's message.
    std::string get(const std::string &path);

    // Reads a streaming answer line by line until the server ends it,
    // on_line returns false, or `cancel` is cancelled (which wakes it at
    // once). A non-2xx answer throws ApiError with the server's Status.
    void stream_lines(const std::string &path, const std::function<bool(std::string_view)> &on_line,
                      common::StreamCancel &cancel);

private:
    ClientConfig config_;
    std::chrono::milliseconds timeout_;
    std::unique_ptr<CredentialSource> credentials_;
};

}  // namespace liveupdate::kube
