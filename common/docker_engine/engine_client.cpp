#include "common/docker_engine/engine_client.hpp"
#include "common/mutex.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace liveupdate::docker_engine {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return std::string(text);
}

std::string seconds_text(std::chrono::milliseconds ms) {
    std::ostringstream out;
    out << static_cast<double>(ms.count()) / 1000.0 << "s";
    return out.str();
}

// The daemon's {"message": "..."}, else the raw body.
std::string daemon_message(const std::string &body) {
    try {
        const auto value = common::parse_limited(body);
        if (const auto *o = value.if_object())
            if (auto message = common::string_field(*o, {"message"}); !message.empty()) return message;
    } catch (const common::DecodeError &) {
        // Not the daemon's error object: the body itself is the message.
    }
    return trim(body);
}

struct VersionNumber {
    int major = 0;
    int minor = 0;
    auto operator<=>(const VersionNumber &) const = default;
};

std::optional<VersionNumber> parse_version(std::string_view text) {
    VersionNumber v;
    char dot = 0;
    std::istringstream in{std::string(text)};
    if (!(in >> v.major >> dot >> v.minor) || dot != '.') return std::nullopt;
    return v;
}

constexpr std::string_view kPreferredApiVersion = "1.41";

}  // namespace

std::string EngineResponse::header(std::string_view lower_name) const {
    for (const auto &[name, value] : headers)
        if (name == lower_name) return value;
    return {};
}

RawConnection::RawConnection(RawConnection &&other) noexcept : curl_(other.curl_), fd_(other.fd_) {
    other.curl_ = nullptr;
    other.fd_ = -1;
}

RawConnection::~RawConnection() {
    if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL *>(curl_));
}

struct EngineClient::Transfer {
    std::string_view json_body;
    bool has_json_body = false;
    bool head = false;
    const BodyReader *reader = nullptr;
    std::string_view content_type;
    std::chrono::milliseconds stall_timeout{0};
    EngineResponse response;
    bool reader_failed = false;
};

namespace {

size_t collect_body(char *data, size_t size, size_t count, void *user) {
    static_cast<EngineResponse *>(user)->body.append(data, size * count);
    return size * count;
}

size_t collect_header(char *data, size_t size, size_t count, void *user) {
    const std::string_view line(data, size * count);
    const auto colon = line.find(':');
    if (colon != std::string_view::npos)
        static_cast<EngineResponse *>(user)->headers.emplace_back(lower(line.substr(0, colon)),
                                                                  trim(line.substr(colon + 1)));
    return size * count;
}

}  // namespace

EngineClient::EngineClient(Endpoint endpoint, std::string api_version, std::chrono::milliseconds timeout)
    : endpoint_(std::move(endpoint)), timeout_(timeout) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (!api_version.empty()) api_version_ = std::move(api_version);
}

EngineClient::~EngineClient() {
    for (void *handle : idle_handles_) curl_easy_cleanup(static_cast<CURL *>(handle));
    curl_global_cleanup();
}

void *EngineClient::acquire_handle() {
    {
        common::MutexLock lock(mutex_);
        if (!idle_handles_.empty()) {
            void *handle = idle_handles_.back();
            idle_handles_.pop_back();
            curl_easy_reset(static_cast<CURL *>(handle));
            return handle;
        }
    }
    CURL *handle = curl_easy_init();
    if (handle == nullptr) throw EngineError(EngineFailure::protocol, "curl_easy_init failed (out of memory?)");
    return handle;
}

void EngineClient::release_handle(void *handle) {
    common::MutexLock lock(mutex_);
    idle_handles_.push_back(handle);
}

void EngineClient::configure(void *h, const std::string &url) const {
    CURL *handle = static_cast<CURL *>(h);
    curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
    if (endpoint_.kind == Endpoint::Kind::unix_socket)
        curl_easy_setopt(handle, CURLOPT_UNIX_SOCKET_PATH, endpoint_.socket_path.c_str());
    // A proxy from the environment must never stand between us and the daemon.
    curl_easy_setopt(handle, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_.count()));
}

void EngineClient::throw_transport(void *h, int code, std::string_view what) const {
    CURL *handle = static_cast<CURL *>(h);
    const auto where = endpoint_.describe();
    if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST) {
        long os_errno = 0;
        curl_easy_getinfo(handle, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno == EACCES || os_errno == EPERM)
            throw EngineError(EngineFailure::permission_denied,
                              "permission denied connecting to the Docker daemon at " + where +
                                  ": this user may not open the socket (e.g. not in the 'docker' group)");
        const std::string why = os_errno == ENOENT ? "no such socket"
                                : os_errno != 0    ? std::strerror(static_cast<int>(os_errno))
                                                   : curl_easy_strerror(static_cast<CURLcode>(code));
        throw EngineError(EngineFailure::unreachable,
                          "cannot connect to the Docker daemon at " + where + " (" + why + "): is dockerd running?");
    }
    if (code == CURLE_OPERATION_TIMEDOUT)
        throw EngineError(EngineFailure::timeout, "the Docker daemon at " + where + " did not answer " +
                                                      std::string(what) + " within " + seconds_text(timeout_));
    throw EngineError(EngineFailure::protocol, std::string(what) + " at " + where +
                                                   " failed: " + curl_easy_strerror(static_cast<CURLcode>(code)));
}

std::string EngineClient::negotiate_version() {
    // /version is the one call that works without a version prefix.
    Transfer transfer;
    const auto response = perform("GET", "/version", transfer);
    const auto [api, api_min] = read_answer(response, "GET /version", [](const boost::json::value &answer) {
        return std::pair(common::string_field(answer, {"ApiVersion"}), common::string_field(answer, {"MinAPIVersion"}));
    });
    const auto server = parse_version(api);
    const auto server_min = parse_version(api_min);
    const auto preferred = *parse_version(kPreferredApiVersion);
    if (!server) throw EngineError(EngineFailure::protocol, "GET /version: no ApiVersion in the daemon's answer");
    if (*server < preferred) return api;
    if (server_min && *server_min > preferred) return api_min;
    return std::string(kPreferredApiVersion);
}

std::string EngineClient::versioned(std::string_view path) {
    std::string version;
    {
        common::MutexLock lock(mutex_);
        if (api_version_) version = *api_version_;
    }
    if (version.empty()) {
        version = negotiate_version();
        common::MutexLock lock(mutex_);
        api_version_ = version;
    }
    return "/v" + version + std::string(path);
}

EngineResponse EngineClient::perform(std::string_view method, std::string_view path, Transfer &transfer) {
    const std::string what = std::string(method) + " " + std::string(path);
    void *h = acquire_handle();
    CURL *handle = static_cast<CURL *>(h);
    struct HandleGuard {
        EngineClient *client;
        void *handle;
        curl_slist *headers = nullptr;
        ~HandleGuard() {
            curl_slist_free_all(headers);
            client->release_handle(handle);
        }
    } guard{this, h};

    configure(h, endpoint_.base_url() + std::string(path));
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer.response);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collect_header);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &transfer.response);

    if (transfer.reader != nullptr) {
        curl_easy_setopt(handle, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(
            handle, CURLOPT_READFUNCTION, +[](char *buffer, size_t size, size_t count, void *user) -> size_t {
                auto *t = static_cast<Transfer *>(user);
                const auto got = (*t->reader)(buffer, size * count);
                if (got < 0) {
                    t->reader_failed = true;
                    return CURL_READFUNC_ABORT;
                }
                return static_cast<size_t>(got);
            });
        curl_easy_setopt(handle, CURLOPT_READDATA, &transfer);
        guard.headers = curl_slist_append(guard.headers, "Transfer-Encoding: chunked");
        guard.headers = curl_slist_append(guard.headers, "Expect:");
        guard.headers =
            curl_slist_append(guard.headers, ("Content-Type: " + std::string(transfer.content_type)).c_str());
        const long stall_seconds = std::max<long>(1, static_cast<long>(transfer.stall_timeout.count() / 1000));
        curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, stall_seconds);
    } else {
        curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
        if (transfer.head) curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
        if (method == "POST") {
            curl_easy_setopt(handle, CURLOPT_POST, 1L);
            curl_easy_setopt(handle, CURLOPT_POSTFIELDS, transfer.json_body.data());
            curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, static_cast<long>(transfer.json_body.size()));
            if (transfer.has_json_body)
                guard.headers = curl_slist_append(guard.headers, "Content-Type: application/json");
        }
    }
    if (guard.headers != nullptr) curl_easy_setopt(handle, CURLOPT_HTTPHEADER, guard.headers);

    const CURLcode code = curl_easy_perform(handle);
    if (transfer.reader_failed) throw EngineError(EngineFailure::protocol, what + ": reading the request body failed");
    if (code != CURLE_OK) throw_transport(h, code, what);
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &transfer.response.status);
    return std::move(transfer.response);
}

EngineResponse EngineClient::get(std::string_view path) {
    Transfer transfer;
    return perform("GET", versioned(path), transfer);
}

EngineResponse EngineClient::head(std::string_view path) {
    Transfer transfer;
    transfer.head = true;
    return perform("HEAD", versioned(path), transfer);
}

EngineResponse EngineClient::post(std::string_view path, std::string_view json_body) {
    Transfer transfer;
    transfer.json_body = json_body.data() == nullptr ? std::string_view("") : json_body;
    transfer.has_json_body = !json_body.empty();
    return perform("POST", versioned(path), transfer);
}

EngineResponse EngineClient::put_stream(std::string_view path, std::string_view content_type, const BodyReader &reader,
                                        std::chrono::milliseconds stall_timeout) {
    Transfer transfer;
    transfer.reader = &reader;
    transfer.content_type = content_type;
    transfer.stall_timeout = stall_timeout;
    return perform("PUT", versioned(path), transfer);
}

void EngineClient::expect_success(const EngineResponse &response, std::string_view what) {
    if (response.status >= 200 && response.status < 300) return;
    const auto message =
        std::string(what) + ": " + daemon_message(response.body) + " (HTTP " + std::to_string(response.status) + ")";
    const auto failure = response.status == 404   ? EngineFailure::not_found
                         : response.status == 409 ? EngineFailure::conflict
                                                  : EngineFailure::http;
    throw EngineError(failure, message, static_cast<int>(response.status));
}

RawConnection EngineClient::connect_raw() {
    CURL *handle = curl_easy_init();
    if (handle == nullptr) throw EngineError(EngineFailure::protocol, "curl_easy_init failed (out of memory?)");
    try {
        configure(handle, endpoint_.base_url() + "/");
        curl_easy_setopt(handle, CURLOPT_CONNECT_ONLY, 1L);
        curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
        const CURLcode code = curl_easy_perform(handle);
        if (code != CURLE_OK) throw_transport(handle, code, "connect");
        curl_socket_t fd = CURL_SOCKET_BAD;
        if (curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD)
            throw EngineError(EngineFailure::protocol, "curl gave no socket for " + endpoint_.describe());
        return RawConnection(handle, fd);
    } catch (...) {
        curl_easy_cleanup(handle);
        throw;
    }
}

void EngineClient::stream_lines(std::string_view path, const std::function<bool(std::string_view)> &on_line,
                                StreamCancel &cancel) {
    const std::string full_path = versioned(path);
    const std::string what = "GET " + full_path;
    struct State {
        const std::function<bool(std::string_view)> *on_line;
        CURL *handle;
        std::string pending;
        std::string error_body;
        long status = 0;
        bool stopped = false;
    };
    CURL *handle = curl_easy_init();
    CURLM *multi = curl_multi_init();
    if (handle == nullptr || multi == nullptr) {
        if (handle != nullptr) curl_easy_cleanup(handle);
        if (multi != nullptr) curl_multi_cleanup(multi);
        throw EngineError(EngineFailure::protocol, "curl init failed (out of memory?)");
    }
    State state{&on_line, handle, {}, {}, 0, false};
    struct Cleanup {
        CURLM *multi;
        CURL *handle;
        StreamCancel &cancel;
        ~Cleanup() {
            cancel.detach();
            curl_multi_remove_handle(multi, handle);
            curl_easy_cleanup(handle);
            curl_multi_cleanup(multi);
        }
    } cleanup{multi, handle, cancel};

    configure(handle, endpoint_.base_url() + full_path);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &state);
    curl_easy_setopt(
        handle, CURLOPT_WRITEFUNCTION, +[](char *data, size_t size, size_t count, void *user) -> size_t {
            auto *s = static_cast<State *>(user);
            const size_t n = size * count;
            if (s->status == 0) curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &s->status);
            if (s->status != 200) {
                s->error_body.append(data, n);
                return n;
            }
            s->pending.append(data, n);
            size_t start = 0;
            for (size_t nl; (nl = s->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
                if (!(*s->on_line)(std::string_view(s->pending).substr(start, nl - start))) {
                    s->stopped = true;
                    return 0;  // ends the transfer
                }
            }
            s->pending.erase(0, start);
            return n;
        });
    curl_multi_add_handle(multi, handle);
    cancel.attach([multi] { curl_multi_wakeup(multi); });

    while (!cancel.cancelled()) {
        int running = 0;
        curl_multi_perform(multi, &running);
        if (running == 0) break;
        curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    }
    if (cancel.cancelled() || state.stopped) return;
    int queued = 0;
    CURLcode code = CURLE_OK;
    while (CURLMsg *msg = curl_multi_info_read(multi, &queued))
        if (msg->msg == CURLMSG_DONE) code = msg->data.result;
    if (code != CURLE_OK && state.status == 0) throw_transport(handle, code, what);
    if (state.status != 200) {
        EngineResponse response;
        response.status = state.status;
        response.body = state.error_body;
        expect_success(response, what);
    }
    if (code != CURLE_OK)
        throw EngineError(EngineFailure::protocol,
                          what + ": the stream broke: " + std::string(curl_easy_strerror(code)));
}

std::string EngineClient::query_escape(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        }
    }
    return out;
}

}  // namespace liveupdate::docker_engine
