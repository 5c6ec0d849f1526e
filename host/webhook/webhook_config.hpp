// What `lu-host webhook install` writes to the cluster, as pure functions:
// where the API server reaches the webhook (a URL, or a Service), the names
// its certificate must carry, the ValidatingWebhookConfiguration and the
// Secret holding the certificates.
//
// failurePolicy is Fail: what the operator would refuse must never get in,
// and only CREATE/UPDATE of the tilt.dev kinds are matched (not their
// status), so a webhook that is down blocks nothing else in the cluster.
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

// A kubernetes.io/tls Secret: tls.crt, tls.key and ca.crt.
boost::json::object tls_secret(const std::string &namespace_name, const std::string &name, const std::string &cert_pem,
                               const std::string &key_pem, const std::string &ca_pem);

// The first PEM certificate of a bundle (the CA in service), "" when none.
std::string first_certificate(const std::string &pem_bundle);

}  // namespace liveupdate::host::webhook
