#include "plugin/core/snapshot.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <future>
#include <optional>
#include <string_view>
#include <utility>

#include "common/json_fields.hpp"
#include "plugin/core/document_arena.hpp"
#include "plugin/core/json_equal.hpp"
#include "plugin/core/json_text_writer.hpp"
#include "plugin/core/snapshot_index.hpp"
#include "plugin/core/snapshot_parts.hpp"

namespace liveupdate {
namespace json = boost::json;
using namespace common;
using snapshot_parts::kMaxSnapshotBytes;
using snapshot_parts::kMaxSnapshotDepth;
using snapshot_parts::KnownObjects;

namespace snapshot_parts {

void write_header(JsonTextWriter &w, const common::MicroTime &start_time) {
    w.begin_object();
    w.key("format");
    w.string(kSnapshotFormat);
    w.key("version");
    w.integer(kSnapshotVersion);
    w.key("startTime");
    w.integer(start_time.micros());
}

KnownObjects::KnownObjects(const std::vector<api::ObjectPtr> &objects) {
    for (const auto &o : objects) by_name_.emplace(Key{o->kind, o->meta.name}, o);
}

api::ObjectPtr KnownObjects::same_as(const json::value &v) const {
    const auto *o = v.if_object();
    if (o == nullptr) return nullptr;
    const auto *kind_text = o->if_contains("kind");
    const auto *meta = o->if_contains("metadata");
    if (kind_text == nullptr || !kind_text->is_string() || meta == nullptr || !meta->is_object()) return nullptr;
    const auto *name = meta->get_object().if_contains("name");
    const auto kind = api::kind_from_name(kind_text->get_string());
    if (!kind || name == nullptr || !name->is_string()) return nullptr;
    const auto it = by_name_.find({*kind, std::string_view(name->get_string())});
    if (it == by_name_.end() || !json_equal(it->second->raw, v)) return nullptr;
    return it->second;
}

}  // namespace snapshot_parts

namespace {

// A document kept from the snapshot is moved out of it, not copied: it keeps
// the snapshot's arena alive (see document_arena.hpp).
json::value moved_out(json::object &o, std::string_view key) {
    auto *v = o.if_contains(key);
    return v == nullptr ? json::value() : json::value(std::move(*v));
}

api::ObjectPtr decode_object_or_null(json::object &o, std::string_view key, const std::string &path,
                                     const KnownObjects &known) {
    const auto *v = member(o, key);
    if (v == nullptr) return nullptr;
    if (auto same = known.same_as(*v)) return same;
    try {
        return std::make_shared<const api::ApiObject>(api::decode_api_object(moved_out(o, key)));
    } catch (const DecodeError &e) {
        throw DecodeError(child(child(path, key), e.field()), e.reason());
    }
}

void write_object_or_null(JsonTextWriter &w, const api::ObjectPtr &object) {
    if (object)
        w.value(object->raw);
    else
        w.null();
}

void write_source(JsonTextWriter &w, const std::string &name, const SourceTrack &s) {
    w.begin_object();
    w.key("fileWatch");
    w.string(name);
    w.key("paths");
    w.begin_array();
    s.paths.for_each([&](const std::string &path, common::MicroTime t) {
        w.begin_array();
        w.string(path);
        w.integer(t.micros());
        w.end_array();
    });
    w.end_array();
    w.key("ignores");
    w.begin_array();
    for (const auto &ignore : s.ignores) w.value(common::to_json(ignore));
    w.end_array();
    w.key("imageBuildStartTime");
    w.integer(s.image_build_start_time.micros());
    if (s.last_image_status) {
        w.key("lastImageStatus");
        w.begin_object();
        w.key("value");
        w.value(*s.last_image_status);
        w.end_object();
    }
    if (s.last_file_event) {
        w.key("lastFileEvent");
        w.begin_object();
        w.key("time");
        w.integer(s.last_file_event->time.micros());
        w.key("seenFiles");
        w.begin_array();
        for (const auto &seen : s.last_file_event->seen_files) w.string(seen);
        w.end_array();
        w.end_object();
    }
    w.end_object();
}

void write_container(JsonTextWriter &w, const ContainerKey &k, const ContainerTrack &c) {
    // Version 1 has no member for the failure: none writes its fields empty.
    const ContainerFailure none;
    const ContainerFailure &failure = c.failure ? *c.failure : none;
    w.begin_object();
    w.key("containerID");
    w.string(k.container_id);
    w.key("podName");
    w.string(k.pod_name);
    w.key("namespace");
    w.string(k.namespace_name);
    w.key("lastFileTimeSynced");
    w.integer(c.last_file_time_synced.micros());
    w.key("failedLowWaterMark");
    w.integer(failure.low_water_mark.micros());
    w.key("failedReason");
    w.string(failure.reason);
    w.key("failedMessage");
    w.string(failure.message);
    w.key("failedContainerStartedAt");
    w.integer(failure.container_started_at.micros());
    // Only when known: a snapshot without them reads as before.
    if (!c.agent.empty()) {
        w.key("agent");
        w.string(c.agent);
    }
    if (!c.last_restart_time.is_zero()) {
        w.key("lastRestartTime");
        w.integer(c.last_restart_time.micros());
    }
    w.end_object();
}

void write_monitor(JsonTextWriter &w, const Monitor &m) {
    w.begin_object();
    w.key("manifest");
    w.string(m.manifest);
    w.key("spec");
    w.value(m.spec_raw);
    w.key("hasChangesToSync");
    w.boolean(m.has_changes_to_sync);
    const std::pair<const char *, const api::ObjectPtr *> dependencies[] = {
        {"lastKubernetesDiscovery", &m.last_kubernetes_discovery},
        {"lastKubernetesApply", &m.last_kubernetes_apply},
        {"lastImageMap", &m.last_image_map},
        {"lastDockerComposeService", &m.last_docker_compose_service},
        {"lastLocalContainer", &m.last_local_container}};
    for (const auto &[key, object] : dependencies) {
        w.key(key);
        write_object_or_null(w, *object);
    }
    w.key("sources");
    w.begin_array();
    for (const auto &[name, s] : m.sources) write_source(w, name, s);
    w.end_array();
    w.key("containers");
    w.begin_array();
    for (const auto &[k, c] : m.containers) write_container(w, k, c);
    w.end_array();
    if (m.last_trigger_queue) {
        w.key("lastTriggerQueue");
        w.begin_object();
        for (const auto &[k, v] : m.last_trigger_queue->data) {
            w.key(k);
            w.string(v);
        }
        w.end_object();
    }
    w.end_object();
}

}  // namespace

void snapshot_parts::write_entry(JsonTextWriter &w, const std::string &name, const EntryToWrite &entry) {
    w.begin_object();
    w.key("name");
    w.string(name);
    w.key("status");
    if (entry.status)
        w.value(api::encode_live_update_status(*entry.status));
    else
        w.null();
    w.key("monitor");
    if (entry.monitor)
        write_monitor(w, *entry.monitor);
    else
        w.null();
    w.end_object();
}

namespace {

// Only times that RFC 3339 can write may come back from a snapshot.
bool writable(common::MicroTime t) { return !(t < common::MicroTime::earliest() || common::MicroTime::latest() < t); }

}  // namespace

common::MicroTime snapshot_parts::checked_time(std::int64_t micros, const std::string &field) {
    const common::MicroTime t(micros);
    if (!writable(t)) throw DecodeError(field, "time out of range");
    return t;
}

namespace {

common::MicroTime micros_field(const json::object &o, std::string_view key, const std::string &path) {
    return snapshot_parts::checked_time(int_field(o, key, path), child(path, key));
}

Monitor decode_monitor(json::object &o, const std::string &path, const KnownObjects &known) {
    Monitor m(string_field(o, "manifest", path), moved_out(o, "spec"));
    m.has_changes_to_sync = bool_field(o, "hasChangesToSync", path);
    m.last_kubernetes_discovery = decode_object_or_null(o, "lastKubernetesDiscovery", path, known);
    m.last_kubernetes_apply = decode_object_or_null(o, "lastKubernetesApply", path, known);
    m.last_image_map = decode_object_or_null(o, "lastImageMap", path, known);
    m.last_docker_compose_service = decode_object_or_null(o, "lastDockerComposeService", path, known);
    m.last_local_container = decode_object_or_null(o, "lastLocalContainer", path, known);
    if (object_field(o, "lastTriggerQueue", path) != nullptr)
        m.last_trigger_queue = api::ConfigMap{string_map_field(o, "lastTriggerQueue", path)};
    if (auto *sources = array_field(o, "sources", path)) {
        for (std::size_t i = 0; i < sources->size(); ++i) {
            const std::string p = index(child(path, "sources"), i);
            auto &so = expect_object((*sources)[i], p);
            SourceTrack &s = m.sources[string_field(so, "fileWatch", p)];
            if (const auto *paths = array_field(so, "paths", p)) {
                // Field paths are built only for errors: a snapshot holds many paths.
                for (std::size_t j = 0; j < paths->size(); ++j) {
                    const auto &entry = (*paths)[j];
                    if (!entry.is_array() || entry.get_array().size() != 2 || !entry.get_array()[0].is_string() ||
                        !entry.get_array()[1].is_int64())
                        throw DecodeError(index(child(p, "paths"), j), "expected [path, micros]");
                    const common::MicroTime t(entry.get_array()[1].get_int64());
                    if (!writable(t)) throw DecodeError(index(child(p, "paths"), j), "time out of range");
                    s.paths.record(std::string(entry.get_array()[0].get_string()), t);
                }
            }
            if (const auto *ignores = array_field(so, "ignores", p)) {
                for (std::size_t j = 0; j < ignores->size(); ++j) {
                    const std::string ip = index(child(p, "ignores"), j);
                    s.ignores.push_back(common::parse_ignore_def((*ignores)[j], ip));
                }
            }
            s.image_build_start_time = micros_field(so, "imageBuildStartTime", p);
            if (auto *lis = object_field(so, "lastImageStatus", p))
                s.last_image_status.emplace(moved_out(*lis, "value"));
            if (const auto *ev = object_field(so, "lastFileEvent", p)) {
                const std::string ep = child(p, "lastFileEvent");
                s.last_file_event =
                    api::FileEvent{micros_field(*ev, "time", ep), string_array_field(*ev, "seenFiles", ep)};
            }
        }
    }
    if (const auto *containers = array_field(o, "containers", path)) {
        for (std::size_t i = 0; i < containers->size(); ++i) {
            const std::string p = index(child(path, "containers"), i);
            const auto &co = expect_object((*containers)[i], p);
            ContainerKey key{string_field(co, "containerID", p), string_field(co, "podName", p),
                             string_field(co, "namespace", p)};
            ContainerTrack &track = m.containers[key];
            track.last_file_time_synced = micros_field(co, "lastFileTimeSynced", p);
            track.agent = string_field(co, "agent", p);
            if (co.contains("lastRestartTime")) track.last_restart_time = micros_field(co, "lastRestartTime", p);
            ContainerFailure failure;
            failure.low_water_mark = micros_field(co, "failedLowWaterMark", p);
            failure.reason = string_field(co, "failedReason", p);
            failure.message = string_field(co, "failedMessage", p);
            // Absent in the snapshot of a plugin before it: unknown, so the failure stays.
            if (co.contains("failedContainerStartedAt"))
                failure.container_started_at = micros_field(co, "failedContainerStartedAt", p);
            if (!failure.reason.empty()) track.failure = std::move(failure);
        }
    }
    return m;
}

// Where the second half of the liveUpdates lies: [begin, end) as the
// snapshot's last member says (`,"liveUpdatesTail":[BEGIN,END]}`), if it
// says so and the text agrees (a "," before BEGIN, the array's "]" at END,
// right before that member). Absent in the snapshot of a plugin before it.
std::optional<std::pair<std::size_t, std::size_t>> tail_range(std::string_view text) {
    const std::string marker = std::string(",\"") + kTailKey + "\":[";
    constexpr std::size_t kTrailerRoom = 64;
    const std::size_t from = text.size() > kTrailerRoom ? text.size() - kTrailerRoom : 0;
    const std::size_t at = text.find(marker, from);
    if (at == std::string_view::npos || at == 0) return std::nullopt;
    std::size_t begin = 0;
    std::size_t end = 0;
    const char *cursor = text.data() + at + marker.size();
    const char *last = text.data() + text.size();
    auto [after_begin, e1] = std::from_chars(cursor, last, begin);
    if (e1 != std::errc() || after_begin == last || *after_begin != ',') return std::nullopt;
    auto [after_end, e2] = std::from_chars(after_begin + 1, last, end);
    if (e2 != std::errc() || std::string_view(after_end, static_cast<std::size_t>(last - after_end)) != "]}")
        return std::nullopt;
    if (end + 1 != at || text[end] != ']' || begin == 0 || begin > end || text[begin - 1] != ',') return std::nullopt;
    return std::pair{begin, end};
}

struct ParsedSnapshot {
    json::value document;
    json::array tail;  // the liveUpdates after the document's own
};

using snapshot_parts::for_each_index;

// Parsing the text is most of decoding it: the second half of the
// liveUpdates is parsed on a second thread when the snapshot says where it
// is. Whatever does not fit is parsed whole, as before, for its real error.
ParsedSnapshot parse_snapshot(std::string_view text) {
    const auto range = text.size() <= kMaxSnapshotBytes ? tail_range(text) : std::nullopt;
    if (range) {
        const auto [begin, end] = *range;
        std::optional<json::value> tail;
        auto second = std::async(std::launch::async, [&, begin = begin, end = end] {
            // One level less: its elements are one level deeper in the document.
            tail = parse_document_pieces({"[", text.substr(begin, end - begin), "]"}, kMaxSnapshotDepth - 1);
        });
        std::optional<json::value> head =
            parse_document_pieces({text.substr(0, begin - 1), text.substr(end)}, kMaxSnapshotDepth);
        second.get();
        if (head && tail && tail->is_array() && head->is_object()) {
            const json::value *own = head->get_object().if_contains("liveUpdates");
            if (own != nullptr && own->is_array()) return {std::move(*head), std::move(tail->get_array())};
        }
    }
    return {parse_document(text, kMaxSnapshotBytes, kMaxSnapshotDepth), {}};
}

}  // namespace

DecodedEntry snapshot_parts::decode_entry(json::object &entry, const std::string &path, const KnownObjects &known) {
    DecodedEntry decoded;
    if (const auto *st = object_field(entry, "status", path)) decoded.status = api::decode_live_update_status(st);
    if (auto *mo = object_field(entry, "monitor", path))
        decoded.monitor = decode_monitor(*mo, child(path, "monitor"), known);
    return decoded;
}

std::vector<api::ObjectPtr> snapshot_parts::decode_objects(json::array &objects) {
    std::vector<api::ObjectPtr> decoded(objects.size());
    for_each_index(objects.size(), [&](std::size_t i) {
        try {
            decoded[i] = std::make_shared<const api::ApiObject>(api::decode_api_object(std::move(objects[i])));
        } catch (const DecodeError &e) {
            throw DecodeError(child(index("objects", i), e.field()), e.reason());
        }
    });
    return decoded;
}

std::string encode_snapshot(const common::MicroTime &start_time, const std::vector<api::ObjectPtr> &objects,
                            const std::map<std::string, EntryToWrite> &entries, std::size_t size_hint) {
    if (entries.size() >= kIndexedFrom) return encode_indexed_snapshot(start_time, objects, entries, size_hint);
    JsonTextWriter w(std::max(size_hint + size_hint / 8, std::size_t{1} << 16));
    snapshot_parts::write_header(w, start_time);
    w.key("objects");
    w.begin_array();
    for (const auto &object : objects) w.value(object->raw);
    w.end_array();
    w.key("liveUpdates");
    w.begin_array();
    for (const auto &[name, entry] : entries) {
        if (entry.written.empty())
            snapshot_parts::write_entry(w, name, entry);
        else
            w.splice(entry.written);
    }
    w.end_array();
    w.end_object();
    return w.take();
}

std::string snapshot_entry(const std::string &name, const EntryToWrite &entry) {
    JsonTextWriter w(1024);
    snapshot_parts::write_entry(w, name, entry);
    return w.take();
}

namespace {

void check_snapshot_header(const json::object &o) {
    const auto *format = o.if_contains("format");
    if (format == nullptr || !format->is_string() || format->get_string() != kSnapshotFormat)
        throw UnsupportedSnapshot(std::string("not a liveupdate plugin snapshot: format is not \"") + kSnapshotFormat +
                                  "\"");
    const auto *version = o.if_contains("version");
    if (version == nullptr || !version->is_int64() || version->get_int64() != kSnapshotVersion) {
        const std::string got = version == nullptr ? "none" : json::serialize(*version);
        throw UnsupportedSnapshot("snapshot version " + got + " is not supported; this plugin reads version " +
                                  std::to_string(kSnapshotVersion));
    }
}

}  // namespace

EngineState decode_snapshot(std::string_view text) {
    ParsedSnapshot parsed = parse_snapshot(text);
    json::value &v = parsed.document;
    if (!v.is_object()) throw UnsupportedSnapshot("not a liveupdate plugin snapshot: expected a JSON object");
    auto &o = v.get_object();
    check_snapshot_header(o);
    EngineState state;
    state.start_time = micros_field(o, "startTime", "");
    if (auto *objs = array_field(o, "objects", "")) state.objects = snapshot_parts::decode_objects(*objs);
    if (auto *lus = array_field(o, "liveUpdates", "")) {
        const KnownObjects known(state.objects);
        const std::size_t own = lus->size();
        std::vector<std::pair<std::string, DecodedEntry>> decoded(own + parsed.tail.size());
        for_each_index(decoded.size(), [&](std::size_t i) {
            const std::string p = index("liveUpdates", i);
            auto &lo = expect_object(i < own ? (*lus)[i] : parsed.tail[i - own], p);
            decoded[i] = {string_field(lo, "name", p), snapshot_parts::decode_entry(lo, p, known)};
        });
        for (auto &[name, entry] : decoded) state.live_updates[name] = std::move(entry);
    }
    return state;
}

}  // namespace liveupdate
