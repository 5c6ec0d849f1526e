#include "core/snapshot.hpp"

#include "core/json_fields.hpp"

namespace liveupdate {
namespace json = boost::json;
using namespace json_fields;

namespace {

json::value object_or_null(const api::ObjectPtr &obj) { return obj ? obj->raw : json::value(nullptr); }

api::ObjectPtr decode_object_or_null(const json::object &o, std::string_view key, const std::string &path) {
    const auto *v = member(o, key);
    if (v == nullptr) return nullptr;
    try {
        return std::make_shared<const api::ApiObject>(api::decode_api_object(*v));
    } catch (const DecodeError &e) {
        throw DecodeError(child(child(path, key), e.field()), e.reason());
    }
}

json::value encode_monitor(const Monitor &m) {
    json::array sources;
    for (const auto &[name, s] : m.sources) {
        json::array paths;
        paths.reserve(s.paths.size());
        s.paths.for_each([&](const std::string &p, MicroTime t) { paths.push_back(json::array{p, t.micros()}); });
        json::array ignores;
        for (const auto &i : s.ignores) ignores.push_back(api::encode_ignore_def(i));
        json::object so{{"fileWatch", name},
                        {"paths", std::move(paths)},
                        {"ignores", std::move(ignores)},
                        {"imageBuildStartTime", s.image_build_start_time.micros()}};
        if (s.last_image_status) so["lastImageStatus"] = json::object{{"value", *s.last_image_status}};
        if (s.last_file_event) {
            json::array seen;
            for (const auto &f : s.last_file_event->seen_files) seen.emplace_back(f);
            so["lastFileEvent"] = json::object{{"time", s.last_file_event->time.micros()}, {"seenFiles", std::move(seen)}};
        }
        sources.push_back(std::move(so));
    }
    json::array containers;
    for (const auto &[k, c] : m.containers) {
        containers.push_back(json::object{{"containerID", k.container_id},
                                          {"podName", k.pod_name},
                                          {"namespace", k.namespace_name},
                                          {"lastFileTimeSynced", c.last_file_time_synced.micros()},
                                          {"failedLowWaterMark", c.failed_low_water_mark.micros()},
                                          {"failedReason", c.failed_reason},
                                          {"failedMessage", c.failed_message}});
    }
    json::object out{{"manifest", m.manifest},
                     {"spec", m.spec_raw},
                     {"hasChangesToSync", m.has_changes_to_sync},
                     {"lastKubernetesDiscovery", object_or_null(m.last_kubernetes_discovery)},
                     {"lastKubernetesApply", object_or_null(m.last_kubernetes_apply)},
                     {"lastImageMap", object_or_null(m.last_image_map)},
                     {"lastDockerComposeService", object_or_null(m.last_docker_compose_service)},
                     {"lastLocalContainer", object_or_null(m.last_local_container)},
                     {"sources", std::move(sources)},
                     {"containers", std::move(containers)}};
    if (m.last_trigger_queue) {
        json::object data;
        for (const auto &[k, v] : m.last_trigger_queue->data) data[k] = v;
        out["lastTriggerQueue"] = std::move(data);
    }
    return out;
}

// Only times that RFC 3339 can write may come back from a snapshot.
MicroTime checked_time(std::int64_t micros, const std::string &field) {
    const MicroTime t(micros);
    if (t < MicroTime::earliest() || MicroTime::latest() < t) throw DecodeError(field, "time out of range");
    return t;
}

MicroTime micros_field(const json::object &o, std::string_view key, const std::string &path) {
    return checked_time(int_field(o, key, path), child(path, key));
}

Monitor decode_monitor(const json::object &o, const std::string &path) {
    Monitor m;
    m.manifest = string_field(o, "manifest", path);
    if (const auto *spec = o.if_contains("spec")) m.spec_raw = *spec;
    m.has_changes_to_sync = bool_field(o, "hasChangesToSync", path);
    m.last_kubernetes_discovery = decode_object_or_null(o, "lastKubernetesDiscovery", path);
    m.last_kubernetes_apply = decode_object_or_null(o, "lastKubernetesApply", path);
    m.last_image_map = decode_object_or_null(o, "lastImageMap", path);
    m.last_docker_compose_service = decode_object_or_null(o, "lastDockerComposeService", path);
    m.last_local_container = decode_object_or_null(o, "lastLocalContainer", path);
    if (object_field(o, "lastTriggerQueue", path) != nullptr)
        m.last_trigger_queue = api::ConfigMap{string_map_field(o, "lastTriggerQueue", path)};
    if (const auto *sources = array_field(o, "sources", path)) {
        for (std::size_t i = 0; i < sources->size(); ++i) {
            const std::string p = index(child(path, "sources"), i);
            const auto &so = expect_object((*sources)[i], p);
            SourceTrack &s = m.sources[string_field(so, "fileWatch", p)];
            if (const auto *paths = array_field(so, "paths", p)) {
                for (std::size_t j = 0; j < paths->size(); ++j) {
                    const std::string pp = index(child(p, "paths"), j);
                    const auto &entry = (*paths)[j];
                    if (!entry.is_array() || entry.get_array().size() != 2 || !entry.get_array()[0].is_string() ||
                        !entry.get_array()[1].is_int64())
                        throw DecodeError(pp, "expected [path, micros]");
                    s.paths.record(std::string(entry.get_array()[0].get_string()),
                                   checked_time(entry.get_array()[1].get_int64(), pp));
                }
            }
            if (const auto *ignores = array_field(so, "ignores", p)) {
                for (std::size_t j = 0; j < ignores->size(); ++j) {
                    const std::string ip = index(child(p, "ignores"), j);
                    s.ignores.push_back(api::decode_ignore_def(expect_object((*ignores)[j], ip), ip));
                }
            }
            s.image_build_start_time = micros_field(so, "imageBuildStartTime", p);
            if (const auto *lis = object_field(so, "lastImageStatus", p)) {
                const auto *v = lis->if_contains("value");
                s.last_image_status = v ? *v : json::value(nullptr);
            }
            if (const auto *ev = object_field(so, "lastFileEvent", p)) {
                const std::string ep = child(p, "lastFileEvent");
                s.last_file_event = api::FileEvent{micros_field(*ev, "time", ep), string_array_field(*ev, "seenFiles", ep)};
            }
        }
    }
    if (const auto *containers = array_field(o, "containers", path)) {
        for (std::size_t i = 0; i < containers->size(); ++i) {
            const std::string p = index(child(path, "containers"), i);
            const auto &co = expect_object((*containers)[i], p);
            ContainerKey key{string_field(co, "containerID", p), string_field(co, "podName", p),
                             string_field(co, "namespace", p)};
            m.containers[key] = ContainerTrack{micros_field(co, "lastFileTimeSynced", p),
                                               micros_field(co, "failedLowWaterMark", p),
                                               string_field(co, "failedReason", p), string_field(co, "failedMessage", p)};
        }
    }
    return m;
}

}  // namespace

std::string encode_snapshot(const MicroTime &start_time, const std::vector<api::ObjectPtr> &objects,
                            const std::map<std::string, SlotView> &slots) {
    json::array objs;
    objs.reserve(objects.size());
    for (const auto &o : objects) objs.push_back(o->raw);
    json::array lus;
    for (const auto &[name, slot] : slots) {
        json::object lo{{"name", name}};
        lo["status"] = slot.status ? api::encode_live_update_status(*slot.status) : json::value(nullptr);
        lo["monitor"] = slot.monitor ? encode_monitor(*slot.monitor) : json::value(nullptr);
        lus.push_back(std::move(lo));
    }
    json::object out{{"format", kSnapshotFormat},
                     {"version", kSnapshotVersion},
                     {"startTime", start_time.micros()},
                     {"objects", std::move(objs)},
                     {"liveUpdates", std::move(lus)}};
    return json::serialize(out);
}

EngineState decode_snapshot(std::string_view text) {
    const json::value v = parse_limited(text, std::size_t{1} << 30, 64);
    if (!v.is_object()) throw UnsupportedSnapshot("not a liveupdate plugin snapshot: expected a JSON object");
    const auto &o = v.get_object();
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
    EngineState state;
    state.start_time = micros_field(o, "startTime", "");
    if (const auto *objs = array_field(o, "objects", "")) {
        for (std::size_t i = 0; i < objs->size(); ++i) {
            try {
                state.objects.push_back(std::make_shared<const api::ApiObject>(api::decode_api_object((*objs)[i])));
            } catch (const DecodeError &e) {
                throw DecodeError(child(index("objects", i), e.field()), e.reason());
            }
        }
    }
    if (const auto *lus = array_field(o, "liveUpdates", "")) {
        for (std::size_t i = 0; i < lus->size(); ++i) {
            const std::string p = index("liveUpdates", i);
            const auto &lo = expect_object((*lus)[i], p);
            SlotState slot;
            if (const auto *st = object_field(lo, "status", p)) slot.status = api::decode_live_update_status(st);
            if (const auto *mo = object_field(lo, "monitor", p)) slot.monitor = decode_monitor(*mo, child(p, "monitor"));
            state.slots[string_field(lo, "name", p)] = std::move(slot);
        }
    }
    return state;
}

}  // namespace liveupdate
