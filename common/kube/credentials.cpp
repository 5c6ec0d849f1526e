#include "common/kube/credentials.hpp"

#include <boost/json.hpp>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "common/subprocess/run_process.hpp"

namespace liveupdate::kube {
namespace {

namespace json = boost::json;

// RFC 3339 with a Z or numeric offset, fractions ignored.
std::optional<std::chrono::sys_seconds> parse_rfc3339(const std::string &text) {
    std::tm tm{};
    std::istringstream in(text);
    in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
    if (in.fail()) return std::nullopt;
    long offset = 0;
    std::string rest;
    std::getline(in, rest);
    std::size_t i = 0;
    if (i < rest.size() && rest[i] == '.')
        for (++i; i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])); ++i) {
        }
    if (i < rest.size() && (rest[i] == '+' || rest[i] == '-') && rest.size() >= i + 6) {
        const long h = std::stol(rest.substr(i + 1, 2)), m = std::stol(rest.substr(i + 4, 2));
        offset = (rest[i] == '+' ? 1 : -1) * (h * 3600 + m * 60);
    } else if (i >= rest.size() || (rest[i] != 'Z' && rest[i] != 'z')) {
        return std::nullopt;
    }
    return std::chrono::sys_seconds(std::chrono::seconds(static_cast<long long>(timegm(&tm)) - offset));
}

}  // namespace

ExecCredentialStatus parse_exec_credential(const std::string &text, const std::string &where) {
    ExecCredentialStatus out;
    std::string expiration;
    try {
        const json::value v = common::parse_limited(text);
        if (!v.is_object())
            throw std::runtime_error(where + ": the plugin did not print an ExecCredential JSON object");
        if (common::object_field(v, {"status"}) == nullptr)
            throw std::runtime_error(where + ": the ExecCredential the plugin printed has no status");
        out.credentials.token = common::string_field(v, {"status", "token"});
        out.credentials.cert_pem = common::string_field(v, {"status", "clientCertificateData"});
        out.credentials.key_pem = common::string_field(v, {"status", "clientKeyData"});
        expiration = common::string_field(v, {"status", "expirationTimestamp"});
    } catch (const common::DecodeError &e) {
        throw std::runtime_error(where + ": the ExecCredential the plugin printed: " + e.what());
    }
    if (out.credentials.token.empty() && out.credentials.cert_pem.empty())
        throw std::runtime_error(where + ": the ExecCredential status has neither token nor clientCertificateData");
    if (out.credentials.cert_pem.empty() != out.credentials.key_pem.empty())
        throw std::runtime_error(where +
                                 ": the ExecCredential status needs both clientCertificateData and clientKeyData");
    if (const std::string &e = expiration; !e.empty()) {
        out.expires = parse_rfc3339(e);
        if (!out.expires)
            throw std::runtime_error(where + ": status.expirationTimestamp \"" + e + "\" is not RFC 3339");
    }
    return out;
}

CredentialSource::CredentialSource(const ClientConfig &config) : config_(config) {}

Credentials CredentialSource::current() {
    Credentials c{config_.user.token, config_.tls.cert_pem, config_.tls.key_pem};
    if (!config_.user.token_file.empty() && c.token.empty()) {
        std::ifstream in(config_.user.token_file);
        if (!in)
            throw std::runtime_error("user " + config_.user_name + ": tokenFile " + config_.user.token_file + ": " +
                                     std::strerror(errno));
        std::getline(in, c.token);
        while (!c.token.empty() && (c.token.back() == '\r' || c.token.back() == ' ')) c.token.pop_back();
    }
    if (!config_.user.exec) return c;
    common::MutexLock lock(mutex_);
    if (cached_ &&
        (!expires_ || std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) < *expires_))
        return *cached_;
    cached_ = run_exec_plugin();
    return *cached_;
}

void CredentialSource::invalidate() {
    common::MutexLock lock(mutex_);
    cached_.reset();
}

Credentials CredentialSource::run_exec_plugin() {
    const ExecPlugin &x = *config_.user.exec;
    std::vector<std::string> argv{x.command};
    argv.insert(argv.end(), x.args.begin(), x.args.end());
    subprocess::EnvVars env;
    for (const std::string &entry : x.env) {
        const std::size_t eq = entry.find('=');
        env.emplace_back(entry.substr(0, eq), eq == std::string::npos ? "" : entry.substr(eq + 1));
    }
    env.emplace_back("KUBERNETES_EXEC_INFO", "{\"apiVersion\":\"" + x.api_version +
                                                 "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}");
    std::string out, err;
    subprocess::ProcessResult r;
    try {
        r = subprocess::run_process(
            {.argv = argv,
             .extra_env = env,
             .on_output = [&](bool is_err, std::string_view d) { (is_err ? err : out).append(d); },
             .timeout = std::chrono::seconds(60)});
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(x.defined_in + ": " + e.what() +
                                 (x.install_hint.empty() ? "" : "\n" + x.install_hint));
    }
    if (r.timed_out) throw std::runtime_error(x.defined_in + ": " + x.command + " did not finish within 60s");
    if (r.exit_code != 0)
        throw std::runtime_error(x.defined_in + ": " + x.command + " exited with code " + std::to_string(r.exit_code) +
                                 (err.empty() ? "" : ": " + err));
    ExecCredentialStatus s = parse_exec_credential(out, x.defined_in + " (" + x.command + ")");
    expires_ = s.expires;
    // A certificate from the plugin replaces the kubeconfig's; a token alone keeps it.
    if (s.credentials.cert_pem.empty()) {
        s.credentials.cert_pem = config_.tls.cert_pem;
        s.credentials.key_pem = config_.tls.key_pem;
    }
    return s.credentials;
}

}  // namespace liveupdate::kube
