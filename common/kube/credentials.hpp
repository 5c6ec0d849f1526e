// The user's credentials for each request: a bearer token (inline or from
// tokenFile, read on each use), a client certificate, or what an exec
// credential plugin prints (run as kubectl runs it, kept until its
// expirationTimestamp, run again after a 401). Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "common/kube/kubeconfig.hpp"
#include "common/mutex.hpp"

namespace liveupdate::kube {

struct Credentials {
    std::string token;     // "Authorization: Bearer" when not empty
    std::string cert_pem;  // client certificate, when not empty
    std::string key_pem;
};

// The status of an ExecCredential the plugin printed; throws
// std::runtime_error naming `where` when it is not one.
struct ExecCredentialStatus {
    Credentials credentials;
    std::optional<std::chrono::sys_seconds> expires;  // seconds: a far expiry must not overflow
};
ExecCredentialStatus parse_exec_credential(const std::string &json_text, const std::string &where);

class CredentialSource {
public:
    explicit CredentialSource(const ClientConfig &config);

    // Throws std::runtime_error (what + where) when a token file or the
    // exec plugin fails.
    Credentials current();
    // The server refused the credentials (401): an exec plugin runs again next time.
    void invalidate();

private:
    Credentials run_exec_plugin() LU_REQUIRES(mutex_);

    ClientConfig config_;
    common::Mutex mutex_;
    std::optional<Credentials> cached_ LU_GUARDED_BY(mutex_);
    std::optional<std::chrono::sys_seconds> expires_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::kube
