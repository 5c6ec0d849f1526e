#include "host/up/activity.hpp"
#include "common/json_fields.hpp"
#include "common/mutex.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

void Activity::set_listener(Listener listener) {
    common::MutexLock lock(mutex_);
    listener_ = std::move(listener);
}

void Activity::notify(const std::string &live_update, const ActivityLine *line) const {
    Listener listener;
    {
        common::MutexLock lock(mutex_);
        listener = listener_;
    }
    if (listener) listener(live_update, line);
}

void Activity::began(const std::string &live_update) {
    common::MutexLock lock(mutex_);
    Record &r = records_[live_update];
    r.reconciling = true;
    r.updating = false;
}

void Activity::line(const std::string &live_update, common::LogLevel level, std::string_view text,
                    common::MicroTime time) {
    ActivityLine entry;
    bool now_updating = false;
    {
        common::MutexLock lock(mutex_);
        Record &r = records_[live_update];
        entry = ActivityLine{next_seq_++, time.format(), level, std::string(text)};
        r.lines.push_back(entry);
        while (r.lines.size() > kLinesKept) r.lines.pop_front();
        if (r.reconciling && !r.updating) now_updating = r.updating = true;
    }
    if (now_updating) notify(live_update, nullptr);
    notify(live_update, &entry);
}

void Activity::finished(const std::string &live_update, const std::vector<json::object> &events, common::MicroTime time,
                        std::chrono::microseconds took) {
    {
        common::MutexLock lock(mutex_);
        Record &r = records_[live_update];
        if (auto sample = update_sample(events, time, took)) r.history.add(std::move(*sample));
        r.reconciling = false;
        r.updating = false;
        for (const auto &e : events) {
            const json::value *type = common::member(e, "type");
            if (type == nullptr || !type->is_string()) continue;
            if (type->as_string() == "started") {
                r.last_files.clear();
                r.last_file_count = 0;
                if (const json::value *files = common::member(e, "filesChanged");
                    files != nullptr && files->is_array()) {
                    r.last_file_count = files->as_array().size();
                    for (const auto &f : files->as_array())
                        if (f.is_string() && r.last_files.size() < kFilesKept) r.last_files.emplace_back(f.as_string());
                }
                r.last_files_at = time.format();
            } else if (type->as_string() == "completed") {
                r.last_update_at = time.format();
                const json::value *error = common::member(e, "error");
                r.last_error = error != nullptr && error->is_string() ? std::string(error->as_string()) : "";
            }
        }
    }
    notify(live_update, nullptr);
}

void Activity::forget(const std::string &live_update) {
    {
        common::MutexLock lock(mutex_);
        records_.erase(live_update);
    }
    notify(live_update, nullptr);
}

json::object Activity::summary() const {
    common::MutexLock lock(mutex_);
    json::object out;
    for (const auto &[name, r] : records_) {
        json::array files;
        for (const auto &f : r.last_files) files.emplace_back(f);
        json::object one{
            {"updating", r.updating}, {"lastFiles", std::move(files)}, {"lastFileCount", r.last_file_count}};
        if (!r.last_files_at.empty()) one["lastFilesAt"] = r.last_files_at;
        if (!r.last_update_at.empty()) one["lastUpdateAt"] = r.last_update_at;
        if (!r.last_error.empty()) one["lastError"] = r.last_error;
        one["recentUpdates"] = r.history.to_json();
        out[name] = std::move(one);
    }
    return out;
}

std::vector<ActivityLine> Activity::lines(const std::string &live_update) const {
    common::MutexLock lock(mutex_);
    auto found = records_.find(live_update);
    if (found == records_.end()) return {};
    return {found->second.lines.begin(), found->second.lines.end()};
}

json::object to_json(const ActivityLine &line) {
    return json::object{
        {"seq", line.seq}, {"time", line.time}, {"level", common::to_string(line.level)}, {"text", line.text}};
}

}  // namespace liveupdate::host::up
