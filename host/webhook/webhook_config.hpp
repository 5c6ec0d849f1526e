// What `lu-host webhook install` writes to the cluster, as pure functions:
// where the API server reaches the webhook (a URL, or a Service), the names
// its certificate must carry, the ValidatingWebhookConfiguration, the
// MutatingWebhookConfiguration (--mutate) and the Secret holding the
// certificates.
//
// Validation's failurePolicy is Fail: what the operator would refuse must
// never get in, and only CREATE/UPDATE of the tilt.dev kinds are matched (not
// their status), so a webhook that is down blocks nothing else in the
// cluster. Mutation's is Ignore: it matches pods, and a webhook that is down
// must never stop pods from starting; they start without lu-agent.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::webhook {

inline constexpr const char *kConfigurationName = "lu-host-webhook";
inline constexpr const char *kWebhookName = "validate.lu-host.liveupdate.dev";
inline constexpr int kTimeoutSeconds = 5;
inline constexpr const char *kMutatingConfigurationName = "lu-host-webhook-inject";
// Pods of namespaces labelled liveupdate.dev/inject=enabled.
inline constexpr const char *kInjectNamespacesWebhook = "inject.lu-host.liveupdate.dev";
// Pods labelled liveupdate.dev/inject=true in the other namespaces.
inline constexpr const char *kInjectPodsWebhook = "inject-pod.lu-host.liveupdate.dev";
// Short: a slow webhook delays every pod creation of the namespace.
inline constexpr int kMutateTimeoutSeconds = 3;

class TargetError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct ServiceRef {
    std::string namespace_name;
    std::string name;
    int port = 443;
};

struct WebhookTarget {
    std::optional<std::string> url;  // https://HOST:PORT/validate
    std::optional<ServiceRef> service;
    std::string host;  // the URL's host: what the certificate names (no brackets for IPv6)
};

// --url https://HOST[:PORT]/PATH; throws TargetError saying what is wrong.
WebhookTarget url_target(const std::string &url);
// --service NS/NAME[:PORT]; throws TargetError.
WebhookTarget service_target(const std::string &text);

// The certificate's subjectAltNames: the URL's host (an IP or a DNS name), or
// the Service's names (NAME.NS.svc and the shorter and longer forms).
struct CertificateNames {
    std::vector<std::string> dns_names;
    std::vector<std::string> ip_addresses;
};
CertificateNames certificate_names(const WebhookTarget &target);

// ca_bundle_pem: the CAs the API server trusts (PEM, concatenated).
boost::json::object webhook_configuration(const WebhookTarget &target, const std::string &ca_bundle_pem);

// The same server's /mutate: a --url must end in /validate, /mutate being
// beside it; throws TargetError.
WebhookTarget mutate_target(const WebhookTarget &validate);

// Pod CREATEs, never in kube-system, never of pods labelled
// liveupdate.dev/inject=false.
boost::json::object mutating_webhook_configuration(const WebhookTarget &target, const std::string &ca_bundle_pem);

// A kubernetes.io/tls Secret: tls.crt, tls.key and ca.crt.
boost::json::object tls_secret(const std::string &namespace_name, const std::string &name, const std::string &cert_pem,
                               const std::string &key_pem, const std::string &ca_pem);

// The first PEM certificate of a bundle (the CA in service), "" when none.
std::string first_certificate(const std::string &pem_bundle);

}  // namespace liveupdate::host::webhook
