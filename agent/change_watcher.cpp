#include "agent/change_watcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/agent_protocol/temporary_names.hpp"

namespace liveupdate::agent {
namespace {

using agent_protocol::ChangeKind;
using common::UniqueFd;

constexpr std::uint32_t kFolderEvents = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM |
                                        IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
                                        IN_DONT_FOLLOW | IN_EXCL_UNLINK;
// Work between two looks at the requests: reads of the kernel's events, and changes sent.
constexpr int kReadsPerTurn = 16;
constexpr std::size_t kChangesPerBatch = 256;
constexpr std::uint64_t kBytesPerBatch = std::uint64_t{4} << 20;
// A file that changed while it was read waits at least this long before it is read again.
constexpr std::chrono::milliseconds kUnstableWait{20};

std::string joined(const std::string &folder, const std::string &name) {
    return folder.empty() ? name : folder + "/" + name;
}

bool is_beneath(const std::string &relative, const std::string &folder) {
    return folder.empty() || relative == folder ||
           (relative.size() > folder.size() && relative.compare(0, folder.size(), folder) == 0 &&
            relative[folder.size()] == '/');
}

// The folder `relative` beneath root_fd, opened without following any symlink.
UniqueFd open_folder(int root_fd, const std::string &relative) {
    UniqueFd folder(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    std::size_t start = 0;
    while (folder.get() >= 0 && start < relative.size()) {
        const std::size_t end = std::min(relative.find('/', start), relative.size());
        const std::string name = relative.substr(start, end - start);
        folder = UniqueFd(::openat(folder.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        start = end + 1;
    }
    return folder;
}

std::pair<std::string, std::string> split_leaf(const std::string &relative) {
    const auto slash = relative.rfind('/');
    if (slash == std::string::npos) return {"", relative};
    return {relative.substr(0, slash), relative.substr(slash + 1)};
}

// The whole regular file, or nullopt when it changed while read (or is no regular file any more).
std::optional<std::string> read_whole(int folder, const std::string &leaf, const struct stat &before, int &error) {
    UniqueFd file(::openat(folder, leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file.get() < 0) {
        error = errno;
        return std::nullopt;
    }
    struct stat opened {};
    if (::fstat(file.get(), &opened) != 0 || !S_ISREG(opened.st_mode) || opened.st_ino != before.st_ino)
        return std::nullopt;
    std::string content(static_cast<std::size_t>(opened.st_size), '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == content.size()) content.resize(got + 1);  // one byte more tells a file that grew
        const auto n = ::read(file.get(), content.data() + got, content.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = errno;
            return std::nullopt;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
        if (got > static_cast<std::size_t>(opened.st_size)) return std::nullopt;  // growing: read once it stops
    }
    content.resize(got);
    struct stat after {};
    if (::fstat(file.get(), &after) != 0 || after.st_size != opened.st_size ||
        static_cast<std::uint64_t>(after.st_size) != got || after.st_mtim.tv_sec != opened.st_mtim.tv_sec ||
        after.st_mtim.tv_nsec != opened.st_mtim.tv_nsec)
        return std::nullopt;
    return content;
}

}  // namespace

agent_protocol::Result ChangeWatcher::watch(const agent_protocol::WatchChanges &request) {
    const std::string what = "watching " + request.root + ": ";
    if (const auto problem = agent_protocol::path_problem(request.root); !problem.empty())
        return {EINVAL, what + problem};
    std::string root = request.root;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    auto watch = std::make_unique<Watch>(Watch{request.watch_id,
                                               root,
                                               common::IgnorePatterns(root, {}),
                                               request.max_file_bytes,
                                               std::chrono::milliseconds(request.debounce_ms),
                                               {},
                                               false,
                                               {}});
    try {
        watch->patterns = common::IgnorePatterns(root, request.patterns);
    } catch (const std::invalid_argument &e) {
        return {EINVAL, what + e.what()};
    }
    struct stat st {};
    if (::stat(root.c_str(), &st) != 0) return {errno, what + std::strerror(errno)};
    if (!S_ISDIR(st.st_mode)) return {ENOTDIR, what + std::strerror(ENOTDIR)};
    if (inotify_.get() < 0) {
        inotify_ = UniqueFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
        if (inotify_.get() < 0) return {errno, what + "inotify: " + std::strerror(errno)};
    }
    if (request.agreed_paths.size() != request.agreed_hashes.size())
        return {EINVAL, what + std::to_string(request.agreed_paths.size()) + " agreed paths but " +
                            std::to_string(request.agreed_hashes.size()) + " hashes"};
    // What the host agreed on: a file still so is not sent, one gone comes as deleted.
    for (std::size_t i = 0; i < request.agreed_paths.size(); ++i) {
        const std::string &path = request.agreed_paths[i];
        if (!agent_protocol::path_problem("/" + path).empty() || !wanted(*watch, path)) continue;
        Known agreed;
        agreed.kind = static_cast<std::uint8_t>(ChangeKind::written);
        agreed.hash = request.agreed_hashes[i];
        agreed.agreed_only = true;
        watch->known[path] = agreed;
    }
    drop_watch(request.watch_id);
    Watch &added = *watches_.emplace(request.watch_id, std::move(watch)).first->second;
    const bool report = request.report_existing != 0;
    std::unordered_set<std::string> seen;
    add_tree(added, "", report, report ? &seen : nullptr);
    if (report) {
        const auto now = Clock::now();
        for (const auto &[path, known] : added.known)
            if (!seen.contains(path)) pend(added, path, now);
    }
    return {0, {}};
}

void ChangeWatcher::drop_watch(std::uint32_t id) {
    if (watches_.erase(id) == 0) return;
    for (auto it = folders_.begin(); it != folders_.end();) {
        std::erase_if(it->second, [id](const Folder &f) { return f.watch_id == id; });
        if (it->second.empty()) {
            ::inotify_rm_watch(inotify_.get(), it->first);
            it = folders_.erase(it);
        } else {
            ++it;
        }
    }
    std::erase_if(pending_, [id](const auto &p) { return p.first.first == id; });
    // Its parts sent so far are dropped by the host when the watch's answer comes.
    if (sending_ && sending_->change.watch_id == id) sending_.reset();
}

ChangeWatcher::Known ChangeWatcher::known_from(const struct stat &st) {
    const auto kind = S_ISREG(st.st_mode)   ? ChangeKind::written
                      : S_ISLNK(st.st_mode) ? ChangeKind::symlink
                                            : ChangeKind::other;
    Known known;
    known.kind = static_cast<std::uint8_t>(kind);
    known.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
    known.size = S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
    known.inode = static_cast<std::uint64_t>(st.st_ino);
    known.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    return known;
}

bool ChangeWatcher::wanted(const Watch &watch, const std::string &relative) const {
    if (relative.empty()) return false;
    // An agent's own temporary file (a forward write on its way into place) is never the app's.
    if (agent_protocol::is_temporary_name(std::string_view(relative).substr(relative.rfind('/') + 1))) return false;
    return watch.patterns.matches(watch.root == "/" ? "/" + relative : watch.root + "/" + relative);
}

void ChangeWatcher::add_tree(Watch &watch, const std::string &relative, bool report,
                             std::unordered_set<std::string> *seen) {
    UniqueFd root(::open(watch.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.get() < 0) return;
    const auto now = Clock::now();
    std::vector<std::string> folders{relative};
    while (!folders.empty()) {
        const std::string folder = std::move(folders.back());
        folders.pop_back();
        UniqueFd fd = open_folder(root.get(), folder);
        if (fd.get() < 0) continue;
        // Through the open folder (its magic link followed: IN_DONT_FOLLOW would
        // watch the link), so a symlink put in its place meanwhile is not followed.
        const std::string through = "/proc/self/fd/" + std::to_string(fd.get());
        int wd = ::inotify_add_watch(inotify_.get(), through.c_str(), kFolderEvents & ~IN_DONT_FOLLOW);
        if (wd < 0 && errno == ENOENT) {  // no /proc in this container
            const std::string absolute = watch.root == "/" ? "/" + folder : joined(watch.root, folder);
            wd = ::inotify_add_watch(inotify_.get(), absolute.c_str(), kFolderEvents);
        }
        if (wd < 0) {
            std::fprintf(stderr, "lu-agent: watching %s/%s: %s\n", watch.root.c_str(), folder.c_str(),
                         std::strerror(errno));
            // Events of this folder would be missed: a rescan sees its files, once the cause passed.
            watch.rescan_due = true;
        } else {
            auto &at = folders_[wd];
            if (std::none_of(at.begin(), at.end(),
                             [&](const Folder &f) { return f.watch_id == watch.id && f.relative == folder; }))
                at.push_back({watch.id, folder});
        }
        DIR *dir = ::fdopendir(fd.get());
        if (dir == nullptr) continue;
        const int dir_fd = fd.release();
        while (const dirent *entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name == "." || name == "..") continue;
            const std::string path = joined(folder, name);
            struct stat st {};
            if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (S_ISDIR(st.st_mode)) {
                folders.push_back(path);
                continue;
            }
            if (!wanted(watch, path)) continue;
            if (seen != nullptr) seen->insert(path);
            const Known found = known_from(st);
            const auto known = watch.known.find(path);
            if (known != watch.known.end() && known->second.same_stat(found)) continue;  // unchanged
            if (report)
                pend(watch, path, now);
            else
                watch.known[path] = found;  // known to exist, its content not read: a later change of it is sent
        }
        ::closedir(dir);
    }
}

void ChangeWatcher::forget_tree(Watch &watch, const std::string &relative) {
    for (auto it = folders_.begin(); it != folders_.end();) {
        std::erase_if(it->second,
                      [&](const Folder &f) { return f.watch_id == watch.id && is_beneath(f.relative, relative); });
        if (it->second.empty()) {
            ::inotify_rm_watch(inotify_.get(), it->first);
            it = folders_.erase(it);
        } else {
            ++it;
        }
    }
    // What the host knows there is looked at again: gone, or moved away.
    const auto now = Clock::now();
    for (const auto &[path, known] : watch.known)
        if (is_beneath(path, relative)) pend(watch, path, now);
}

void ChangeWatcher::pend(Watch &watch, const std::string &relative, Clock::time_point now, Seen seen) {
    if (watch.rescan_due) return;  // the rescan looks at everything
    const PendingKey key{watch.id, relative};
    auto it = pending_.find(key);
    if (it == pending_.end()) {
        if (pending_.size() >= kMaxPending) return overflowed(watch);
        Pending fresh;
        fresh.first = now;
        fresh.due = now;
        it = pending_.emplace(key, fresh).first;
    }
    Pending &pending = it->second;
    // Its writer closed it: most writers are done then, so it goes now (a
    // file written in several opens, or chmod-ed after, simply comes again).
    if (seen == Seen::closed) {
        pending.writing = false;
        pending.due = now;
        return;
    }
    if (seen == Seen::written) pending.writing = true;
    if (seen == Seen::replaced) pending.writing = false;
    // One still open for writing waits longer: an in-place rewrite (O_TRUNC,
    // then the writes) paused past the debounce would come back empty first.
    const auto quiet = pending.writing ? std::max(watch.debounce, kWriterQuiet) : watch.debounce;
    pending.due = std::min(now + quiet, pending.first + kMaxHold);
}

ChangeWatcher::Seen ChangeWatcher::seen_in(std::uint32_t mask) {
    if ((mask & IN_CLOSE_WRITE) != 0) return Seen::closed;
    if ((mask & (IN_MODIFY | IN_CREATE)) != 0) return Seen::written;
    if ((mask & (IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)) != 0) return Seen::replaced;
    return Seen::other;
}

// What waits is still sent; the rest is the rescan's to find (one filled up
// the queue again, the next one a second later finds what is left).
void ChangeWatcher::overflowed(Watch &watch) { watch.rescan_due = true; }

void ChangeWatcher::read_events() {
    if (inotify_.get() < 0) return;
    alignas(inotify_event) char buffer[64 * 1024];
    const auto now = Clock::now();
    for (int turn = 0; turn < kReadsPerTurn; ++turn) {
        const auto got = ::read(inotify_.get(), buffer, sizeof buffer);
        if (got <= 0) return;  // EAGAIN: all taken
        for (std::size_t at = 0; at < static_cast<std::size_t>(got);) {
            const auto *event = reinterpret_cast<const inotify_event *>(buffer + at);
            at += sizeof(inotify_event) + event->len;
            if ((event->mask & IN_Q_OVERFLOW) != 0) {
                for (auto &[id, watch] : watches_) overflowed(*watch);
                continue;
            }
            const auto found = folders_.find(event->wd);
            if (found == folders_.end()) continue;
            if ((event->mask & IN_IGNORED) != 0) {
                folders_.erase(found);
                continue;
            }
            const std::vector<Folder> in = found->second;  // add_tree and forget_tree change folders_
            const std::string name = event->len > 0 ? std::string(event->name) : std::string();
            for (const Folder &folder : in) {
                const auto w = watches_.find(folder.watch_id);
                if (w == watches_.end()) continue;
                Watch &watch = *w->second;
                if ((event->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) != 0 && folder.relative.empty()) {
                    forget_tree(watch, "");
                    continue;
                }
                if (name.empty()) continue;
                const std::string path = joined(folder.relative, name);
                if ((event->mask & IN_ISDIR) != 0) {
                    if ((event->mask & (IN_DELETE | IN_MOVED_FROM)) != 0) forget_tree(watch, path);
                    if ((event->mask & (IN_CREATE | IN_MOVED_TO)) != 0 && !watch.rescan_due)
                        add_tree(watch, path, true);
                    continue;
                }
                if (wanted(watch, path)) pend(watch, path, now, seen_in(event->mask));
            }
        }
    }
}

bool ChangeWatcher::has_due() const { return sending_.has_value() || wait_ms() == 0; }

int ChangeWatcher::wait_ms() const {
    if (sending_) return 0;
    const auto now = Clock::now();
    std::optional<Clock::time_point> next;
    const auto earliest = [&next](Clock::time_point t) {
        if (!next || t < *next) next = t;
    };
    for (const auto &[id, watch] : watches_)
        if (watch->rescan_due) earliest(watch->last_rescan + kRescanEvery);
    for (const auto &[key, pending] : pending_) earliest(pending.due);
    if (!next) return -1;
    if (*next <= now) return 0;
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(*next - now).count());
}

void ChangeWatcher::rescan(Watch &watch, FrameOutput &out, bool &sent_ok) {
    const auto now = Clock::now();
    watch.rescan_due = false;
    watch.last_rescan = now;
    agent_protocol::ContainerChange told;
    told.watch_id = watch.id;
    told.kind = static_cast<std::uint8_t>(ChangeKind::rescan);
    sent_ok = out.send(agent_protocol::encode(told)) && sent_ok;
    std::unordered_set<std::string> seen;
    add_tree(watch, "", true, &seen);
    // Those the host knows and the walk no longer finds are looked at too: deleted.
    for (const auto &[path, known] : watch.known)
        if (seen.count(path) == 0) pend(watch, path, now);
}

bool ChangeWatcher::send_parts(FrameOutput &out, std::uint64_t &bytes, bool &sent_ok) {
    auto &[change, sent] = *sending_;
    while (change.content.size() - sent > agent_protocol::kChangePartBytes) {
        if (bytes >= kBytesPerBatch || !sent_ok) return false;
        const std::string_view data(change.content.data() + sent, agent_protocol::kChangePartBytes);
        sent_ok = out.send(agent_protocol::encode(
                      agent_protocol::ContainerChangePart{change.watch_id, change.path, std::string(data)})) &&
                  sent_ok;
        sent += data.size();
        bytes += data.size();
    }
    change.content.erase(0, sent);
    bytes += change.content.size();
    sent_ok = out.send(agent_protocol::encode(change)) && sent_ok;
    sending_.reset();
    return true;
}

bool ChangeWatcher::send_due(FrameOutput &out) {
    const auto now = Clock::now();
    bool sent_ok = true;
    std::uint64_t bytes = 0;
    // A file's parts go out together: nothing else of the watches comes between them.
    if (sending_ && !send_parts(out, bytes, sent_ok)) return sent_ok;
    for (auto &[id, watch] : watches_)
        if (watch->rescan_due && watch->last_rescan + kRescanEvery <= now) rescan(*watch, out, sent_ok);
    std::vector<PendingKey> due;
    for (const auto &[key, pending] : pending_) {
        if (pending.due > now) continue;
        due.push_back(key);
        if (due.size() == kChangesPerBatch) break;
    }
    for (const auto &key : due) {
        const auto w = watches_.find(key.first);
        if (w == watches_.end() || bytes >= kBytesPerBatch) break;
        const auto taken = pending_.find(key);
        const bool writing = taken->second.writing;
        pending_.erase(taken);
        bool unstable = false;
        auto change = look(*w->second, key.second, unstable);
        if (unstable) {
            Pending again;
            again.first = now;
            again.due = now + std::max(w->second->debounce, kUnstableWait);
            again.writing = writing;
            pending_[key] = again;
            continue;
        }
        if (!change) continue;
        if (change->content.size() > agent_protocol::kMaxChangeContent) {
            sending_ = Sending{std::move(*change), 0};
            if (!send_parts(out, bytes, sent_ok)) break;
            continue;
        }
        bytes += change->content.size();
        sent_ok = out.send(agent_protocol::encode(*change)) && sent_ok;
    }
    return sent_ok;
}

std::optional<agent_protocol::ContainerChange> ChangeWatcher::look(Watch &watch, const std::string &relative,
                                                                   bool &unstable) {
    agent_protocol::ContainerChange change;
    change.watch_id = watch.id;
    change.path = relative;
    const auto [folder_name, leaf] = split_leaf(relative);
    struct stat st {};
    bool present = false;
    UniqueFd folder;
    if (UniqueFd root(::open(watch.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); root.get() >= 0) {
        folder = open_folder(root.get(), folder_name);
        present = folder.get() >= 0 && ::fstatat(folder.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
    const auto known = watch.known.find(relative);
    if (!present) {
        if (known == watch.known.end()) return std::nullopt;  // came and went unseen
        watch.known.erase(known);
        change.kind = static_cast<std::uint8_t>(ChangeKind::deleted);
        return change;
    }
    Known now = known_from(st);
    if (S_ISREG(st.st_mode)) {
        const std::uint64_t limit = watch.max_file_bytes;
        if (now.size > limit) {
            change.note = std::to_string(now.size) + " bytes: over the limit of " + std::to_string(limit);
        } else {
            int error = 0;
            auto content = read_whole(folder.get(), leaf, st, error);
            if (!content && error == 0) {
                unstable = true;
                return std::nullopt;
            }
            if (content) {
                now.size = content->size();
                now.hash = XXH3_64bits(content->data(), content->size());
                change.has_content = 1;
                change.content = std::move(*content);
            } else {
                change.note = std::string("unreadable: ") + std::strerror(error);
            }
        }
    } else if (S_ISLNK(st.st_mode)) {
        // The link itself, never what it points at.
        std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
        const auto n = ::readlinkat(folder.get(), leaf.c_str(), target.data(), target.size());
        if (n >= 0) {
            target.resize(static_cast<std::size_t>(n));
            now.size = target.size();
            now.hash = XXH3_64bits(target.data(), target.size());
        }
    } else if (S_ISDIR(st.st_mode)) {
        // Folders come with the files beneath them; one where a file was is reported as what it is.
        if (known == watch.known.end()) return std::nullopt;
    }
    // Unchanged since the host was told (a file's content known, not only that it was there).
    const bool unchanged = known != watch.known.end() && known->second.same_content(now) &&
                           (now.kind != static_cast<std::uint8_t>(ChangeKind::written) || now.hash != 0);
    watch.known[relative] = now;
    if (unchanged) return std::nullopt;
    change.kind = now.kind;
    change.mode = now.mode;
    change.size = now.size;
    change.hash = now.hash;
    return change;
}

}  // namespace liveupdate::agent
