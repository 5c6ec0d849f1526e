#include "plugin/core/monitor.hpp"

#include <algorithm>

#include "plugin/core/json_equal.hpp"

namespace liveupdate {

bool Monitor::needs_initial_sync() const {
    if (containers.empty()) return true;
    return std::any_of(containers.begin(), containers.end(),
                       [](const auto &kv) { return kv.second.last_file_time_synced.is_zero(); });
}

bool consume_source(SourceTrack &source, const api::ApiObject &file_watch, const api::ApiObject *image_map) {
    const auto &fw = std::get<api::FileWatch>(file_watch.body);
    source.ignores = fw.ignores;
    if (fw.file_events.empty()) return false;

    bool image_changed = false;
    common::MicroTime build_start;
    if (image_map != nullptr) {
        const auto &status = image_map->raw_field("status");
        image_changed = !source.last_image_status || !json_equal(*source.last_image_status, status);
        source.last_image_status = status;
        build_start = std::get<api::ImageMap>(image_map->body).status.build_start_time;
        source.image_build_start_time = build_start;
    }

    const auto &events = fw.file_events;
    const bool watch_changed = !source.last_file_event || !(*source.last_file_event == events.back());
    if (watch_changed) {
        // Tilt consumes the whole list each time; events up to the one consumed
        // last would only record times already kept, so start after it.
        std::size_t from = 0;
        if (source.last_file_event && !image_changed) {
            for (std::size_t i = events.size(); i-- > 0;) {
                if (events[i] == *source.last_file_event) {
                    from = i + 1;
                    break;
                }
            }
        }
        for (std::size_t i = from; i < events.size(); ++i) {
            const auto &event = events[i];
            if (!build_start.is_zero() && event.time < build_start) continue;
            for (const auto &f : event.seen_files) source.paths.record(f, event.time);
        }
    }
    source.last_file_event = events.back();
    return watch_changed || image_changed;
}

void garbage_collect_file_changes(Monitor &monitor, const std::vector<api::LiveUpdateSource> &sources,
                                  common::MicroTime best_start_time) {
    for (const auto &s : sources) {
        const auto it = monitor.sources.find(s.file_watch);
        if (it == monitor.sources.end()) continue;
        auto &source = it->second;
        const common::MicroTime gc_time = source.last_image_status && !source.image_build_start_time.is_zero()
                                              ? source.image_build_start_time
                                              : best_start_time;
        if (gc_time.is_zero()) continue;
        source.paths.forget_before(gc_time);
        for (auto &[key, c] : monitor.containers)
            if (c.failure && !c.failure->low_water_mark.is_zero() && c.failure->low_water_mark < gc_time)
                c.failure.reset();
    }
}

ChangedFiles files_changed_after(const Monitor &monitor, common::MicroTime high_water_mark) {
    ChangedFiles out;
    out.new_high_water_mark = high_water_mark;
    for (const auto &[name, source] : monitor.sources) {
        source.paths.for_each_after(high_water_mark, [&](const std::string &path, common::MicroTime t) {
            out.files.push_back(path);
            if (out.new_low_water_mark.is_zero() || t < out.new_low_water_mark) out.new_low_water_mark = t;
            if (out.new_high_water_mark < t) out.new_high_water_mark = t;
        });
    }
    std::sort(out.files.begin(), out.files.end());
    out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
    return out;
}

}  // namespace liveupdate
