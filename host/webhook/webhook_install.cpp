#include "host/webhook/webhook_install.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/agent_client/agent_binary.hpp"
#include "common/json_fields.hpp"
#include "common/kube/kubeconfig.hpp"
#include "host/webhook/certificates.hpp"
#include "host/webhook/pod_injection.hpp"

namespace liveupdate::host::webhook {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

const std::string kConfigurations = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const std::string kMutatingConfigurations = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

std::string secrets_of(const std::string &ns) { return "/api/v1/namespaces/" + kube::url_escape(ns) + "/secrets"; }
std::string configmaps_of(const std::string &ns) {
    return "/api/v1/namespaces/" + kube::url_escape(ns) + "/configmaps";
}

[[noreturn]] void refused(const std::string &what, const kube::ApiResponse &response) {
    throw kube::ApiError(
        response.status, kube::status_reason(response.body),
        what + ": HTTP " + std::to_string(response.status) + ": " + kube::status_message(response.body));
}

// Creates the object, or replaces the one there (its resourceVersion kept). Returns "created" or "replaced".
std::string put_object(kube::ApiClient &api, const std::string &collection, json::object object) {
    const std::string name = common::string_field(object, {"metadata", "name"});
    const std::string path = collection + "/" + kube::url_escape(name);
    const kube::ApiResponse current = api.request("GET", path);
    if (current.status == 404) {
        const kube::ApiResponse created = api.request("POST", collection, json::serialize(object));
        if (created.status / 100 != 2) refused("creating " + path, created);
        return "created";
    }
    if (current.status / 100 != 2) refused("reading " + path, current);
    const json::value existing = common::parse_limited(current.body);
    object["metadata"].as_object()["resourceVersion"] = common::string_field(existing, {"metadata", "resourceVersion"});
    const kube::ApiResponse replaced = api.request("PUT", path, json::serialize(object));
    if (replaced.status / 100 != 2) refused("replacing " + path, replaced);
    return "replaced";
}

bool exists(kube::ApiClient &api, const std::string &path) {
    const kube::ApiResponse current = api.request("GET", path);
    if (current.status == 404) return false;
    if (current.status / 100 != 2) refused("reading " + path, current);
    return true;
}

std::string target_text(const WebhookTarget &target) {
    return target.url ? *target.url
                      : "service " + target.service->namespace_name + "/" + target.service->name + " path /mutate";
}

// The CA the current configuration trusts, kept in the new bundle while the pair changes.
std::string ca_in_service(kube::ApiClient &api) {
    const kube::ApiResponse current = api.request("GET", kConfigurations + "/" + kConfigurationName);
    if (current.status == 404) return {};
    if (current.status / 100 != 2) refused("reading " + kConfigurations + "/" + kConfigurationName, current);
    const json::value existing = common::parse_limited(current.body);
    const json::array *webhooks = common::array_field(existing, {"webhooks"});
    if (webhooks == nullptr || webhooks->empty()) return {};
    const std::string bundle =
        common::string_field(common::expect_object((*webhooks)[0], "webhooks[0]"), {"clientConfig", "caBundle"});
    try {
        return first_certificate(kube::base64_decode(bundle));
    } catch (const std::invalid_argument &) {
        return {};  // not ours to read: the new CA alone is trusted
    }
}

// Written aside and renamed over: the webhook never reads a half-written file.
void write_file(const fs::path &file, const std::string &text, mode_t mode) {
    const fs::path temp = file.string() + ".new";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            throw std::runtime_error("cannot write " + temp.string() + ": " + why);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0)
        throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(errno));
    std::error_code ec;
    fs::rename(temp, file, ec);
    if (ec) throw std::runtime_error("cannot rename " + temp.string() + " to " + file.string() + ": " + ec.message());
}

// A ConfigMap's data may hold 1 MiB at most (the API server refuses more).
constexpr std::size_t kConfigMapLimit = std::size_t{1} << 20;

// The lu-agent to publish: `configured`, else the one of this lu-host's layout.
agent_client::AgentBinary read_agent(const fs::path &configured) {
    agent_client::AgentBinary agent = agent_client::load_agent_binary(configured.string(), "give --agent PATH");
    if (agent.content.size() > kConfigMapLimit)
        throw std::runtime_error("the lu-agent binary " + agent.local_path + " holds " +
                                 std::to_string(agent.content.size()) + " bytes, more than a ConfigMap's " +
                                 std::to_string(kConfigMapLimit));
    return agent;
}

// The namespaces labelled for injection, by name.
std::vector<std::string> injected_namespaces(kube::ApiClient &api) {
    const std::string path =
        "/api/v1/namespaces?labelSelector=" + kube::url_escape(std::string(kInjectKey) + "=enabled");
    const kube::ApiResponse listed = api.request("GET", path);
    if (listed.status / 100 != 2) refused("listing " + path, listed);
    const json::value list = common::parse_limited(listed.body);
    std::vector<std::string> names;
    if (const json::array *items = common::array_field(list, {"items"}))
        for (std::size_t i = 0; i < items->size(); ++i)
            names.push_back(common::string_field((*items)[i], {"metadata", "name"}));
    return names;
}

void publish_agent(kube::ApiClient &api, const InstallOptions &options, const agent_client::AgentBinary &agent,
                   std::ostream &out) {
    const std::vector<std::string> namespaces = injected_namespaces(api);
    if (namespaces.empty())
        out << "configmap/" << options.agent_configmap << ": no namespace is labelled " << kInjectKey
            << "=enabled; label one and install again\n";
    for (const auto &ns : namespaces) {
        json::object configmap{
            {"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", json::object{{"name", options.agent_configmap},
                                      {"namespace", ns},
                                      {"labels", json::object{{"app.kubernetes.io/managed-by", "lu-host"}}}}},
            {"binaryData", json::object{{kAgentConfigMapKey, base64_encode(agent.content)}}}};
        const std::string done = put_object(api, configmaps_of(ns), std::move(configmap));
        out << "configmap/" << options.agent_configmap << " " << done << " in namespace " << ns << " ("
            << agent.local_path << ", " << agent.content.size() << " bytes)\n";
    }
}

}  // namespace

SecretRef secret_ref(const std::string &text) {
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() ||
        text.find('/', slash + 1) != std::string::npos)
        throw TargetError("--secret " + text + ": expected NAMESPACE/NAME");
    return SecretRef{text.substr(0, slash), text.substr(slash + 1)};
}

void install_webhook(kube::ApiClient &api, const InstallOptions &options, std::ostream &out) {
    const bool mutate = options.mutate || exists(api, kMutatingConfigurations + "/" + kMutatingConfigurationName);
    // Before anything is written: a --url that has no /mutate beside it.
    const std::optional<WebhookTarget> mutating = mutate ? std::optional(mutate_target(options.target)) : std::nullopt;
    // And an agent that cannot be published: refused before the configurations are.
    const std::optional<agent_client::AgentBinary> agent =
        mutating && !options.agent_configmap.empty() ? std::optional(read_agent(options.agent)) : std::nullopt;
    const CertificateNames names = certificate_names(options.target);
    const ServingCertificates certs =
        make_serving_certificates({options.target.host, names.dns_names, names.ip_addresses, options.days});
    const std::string bundle = certs.ca.cert_pem + ca_in_service(api);
    const std::string done = put_object(api, kConfigurations, webhook_configuration(options.target, bundle));
    out << "validatingwebhookconfiguration/" << kConfigurationName << " " << done << " ("
        << (options.target.url
                ? *options.target.url
                : "service " + options.target.service->namespace_name + "/" + options.target.service->name)
        << ")\n";
    if (mutating) {
        const std::string put =
            put_object(api, kMutatingConfigurations, mutating_webhook_configuration(*mutating, bundle));
        out << "mutatingwebhookconfiguration/" << kMutatingConfigurationName << " " << put << " ("
            << target_text(*mutating) << "; failurePolicy Ignore; start the webhook with "
            << (options.agent_configmap.empty() ? "--agent-image" : "--agent-configmap " + options.agent_configmap)
            << ")\n";
        if (agent) publish_agent(api, options, *agent, out);
    }
    if (options.secret) {
        const std::string stored =
            put_object(api, secrets_of(options.secret->namespace_name),
                       tls_secret(options.secret->namespace_name, options.secret->name, certs.serving.cert_pem,
                                  certs.serving.key_pem, certs.ca.cert_pem));
        out << "secret/" << options.secret->name << " " << stored << " in namespace " << options.secret->namespace_name
            << " (tls.crt, tls.key, ca.crt)\n";
        return;
    }
    std::error_code ec;
    fs::create_directories(options.cert_dir, ec);
    if (ec) throw std::runtime_error("cannot create " + options.cert_dir.string() + ": " + ec.message());
    // The key first: the webhook loads the pair once the certificate matches it.
    write_file(options.cert_dir / "tls.key", certs.serving.key_pem, 0600);
    write_file(options.cert_dir / "ca.crt", certs.ca.cert_pem, 0644);
    write_file(options.cert_dir / "tls.crt", certs.serving.cert_pem, 0644);
    out << "certificates written to " << options.cert_dir.string() << " (tls.crt, tls.key, ca.crt)\n";
}

void uninstall_webhook(kube::ApiClient &api, const std::optional<SecretRef> &secret, std::ostream &out) {
    auto remove = [&](const std::string &path, const std::string &what) {
        const kube::ApiResponse response = api.request("DELETE", path);
        if (response.status == 404) {
            out << what << " not found\n";
            return;
        }
        if (response.status / 100 != 2) refused("deleting " + path, response);
        out << what << " deleted\n";
    };
    remove(kConfigurations + "/" + kConfigurationName,
           std::string("validatingwebhookconfiguration/") + kConfigurationName);
    remove(kMutatingConfigurations + "/" + kMutatingConfigurationName,
           std::string("mutatingwebhookconfiguration/") + kMutatingConfigurationName);
    if (secret)
        remove(secrets_of(secret->namespace_name) + "/" + kube::url_escape(secret->name),
               "secret/" + secret->name + " in namespace " + secret->namespace_name);
}

}  // namespace liveupdate::host::webhook
