#include "common/kube/api_client.hpp"

#include <curl/curl.h>

#include <boost/json.hpp>

#include <mutex>

#include "common/json_fields.hpp"

namespace liveupdate::kube {
namespace {

namespace json = boost::json;

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Easy {
    CURL *h = curl_easy_init();
    curl_slist *headers = nullptr;
    curl_slist *connect_to = nullptr;
    ~Easy() {
        curl_slist_free_all(headers);
        curl_slist_free_all(connect_to);
        curl_easy_cleanup(h);
    }
};

struct HostPort {
    std::string scheme, host, port, rest;
};

HostPort split_server(const std::string &server) {
    HostPort hp;
    const auto colon_slash = server.find("://");
    hp.scheme = server.substr(0, colon_slash);
    std::string authority = server.substr(colon_slash + 3);
    if (const auto slash = authority.find('/'); slash != std::string::npos) {
        hp.rest = authority.substr(slash);
        authority.resize(slash);
    }
    const auto colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
        hp.host = authority.substr(0, colon);
        hp.port = authority.substr(colon + 1);
    } else {
        hp.host = authority;
        hp.port = hp.scheme == "https" ? "443" : "80";
    }
    return hp;
}

void blob(CURL *h, CURLoption option, const std::string &data) {
    curl_blob b{const_cast<char *>(data.data()), data.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, option, &b);
}

// TLS, credentials and the URL for `path`.
void prepare(Easy &e, const ClientConfig &config, const Credentials &creds, const std::string &path) {
    std::string url = config.server + path;
    if (!config.tls.server_name.empty()) {
        // Verify the certificate for tls-server-name while connecting to the server's address.
        const HostPort hp = split_server(config.server);
        url = hp.scheme + "://" + config.tls.server_name + ":" + hp.port + hp.rest + path;
        e.headers = curl_slist_append(e.headers, ("Host: " + hp.host + ":" + hp.port).c_str());
        e.connect_to = curl_slist_append(
            nullptr, (config.tls.server_name + ":" + hp.port + ":" + hp.host + ":" + hp.port).c_str());
        curl_easy_setopt(e.h, CURLOPT_CONNECT_TO, e.connect_to);
    }
    curl_easy_setopt(e.h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e.h, CURLOPT_NOSIGNAL, 1L);
    if (!config.tls.ca_pem.empty()) blob(e.h, CURLOPT_CAINFO_BLOB, config.tls.ca_pem);
    if (config.tls.insecure) {
        curl_easy_setopt(e.h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e.h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!creds.cert_pem.empty()) {
        blob(e.h, CURLOPT_SSLCERT_BLOB, creds.cert_pem);
        curl_easy_setopt(e.h, CURLOPT_SSLCERTTYPE, "PEM");
        blob(e.h, CURLOPT_SSLKEY_BLOB, creds.key_pem);
        curl_easy_setopt(e.h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (!creds.token.empty())
        e.headers = curl_slist_append(e.headers, ("Authorization: Bearer " + creds.token).c_str());
    e.headers = curl_slist_append(e.headers, "Accept: application/json");
    e.headers = curl_slist_append(e.headers, "User-Agent: lu-host");
    curl_easy_setopt(e.h, CURLOPT_HTTPHEADER, e.headers);
}

std::string transport_error(const ClientConfig &config, const std::string &what, CURLcode code, const char *detail) {
    return what + ": cannot reach the API server " + config.server + " (" + config.where +
           "): " + (detail != nullptr && *detail != 0 ? detail : curl_easy_strerror(code));
}

// A Status object's string member, "" when the body is not one (then the
// body itself is what the caller shows).
std::string status_text(std::string_view body, std::string_view key) {
    try {
        const json::value v = common::parse_limited(body);
        if (const json::object *o = v.if_object()) return common::string_field(*o, key, "");
    } catch (const common::DecodeError &) {
        // Not a Status: the caller falls back to the body.
    }
    return {};
}

}  // namespace

std::string status_message(std::string_view body) {
    if (std::string message = status_text(body, "message"); !message.empty()) return message;
    std::string text(body.substr(0, 300));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

std::string status_reason(std::string_view body) { return status_text(body, "reason"); }

std::string url_escape(std::string_view text) {
    static const char *hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out;
}

ApiClient::ApiClient(ClientConfig config, std::chrono::milliseconds timeout)
    : config_(std::move(config)), timeout_(timeout), credentials_(std::make_unique<CredentialSource>(config_)) {
    global_init();
}

ApiResponse ApiClient::request(const std::string &method, const std::string &path, const std::string &body) {
    const std::string request_line = method + " " + path;
    for (int attempt = 0;; ++attempt) {
        Easy e;
        prepare(e, config_, credentials_->current(), path);
        ApiResponse r;
        char error[CURL_ERROR_SIZE] = {};
        curl_easy_setopt(e.h, CURLOPT_ERRORBUFFER, error);
        curl_easy_setopt(e.h, CURLOPT_CUSTOMREQUEST, method.c_str());
        if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
            e.headers = curl_slist_append(e.headers, method == "PATCH" ? "Content-Type: application/merge-patch+json"
                                                                       : "Content-Type: application/json");
            curl_easy_setopt(e.h, CURLOPT_HTTPHEADER, e.headers);
            curl_easy_setopt(e.h, CURLOPT_POSTFIELDS, body.c_str());
            curl_easy_setopt(e.h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
        }
        curl_easy_setopt(e.h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
        curl_easy_setopt(
            e.h, CURLOPT_WRITEFUNCTION, +[](char *p, size_t, size_t n, void *out) -> size_t {
                static_cast<std::string *>(out)->append(p, n);
                return n;
            });
        curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &r.body);
        const CURLcode code = curl_easy_perform(e.h);
        if (code != CURLE_OK) throw ApiError(0, "", transport_error(config_, request_line, code, error));
        curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &r.status);
        // Credentials from an exec plugin may have been revoked early: one fresh try.
        if (r.status == 401 && config_.user.exec && attempt == 0) {
            credentials_->invalidate();
            continue;
        }
        return r;
    }
}

std::string ApiClient::get(const std::string &path) {
    ApiResponse r = request("GET", path);
    if (r.status / 100 != 2)
        throw ApiError(r.status, status_reason(r.body),
                       "GET " + path + ": " + std::to_string(r.status) + " " + status_message(r.body));
    return std::move(r.body);
}

void ApiClient::stream_lines(const std::string &path, const std::function<bool(std::string_view)> &on_line,
                             common::StreamCancel &cancel) {
    Easy e;
    prepare(e, config_, credentials_->current(), path);
    char error[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(e.h, CURLOPT_ERRORBUFFER, error);
    struct State {
        const std::function<bool(std::string_view)> *on_line;
        std::string pending;
        std::string error_body;
        CURL *h;
        bool stopped = false;
    } state{&on_line, {}, {}, e.h};
    curl_easy_setopt(e.h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_.count()));
    curl_easy_setopt(
        e.h, CURLOPT_WRITEFUNCTION, +[](char *p, size_t, size_t n, void *user) -> size_t {
            auto &s = *static_cast<State *>(user);
            long status = 0;
            curl_easy_getinfo(s.h, CURLINFO_RESPONSE_CODE, &status);
            if (status / 100 != 2) {
                s.error_body.append(p, n);
                return n;
            }
            s.pending.append(p, n);
            std::size_t start = 0;
            for (std::size_t nl; (nl = s.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
                if (!(*s.on_line)(std::string_view(s.pending).substr(start, nl - start))) {
                    s.stopped = true;
                    return 0;
                }
            }
            s.pending.erase(0, start);
            return n;
        });
    curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &state);
    // A multi handle, so that cancel() wakes the wait (curl_multi_wakeup):
    // an idle watch is stopped at once, not at libcurl's next progress call.
    struct Multi {
        CURLM *m = curl_multi_init();
        CURL *h;
        common::StreamCancel &cancel;
        ~Multi() {
            cancel.detach();
            if (m == nullptr) return;
            curl_multi_remove_handle(m, h);
            curl_multi_cleanup(m);
        }
    } multi{.h = e.h, .cancel = cancel};
    if (multi.m == nullptr || curl_multi_add_handle(multi.m, e.h) != CURLM_OK)
        throw ApiError(0, "", "GET " + path + ": cannot start a transfer (out of memory?)");
    cancel.attach([m = multi.m] { curl_multi_wakeup(m); });
    while (!cancel.cancelled()) {
        int running = 0;
        if (const CURLMcode mc = curl_multi_perform(multi.m, &running); mc != CURLM_OK)
            throw ApiError(0, "", "GET " + path + ": " + curl_multi_strerror(mc));
        if (running == 0) break;
        curl_multi_poll(multi.m, nullptr, 0, 1000, nullptr);
    }
    if (state.stopped || cancel.cancelled()) return;
    CURLcode code = CURLE_OK;
    int queued = 0;
    while (CURLMsg *msg = curl_multi_info_read(multi.m, &queued))
        if (msg->msg == CURLMSG_DONE) code = msg->data.result;
    long status = 0;
    curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &status);
    if (code != CURLE_OK && status / 100 == 2)
        throw ApiError(0, "", transport_error(config_, "GET " + path, code, error));
    if (code != CURLE_OK && status == 0) throw ApiError(0, "", transport_error(config_, "GET " + path, code, error));
    if (status / 100 != 2) {
        if (status == 401) credentials_->invalidate();
        throw ApiError(status, status_reason(state.error_body),
                       "GET " + path + ": " + std::to_string(status) + " " + status_message(state.error_body));
    }
    if (!state.pending.empty()) on_line(state.pending);
}

}  // namespace liveupdate::kube
