// The webhook's serving certificate and key, read again when either file
// changes (a rotated certificate, a Secret volume updated by the kubelet),
// so that rotation needs no restart. A pair that cannot be loaded (a
// certificate written before its key, a broken file) is refused with the
// reason logged, and the pair in service stays.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include <sys/types.h>

#include <boost/asio/ssl/context.hpp>

#include "common/mutex.hpp"

namespace liveupdate::host::webhook {

class TlsFiles {
public:
    // Throws std::runtime_error naming the file and why when the pair cannot be loaded.
    TlsFiles(std::filesystem::path cert, std::filesystem::path key);

    // The context for a new connection: the current pair's, reloaded first when
    // a file changed since. Thread-safe; costs two stat() when nothing changed.
    std::shared_ptr<boost::asio::ssl::context> current();

    unsigned reloads() const;

private:
    struct Stamp {
        ino_t inode = 0;
        off_t size = 0;
        long long mtime_ns = 0;
        bool operator==(const Stamp &) const = default;
    };
    struct Stamps {
        Stamp cert, key;
        bool operator==(const Stamps &) const = default;
    };

    Stamps stamps() const;
    std::shared_ptr<boost::asio::ssl::context> load() const;

    std::filesystem::path cert_, key_;
    mutable common::Mutex mutex_;
    std::shared_ptr<boost::asio::ssl::context> context_ LU_GUARDED_BY(mutex_);
    Stamps loaded_ LU_GUARDED_BY(mutex_){};  // what context_ was loaded from, or the stamps of the last refused pair
    unsigned reloads_ LU_GUARDED_BY(mutex_) = 0;
};

}  // namespace liveupdate::host::webhook
