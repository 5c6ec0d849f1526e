// What each LiveUpdate is doing, beyond its status: whether an update is in
// flight, the files its last update synced and when, and its recent log
// lines, how long its recent updates took (update_history.hpp). `describe`
// and the status page read it; the daemon feeds it from
// reconciles. Thread-safe; the listener is called outside its lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/log_level.hpp"
#include "common/micro_time.hpp"
#include "common/mutex.hpp"
#include "host/up/update_history.hpp"

namespace liveupdate::host::up {

struct ActivityLine {
    std::uint64_t seq = 0;  // increasing over every LiveUpdate's lines
    std::string time;
    common::LogLevel level = common::LogLevel::info;
    std::string text;
};

class Activity {
public:
    // line is null when only the state changed.
    using Listener = std::function<void(const std::string &live_update, const ActivityLine *line)>;
    static constexpr std::size_t kLinesKept = 200;
    static constexpr std::size_t kFilesKept = 20;

    void set_listener(Listener listener);

    void began(const std::string &live_update);
    // A line of the reconcile in flight: the first one means an update is being made.
    void line(const std::string &live_update, common::LogLevel level, std::string_view text, common::MicroTime time);
    // events as the plugin reports them ("started" with filesChanged,
    // "completed" with error); took: the reconcile, start to end.
    void finished(const std::string &live_update, const std::vector<boost::json::object> &events,
                  common::MicroTime time, std::chrono::microseconds took);
    void forget(const std::string &live_update);

    // {"<name>": {"updating", "lastFiles", "lastFileCount", "lastFilesAt", "lastUpdateAt", "lastError",
    //             "recentUpdates"}}
    boost::json::object summary() const;
    std::vector<ActivityLine> lines(const std::string &live_update) const;

private:
    struct Record {
        bool reconciling = false;
        bool updating = false;
        std::vector<std::string> last_files;
        std::size_t last_file_count = 0;
        std::string last_files_at;
        std::string last_update_at;
        std::string last_error;
        std::deque<ActivityLine> lines;
        UpdateHistory history;
    };

    void notify(const std::string &live_update, const ActivityLine *line) const;

    mutable common::Mutex mutex_;
    std::map<std::string, Record> records_ LU_GUARDED_BY(mutex_);
    std::uint64_t next_seq_ LU_GUARDED_BY(mutex_) = 1;
    Listener listener_ LU_GUARDED_BY(mutex_);
};

boost::json::object to_json(const ActivityLine &line);

}  // namespace liveupdate::host::up
