#include "host/webhook/tls_files.hpp"

#include <sys/stat.h>

#include <stdexcept>

#include "common/mutex.hpp"
#include "host/core/log.hpp"

namespace liveupdate::host::webhook {
namespace ssl = boost::asio::ssl;

TlsFiles::TlsFiles(std::filesystem::path cert, std::filesystem::path key)
    : cert_(std::move(cert)), key_(std::move(key)) {
    loaded_ = stamps();
    context_ = load();
}

TlsFiles::Stamps TlsFiles::stamps() const {
    auto stamp_of = [](const std::filesystem::path &file) {
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0) return Stamp{};
        return Stamp{st.st_ino, st.st_size,
                     static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
    };
    return Stamps{stamp_of(cert_), stamp_of(key_)};
}

std::shared_ptr<ssl::context> TlsFiles::load() const {
    auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    boost::system::error_code ec;
    context->use_certificate_chain_file(cert_.string(), ec);
    if (ec) throw std::runtime_error("--tls-cert " + cert_.string() + ": cannot load the certificate: " + ec.message());
    context->use_private_key_file(key_.string(), ssl::context::pem, ec);
    if (ec) throw std::runtime_error("--tls-key " + key_.string() + ": cannot load the key: " + ec.message());
    if (SSL_CTX_check_private_key(context->native_handle()) != 1)
        throw std::runtime_error("--tls-key " + key_.string() + ": does not match the certificate " + cert_.string());
    return context;
}

std::shared_ptr<ssl::context> TlsFiles::current() {
    const Stamps now = stamps();
    common::MutexLock lock(mutex_);
    if (now == loaded_) return context_;
    loaded_ = now;
    try {
        context_ = load();
        ++reloads_;
        log::info("webhook: serving certificate " + cert_.string() + " reloaded");
    } catch (const std::exception &e) {
        log::error(std::string("webhook: new certificate refused, the one in service stays: ") + e.what());
    }
    return context_;
}

unsigned TlsFiles::reloads() const {
    common::MutexLock lock(mutex_);
    return reloads_;
}

}  // namespace liveupdate::host::webhook
