// The newest change time of every path seen from one source, indexed both by
// path and by time so that "paths changed after T" and "forget paths older
// than T" cost in proportion to what they return, not to all paths seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/micro_time.hpp"

namespace liveupdate {

class PathTimeIndex {
public:
    PathTimeIndex() = default;
    PathTimeIndex(const PathTimeIndex &) = delete;
    PathTimeIndex &operator=(const PathTimeIndex &) = delete;
    PathTimeIndex(PathTimeIndex &&) = default;
    PathTimeIndex &operator=(PathTimeIndex &&) = default;

    // Keeps the newer of the recorded time and t.
    void record(const std::string &path, common::MicroTime t);
    // Forgets every path whose time is strictly before t.
    void forget_before(common::MicroTime t);

    // Calls f(path, time) for every path whose time is strictly after mark, oldest first.
    template <class F>
    void for_each_after(common::MicroTime mark, F &&f) const {
        if (mark.micros() == std::numeric_limits<std::int64_t>::max()) return;
        for (auto it = by_time_.lower_bound({common::MicroTime(mark.micros() + 1), nullptr}); it != by_time_.end();
             ++it)
            f(*it->second, it->first);
    }
    template <class F>
    void for_each(F &&f) const {
        for (const auto &[time, path] : by_time_) f(*path, time);
    }

    std::size_t size() const { return by_path_.size(); }
    bool empty() const { return by_path_.empty(); }

private:
    using TimeKey = std::pair<common::MicroTime, const std::string *>;
    struct ByTime {
        bool operator()(const TimeKey &a, const TimeKey &b) const {
            if (a.first != b.first) return a.first < b.first;
            return std::less<const std::string *>{}(a.second, b.second);
        }
    };
    // Node-based: the keys' addresses stay valid while they are in the map.
    std::unordered_map<std::string, common::MicroTime> by_path_;
    std::set<TimeKey, ByTime> by_time_;
};

}  // namespace liveupdate
