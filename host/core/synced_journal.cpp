#include "host/core/synced_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include <boost/json.hpp>

#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "host/core/host_error.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

constexpr const char *kJournalError = "cannot keep the synced journal";

std::string errno_text() { return std::strerror(errno); }

// FNV-1a: a file name that stays the same across builds and machines.
std::string file_name_of(const SyncedKey &key) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const std::string *part : {&key.live_update, &key.via, &key.container}) {
        for (const unsigned char c : *part) h = (h ^ c) * 1099511628211ULL;
        h = (h ^ 0xffU) * 1099511628211ULL;  // parts never run into each other
    }
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.journal", static_cast<unsigned long long>(h));
    return name;
}

std::string header_of(const SyncedKey &key) {
    return json::serialize(json::object{{"liveupdate-synced", 1},
                                        {"liveUpdate", key.live_update},
                                        {"via", key.via},
                                        {"container", key.container}}) +
           "\n";
}

// The path of a set's element or of a map's entry.
template <typename It>
const std::string &key_of(It it) {
    if constexpr (requires { it->first; })
        return it->first;
    else
        return *it;
}

std::string line_of(char op, const std::string &path) { return op + json::serialize(json::string(path)) + "\n"; }

std::string agreement_line(const std::string &path, const std::string &digest) {
    return "=" + json::serialize(json::array{json::string(path), json::string(digest)}) + "\n";
}

// Drops path and everything beneath it from a set of paths or a map keyed by them.
template <typename Paths>
void drop_tree(Paths &paths, const std::string &path) {
    paths.erase(path);
    const std::string prefix = path == "/" ? path : path + "/";
    for (auto it = paths.lower_bound(prefix); it != paths.end() && key_of(it).starts_with(prefix);)
        it = paths.erase(it);
}

// path or something beneath it is in paths.
template <typename Paths>
bool holds_tree(const Paths &paths, const std::string &path) {
    if (paths.count(path) != 0) return true;
    const std::string prefix = path == "/" ? path : path + "/";
    const auto it = paths.lower_bound(prefix);
    return it != paths.end() && key_of(it).starts_with(prefix);
}

struct Replayed {
    SyncedPaths paths;
    AgreedDigests agreed;
};

// One "=" line's path and digest; false when it is not one.
bool read_agreement(const json::value &v, AgreedDigests &agreed) {
    if (!v.is_array() || v.as_array().size() != 2 || !v.as_array()[0].is_string() || !v.as_array()[1].is_string())
        return false;
    agreed[std::string(v.as_array()[0].as_string())] = std::string(v.as_array()[1].as_string());
    return true;
}

// What a journal's text holds; throws HostError at a malformed complete line.
Replayed replay(const std::string &file, const std::string &text, const SyncedKey &key) {
    Replayed out;
    SyncedPaths &paths = out.paths;
    std::size_t at = 0;
    std::size_t number = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        if (end == std::string::npos) break;  // torn by a crash: never acted on
        const std::string_view line(text.data() + at, end - at);
        at = end + 1;
        const std::string where = file + ":" + std::to_string(++number);
        if (number == 1) {
            if (line != std::string_view(header_of(key)).substr(0, header_of(key).size() - 1))
                throw HostError(kJournalError, where,
                                "the journal belongs to another container (delete it to start afresh)");
            continue;
        }
        json::value path;
        try {
            if (!line.empty()) path = common::parse_limited(line.substr(1));
        } catch (const common::DecodeError &e) {
            throw HostError(kJournalError, where,
                            "not a journal line (" + std::string(e.what()) + "; delete the file to start afresh)");
        }
        if (!line.empty() && line[0] == '=' && read_agreement(path, out.agreed)) continue;
        if (!path.is_string() || (line[0] != '+' && line[0] != '-' && line[0] != '~'))
            throw HostError(kJournalError, where, "not a journal line (delete the file to start afresh)");
        const std::string p(path.as_string());
        if (line[0] == '+') {
            paths.insert(p);
        } else if (line[0] == '~') {
            out.agreed.erase(p);
        } else {
            drop_tree(paths, p);
            drop_tree(out.agreed, p);
        }
    }
    return out;
}

void write_all(int fd, const std::string &text, const std::string &file) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw HostError(kJournalError, file, "cannot write: " + errno_text());
        done += static_cast<std::size_t>(n);
    }
}

// A journal whose dead lines are fewer than this is left as it is: rewriting
// a small one on every delete would cost more than the lines it saves.
constexpr std::size_t kCompactionFloor = 1024;

// Writes the compacted journal beside file, then renames it over: a crash
// leaves one or the other. The new file's handle, open for appending, and its size.
std::pair<int, long long> write_compacted(const std::string &file, const SyncedKey &key, const SyncedPaths &paths,
                                          const AgreedDigests &agreed) {
    std::string text = header_of(key);
    for (const auto &p : paths) text += line_of('+', p);
    for (const auto &[p, digest] : agreed) text += agreement_line(p, digest);
    const std::string temporary = file + ".compacting";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw HostError(kJournalError, temporary, "cannot create: " + errno_text());
    try {
        write_all(fd, text, temporary);
        if (::fsync(fd) != 0) throw HostError(kJournalError, temporary, "cannot sync: " + errno_text());
        // Appends after a failed write are cut off with ftruncate: they must land at the new end.
        if (::fcntl(fd, F_SETFL, O_APPEND) != 0)
            throw HostError(kJournalError, temporary, "cannot append: " + errno_text());
        if (::rename(temporary.c_str(), file.c_str()) != 0)
            throw HostError(kJournalError, file, "cannot replace: " + errno_text());
    } catch (...) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    // The rename made durable: lines appended to the new file must not vanish with it at a power loss.
    const std::string folder = std::filesystem::path(file).parent_path().string();
    if (const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return {fd, static_cast<long long>(text.size())};
}

}  // namespace

SyncedKey SyncedKey::of(const std::string &live_update, const std::string &via, const std::string &container_id,
                        const std::string &root) {
    return {live_update, via, root.empty() ? "id:" + container_id : "root:" + root};
}

bool SyncedKey::operator<(const SyncedKey &other) const {
    return std::tie(live_update, via, container) < std::tie(other.live_update, other.via, other.container);
}

bool covers(const SyncedPaths &paths, const std::string &path) {
    for (std::string p = path;;) {
        if (paths.count(p) != 0) return true;
        const std::size_t slash = p.find_last_of('/');
        if (slash == std::string::npos || p == "/") return false;
        p = slash == 0 ? "/" : p.substr(0, slash);
    }
}

SyncedJournal::SyncedJournal(std::string file, SyncedKey key) : file_(std::move(file)), key_(std::move(key)) {
    std::ifstream in(file_, std::ios::binary);
    if (in) {
        std::ostringstream text;
        text << in.rdbuf();
        if (!in.good() && !in.eof()) throw HostError(kJournalError, file_, "cannot read");
        Replayed replayed = replay(file_, text.str(), key_);
        paths_ = std::move(replayed.paths);
        agreed_ = std::move(replayed.agreed);
        inherited_ = !paths_.empty();
    } else if (std::filesystem::exists(file_)) {
        throw HostError(kJournalError, file_, "cannot open: " + errno_text());
    }
    std::tie(fd_, size_) = write_compacted(file_, key_, paths_, agreed_);
    lines_ = paths_.size() + agreed_.size();
}

SyncedJournal::~SyncedJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void SyncedJournal::append(const std::string &lines, std::size_t count) {
    if (broken_) throw HostError(kJournalError, file_, "a failed write left a partial line that could not be cut off");
    try {
        write_all(fd_, lines, file_);
    } catch (...) {
        // A part written (a full disk) would run into the next line: cut it off.
        broken_ = ::ftruncate(fd_, size_) != 0;
        throw;
    }
    size_ += static_cast<long long>(lines.size());
    lines_ += count;
}

// V01: called before the paths' bytes leave (and sync() before each chunk does).
void SyncedJournal::add(const std::vector<std::string> &paths) {
    const common::MutexLock lock(mutex_);
    std::string lines;
    std::vector<const std::string *> added;
    for (const auto &p : paths) {
        if (paths_.count(p) != 0) continue;
        lines += line_of('+', p);
        added.push_back(&p);
    }
    if (lines.empty()) return;
    append(lines, added.size());
    unsynced_ = true;
    for (const std::string *p : added) paths_.insert(*p);
}

void SyncedJournal::sync() {
    const common::MutexLock lock(mutex_);
    if (!unsynced_) return;
    if (::fdatasync(fd_) != 0) throw HostError(kJournalError, file_, "cannot sync: " + errno_text());
    unsynced_ = false;
}

bool SyncedJournal::has_unsynced() const {
    const common::MutexLock lock(mutex_);
    return unsynced_;
}

// V01: called after the delete succeeded.
void SyncedJournal::remove(const std::vector<std::string> &paths) {
    const common::MutexLock lock(mutex_);
    std::string lines;
    std::size_t count = 0;
    for (const auto &p : paths)
        if (holds_tree(paths_, p) || holds_tree(agreed_, p) || holds_tree(pending_, p)) {
            lines += line_of('-', p);
            ++count;
        }
    if (lines.empty()) return;
    append(lines, count);
    for (const auto &p : paths) {
        drop_tree(paths_, p);
        drop_tree(agreed_, p);
        // The "-" line covers what was pending beneath it.
        std::erase_if(pending_paths_, [&](const auto &ticket) {
            return ticket.second == p || ticket.second.starts_with(p == "/" ? p : p + "/");
        });
        drop_tree(pending_, p);
    }
}

std::optional<std::string> SyncedJournal::written_agreement(const std::string &path) const {
    if (const auto pending = pending_.find(path); pending != pending_.end()) return pending->second.written;
    const auto it = agreed_.find(path);
    if (it == agreed_.end()) return std::nullopt;
    return it->second;
}

void SyncedJournal::supersede_pending(const std::string &path) {
    const auto pending = pending_.find(path);
    if (pending == pending_.end()) return;
    for (const auto &[ticket, digest] : pending->second.agreed) pending_paths_.erase(ticket);
    pending_.erase(pending);
}

void SyncedJournal::agree(const std::string &path, const std::string &digest) {
    const common::MutexLock lock(mutex_);
    if (written_agreement(path) != digest) append(agreement_line(path, digest), 1);
    supersede_pending(path);
    agreed_[path] = digest;
}

void SyncedJournal::forget(const std::string &path) {
    const common::MutexLock lock(mutex_);
    if (written_agreement(path)) append(line_of('~', path), 1);
    supersede_pending(path);
    agreed_.erase(path);
}

std::uint64_t SyncedJournal::agree_pending(const std::string &path, const std::optional<std::string> &digest) {
    const common::MutexLock lock(mutex_);
    const auto [pending, first] = pending_.try_emplace(path);
    if (first) {
        const auto it = agreed_.find(path);
        if (it != agreed_.end()) pending->second.written = it->second;
    }
    const std::uint64_t ticket = next_ticket_++;
    pending->second.agreed.emplace_back(ticket, digest);
    pending_paths_.emplace(ticket, path);
    if (digest)
        agreed_[path] = *digest;
    else
        agreed_.erase(path);
    return ticket;
}

void SyncedJournal::write_pending(const std::vector<std::uint64_t> &tickets) {
    const common::MutexLock lock(mutex_);
    // Each path's newest ticket among these: its line covers the older ones.
    std::map<std::string, std::uint64_t> newest;
    for (const std::uint64_t ticket : tickets)
        if (const auto it = pending_paths_.find(ticket); it != pending_paths_.end()) {
            std::uint64_t &n = newest[it->second];
            n = std::max(n, ticket);
        }
    std::string lines;
    std::size_t count = 0;
    for (const auto &[path, ticket] : newest) {
        const Pending &pending = pending_.at(path);
        const auto it = std::find_if(pending.agreed.begin(), pending.agreed.end(),
                                     [ticket = ticket](const auto &agreed) { return agreed.first == ticket; });
        if (it->second == pending.written) continue;
        lines += it->second ? agreement_line(path, *it->second) : line_of('~', path);
        ++count;
    }
    if (!lines.empty()) append(lines, count);
    for (const auto &[path, ticket] : newest) {
        Pending &pending = pending_.at(path);
        auto it = pending.agreed.begin();
        for (; it != pending.agreed.end() && it->first <= ticket; ++it) {
            pending_paths_.erase(it->first);
            pending.written = it->second;
        }
        pending.agreed.erase(pending.agreed.begin(), it);
        if (pending.agreed.empty()) pending_.erase(path);
    }
}

void SyncedJournal::drop_pending(const std::vector<std::uint64_t> &tickets) {
    const common::MutexLock lock(mutex_);
    for (const std::uint64_t ticket : tickets) {
        const auto at = pending_paths_.find(ticket);
        if (at == pending_paths_.end()) continue;
        const std::string path = at->second;
        Pending &pending = pending_.at(path);
        // A later one was judged against this one: it goes with it.
        std::erase_if(pending.agreed, [&](const auto &agreed) LU_REQUIRES(mutex_) {
            if (agreed.first < ticket) return false;
            pending_paths_.erase(agreed.first);
            return true;
        });
        const std::optional<std::string> &now = pending.agreed.empty() ? pending.written : pending.agreed.back().second;
        if (now)
            agreed_[path] = *now;
        else
            agreed_.erase(path);
        if (pending.agreed.empty()) pending_.erase(path);
    }
}

AgreedDigests SyncedJournal::written_agreements() const {
    AgreedDigests written = agreed_;
    for (const auto &[path, pending] : pending_)
        if (pending.written)
            written[path] = *pending.written;
        else
            written.erase(path);
    return written;
}

std::optional<std::string> SyncedJournal::forwarding(const std::string &path) {
    const common::MutexLock lock(mutex_);
    const auto agreed = agreed_.find(path);
    std::optional<std::string> now = agreed == agreed_.end() ? std::nullopt : std::optional(agreed->second);
    Forwarding &forwarding = forwarding_[path];
    if (forwarding.updates++ == 0) forwarding.agreed_before = now;
    return now;
}

void SyncedJournal::forwarded(const std::string &path) {
    std::vector<std::shared_ptr<const ForwardEndFn>> listeners;
    {
        const common::MutexLock lock(mutex_);
        const auto it = forwarding_.find(path);
        if (it == forwarding_.end() || --it->second.updates > 0) return;
        forwarding_.erase(it);
        for (const auto &[id, listener] : forward_end_listeners_) listeners.push_back(listener);
    }
    for (const auto &listener : listeners) (*listener)(path);
}

bool SyncedJournal::is_forwarding(const std::string &path) const {
    const common::MutexLock lock(mutex_);
    return forwarding_.contains(path);
}

std::optional<std::optional<std::string>> SyncedJournal::agreed_before_forwarding(const std::string &path) const {
    const common::MutexLock lock(mutex_);
    const auto it = forwarding_.find(path);
    if (it == forwarding_.end()) return std::nullopt;
    return it->second.agreed_before;
}

int SyncedJournal::listen_forward_ends(ForwardEndFn listener) {
    const common::MutexLock lock(mutex_);
    const int id = next_listener_++;
    forward_end_listeners_.emplace(id, std::make_shared<const ForwardEndFn>(std::move(listener)));
    return id;
}

void SyncedJournal::unlisten_forward_ends(int id) {
    const common::MutexLock lock(mutex_);
    forward_end_listeners_.erase(id);
}

void SyncedJournal::carried(const std::string &path, const std::string &digest) {
    // Enough for a burst of saves that outruns the container's reports; an
    // older one is judged as the app's (a conflict at worst, nothing lost).
    constexpr std::size_t kRemembered = 16;
    agree(path, digest);
    const common::MutexLock lock(mutex_);
    std::deque<std::string> &digests = carried_[path];
    digests.push_back(digest);
    if (digests.size() > kRemembered) digests.pop_front();
}

bool SyncedJournal::is_late_forward(const std::string &path, const std::string &digest) {
    const common::MutexLock lock(mutex_);
    const auto it = carried_.find(path);
    if (it == carried_.end()) return false;
    if (const auto agreed = agreed_.find(path); agreed != agreed_.end() && agreed->second == digest) {
        carried_.erase(it);  // the container caught up: what it reports next, it read after
        return false;
    }
    return std::find(it->second.begin(), it->second.end(), digest) != it->second.end();
}

void SyncedJournal::uncarried(const std::string &path, const std::string &digest) {
    const common::MutexLock lock(mutex_);
    const auto it = carried_.find(path);
    if (it == carried_.end()) return;
    std::erase(it->second, digest);
    if (it->second.empty()) carried_.erase(it);
}

bool SyncedJournal::holds_beneath(const std::string &path) const {
    const common::MutexLock lock(mutex_);
    const std::string prefix = path == "/" ? path : path + "/";
    const auto paths = paths_.lower_bound(prefix);
    const auto agreed = agreed_.lower_bound(prefix);
    return (paths != paths_.end() && paths->starts_with(prefix)) ||
           (agreed != agreed_.end() && agreed->first.starts_with(prefix));
}

std::optional<std::string> SyncedJournal::agreed(const std::string &path) const {
    const common::MutexLock lock(mutex_);
    const auto it = agreed_.find(path);
    if (it == agreed_.end()) return std::nullopt;
    return it->second;
}

AgreedDigests SyncedJournal::agreements() const {
    const common::MutexLock lock(mutex_);
    return agreed_;
}

bool SyncedJournal::compact_if_due() {
    const common::MutexLock lock(mutex_);
    // Pending agreements have no line yet: the compacted journal holds none either.
    const AgreedDigests written = written_agreements();
    const std::size_t live = paths_.size() + written.size();
    const std::size_t dead = lines_ - live;
    if (dead <= live || dead <= kCompactionFloor) return false;
    const auto [fd, size] = write_compacted(file_, key_, paths_, written);
    ::close(fd_);
    fd_ = fd;
    size_ = size;
    lines_ = live;
    broken_ = false;    // a partial line is gone with the old file
    unsynced_ = false;  // the new file was synced whole
    return true;
}

SyncedPaths SyncedJournal::paths() const {
    const common::MutexLock lock(mutex_);
    return paths_;
}

bool SyncedJournal::empty() const {
    const common::MutexLock lock(mutex_);
    return paths_.empty();
}

std::shared_ptr<SyncedJournal> SyncedJournals::journal(const SyncedKey &key) {
    const common::MutexLock lock(mutex_);
    auto &open = open_[key];
    if (!open) {
        std::error_code ec;
        std::filesystem::create_directories(folder_, ec);
        if (ec) throw HostError(kJournalError, folder_, "cannot create the folder: " + ec.message());
        open = std::make_shared<SyncedJournal>(file_of(key), key);
    }
    return open;
}

bool SyncedJournals::has_earlier_paths(const SyncedKey &key) {
    {
        const common::MutexLock lock(mutex_);
        if (const auto it = open_.find(key); it != open_.end() && it->second)
            return it->second->inherited() && !it->second->empty();
        std::error_code ec;
        if (!std::filesystem::exists(file_of(key), ec)) return false;
    }
    const auto opened = journal(key);
    return opened->inherited() && !opened->empty();
}

namespace {

// The key a journal's header line names; nullopt when it is not a header.
std::optional<SyncedKey> key_in(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    try {
        const json::value header = common::parse_limited(line);
        for (const std::string_view field : {"liveUpdate", "via", "container"})
            if (common::member(header, {field}) == nullptr) return std::nullopt;
        return SyncedKey{common::string_field(header, {"liveUpdate"}), common::string_field(header, {"via"}),
                         common::string_field(header, {"container"})};
    } catch (const common::DecodeError &) {
        return std::nullopt;  // not a header of ours: the caller leaves the file alone
    }
}

}  // namespace

std::vector<SyncedKey> SyncedJournals::prune(const std::function<bool(const SyncedKey &)> &gone) {
    std::vector<SyncedKey> removed;
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto &entry : std::filesystem::directory_iterator(folder_, ec))
        if (entry.path().extension() == ".journal") files.push_back(entry.path().string());
    for (const auto &file : files) {
        const auto key = key_in(file);
        // A file not named after its header is not one of ours to judge.
        if (!key || file_of(*key) != file || !gone(*key)) continue;
        const common::MutexLock lock(mutex_);
        open_.erase(*key);
        if (::unlink(file.c_str()) == 0) removed.push_back(*key);
    }
    return removed;
}

std::string SyncedJournals::file_of(const SyncedKey &key) const {
    return (std::filesystem::path(folder_) / file_name_of(key)).string();
}

}  // namespace liveupdate::host
