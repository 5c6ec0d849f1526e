#include "host/up/inotify_hub.hpp"
#include "common/mutex.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "host/up/inotify_limits.hpp"

namespace liveupdate::host::up {

InotifyHub::InotifyHub(std::function<void()> on_overflow) : on_overflow_(std::move(on_overflow)) {
    inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) throw std::runtime_error(inotify_init_failure_here(errno));
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) {
        const int err = errno;
        ::close(inotify_fd_);
        throw std::runtime_error(std::string("cannot watch files: eventfd: ") + std::strerror(err));
    }
    thread_ = std::thread([this] { run(); });
}

InotifyHub::~InotifyHub() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake();
    if (thread_.joinable()) thread_.join();
    ::close(inotify_fd_);
    ::close(wake_fd_);
}

void InotifyHub::attach(std::shared_ptr<Client> client) {
    {
        common::MutexLock lock(mutex_);
        const Client *key = client.get();
        clients_[key] = std::move(client);
    }
    wake();
}

void InotifyHub::detach(const Client *client, const std::vector<int> &watches) {
    common::MutexLock lock(mutex_);
    for (const int wd : watches) release(client, wd);
    clients_.erase(client);
}

int InotifyHub::add_watch(const Client *client, const std::string &path, std::uint32_t mask) {
    // Under the lock: a watch another client is releasing right now must not
    // be handed out and then removed from the kernel.
    common::MutexLock lock(mutex_);
    const int wd = ::inotify_add_watch(inotify_fd_, path.c_str(), mask);
    if (wd < 0) return -errno;
    holders_[wd].insert(client);
    return wd;
}

void InotifyHub::remove_watch(const Client *client, int wd) {
    common::MutexLock lock(mutex_);
    release(client, wd);
}

void InotifyHub::release(const Client *client, int wd) {
    const auto found = holders_.find(wd);
    if (found == holders_.end()) return;
    found->second.erase(client);
    if (!found->second.empty()) return;
    holders_.erase(found);
    ::inotify_rm_watch(inotify_fd_, wd);
}

void InotifyHub::wake() {
    const std::uint64_t one = 1;
    if (::write(wake_fd_, &one, sizeof one) < 0) {
        // Full only after 2^64 - 1 wakes unread: it wakes the thread either way.
    }
}

bool InotifyHub::read_events() {
    alignas(inotify_event) char buffer[64 * 1024];
    bool overflowed = false;
    // Bounded, so that a steady stream of events cannot starve the ticks.
    for (int reads = 0; reads < 64; ++reads) {
        const ssize_t n = ::read(inotify_fd_, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        common::MutexLock lock(mutex_);
        for (ssize_t off = 0; off < n;) {
            const auto *ev = reinterpret_cast<const inotify_event *>(buffer + off);
            off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
            const InotifyEvent event{ev->wd, ev->mask, ev->len > 0 ? std::string(ev->name) : std::string()};
            if (ev->mask & IN_Q_OVERFLOW) {
                overflowed = true;
                for (const auto &[key, client] : clients_) client->event(event);
                continue;
            }
            const auto holders = holders_.find(ev->wd);
            if (holders == holders_.end()) continue;
            for (const Client *holder : holders->second)
                if (const auto client = clients_.find(holder); client != clients_.end()) client->second->event(event);
            // The kernel dropped the watch (its folder is gone): nobody holds it any more.
            if (ev->mask & IN_IGNORED) holders_.erase(holders);
        }
    }
    return overflowed;
}

std::optional<InotifyHub::Clock::time_point> InotifyHub::tick_all() {
    std::vector<std::shared_ptr<Client>> clients;
    {
        common::MutexLock lock(mutex_);
        clients.reserve(clients_.size());
        for (const auto &[key, client] : clients_) clients.push_back(client);
    }
    // Outside the lock: a tick runs callbacks, which may add or drop watchers.
    std::optional<Clock::time_point> next;
    for (const auto &client : clients)
        if (const auto due = client->tick(Clock::now()); due && (!next || *due < *next)) next = due;
    return next;
}

void InotifyHub::run() {
    std::optional<Clock::time_point> next;
    for (;;) {
        int timeout_ms = -1;
        if (next) {
            const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count();
            timeout_ms = static_cast<int>(std::max<long long>(0, wait));
        }
        pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
        if (::poll(fds, 2, timeout_ms) < 0 && errno != EINTR) {
            // Only EFAULT, EINVAL or ENOMEM: retrying at once would spin.
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (fds[0].revents & POLLIN) {
            std::uint64_t count = 0;
            if (::read(wake_fd_, &count, sizeof count) < 0) {
                // Another read took it: the wake still counts.
            }
            common::MutexLock lock(mutex_);
            if (stopping_) return;
        }
        if ((fds[1].revents & POLLIN) && read_events() && on_overflow_) on_overflow_();
        next = tick_all();
    }
}

}  // namespace liveupdate::host::up
