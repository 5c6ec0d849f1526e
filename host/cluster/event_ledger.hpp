// The Events of an operator, counted and paced (events.k8s.io/v1): the
// repeats of one LiveUpdate's reason and note are one Event whose series
// counts them (created once, then PATCHed), written at most once per
// `series_interval`; every write takes a token of a bucket (`burst`, one more
// each `refill`), so a failing loop cannot flood the API server: what waits
// is counted meanwhile and written with the next token. Pure: the caller owns
// the clock, the thread and the API server.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"
#include "host/cluster/event_rules.hpp"

namespace liveupdate::host::cluster {

struct EventRegarding {
    std::string kind;  // of tilt.dev/v1alpha1 (cluster_kinds.hpp)
    std::string name;
    std::string uid;
    bool operator==(const EventRegarding &) const = default;
};

struct EventLimits {
    std::size_t burst = 25;
    std::chrono::milliseconds refill{1000};
    std::chrono::milliseconds series_interval{1000};
    std::size_t series_kept = 256;  // the oldest written series is forgotten beyond (a repeat then makes a new Event)
};

// One write: a create when name is empty, else a PATCH of the series.
struct EventWrite {
    EventRegarding regarding;
    EventNote note;
    std::string name;
    std::uint64_t serial = 0;  // the series' number in this ledger: part of the Event's name
    std::uint64_t count = 0;   // occurrences so far
    common::MicroTime first;
    common::MicroTime last;
};

class EventLedger {
public:
    using Clock = std::chrono::steady_clock;
    explicit EventLedger(EventLimits limits = {});

    void observe(const EventRegarding &regarding, const EventNote &note, common::MicroTime at);
    // The writes allowed now (tokens taken, counts marked written).
    std::vector<EventWrite> due(Clock::time_point now);
    // The write made the Event `name` (a create's name; a PATCH keeps it).
    void written(const EventWrite &write, const std::string &name);
    // The Event is gone (expired: 404 on PATCH): the next write creates it again with the whole count.
    void lost(const EventWrite &write);
    // When due() may return more; nullopt: nothing waits.
    std::optional<Clock::time_point> next_due(Clock::time_point now) const;
    void forget(const std::string &kind, const std::string &name);

private:
    struct Series {
        EventRegarding regarding;
        EventNote note;
        std::string name;
        std::uint64_t serial = 0;
        std::uint64_t count = 0;
        std::uint64_t written = 0;
        common::MicroTime first;
        common::MicroTime last;
        std::optional<Clock::time_point> last_write;
    };

    void refill(Clock::time_point now);
    Clock::time_point ready_at(const Series &s) const;

    EventLimits limits_;
    std::list<Series> series_;  // oldest first
    std::uint64_t next_serial_ = 0;
    double tokens_;
    Clock::time_point refilled_at_{};
};

// The Event to create (events.k8s.io/v1) in namespace_name, named as
// client-go names them ("<object>.<hex time>", with the serial), reported by controller/instance.
boost::json::object event_object(const EventWrite &write, const std::string &namespace_name,
                                 const std::string &controller, const std::string &instance);
// The merge patch counting a repeat on an Event.
boost::json::object series_patch(const EventWrite &write);

}  // namespace liveupdate::host::cluster
