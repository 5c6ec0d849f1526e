#include "host/reload/plugin_file_watcher.hpp"
#include "common/mutex.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

namespace liveupdate::host::reload {
namespace fs = std::filesystem;

namespace {

// Events that leave a file with new content under its name.
constexpr uint32_t kFolderEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY;

}  // namespace

PluginFileWatcher::PluginFileWatcher(std::chrono::milliseconds settle, ChangedFn on_changed, WarnFn on_warning)
    : settle_(settle), on_changed_(std::move(on_changed)), on_warning_(std::move(on_warning)) {
    inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
    stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (stop_fd_ < 0) {
        const int error = errno;
        ::close(inotify_fd_);
        throw std::system_error(error, std::generic_category(), "eventfd");
    }
    thread_ = std::thread([this] { run(); });
}

PluginFileWatcher::~PluginFileWatcher() {
    const uint64_t one = 1;
    if (::write(stop_fd_, &one, sizeof one) != sizeof one) {
        // An eventfd write fails only on counter overflow, impossible with one write.
    }
    thread_.join();
    ::close(stop_fd_);
    ::close(inotify_fd_);
}

void PluginFileWatcher::watch(const std::set<fs::path> &files) {
    std::set<fs::path> normalized, folders;
    for (const fs::path &file : files) {
        normalized.insert(fs::absolute(file).lexically_normal());
        folders.insert(fs::absolute(file).lexically_normal().parent_path());
    }
    common::MutexLock lock(mutex_);
    files_ = std::move(normalized);
    for (auto it = folder_of_watch_.begin(); it != folder_of_watch_.end();) {
        if (folders.count(it->second) == 0) {
            ::inotify_rm_watch(inotify_fd_, it->first);
            it = folder_of_watch_.erase(it);
        } else {
            folders.erase(it->second);
            ++it;
        }
    }
    for (const fs::path &folder : folders) {
        const int wd = ::inotify_add_watch(inotify_fd_, folder.c_str(), kFolderEvents | IN_ONLYDIR);
        if (wd < 0) {
            if (on_warning_) {
                on_warning_("cannot watch " + folder.string() + " for plugin changes: " + std::strerror(errno));
            }
            continue;
        }
        folder_of_watch_[wd] = folder;
    }
    for (auto it = due_.begin(); it != due_.end();) {
        it = files_.count(it->first) != 0 ? std::next(it) : due_.erase(it);
    }
}

void PluginFileWatcher::run() {
    for (;;) {
        int timeout_ms = -1;
        {
            common::MutexLock lock(mutex_);
            if (!due_.empty()) {
                auto next = std::min_element(due_.begin(), due_.end(),
                                             [](const auto &a, const auto &b) { return a.second < b.second; });
                const auto left = std::chrono::ceil<std::chrono::milliseconds>(next->second - Clock::now());
                timeout_ms = static_cast<int>(std::max<long long>(0, left.count()));
            }
        }
        pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
        const int ready = ::poll(fds, 2, timeout_ms);
        if (ready < 0 && errno != EINTR) {
            if (on_warning_) on_warning_(std::string("plugin watcher stopped: poll: ") + std::strerror(errno));
            return;
        }
        if (fds[1].revents != 0) return;
        if (fds[0].revents != 0) read_events();
        report_settled();
    }
}

void PluginFileWatcher::read_events() {
    alignas(inotify_event) char buffer[16 * 1024];
    for (;;) {
        const ssize_t length = ::read(inotify_fd_, buffer, sizeof buffer);
        if (length <= 0) return;  // EAGAIN: drained
        const Clock::time_point quiet_until = Clock::now() + settle_;
        common::MutexLock lock(mutex_);
        for (ssize_t offset = 0; offset < length;) {
            const auto *event = reinterpret_cast<const inotify_event *>(buffer + offset);
            offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            if ((event->mask & IN_Q_OVERFLOW) != 0) {
                // Events were lost: every watched file may have changed.
                for (const fs::path &file : files_) due_[file] = quiet_until;
                continue;
            }
            auto folder = folder_of_watch_.find(event->wd);
            if (folder == folder_of_watch_.end() || event->len == 0) continue;
            const fs::path file = folder->second / event->name;
            if (files_.count(file) != 0) due_[file] = quiet_until;
        }
    }
}

void PluginFileWatcher::report_settled() {
    for (;;) {
        fs::path file;
        {
            common::MutexLock lock(mutex_);
            const Clock::time_point now = Clock::now();
            auto settled = std::find_if(due_.begin(), due_.end(), [&](const auto &d) { return d.second <= now; });
            if (settled == due_.end()) return;
            file = settled->first;
            due_.erase(settled);
        }
        on_changed_(file);
    }
}

}  // namespace liveupdate::host::reload
