#include "host/up/control_operations.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

namespace {

constexpr std::size_t kRecentLogLines = 50;

json::object rejection_json(const Rejection &r) {
    return json::object{{"file", r.file}, {"errors", r.errors}, {"message", r.message}};
}

}  // namespace

json::value ControlOperations::handle(const json::object &request) const {
    const std::string op = common::string_field(request, {"op"});
    const std::string named_kind = common::string_field(request, {"kind"});
    const std::string kind = named_kind.empty() ? "LiveUpdate" : named_kind;
    if (op == "get") return get(kind);
    if (op == "describe") return describe(kind, common::string_field(request, {"name"}));
    if (op == "plugins") return json::object{{"plugins", p_.plugins()}};
    if (op == "trigger") return p_.triggers.trigger(common::member(request, "names"));
    if (op == "verify") return p_.verify(request);
    if (op == "activity") return activity(request);
    return json::object{{"error", "unknown op \"" + op + "\" (get, describe, plugins, trigger, activity, verify)"}};
}

json::value ControlOperations::get(const std::string &kind) const {
    json::array items;
    for (auto &o : p_.store.list(kind))
        items.push_back(kind == "LiveUpdate" ? with_conflicts(std::move(o)) : std::move(o));
    json::array rejected;
    if (kind == "LiveUpdate") {
        for (const auto &[name, r] : p_.declarations.rejections())
            rejected.push_back(
                json::object{{"name", name}, {"file", r.file}, {"errors", r.errors}, {"message", r.message}});
    }
    return json::object{{"kind", "List"}, {"items", std::move(items)}, {"rejected", std::move(rejected)}};
}

json::value ControlOperations::describe(const std::string &kind, const std::string &name) const {
    json::object answer;
    if (auto o = p_.store.get(ObjectKey{kind, name}))
        answer["object"] = kind == "LiveUpdate" ? with_conflicts(std::move(*o)) : std::move(*o);
    if (auto file = p_.declarations.origin_of(ObjectKey{kind, name})) answer["file"] = *file;
    if (kind == "LiveUpdate") {
        if (auto r = p_.declarations.rejection(name)) answer["rejected"] = rejection_json(*r);
        json::array lines;
        const std::vector<ActivityLine> recent = p_.activity.lines(name);
        for (std::size_t i = recent.size() > kRecentLogLines ? recent.size() - kRecentLogLines : 0; i < recent.size();
             ++i)
            lines.emplace_back(recent[i].time + " " + recent[i].text);
        answer["log"] = std::move(lines);
    }
    if (!answer.contains("object") && !answer.contains("rejected"))
        return json::object{{"error", kind + " \"" + name + "\" not found"}};
    return answer;
}

json::object ControlOperations::with_conflicts(json::object live_update) const {
    if (!p_.sync_back_conflicts) return live_update;
    json::array conflicts = p_.sync_back_conflicts(common::string_field(live_update, {"metadata", "name"}));
    if (conflicts.empty()) return live_update;
    json::value &status = live_update["status"];
    if (!status.is_object()) status = json::object{};
    status.as_object()["syncBackConflicts"] = std::move(conflicts);
    return live_update;
}

json::value ControlOperations::activity(const json::object &request) const {
    if (!request.contains("name")) return json::object{{"activity", p_.activity.summary()}};
    const std::string name = common::string_field(request, {"name"});
    if (!p_.store.get(ObjectKey{"LiveUpdate", name}))
        return json::object{{"error", "LiveUpdate \"" + name + "\" not found"}};
    json::array lines;
    for (const auto &line : p_.activity.lines(name)) lines.push_back(to_json(line));
    return json::object{{"name", name}, {"lines", std::move(lines)}};
}

}  // namespace liveupdate::host::up
