// A CA and a serving certificate signed by it, made with the OpenSSL
// library (no child process): ECDSA P-256 keys, SHA-256 signatures, the
// serving certificate for the names and addresses the API server dials.
#pragma once

#include <string>
#include <vector>

namespace liveupdate::host::webhook {

struct KeyPair {
    std::string cert_pem;
    std::string key_pem;
};

struct ServingCertificates {
    KeyPair ca;
    KeyPair serving;
};

struct CertificateRequest {
    std::string common_name;
    std::vector<std::string> dns_names;
    std::vector<std::string> ip_addresses;
    int days = 365;
};

// Throws std::runtime_error with OpenSSL's reason.
ServingCertificates make_serving_certificates(const CertificateRequest &request);

// Standard base64 with padding (a caBundle, a Secret's data).
std::string base64_encode(const std::string &bytes);

}  // namespace liveupdate::host::webhook
