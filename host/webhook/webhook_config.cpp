#include "host/webhook/webhook_config.hpp"

#include <boost/asio/ip/address.hpp>

#include "host/cluster/cluster_kinds.hpp"
#include "host/webhook/certificates.hpp"

namespace liveupdate::host::webhook {
namespace json = boost::json;

namespace {

bool is_ip(const std::string &host) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(host, ec);
    return !ec;
}

int port_of(const std::string &text, const std::string &what) {
    if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
        throw TargetError(what + ": the port " + text + " is not a number");
    const int port = std::stoi(text);
    if (port < 1 || port > 65535) throw TargetError(what + ": the port " + text + " is out of range");
    return port;
}

json::array resources() {
    json::array out;
    for (const auto &kind : cluster::cluster_kinds()) out.emplace_back(kind.plural);
    return out;
}

json::object client_config(const WebhookTarget &target, const std::string &ca_bundle_pem, const char *path) {
    json::object client{{"caBundle", base64_encode(ca_bundle_pem)}};
    if (target.service) {
        client["service"] = json::object{{"namespace", target.service->namespace_name},
                                         {"name", target.service->name},
                                         {"port", target.service->port},
                                         {"path", path}};
    } else {
        client["url"] = *target.url;
    }
    return client;
}

json::object requirement(const char *key, const char *op, json::array values) {
    return json::object{{"key", key}, {"operator", op}, {"values", std::move(values)}};
}

json::object inject_webhook(const char *name, const WebhookTarget &target, const std::string &ca_bundle_pem,
                            json::object namespace_selector, json::object object_selector) {
    json::object rule{{"apiGroups", json::array{""}},
                      {"apiVersions", json::array{"v1"}},
                      {"operations", json::array{"CREATE"}},
                      {"resources", json::array{"pods"}},
                      {"scope", "Namespaced"}};
    return json::object{{"name", name},
                        {"clientConfig", client_config(target, ca_bundle_pem, "/mutate")},
                        {"rules", json::array{std::move(rule)}},
                        {"namespaceSelector", std::move(namespace_selector)},
                        {"objectSelector", std::move(object_selector)},
                        {"failurePolicy", "Ignore"},
                        {"matchPolicy", "Equivalent"},
                        {"sideEffects", "None"},
                        {"reinvocationPolicy", "IfNeeded"},
                        {"admissionReviewVersions", json::array{"v1"}},
                        {"timeoutSeconds", kMutateTimeoutSeconds}};
}

}  // namespace

WebhookTarget url_target(const std::string &url) {
    const std::string what = "--url " + url;
    const std::string scheme = "https://";
    if (url.rfind(scheme, 0) != 0)
        throw TargetError(what + ": must start with https:// (the API server calls webhooks over TLS)");
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    if (slash == std::string::npos || rest.size() == slash + 1)
        throw TargetError(what + ": give the path too, e.g. https://127.0.0.1:9443/validate");
    if (authority.find('@') != std::string::npos) throw TargetError(what + ": no user information in a webhook URL");
    if (rest.find_first_of("?#") != std::string::npos)
        throw TargetError(what + ": no query or fragment in a webhook URL");
    std::string host = authority;
    std::string port;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string::npos) throw TargetError(what + ": unclosed [ in the host");
        host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw TargetError(what + ": expected :PORT after ]");
            port = authority.substr(close + 2);
        }
    } else if (const std::size_t colon = authority.rfind(':'); colon != std::string::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    if (host.empty()) throw TargetError(what + ": no host");
    if (!port.empty()) port_of(port, what);
    return WebhookTarget{url, std::nullopt, host};
}

WebhookTarget service_target(const std::string &text) {
    const std::string what = "--service " + text;
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == text.size())
        throw TargetError(what + ": expected NAMESPACE/NAME[:PORT]");
    ServiceRef ref;
    ref.namespace_name = text.substr(0, slash);
    std::string name = text.substr(slash + 1);
    if (const std::size_t colon = name.find(':'); colon != std::string::npos) {
        ref.port = port_of(name.substr(colon + 1), what);
        name = name.substr(0, colon);
    }
    if (name.empty()) throw TargetError(what + ": no service name");
    ref.name = name;
    return WebhookTarget{std::nullopt, ref, ref.name + "." + ref.namespace_name + ".svc"};
}

CertificateNames certificate_names(const WebhookTarget &target) {
    CertificateNames names;
    if (target.service) {
        const std::string &n = target.service->name;
        const std::string &ns = target.service->namespace_name;
        names.dns_names = {n + "." + ns + ".svc", n + "." + ns + ".svc.cluster.local", n + "." + ns, n};
    } else if (is_ip(target.host)) {
        names.ip_addresses = {target.host};
    } else {
        names.dns_names = {target.host};
    }
    return names;
}

json::object webhook_configuration(const WebhookTarget &target, const std::string &ca_bundle_pem) {
    json::object client = client_config(target, ca_bundle_pem, "/validate");
    json::object rule{{"apiGroups", json::array{cluster::kGroup}},
                      {"apiVersions", json::array{cluster::kVersion}},
                      {"operations", json::array{"CREATE", "UPDATE"}},
                      {"resources", resources()},
                      {"scope", "Namespaced"}};
    json::object webhook{{"name", kWebhookName},
                         {"clientConfig", std::move(client)},
                         {"rules", json::array{std::move(rule)}},
                         {"failurePolicy", "Fail"},
                         {"matchPolicy", "Equivalent"},
                         {"sideEffects", "None"},
                         {"admissionReviewVersions", json::array{"v1"}},
                         {"timeoutSeconds", kTimeoutSeconds}};
    return json::object{
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", json::object{{"name", kConfigurationName},
                                  {"labels", json::object{{"app.kubernetes.io/managed-by", "lu-host"}}}}},
        {"webhooks", json::array{std::move(webhook)}}};
}

WebhookTarget mutate_target(const WebhookTarget &validate) {
    if (!validate.url) return validate;
    const std::string &url = *validate.url;
    const std::string tail = "/validate";
    if (url.size() < tail.size() || url.compare(url.size() - tail.size(), tail.size(), tail) != 0)
        throw TargetError("--url " + url + ": with --mutate the URL must end in /validate (the same server answers " +
                          "/mutate beside it)");
    WebhookTarget out = validate;
    out.url = url.substr(0, url.size() - tail.size()) + "/mutate";
    return out;
}

json::object mutating_webhook_configuration(const WebhookTarget &target, const std::string &ca_bundle_pem) {
    const char *inject = "liveupdate.dev/inject";
    const char *namespace_name = "kubernetes.io/metadata.name";
    json::array webhooks{
        inject_webhook(
            kInjectNamespacesWebhook, target, ca_bundle_pem,
            json::object{{"matchExpressions", json::array{requirement(inject, "In", {"enabled"}),
                                                          requirement(namespace_name, "NotIn", {"kube-system"})}}},
            json::object{{"matchExpressions", json::array{requirement(inject, "NotIn", {"false"})}}}),
        // Disjoint from the first: no pod is sent twice.
        inject_webhook(
            kInjectPodsWebhook, target, ca_bundle_pem,
            json::object{{"matchExpressions", json::array{requirement(inject, "NotIn", {"enabled"}),
                                                          requirement(namespace_name, "NotIn", {"kube-system"})}}},
            json::object{{"matchExpressions", json::array{requirement(inject, "In", {"true"})}}})};
    return json::object{
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "MutatingWebhookConfiguration"},
        {"metadata", json::object{{"name", kMutatingConfigurationName},
                                  {"labels", json::object{{"app.kubernetes.io/managed-by", "lu-host"}}}}},
        {"webhooks", std::move(webhooks)}};
}

json::object tls_secret(const std::string &namespace_name, const std::string &name, const std::string &cert_pem,
                        const std::string &key_pem, const std::string &ca_pem) {
    return json::object{
        {"apiVersion", "v1"},
        {"kind", "Secret"},
        {"metadata", json::object{{"name", name},
                                  {"namespace", namespace_name},
                                  {"labels", json::object{{"app.kubernetes.io/managed-by", "lu-host"}}}}},
        {"type", "kubernetes.io/tls"},
        {"data", json::object{{"tls.crt", base64_encode(cert_pem)},
                              {"tls.key", base64_encode(key_pem)},
                              {"ca.crt", base64_encode(ca_pem)}}}};
}

std::string first_certificate(const std::string &pem_bundle) {
    const std::string end = "-----END CERTIFICATE-----";
    const std::size_t begin = pem_bundle.find("-----BEGIN CERTIFICATE-----");
    if (begin == std::string::npos) return {};
    const std::size_t stop = pem_bundle.find(end, begin);
    if (stop == std::string::npos) return {};
    return pem_bundle.substr(begin, stop + end.size() - begin) + "\n";
}

}  // namespace liveupdate::host::webhook
