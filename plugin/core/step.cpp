#include "plugin/core/step.hpp"

#include "common/json_fields.hpp"

namespace liveupdate {
namespace json = boost::json;
using namespace common;

namespace {

json::array strings(const std::vector<std::string> &v) {
    json::array out;
    out.reserve(v.size());
    for (const auto &s : v) out.emplace_back(s);
    return out;
}

json::object encode_update(const ContainerUpdate &u) {
    json::object c{{"containerID", u.container.container_id},
                   {"containerName", u.container.container_name},
                   {"podName", u.container.pod_name},
                   {"namespace", u.container.namespace_name}};
    if (u.via == "local") c["root"] = u.container.root;
    json::array copy;
    copy.reserve(u.copy.size());
    for (const auto &m : u.copy) copy.push_back(json::object{{"local", m.local_path}, {"container", m.container_path}});
    json::array runs;
    for (const auto &r : u.runs) {
        json::object run{{"args", strings(r.args)}, {"echoOff", r.echo_off}};
        // Only when set, so that Tilt-shaped steps stay as they were.
        if (!r.user.empty()) run["user"] = r.user;
        if (!r.working_dir.empty()) run["workingDir"] = r.working_dir;
        if (!r.env.empty()) run["env"] = strings(r.env);
        if (r.privileged) run["privileged"] = true;
        runs.push_back(std::move(run));
    }
    json::array filter;
    for (const auto &f : u.filter) filter.push_back(common::to_json(f));
    return json::object{{"liveUpdate", u.live_update},
                        {"via", u.via},
                        {"container", std::move(c)},
                        {"copy", std::move(copy)},
                        {"delete", strings(u.delete_paths)},
                        {"runs", std::move(runs)},
                        {"restart", u.restart},
                        {"initialSync", u.initial_sync},
                        {"filter", std::move(filter)},
                        {"syncRoots", strings(u.sync_roots)}};
}

}  // namespace

json::value encode_step(const Step &step) {
    json::array log;
    for (const auto &l : step.log) log.push_back(json::object{{"level", common::to_string(l.level)}, {"text", l.text}});
    json::array events;
    for (const auto &e : step.events) {
        json::object o{{"type", e.type}, {"liveUpdate", e.live_update}, {"manifest", e.manifest}};
        if (e.type == "started")
            o["filesChanged"] = strings(e.files_changed);
        else
            o["error"] = e.error;
        events.push_back(std::move(o));
    }
    json::object out{{"type", step.update ? "update" : "done"}, {"log", std::move(log)}, {"events", std::move(events)}};
    if (step.update) {
        out["update"] = encode_update(*step.update);
    } else {
        out["status"] = step.status ? api::encode_live_update_status(*step.status) : json::value(nullptr);
        out["statusChanged"] = step.status_changed;
    }
    return out;
}

Outcome decode_outcome(std::string_view text) {
    const json::value v = parse_limited(text, 1u << 20, 16);
    const auto &o = expect_object(v, "outcome");
    if (const auto *ok = member(o, "ok")) {
        if (!ok->is_bool()) throw DecodeError("ok", "expected boolean");
        if (ok->get_bool()) return Outcome{};
    }
    if (const auto *rf = object_field(o, "runFailure", "")) {
        return Outcome{Outcome::Kind::RunFailure, string_field(*rf, "message", "runFailure"),
                       int_field(*rf, "exitCode", "runFailure")};
    }
    if (member(o, "infraFailure") != nullptr) {
        const std::string msg = string_field(o, "infraFailure", "");
        return Outcome{Outcome::Kind::InfraFailure, msg, 0};
    }
    if (member(o, "containerNotRunning") != nullptr)
        return Outcome{Outcome::Kind::ContainerNotRunning, string_field(o, "containerNotRunning", ""), 0};
    throw DecodeError("outcome", "expected one of ok, runFailure, infraFailure, containerNotRunning");
}

}  // namespace liveupdate
