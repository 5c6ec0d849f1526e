// The parts of a snapshot both of its readers share (snapshot.cpp: the whole
// document at once; snapshot_index.cpp: large snapshots, their liveUpdates
// one by one): how a LiveUpdate's entry is written and decoded.
#pragma once

#include <cstddef>
#include <exception>
#include <future>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "plugin/core/json_text_writer.hpp"
#include "plugin/core/snapshot.hpp"

namespace liveupdate::snapshot_parts {

inline constexpr std::size_t kMaxSnapshotBytes = std::size_t{1} << 30;
inline constexpr std::size_t kMaxSnapshotDepth = 64;

// The snapshot's objects by kind and name. A monitor's copy of a dependency
// that is still identical to the stored object shares it, as it did before the
// snapshot: less to decode and to keep, and the reconciler's identity check holds.
class KnownObjects {
public:
    explicit KnownObjects(const std::vector<api::ObjectPtr> &objects);
    api::ObjectPtr same_as(const boost::json::value &v) const;

private:
    using Key = std::pair<api::Kind, std::string_view>;  // views into the objects' names
    std::map<Key, api::ObjectPtr> by_name_;
};

// Snapshots and restores of a thousand LiveUpdates are mostly writing and
// decoding them one by one: from this many on, two threads share the work.
inline constexpr std::size_t kWorthASecondThread = 256;

// How many of n elements the calling thread takes; a second thread takes the rest.
inline std::size_t own_share(std::size_t n) { return n < kWorthASecondThread ? n : n / 2; }

// f(i) for every i < n; f touches element i only. The error of the lowest
// index is the one thrown, as with one thread.
template <class F>
void for_each_index(std::size_t n, const F &f) {
    const std::size_t half = own_share(n);
    std::future<void> second;
    if (half < n)
        second = std::async(std::launch::async, [&] {
            for (std::size_t i = half; i < n; ++i) f(i);
        });
    std::exception_ptr first_error;
    try {
        for (std::size_t i = 0; i < half; ++i) f(i);
    } catch (...) {
        first_error = std::current_exception();
    }
    if (second.valid()) second.wait();
    if (first_error) std::rethrow_exception(first_error);
    if (second.valid()) second.get();
}

// Opens the document and writes what every snapshot starts with: its format,
// version and start time.
void write_header(JsonTextWriter &w, const common::MicroTime &start_time);

// One element of "liveUpdates": {"name":..., "status":..., "monitor":...}.
void write_entry(JsonTextWriter &w, const std::string &name, const EntryToWrite &entry);
// Its status and monitor (not its name); path names it in errors.
DecodedEntry decode_entry(boost::json::object &entry, const std::string &path, const KnownObjects &known);

// The elements of "objects", decoded (moved out); errors name objects[i].
std::vector<api::ObjectPtr> decode_objects(boost::json::array &objects);

common::MicroTime checked_time(std::int64_t micros, const std::string &field);

}  // namespace liveupdate::snapshot_parts
