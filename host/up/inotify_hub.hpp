// One inotify instance and the thread that reads it, shared by watchers.
//
// The kernel gives each user few inotify instances (fs.inotify.max_user_instances,
// 128 by default, shared by all of the user's programs): an instance and a
// thread per FileWatch ran out at about a hundred FileWatches. Watchers
// (clients) add their watches here; each event goes to every client that
// holds its watch (an inotify watch is per inode and instance, so clients
// watching one folder share it), an overflow to all. The hub's thread then
// calls every client's tick(), where it handles what arrived and does what is
// due; a client's tick runs its callbacks, so a slow one delays the others
// (their events wait in the kernel's queue).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.hpp"

namespace liveupdate::host::up {

struct InotifyEvent {
    int wd = -1;
    std::uint32_t mask = 0;
    std::string name;
};

class InotifyHub {
public:
    using Clock = std::chrono::steady_clock;

    class Client {
    public:
        virtual ~Client() = default;
        // On the hub's thread, with the hub's lock held: keep it, nothing more.
        virtual void event(const InotifyEvent &event) = 0;
        // On the hub's thread, after events arrived, when woken, and when the
        // time it last returned came: handles what arrived, does what is due,
        // and returns when it is next due (nullopt: only on events).
        virtual std::optional<Clock::time_point> tick(Clock::time_point now) = 0;
    };

    // on_overflow: called on its thread once per queue overflow (each client
    // also gets it, and rescans). Throws std::runtime_error naming the limit
    // that was reached.
    explicit InotifyHub(std::function<void()> on_overflow = {});
    InotifyHub(const InotifyHub &) = delete;
    InotifyHub &operator=(const InotifyHub &) = delete;
    ~InotifyHub();  // stops the thread; every client must be detached first

    void attach(std::shared_ptr<Client> client);
    // Drops its watches (those no other client holds leave the kernel) and
    // stops calling it, except for a tick already under way.
    void detach(const Client *client, const std::vector<int> &watches);
    // The watch descriptor, or -errno. Clients watching one inode share its
    // watch and so its mask: they must ask for the same.
    int add_watch(const Client *client, const std::string &path, std::uint32_t mask);
    void remove_watch(const Client *client, int wd);
    // Has every client ticked soon (one that was busy when last called).
    void wake();

private:
    void run();
    bool read_events();  // true when the queue overflowed
    std::optional<Clock::time_point> tick_all();
    void release(const Client *client, int wd) LU_REQUIRES(mutex_);

    std::function<void()> on_overflow_;
    int inotify_fd_ = -1;
    int wake_fd_ = -1;
    common::Mutex mutex_;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::map<const Client *, std::shared_ptr<Client>> clients_ LU_GUARDED_BY(mutex_);
    std::map<int, std::set<const Client *>> holders_
        LU_GUARDED_BY(mutex_);  // watch descriptor → the clients that hold it
    std::thread thread_;
};

}  // namespace liveupdate::host::up
