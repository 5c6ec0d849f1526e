#include "up/file_events.hpp"

#include <algorithm>
#include <iterator>

namespace liveupdate::up {
namespace json = boost::json;

void FileEventLog::append(MicroTime time, std::vector<std::string> paths, std::uint64_t seq, std::uint64_t consumed,
                          std::size_t keep) {
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    events_.push_back(Event{time, std::move(paths), seq});
    while (events_.size() > std::max<std::size_t>(keep, 1)) {
        Event oldest = std::move(events_.front());
        events_.pop_front();
        if (oldest.seq <= consumed) continue;
        Event &next = events_.front();
        std::vector<std::string> merged;
        std::set_union(oldest.paths.begin(), oldest.paths.end(), next.paths.begin(), next.paths.end(),
                       std::back_inserter(merged));
        next.paths = std::move(merged);
    }
}

json::array FileEventLog::to_json() const {
    json::array out;
    for (const auto &e : events_) {
        json::array seen;
        for (const auto &p : e.paths) seen.emplace_back(p);
        out.push_back(json::object{{"time", e.time.format()}, {"seenFiles", std::move(seen)}});
    }
    return out;
}

}  // namespace liveupdate::up
