#include "host/cluster/event_ledger.hpp"

#include <algorithm>
#include <cstdio>

#include "host/cluster/cluster_kinds.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

constexpr std::size_t kNoteLimit = 1024;  // the API server's limit on a note, in bytes
constexpr std::size_t kFieldLimit = 128;  // reason, action, reportingInstance

std::string clipped(const std::string &text, std::size_t limit) {
    if (text.size() <= limit) return text;
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
    return text.substr(0, end);
}

}  // namespace

EventLedger::EventLedger(EventLimits limits) : limits_(limits), tokens_(static_cast<double>(limits.burst)) {}

void EventLedger::refill(Clock::time_point now) {
    if (refilled_at_ == Clock::time_point{}) refilled_at_ = now;
    const double gained = std::chrono::duration<double>(now - refilled_at_) /
                          std::chrono::duration<double>(std::max(limits_.refill, std::chrono::milliseconds(1)));
    tokens_ = std::min(static_cast<double>(limits_.burst), tokens_ + gained);
    refilled_at_ = now;
}

void EventLedger::observe(const EventRegarding &regarding, const EventNote &note, common::MicroTime at) {
    auto found = std::find_if(series_.begin(), series_.end(),
                              [&](const Series &s) { return s.regarding == regarding && s.note == note; });
    if (found == series_.end()) {
        series_.push_back(Series{regarding, note, "", next_serial_++, 0, 0, at, at, std::nullopt});
        found = std::prev(series_.end());
        // Bounded: the oldest series with nothing left to write go first.
        for (auto it = series_.begin(); series_.size() > limits_.series_kept && it != found;)
            it = it->written == it->count ? series_.erase(it) : std::next(it);
    }
    ++found->count;
    found->last = at;
}

EventLedger::Clock::time_point EventLedger::ready_at(const Series &s) const {
    return s.last_write ? *s.last_write + limits_.series_interval : Clock::time_point{};
}

std::vector<EventWrite> EventLedger::due(Clock::time_point now) {
    refill(now);
    std::vector<EventWrite> out;
    for (Series &s : series_) {
        if (s.written == s.count || ready_at(s) > now) continue;
        if (tokens_ < 1.0) break;
        tokens_ -= 1.0;
        s.written = s.count;
        s.last_write = now;
        out.push_back(EventWrite{s.regarding, s.note, s.name, s.serial, s.count, s.first, s.last});
    }
    return out;
}

void EventLedger::written(const EventWrite &write, const std::string &name) {
    for (Series &s : series_)
        if (s.regarding == write.regarding && s.note == write.note) s.name = name;
}

void EventLedger::lost(const EventWrite &write) {
    for (Series &s : series_)
        if (s.regarding == write.regarding && s.note == write.note) {
            s.name.clear();
            s.written = 0;
        }
}

std::optional<EventLedger::Clock::time_point> EventLedger::next_due(Clock::time_point now) const {
    std::optional<Clock::time_point> next;
    for (const Series &s : series_)
        if (s.written < s.count) next = std::min(next.value_or(Clock::time_point::max()), ready_at(s));
    if (!next) return next;
    if (tokens_ < 1.0) {
        const auto wait = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double, std::milli>((1.0 - tokens_) * static_cast<double>(limits_.refill.count())));
        next = std::max(*next, now + wait);
    }
    return next;
}

void EventLedger::forget(const std::string &kind, const std::string &name) {
    series_.remove_if([&](const Series &s) { return s.regarding.kind == kind && s.regarding.name == name; });
}

json::object event_object(const EventWrite &write, const std::string &namespace_name, const std::string &controller,
                          const std::string &instance) {
    // As client-go names them (UnixNano in hex), and the series' serial: two of one instant differ.
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".%llx.%llu", static_cast<unsigned long long>(write.first.micros()) * 1000ULL,
                  static_cast<unsigned long long>(write.serial));
    json::object regarding{{"apiVersion", std::string(kGroup) + "/" + std::string(kVersion)},
                           {"kind", write.regarding.kind},
                           {"name", write.regarding.name},
                           {"namespace", namespace_name}};
    if (!write.regarding.uid.empty()) regarding["uid"] = write.regarding.uid;
    json::object event{
        {"apiVersion", "events.k8s.io/v1"},
        {"kind", "Event"},
        {"metadata", json::object{{"name", write.regarding.name + suffix}, {"namespace", namespace_name}}},
        {"eventTime", write.first.format()},
        {"reportingController", controller},
        {"reportingInstance", clipped(instance, kFieldLimit)},
        {"action", clipped(write.note.action, kFieldLimit)},
        {"reason", clipped(write.note.reason, kFieldLimit)},
        {"note", clipped(write.note.note, kNoteLimit)},
        {"type", write.note.warning ? "Warning" : "Normal"},
        {"regarding", std::move(regarding)}};
    if (write.count >= 2) event["series"] = series_patch(write).at("series");
    return event;
}

json::object series_patch(const EventWrite &write) {
    return json::object{{"series", json::object{{"count", write.count}, {"lastObservedTime", write.last.format()}}}};
}

}  // namespace liveupdate::host::cluster
