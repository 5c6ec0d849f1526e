// The connections of a server that wait for their request (a TLS handshake
// or request not yet whole, or an idle keep-alive), oldest first. Past the
// limit the oldest is dropped as a new one arrives, so idle or half-sent
// connections can never keep a client that sends its request whole from
// being served. Thread-safe: connections run on strands of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "common/mutex.hpp"

namespace liveupdate::host {

class WaitingConnections {
public:
    // Closes the connection with this id; it posts the close to the
    // connection's strand and must not call back into this object.
    using Drop = std::function<void(std::uint64_t id)>;

    explicit WaitingConnections(std::size_t limit) : limit_(limit) {}

    // The connection's id, to remove once its request is whole.
    std::uint64_t add(Drop drop);
    void remove(std::uint64_t id);
    std::size_t size() const;

private:
    const std::size_t limit_;
    mutable common::Mutex mutex_;
    std::uint64_t next_ LU_GUARDED_BY(mutex_) = 0;
    std::map<std::uint64_t, Drop> waiting_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
