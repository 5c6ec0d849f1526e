#include "plugin/core/snapshot_index.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <future>
#include <stdexcept>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/json_fields.hpp"
#include "plugin/core/document_arena.hpp"
#include "plugin/core/json_text_writer.hpp"

namespace liveupdate {
namespace json = boost::json;
using namespace common;

namespace {

using Entry = const std::pair<const std::string, EntryToWrite> *;

// What every snapshot starts with: the header write_header writes (format and
// version from their constants), up to its startTime's value.
const std::string &head() {
    static const std::string text = [] {
        JsonTextWriter w(64);
        snapshot_parts::write_header(w, common::MicroTime{});
        std::string header = w.take();
        header.pop_back();  // the start time, 0
        return header;
    }();
    return text;
}

constexpr std::string_view kObjectsOpen = R"(,"objects":[)";
constexpr std::string_view kLiveUpdatesOpen = R"(,"liveUpdates":[)";
constexpr std::string_view kTailOpen = R"(,"liveUpdatesTail":[)";
constexpr std::size_t kHashDigits = 16;

// Elements written at a writer's top level, and where each one ends.
struct Elements {
    std::string text;
    std::vector<std::size_t> ends;

    // Element k's [begin, end) once the text is placed at base.
    std::pair<std::size_t, std::size_t> range(std::size_t k, std::size_t base) const {
        return {base + (k == 0 ? 0 : ends[k - 1] + 1), base + ends[k]};
    }
};

Elements write_entries(const std::vector<Entry> &entries, std::size_t from, std::size_t to, std::size_t size_hint) {
    JsonTextWriter w(size_hint);
    Elements out;
    out.ends.reserve(to - from);
    for (std::size_t i = from; i < to; ++i) {
        if (entries[i]->second.written.empty())
            snapshot_parts::write_entry(w, entries[i]->first, entries[i]->second);
        else
            w.splice(entries[i]->second.written);
        out.ends.push_back(w.size());
    }
    out.text = w.take();
    return out;
}

std::string hex(std::uint64_t v) {
    std::string text(kHashDigits, '0');
    for (std::size_t i = kHashDigits; i-- > 0; v >>= 4) text[i] = "0123456789abcdef"[v & 0xf];
    return text;
}

void write_range(JsonTextWriter &w, std::pair<std::size_t, std::size_t> range) {
    w.integer(static_cast<std::int64_t>(range.first));
    w.integer(static_cast<std::int64_t>(range.second));
}

}  // namespace

std::string encode_indexed_snapshot(const common::MicroTime &start_time, const std::vector<api::ObjectPtr> &objects,
                                    const std::map<std::string, EntryToWrite> &live_updates, std::size_t size_hint) {
    std::vector<Entry> entries;
    entries.reserve(live_updates.size());
    for (const auto &entry : live_updates) entries.push_back(&entry);
    // The second half of the LiveUpdates is written on another thread, when
    // enough of them must be written rather than copied.
    const auto to_write = static_cast<std::size_t>(
        std::count_if(entries.begin(), entries.end(), [](Entry e) { return e->second.written.empty(); }));
    const std::size_t half =
        to_write < snapshot_parts::kWorthASecondThread ? entries.size() : snapshot_parts::own_share(entries.size());
    std::future<Elements> second_half;
    if (half < entries.size())
        second_half =
            std::async(std::launch::async, [&] { return write_entries(entries, half, entries.size(), size_hint / 2); });
    JsonTextWriter objects_writer(size_hint / 4);
    for (const auto &object : objects) objects_writer.value(object->raw);
    const std::string objects_text = objects_writer.take();
    const Elements first = write_entries(entries, 0, half, size_hint / 2);
    const Elements second = second_half.valid() ? second_half.get() : Elements{};

    // Where everything lies after the index, known before the index is written.
    const std::pair<std::size_t, std::size_t> objects_range{kObjectsOpen.size() - 1,
                                                            kObjectsOpen.size() + objects_text.size() + 1};
    const std::size_t first_base = objects_range.second + kLiveUpdatesOpen.size();
    const std::size_t second_base = first_base + first.text.size() + 1;
    const std::size_t body_bytes = second.text.empty() ? second_base : second_base + second.text.size() + 1;

    JsonTextWriter w(std::max(size_hint + size_hint / 8, std::size_t{1} << 16));
    snapshot_parts::write_header(w, start_time);
    w.key(kIndexKey);
    w.begin_object();
    w.key("xxh3");
    const std::size_t hash_at = w.size() + 1;  // after the opening quote
    w.string(std::string(kHashDigits, '0'));
    w.key("bytes");
    w.integer(static_cast<std::int64_t>(body_bytes));
    w.key("objects");
    w.begin_array();
    write_range(w, objects_range);
    w.end_array();
    w.key("liveUpdates");
    w.begin_array();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        w.begin_array();
        w.string(entries[i]->first);
        write_range(w, i < half ? first.range(i, first_base) : second.range(i - half, second_base));
        w.end_array();
    }
    w.end_array();
    w.end_object();
    const std::size_t body_start = w.size();
    w.key("objects");
    w.begin_array();
    w.splice(objects_text);
    w.end_array();
    w.key("liveUpdates");
    w.begin_array();
    w.splice(first.text);
    w.splice(second.text);
    w.end_array();
    const std::size_t body_end = w.size();
    if (!second.text.empty()) {
        // Where a reader before the index finds the second half (snapshot.cpp).
        w.key(kTailKey);
        w.begin_array();
        w.integer(static_cast<std::int64_t>(body_start + second_base));
        w.integer(static_cast<std::int64_t>(body_end - 1));
        w.end_array();
    }
    w.end_object();
    std::string text = w.take();
    if (body_end - body_start != body_bytes)
        throw std::logic_error("snapshot index: the text written is not where the index says");
    const std::string digest = hex(XXH3_64bits(text.data() + body_start, body_bytes));
    std::copy(digest.begin(), digest.end(), text.begin() + static_cast<std::ptrdiff_t>(hash_at));
    return text;
}

namespace {

std::optional<std::uint64_t> unsigned_of(const json::value &v) {
    if (v.is_uint64()) return v.get_uint64();
    if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
    return std::nullopt;
}

// [begin, end) within bytes, or nullopt.
std::optional<std::pair<std::size_t, std::size_t>> range_of(const json::value *b, const json::value *e,
                                                            std::size_t bytes) {
    if (b == nullptr || e == nullptr) return std::nullopt;
    const auto begin = unsigned_of(*b);
    const auto end = unsigned_of(*e);
    if (!begin || !end || *begin >= *end || *end > bytes) return std::nullopt;
    return std::pair<std::size_t, std::size_t>{*begin, *end};
}

struct Index {
    std::int64_t start_micros = 0;
    std::string_view body;
    std::pair<std::size_t, std::size_t> objects;
    std::vector<std::string> names;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;  // in body
};

// What follows the body: the end of the document, or the tail member and the end.
bool ends_well(std::string_view rest) {
    if (rest == "}") return true;
    if (!rest.starts_with(kTailOpen) || !rest.ends_with("]}")) return false;
    const std::string_view numbers = rest.substr(kTailOpen.size(), rest.size() - kTailOpen.size() - 2);
    return !numbers.empty() && numbers.find_first_not_of("0123456789,") == std::string_view::npos;
}

// The index member and the text it describes, each range checked; nullopt
// on the first mismatch.
std::optional<Index> read_index(std::string_view text) {
    const std::string &header = head();
    if (!text.starts_with(header)) return std::nullopt;
    Index out;
    const char *last = text.data() + text.size();
    const auto [after_time, time_error] = std::from_chars(text.data() + header.size(), last, out.start_micros);
    if (time_error != std::errc()) return std::nullopt;
    const std::string marker = std::string(",\"") + kIndexKey + "\":";
    std::size_t at = static_cast<std::size_t>(after_time - text.data());
    if (text.substr(at).substr(0, marker.size()) != marker) return std::nullopt;
    at += marker.size();
    json::parse_options options;
    options.max_depth = 4;
    json::parser parser({}, options);
    boost::system::error_code ec;
    const std::size_t used = parser.write_some(text.data() + at, text.size() - at, ec);
    if (ec) return std::nullopt;
    const json::value index = parser.release();
    const json::object *o = index.if_object();
    if (o == nullptr) return std::nullopt;
    const auto *hash = o->if_contains("xxh3");
    const auto *bytes = o->if_contains("bytes");
    const auto *objects = o->if_contains("objects");
    const auto *entries = o->if_contains("liveUpdates");
    if (hash == nullptr || !hash->is_string() || hash->get_string().size() != kHashDigits || bytes == nullptr ||
        objects == nullptr || !objects->is_array() || objects->get_array().size() != 2 || entries == nullptr ||
        !entries->is_array())
        return std::nullopt;
    const std::size_t body_start = at + used;
    const auto body_bytes = unsigned_of(*bytes);
    if (!body_bytes || *body_bytes > text.size() - body_start) return std::nullopt;
    out.body = text.substr(body_start, *body_bytes);
    if (!ends_well(text.substr(body_start + *body_bytes))) return std::nullopt;
    std::uint64_t expected = 0;
    const std::string_view digits(hash->get_string());
    const auto [hash_end, hash_error] = std::from_chars(digits.data(), digits.data() + digits.size(), expected, 16);
    if (hash_error != std::errc() || hash_end != digits.data() + digits.size() ||
        XXH3_64bits(out.body.data(), out.body.size()) != expected)
        return std::nullopt;
    const auto objects_range = range_of(&objects->get_array()[0], &objects->get_array()[1], out.body.size());
    if (!objects_range || out.body[objects_range->first] != '[' || out.body[objects_range->second - 1] != ']')
        return std::nullopt;
    out.objects = *objects_range;
    std::size_t previous_end = objects_range->second;
    for (const json::value &entry : entries->get_array()) {
        const json::array *e = entry.if_array();
        if (e == nullptr || e->size() != 3 || !(*e)[0].is_string()) return std::nullopt;
        const auto range = range_of(&(*e)[1], &(*e)[2], out.body.size());
        if (!range || range->first < previous_end || out.body[range->first] != '{' ||
            out.body[range->second - 1] != '}')
            return std::nullopt;
        previous_end = range->second;
        out.names.emplace_back((*e)[0].get_string());
        out.ranges.push_back(*range);
    }
    return out;
}

}  // namespace

std::optional<RestoredState> decode_indexed_snapshot(std::string_view text) {
    if (text.size() > snapshot_parts::kMaxSnapshotBytes) return std::nullopt;
    std::optional<Index> index = read_index(text);
    if (!index || index->ranges.empty()) return std::nullopt;
    // Its elements are one level deeper in the document.
    std::optional<json::value> objects =
        parse_document_pieces({index->body.substr(index->objects.first, index->objects.second - index->objects.first)},
                              snapshot_parts::kMaxSnapshotDepth - 1);
    if (!objects || !objects->is_array()) return std::nullopt;
    RestoredState restored;
    restored.state.start_time = snapshot_parts::checked_time(index->start_micros, "startTime");
    restored.state.objects = snapshot_parts::decode_objects(objects->get_array());
    // Only the liveUpdates' text is kept, for as long as one of them is pending.
    const std::size_t from = index->ranges.front().first;
    const std::size_t to = index->ranges.back().second;
    auto entries =
        std::make_shared<SnapshotEntries>(SnapshotEntries{std::string(index->body.substr(from, to - from)),
                                                          std::move(index->names),
                                                          {},
                                                          snapshot_parts::KnownObjects(restored.state.objects)});
    entries->ranges.reserve(index->ranges.size());
    for (const auto &[begin, end] : index->ranges) entries->ranges.emplace_back(begin - from, end - from);
    for (std::size_t i = 0; i < entries->names.size(); ++i)
        restored.pending.insert_or_assign(entries->names[i], PendingEntry{entries, i});
    return restored;
}

RestoredState decode_snapshot_for_restore(std::string_view text) {
    if (auto indexed = decode_indexed_snapshot(text)) return std::move(*indexed);
    return RestoredState{decode_snapshot(text), {}};
}

const std::string &pending_name(const PendingEntry &pending) { return pending.entries->names.at(pending.index); }

std::string_view pending_text(const PendingEntry &pending) {
    const auto [begin, end] = pending.entries->ranges.at(pending.index);
    return std::string_view(pending.entries->text).substr(begin, end - begin);
}

DecodedEntry decode_pending(const PendingEntry &pending) {
    const SnapshotEntries &entries = *pending.entries;
    const std::string path = index("liveUpdates", pending.index);
    // An element of liveUpdates is two levels down in the document.
    std::optional<json::value> entry =
        parse_document_pieces({pending_text(pending)}, snapshot_parts::kMaxSnapshotDepth - 2);
    if (!entry || !entry->is_object()) throw DecodeError(path, "not a JSON object");
    json::object &o = entry->get_object();
    if (string_field(o, "name", path) != entries.names[pending.index])
        throw DecodeError(child(path, "name"), "differs from the snapshot's index");
    return snapshot_parts::decode_entry(o, path, entries.known);
}

}  // namespace liveupdate
