#include "host/up/file_events.hpp"

#include <algorithm>
#include <iterator>

namespace liveupdate::host::up {
namespace json = boost::json;

void FileEventLog::append(common::MicroTime time, std::vector<std::string> paths, std::uint64_t seq,
                          const ConsumedFn &consumed, std::size_t keep, std::size_t cap) {
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    events_.push_back(Event{time, std::move(paths), {seq}});
    const auto seen_by_all = [&](const Event &e) { return std::all_of(e.seqs.begin(), e.seqs.end(), consumed); };
    while (events_.size() > std::max<std::size_t>(keep, 1) && seen_by_all(events_.front())) events_.pop_front();
    while (events_.size() > std::max<std::size_t>(cap, keep) && events_.size() > 1) {
        Event oldest = std::move(events_.front());
        events_.pop_front();
        if (seen_by_all(oldest)) continue;
        Event &next = events_.front();
        std::vector<std::string> merged;
        std::set_union(oldest.paths.begin(), oldest.paths.end(), next.paths.begin(), next.paths.end(),
                       std::back_inserter(merged));
        next.paths = std::move(merged);
        // Still waits for whoever had yet to see the folded batches.
        std::copy_if(oldest.seqs.begin(), oldest.seqs.end(), std::back_inserter(next.seqs),
                     [&](std::uint64_t s) { return !consumed(s); });
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

}  // namespace liveupdate::host::up
