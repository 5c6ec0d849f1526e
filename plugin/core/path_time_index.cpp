#include "plugin/core/path_time_index.hpp"

namespace liveupdate {

void PathTimeIndex::record(const std::string &path, common::MicroTime t) {
    auto [it, inserted] = by_path_.try_emplace(path, t);
    if (!inserted) {
        if (!(it->second < t)) return;
        by_time_.erase({it->second, &it->first});
        it->second = t;
    }
    by_time_.insert({t, &it->first});
}

void PathTimeIndex::forget_before(common::MicroTime t) {
    auto it = by_time_.begin();
    while (it != by_time_.end() && it->first < t) {
        by_path_.erase(*it->second);
        it = by_time_.erase(it);
    }
}

}  // namespace liveupdate
