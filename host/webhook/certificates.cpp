#include "host/webhook/certificates.hpp"

#include <functional>
#include <memory>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace liveupdate::host::webhook {

namespace {

template <typename T, void (*Free)(T *)>
struct Deleter {
    void operator()(T *p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

[[noreturn]] void fail(const std::string &what) {
    char reason[256] = "unknown reason";
    if (const unsigned long code = ERR_get_error(); code != 0) ERR_error_string_n(code, reason, sizeof reason);
    throw std::runtime_error("cannot make the webhook's certificates: " + what + ": " + reason);
}

void check(int ok, const char *what) {
    if (ok != 1) fail(what);
}

Key new_key() {
    Key key(EVP_EC_gen("P-256"));
    if (!key) fail("generating an EC P-256 key");
    return key;
}

void add_extension(X509 *cert, X509 *issuer, int nid, const std::string &value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) fail("extension " + std::string(OBJ_nid2sn(nid)) + "=" + value);
    const int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    check(ok, "adding an extension");
}

Cert new_certificate(EVP_PKEY *key, const std::string &common_name, int days) {
    Cert cert(X509_new());
    if (!cert) fail("X509_new");
    check(X509_set_version(cert.get(), 2), "setting the version");
    unsigned char serial[16];
    check(RAND_bytes(serial, sizeof serial), "a random serial number");
    serial[0] &= 0x7f;  // positive
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, nullptr);
    if (bn == nullptr || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) == nullptr) {
        BN_free(bn);
        fail("the serial number");
    }
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);  // clocks a little behind still accept it
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 24 * 3600);
    check(X509_set_pubkey(cert.get(), key), "setting the public key");
    X509_NAME *name = X509_get_subject_name(cert.get());
    check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char *>(common_name.c_str()), -1, -1, 0),
          "setting the common name");
    return cert;
}

std::string pem_of(const std::function<int(BIO *)> &write) {
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || write(bio.get()) != 1) fail("writing PEM");
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

KeyPair pem_pair(X509 *cert, EVP_PKEY *key) {
    return KeyPair{pem_of([cert](BIO *b) { return PEM_write_bio_X509(b, cert); }), pem_of([key](BIO *b) {
                       return PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
                   })};
}

std::string subject_alt_names(const CertificateRequest &request) {
    std::string out;
    for (const auto &dns : request.dns_names) out += (out.empty() ? "DNS:" : ",DNS:") + dns;
    for (const auto &ip : request.ip_addresses) out += (out.empty() ? "IP:" : ",IP:") + ip;
    return out;
}

}  // namespace

ServingCertificates make_serving_certificates(const CertificateRequest &request) {
    if (request.dns_names.empty() && request.ip_addresses.empty())
        throw std::runtime_error("cannot make the webhook's certificates: no DNS name or IP address to serve");
    Key ca_key = new_key();
    Cert ca = new_certificate(ca_key.get(), request.common_name + " CA", request.days);
    check(X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())), "setting the CA's issuer");
    add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
    if (X509_sign(ca.get(), ca_key.get(), EVP_sha256()) == 0) fail("signing the CA");

    Key key = new_key();
    Cert cert = new_certificate(key.get(), request.common_name, request.days);
    check(X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get())), "setting the issuer");
    add_extension(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
    add_extension(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), ca.get(), NID_subject_key_identifier, "hash");
    add_extension(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
    add_extension(cert.get(), ca.get(), NID_subject_alt_name, subject_alt_names(request));
    if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) fail("signing the serving certificate");
    return ServingCertificates{pem_pair(ca.get(), ca_key.get()), pem_pair(cert.get(), key.get())};
}

std::string base64_encode(const std::string &bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n =
        EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                        reinterpret_cast<const unsigned char *>(bytes.data()), static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

}  // namespace liveupdate::host::webhook
