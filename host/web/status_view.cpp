#include "host/web/status_view.hpp"

#include <string>

#include "common/json_fields.hpp"

namespace liveupdate::host::web {
namespace json = boost::json;

namespace {

using common::member;
using common::string_field;

// A local path shown relative to the LiveUpdate's basePath when beneath it.
std::string shown_path(const std::string &path, const std::string &base) {
    if (base.empty() || path.size() <= base.size() || path.compare(0, base.size(), base) != 0) return path;
    if (base.back() == '/') return path.substr(base.size());
    return path[base.size()] == '/' ? path.substr(base.size() + 1) : path;
}

void set_state(json::object &row, const char *state, const std::string &reason, const std::string &message) {
    row["state"] = state;
    row["reason"] = reason;
    row["message"] = message;
}

json::object row_of(const json::value &lu, const json::object &activity) {
    const std::string name = string_field(lu, {"metadata", "name"});
    const std::string manifest = string_field(lu, {"metadata", "annotations", "tilt.dev/resource"});
    const bool manual = string_field(lu, {"metadata", "annotations", "tilt.dev/update-mode"}) == "manual";
    json::object row{{"name", name},
                     {"namespace", string_field(lu, {"metadata", "namespace"})},  // "": not from a cluster
                     {"manifest", manifest},
                     {"mode", manual ? "manual" : "auto"},
                     {"canTrigger", manual && !manifest.empty()}};

    json::array containers;
    std::string exec_error, waiting_reason, waiting_message;
    if (const json::value *list = member(lu, {"status", "containers"}); list != nullptr && list->is_array())
        for (const auto &c : list->as_array()) {
            json::object one{{"name", string_field(c, {"containerName"})}, {"id", string_field(c, {"containerID"})}};
            if (const std::string pod = string_field(c, {"podName"}); !pod.empty()) one["pod"] = pod;
            if (const std::string synced = string_field(c, {"lastFileTimeSynced"}); !synced.empty())
                one["lastFileTimeSynced"] = synced;
            if (const std::string reason = string_field(c, {"waiting", "reason"}); !reason.empty()) {
                one["waiting"] = reason;
                waiting_reason = reason;
                waiting_message = string_field(c, {"waiting", "message"});
            }
            if (const std::string error = string_field(c, {"lastExecError"}); !error.empty()) {
                one["lastExecError"] = error;
                exec_error = error;
            }
            // How the updater reached into it (injected, copied, none) and its process's last restart.
            if (const std::string agent = string_field(c, {"agent"}); !agent.empty()) one["agent"] = agent;
            if (const std::string restarted = string_field(c, {"lastRestartTime"}); !restarted.empty())
                one["lastRestartTime"] = restarted;
            containers.push_back(std::move(one));
        }
    const bool has_containers = !containers.empty();
    row["containers"] = std::move(containers);

    const json::object *act = common::object_field(activity, {name});
    const std::string base = string_field(lu, {"spec", "basePath"});
    json::array files;
    if (act != nullptr) {
        for (const std::string &path : common::string_array_field(*act, "lastFiles", "activity"))
            files.emplace_back(shown_path(path, base));
        for (const char *key : {"lastFileCount", "lastFilesAt", "lastUpdateAt", "recentUpdates"})
            if (const json::value *v = common::member_as_written(*act, key)) row[key] = *v;
    }
    row["lastFiles"] = std::move(files);

    // Open sync-back conflicts (docs/sync-back.md), local paths as the files above.
    json::array conflicts;
    if (const json::value *list = member(lu, {"status", "syncBackConflicts"}); list != nullptr && list->is_array())
        for (const auto &c : list->as_array())
            conflicts.push_back(json::object{{"container", string_field(c, {"container"})},
                                             {"path", string_field(c, {"path"})},
                                             {"localPath", shown_path(string_field(c, {"localPath"}), base)},
                                             {"kind", string_field(c, {"kind"})}});
    row["syncBackConflicts"] = std::move(conflicts);

    const bool updating = act != nullptr && common::bool_field(*act, "updating", "activity");
    const std::string failed = string_field(lu, {"status", "failed", "reason"});
    const std::string failed_message = string_field(lu, {"status", "failed", "message"});
    if (updating)
        set_state(row, "updating", "", "");
    else if (failed == "UpdateStopped")  // a stop path or a file no sync covers: only a rebuild helps
        set_state(row, "needs-rebuild", failed, failed_message);
    else if (!failed.empty())
        set_state(row, "failed", failed, failed_message);
    else if (!exec_error.empty())
        set_state(row, "failed", "ExecError", exec_error);
    else if (!waiting_reason.empty())
        set_state(row, "waiting", waiting_reason, waiting_message);
    else if (!has_containers)
        set_state(row, "waiting", "NoContainer", "no container selected yet");
    else
        set_state(row, "in-sync", "", "");
    return row;
}

}  // namespace

json::object status_view(const json::value &list, const json::object &activity, const json::value &plugins) {
    json::array rows;
    if (const json::value *items = member(list, {"items"}); items != nullptr && items->is_array())
        for (const auto &lu : items->as_array()) rows.push_back(row_of(lu, activity));
    if (const json::value *rejected = member(list, {"rejected"}); rejected != nullptr && rejected->is_array())
        for (const auto &r : rejected->as_array()) {
            json::object row{{"name", string_field(r, {"name"})},
                             {"mode", "auto"},
                             {"canTrigger", false},
                             {"containers", json::array{}},
                             {"lastFiles", json::array{}}};
            set_state(row, "rejected", "Rejected", string_field(r, {"message"}));
            rows.push_back(std::move(row));
        }
    return json::object{{"liveUpdates", std::move(rows)},
                        {"plugins", plugins.is_array() ? plugins : json::value(json::array{})}};
}

}  // namespace liveupdate::host::web
