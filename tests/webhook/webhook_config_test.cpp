#include <boost/test/unit_test.hpp>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "common/kube/kubeconfig.hpp"
#include "host/webhook/certificates.hpp"
#include "host/webhook/webhook_config.hpp"
#include "host/webhook/webhook_install.hpp"

using namespace liveupdate::host::webhook;
namespace json = boost::json;

namespace {

X509 *read_cert(const std::string &pem) {
    BIO *bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509 *cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return cert;
}

// Verifies serving against ca as a TLS client would, for host (an IP or a DNS name).
bool verifies(const ServingCertificates &certs, const std::string &host, bool ip) {
    X509 *ca = read_cert(certs.ca.cert_pem);
    X509 *leaf = read_cert(certs.serving.cert_pem);
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, leaf, nullptr);
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
    if (ip)
        X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
    else
        X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    const bool ok = X509_verify_cert(ctx) == 1;
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(leaf);
    X509_free(ca);
    return ok;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(webhook_config)

BOOST_AUTO_TEST_CASE(url_targets) {
    BOOST_TEST(url_target("https://127.0.0.1:9443/validate").host == "127.0.0.1");
    BOOST_TEST(url_target("https://[::1]:9443/validate").host == "::1");
    BOOST_TEST(url_target("https://webhook.example.com/validate").host == "webhook.example.com");
    for (const char *bad :
         {"http://127.0.0.1:9443/validate", "https://127.0.0.1:9443", "https://:9443/validate",
          "https://h:99999/validate", "https://u@h/validate", "https://h/validate?x=1", "https://[::1/validate"})
        BOOST_CHECK_THROW(url_target(bad), TargetError);
}

BOOST_AUTO_TEST_CASE(service_targets) {
    const WebhookTarget t = service_target("lu-system/lu-webhook:8443");
    BOOST_TEST(t.service->namespace_name == "lu-system");
    BOOST_TEST(t.service->name == "lu-webhook");
    BOOST_TEST(t.service->port == 8443);
    BOOST_TEST(service_target("ns/name").service->port == 443);
    for (const char *bad : {"name", "/name", "ns/", "ns/name:x", "ns/:1"})
        BOOST_CHECK_THROW(service_target(bad), TargetError);
    const CertificateNames names = certificate_names(t);
    BOOST_TEST(names.dns_names.front() == "lu-webhook.lu-system.svc");
    BOOST_TEST(names.ip_addresses.empty());
    BOOST_TEST(certificate_names(url_target("https://127.0.0.1:1/v")).ip_addresses ==
               std::vector<std::string>{"127.0.0.1"});
}

BOOST_AUTO_TEST_CASE(the_configuration_matches_the_cluster_kinds_and_fails_closed) {
    const json::object config = webhook_configuration(url_target("https://127.0.0.1:9443/validate"), "PEM");
    BOOST_TEST(config.at("kind").as_string() == "ValidatingWebhookConfiguration");
    const json::object &hook = config.at("webhooks").at(0).as_object();
    BOOST_TEST(hook.at("failurePolicy").as_string() == "Fail");
    BOOST_TEST(hook.at("sideEffects").as_string() == "None");
    BOOST_TEST(hook.at("admissionReviewVersions") == json::array{"v1"});
    BOOST_TEST(hook.at("timeoutSeconds").as_int64() == kTimeoutSeconds);
    BOOST_TEST(hook.at("clientConfig").at("url").as_string() == "https://127.0.0.1:9443/validate");
    BOOST_TEST(liveupdate::kube::base64_decode(std::string(hook.at("clientConfig").at("caBundle").as_string())) ==
               "PEM");
    const json::object &rule = hook.at("rules").at(0).as_object();
    BOOST_TEST(rule.at("operations") == (json::array{"CREATE", "UPDATE"}));
    BOOST_TEST(rule.at("apiGroups") == json::array{"tilt.dev"});
    BOOST_TEST(rule.at("scope").as_string() == "Namespaced");  // as the CRDs are
    const json::array &resources = rule.at("resources").as_array();
    BOOST_TEST(std::find(resources.begin(), resources.end(), json::value("liveupdates")) != resources.end());
    // Status writes of the operator are not judged.
    for (const auto &r : resources) BOOST_TEST(std::string(r.as_string()).find('/') == std::string::npos);

    const json::object by_service = webhook_configuration(service_target("ns/svc:8443"), "PEM");
    const json::object &service = by_service.at("webhooks").at(0).at("clientConfig").at("service").as_object();
    BOOST_TEST(service.at("path").as_string() == "/validate");
    BOOST_TEST(service.at("port").as_int64() == 8443);
}

BOOST_AUTO_TEST_CASE(the_mutating_configuration_matches_opted_in_pods_and_fails_open) {
    const WebhookTarget target = mutate_target(url_target("https://127.0.0.1:9443/validate"));
    BOOST_TEST(*target.url == "https://127.0.0.1:9443/mutate");
    BOOST_TEST(target.host == "127.0.0.1");
    BOOST_CHECK_THROW(mutate_target(url_target("https://127.0.0.1:9443/check")), TargetError);
    const json::object config = mutating_webhook_configuration(target, "PEM");
    BOOST_TEST(config.at("kind").as_string() == "MutatingWebhookConfiguration");
    BOOST_TEST(config.at("metadata").at("name").as_string() == kMutatingConfigurationName);
    const json::array &hooks = config.at("webhooks").as_array();
    BOOST_REQUIRE_EQUAL(hooks.size(), 2u);
    for (const auto &h : hooks) {
        const json::object &hook = h.as_object();
        BOOST_TEST(hook.at("failurePolicy").as_string() == "Ignore");
        BOOST_TEST(hook.at("sideEffects").as_string() == "None");
        BOOST_TEST(hook.at("reinvocationPolicy").as_string() == "IfNeeded");
        BOOST_TEST(hook.at("timeoutSeconds").as_int64() <= 5);
        BOOST_TEST(hook.at("clientConfig").at("url").as_string() == "https://127.0.0.1:9443/mutate");
        const json::object &rule = hook.at("rules").at(0).as_object();
        BOOST_TEST(rule.at("operations") == json::array{"CREATE"});
        BOOST_TEST(rule.at("resources") == json::array{"pods"});
        BOOST_TEST(rule.at("apiGroups") == json::array{""});
        const std::string selector = json::serialize(hook.at("namespaceSelector"));
        BOOST_TEST(
            selector.find(R"({"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system"]})") !=
            std::string::npos);
    }
    // Namespaces labelled enabled; elsewhere only pods labelled true: never both for one pod.
    BOOST_TEST(json::serialize(hooks[0].at("namespaceSelector").at("matchExpressions").at(0)) ==
               R"({"key":"liveupdate.dev/inject","operator":"In","values":["enabled"]})");
    BOOST_TEST(json::serialize(hooks[0].at("objectSelector").at("matchExpressions").at(0)) ==
               R"({"key":"liveupdate.dev/inject","operator":"NotIn","values":["false"]})");
    BOOST_TEST(json::serialize(hooks[1].at("namespaceSelector").at("matchExpressions").at(0)) ==
               R"({"key":"liveupdate.dev/inject","operator":"NotIn","values":["enabled"]})");
    BOOST_TEST(json::serialize(hooks[1].at("objectSelector").at("matchExpressions").at(0)) ==
               R"({"key":"liveupdate.dev/inject","operator":"In","values":["true"]})");

    const json::object by_service = mutating_webhook_configuration(mutate_target(service_target("ns/svc:8443")), "PEM");
    const json::object &service = by_service.at("webhooks").at(0).at("clientConfig").at("service").as_object();
    BOOST_TEST(service.at("path").as_string() == "/mutate");
    BOOST_TEST(service.at("port").as_int64() == 8443);
}

BOOST_AUTO_TEST_CASE(certificates_verify_for_the_names_they_serve) {
    const ServingCertificates ip = make_serving_certificates({"lu-host webhook", {}, {"127.0.0.1"}, 1});
    BOOST_TEST(verifies(ip, "127.0.0.1", true));
    BOOST_TEST(!verifies(ip, "127.0.0.2", true));
    const ServingCertificates dns = make_serving_certificates({"svc", {"svc.ns.svc", "svc.ns"}, {}, 1});
    BOOST_TEST(verifies(dns, "svc.ns.svc", false));
    BOOST_TEST(!verifies(dns, "other.ns.svc", false));
    // Another CA's certificate does not verify.
    ServingCertificates mixed = ip;
    mixed.ca = dns.ca;
    BOOST_TEST(!verifies(mixed, "127.0.0.1", true));
    BOOST_CHECK_THROW(make_serving_certificates({"none", {}, {}, 1}), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(secrets_and_bundles) {
    const json::object secret = tls_secret("ns", "name", "C", "K", "A");
    BOOST_TEST(secret.at("type").as_string() == "kubernetes.io/tls");
    BOOST_TEST(liveupdate::kube::base64_decode(std::string(secret.at("data").at("tls.key").as_string())) == "K");
    const ServingCertificates a = make_serving_certificates({"a", {}, {"127.0.0.1"}, 1});
    const ServingCertificates b = make_serving_certificates({"b", {}, {"127.0.0.1"}, 1});
    BOOST_TEST(first_certificate(a.ca.cert_pem + b.ca.cert_pem) == a.ca.cert_pem);
    BOOST_TEST(first_certificate("no PEM").empty());
    BOOST_TEST(secret_ref("ns/name").name == "name");
    BOOST_CHECK_THROW(secret_ref("ns/a/b"), TargetError);
    for (std::string text : {"", "f", "fo", "foo", "foob"})
        BOOST_TEST(liveupdate::kube::base64_decode(base64_encode(text)) == text);
}

BOOST_AUTO_TEST_SUITE_END()
