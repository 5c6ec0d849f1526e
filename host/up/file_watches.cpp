#include "host/up/file_watches.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/ignore_defs.hpp"
#include "common/ignore_patterns.hpp"
#include "common/json_fields.hpp"
#include "common/paths.hpp"
#include "host/up/file_events.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

namespace {

common::MicroTime now() { return common::MicroTime::from_system(std::chrono::system_clock::now()); }

const json::object &spec_of(const json::object &o) {
    static const json::object empty;
    const json::object *spec = common::object_field(o, {"spec"});
    return spec != nullptr ? *spec : empty;
}

std::string name_of(const json::object &o) { return common::string_field(o, {"metadata", "name"}); }

std::vector<std::string> watched_paths(const json::object &spec) {
    std::vector<std::string> out;
    const json::value *paths = common::member(spec, "watchedPaths");
    if (paths == nullptr) return out;
    if (!paths->is_array()) throw std::invalid_argument("spec.watchedPaths: must be an array of paths");
    const json::array &list = paths->as_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string() || list[i].as_string().empty() || list[i].as_string().front() != '/')
            throw std::invalid_argument("spec.watchedPaths[" + std::to_string(i) + "]: must be a path");
        out.push_back(common::clean_path(list[i].as_string()));
    }
    return out;
}

}  // namespace

WatchFilter file_watch_filter(const json::object &spec) {
    auto set = std::make_shared<common::IgnoreSet>();
    const json::value *ignores = common::member(spec, "ignores");
    const std::vector<common::IgnoreDef> defs =
        ignores != nullptr ? common::parse_ignore_defs(*ignores, "spec.ignores") : std::vector<common::IgnoreDef>{};
    for (std::size_t i = 0; i < defs.size(); ++i) {
        const std::string field = common::index("spec.ignores", i);
        if (defs[i].base_path.empty() || defs[i].base_path.front() != '/')
            throw std::invalid_argument(field + ".basePath: must be a path");
        // Without patterns a definition ignores its whole base path, as Tilt's.
        const std::vector<std::string> patterns =
            defs[i].patterns.empty() ? std::vector<std::string>{"**"} : defs[i].patterns;
        try {
            set->add(common::IgnorePatterns(common::clean_path(defs[i].base_path), patterns));
        } catch (const std::invalid_argument &e) {
            throw std::invalid_argument(field + ".patterns: " + e.what());
        }
    }
    return WatchFilter{[set](const std::string &p) { return set->matches(p); },
                       [set](const std::string &d) { return set->matches_entire_dir(d); }};
}

FileWatches::FileWatches(WatchTiming timing, ChangedFn on_change, DueFn on_due, TreeWatcher::WarnFn on_warning,
                         EchoFn is_echo)
    : timing_(timing),
      on_change_(std::move(on_change)),
      on_due_(std::move(on_due)),
      on_warning_(std::move(on_warning)),
      is_echo_(std::move(is_echo)) {}

FileWatches::~FileWatches() { stop_all(); }

json::object FileWatches::apply(const json::object &file_watch) {
    const std::string name = name_of(file_watch);
    std::unique_ptr<TreeWatcher> retired;
    common::MutexLock lock(mutex_);
    Entry &entry = entries_[name];
    const bool spec_changed = !entry.object.contains("spec") || spec_of(entry.object) != spec_of(file_watch);
    json::object status;
    if (const json::value *kept = common::member(entry.object, "status"); kept != nullptr && kept->is_object())
        status = kept->as_object();
    entry.object = file_watch;
    if (!spec_changed) {
        entry.object["status"] = status;
        return entry.object;
    }
    retired = std::move(entry.watcher);
    status.erase("error");
    status["monitorStartTime"] = now().format();
    entry.object["status"] = status;
    std::shared_ptr<InotifyHub> hub = hub_;
    lock.unlock();
    retired.reset();  // outside the lock: it may be reporting a batch

    std::unique_ptr<TreeWatcher> watcher;
    std::string error;
    try {
        const json::object &spec = spec_of(file_watch);
        std::vector<std::string> paths = watched_paths(spec);
        WatchFilter filter = file_watch_filter(spec);
        if (!hub) hub = shared_hub();
        watcher = std::make_unique<TreeWatcher>(
            hub, std::move(paths), std::move(filter), timing_,
            [this, name](std::vector<std::string> paths) { on_batch(name, std::move(paths)); }, on_warning_);
    } catch (const std::exception &e) {
        error = e.what();
    }
    lock.lock();
    Entry &now_entry = entries_[name];
    if (!error.empty()) {
        now_entry.object["status"].as_object()["error"] = error;
    } else {
        retired = std::move(now_entry.watcher);
        now_entry.watcher = std::move(watcher);
    }
    json::object result = now_entry.object;
    lock.unlock();
    return result;
}

std::shared_ptr<InotifyHub> FileWatches::shared_hub() {
    common::MutexLock lock(mutex_);
    if (!hub_)
        hub_ = std::make_shared<InotifyHub>([this] {
            if (on_warning_) on_warning_(std::string(kInotifyOverflowWarning));
        });
    return hub_;
}

void FileWatches::on_batch(const std::string &name, std::vector<std::string> paths) {
    if (is_echo_) {
        std::erase_if(paths, is_echo_);
        if (paths.empty()) return;
    }
    json::object object;
    std::uint64_t seq = 0;
    {
        common::MutexLock lock(mutex_);
        auto it = entries_.find(name);
        if (it == entries_.end()) return;
        seq = next_seq_++;
        in_flight_.insert(seq);
        const common::MicroTime time = now();
        it->second.events.append(time, std::move(paths), seq,
                                 [this](std::uint64_t s) { return consumers_.consumed(s); });
        json::value &status = it->second.object["status"];
        if (!status.is_object()) status = json::object();
        status.as_object()["fileEvents"] = it->second.events.to_json();
        status.as_object()["lastEventTime"] = time.format();
        object = it->second.object;
    }
    const std::vector<std::string> due = on_change_(object);
    {
        common::MutexLock lock(mutex_);
        consumers_.expect(seq, due);
        in_flight_.erase(seq);
    }
    // Marked only now: a reconcile this starts sees the batch and counts for it.
    on_due_(due);
}

std::uint64_t FileWatches::visible() const {
    common::MutexLock lock(mutex_);
    return in_flight_.empty() ? next_seq_ - 1 : *in_flight_.begin() - 1;
}

void FileWatches::reconciled(const std::string &live_update, std::uint64_t seen) {
    common::MutexLock lock(mutex_);
    consumers_.reconciled(live_update, seen);
}

std::optional<Debouncer::Clock::time_point> FileWatches::last_change() const {
    common::MutexLock lock(mutex_);
    std::optional<Debouncer::Clock::time_point> latest;
    for (const auto &entry : entries_)
        if (entry.second.watcher)
            if (const auto changed = entry.second.watcher->last_change(); changed && (!latest || *changed > *latest))
                latest = changed;
    return latest;
}

void FileWatches::forget(const std::string &live_update) {
    common::MutexLock lock(mutex_);
    consumers_.forget(live_update);
}

void FileWatches::remove(const std::string &name) {
    std::unique_ptr<TreeWatcher> retired;
    {
        common::MutexLock lock(mutex_);
        auto it = entries_.find(name);
        if (it == entries_.end()) return;
        retired = std::move(it->second.watcher);
        entries_.erase(it);
    }
}

void FileWatches::stop_all() {
    std::map<std::string, Entry> all;
    {
        common::MutexLock lock(mutex_);
        all.swap(entries_);
    }
}

}  // namespace liveupdate::host::up
