#include "host/compose/watch_objects.hpp"

#include <filesystem>
#include <set>

#include "common/ignore_patterns.hpp"
#include "common/paths.hpp"

namespace liveupdate::host::compose {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kActions = {"rebuild", "restart", "sync", "sync+exec", "sync+restart"};

bool syncs(const std::string &action) { return action == "sync" || action == "sync+restart" || action == "sync+exec"; }

json::array strings(const std::vector<std::string> &v) {
    json::array out;
    for (const auto &s : v) out.emplace_back(s);
    return out;
}

json::object tilt_object(const char *kind, const std::string &name, const std::string &service) {
    return json::object{
        {"apiVersion", "tilt.dev/v1alpha1"},
        {"kind", kind},
        {"metadata", json::object{{"name", name}, {"annotations", json::object{{"tilt.dev/resource", service}}}}}};
}

// The rule's path, absolute; an error naming `at` when it leaves the project
// folder, as written or through a symlink (checked where it really leads).
std::optional<std::string> rule_path(const Project &project, const WatchRule &rule, const std::string &at,
                                     std::vector<ComposeIssue> &errors) {
    if (rule.path.empty()) {
        errors.push_back({rule.path_where.line > 0 ? rule.path_where : rule.where, at + ".path must not be empty"});
        return std::nullopt;
    }
    const std::string abs = common::join_path(project.directory, rule.path);
    const std::string outside = at + ".path \"" + rule.path + "\" is outside the project folder " + project.directory;
    if (!common::child_path(project.directory, abs)) {
        errors.push_back({rule.path_where, outside});
        return std::nullopt;
    }
    std::error_code ec;
    const fs::path real_dir = fs::weakly_canonical(project.directory, ec);
    const fs::path real = ec ? fs::path() : fs::weakly_canonical(abs, ec);
    if (ec) {
        errors.push_back(
            {rule.path_where, at + ".path \"" + rule.path + "\": cannot follow its symlinks: " + ec.message()});
        return std::nullopt;
    }
    if (!common::child_path(real_dir.string(), real.string())) {
        errors.push_back({rule.path_where, outside + " (it leads to " + real.string() + ")"});
        return std::nullopt;
    }
    return abs;
}

json::object file_watch(const std::string &name, const std::string &service, const std::string &path,
                        const WatchRule &rule, const std::optional<std::string> &context,
                        const std::optional<std::vector<std::string>> &dockerignore) {
    json::array ignores;
    std::vector<std::string> patterns = rule.ignore;
    patterns.push_back("**/.git");
    ignores.push_back(json::object{{"basePath", path}, {"patterns", strings(patterns)}});
    if (!rule.include.empty()) {
        // "Only what include names": ignore everything, then take the includes back.
        std::vector<std::string> only{"**"};
        for (const auto &p : rule.include) only.push_back("!" + p);
        ignores.push_back(json::object{{"basePath", path}, {"patterns", strings(only)}});
    }
    if (context && dockerignore && !dockerignore->empty())
        ignores.push_back(json::object{{"basePath", *context}, {"patterns", strings(*dockerignore)}});
    json::object fw = tilt_object("FileWatch", name, service);
    fw["spec"] = json::object{{"watchedPaths", json::array{json::value(path)}}, {"ignores", std::move(ignores)}};
    return fw;
}

// A sync+exec rule's exec, as a LiveUpdate spells it.
json::object exec_of(const WatchExec &rule_exec, const std::string &path) {
    json::object exec{{"args", strings(rule_exec.command)}, {"triggerPaths", json::array{json::value(path)}}};
    // Beyond Tilt's execs: how the command runs (see LiveUpdateExec in plugin/core/api).
    if (!rule_exec.user.empty()) exec["user"] = rule_exec.user;
    if (!rule_exec.working_dir.empty()) exec["workingDir"] = rule_exec.working_dir;
    if (!rule_exec.environment.empty()) {
        json::array env;
        for (const auto &[k, v] : rule_exec.environment) env.emplace_back(std::string(k).append("=").append(v));
        exec["env"] = std::move(env);
    }
    if (rule_exec.privileged) exec["privileged"] = true;
    return exec;
}

json::object compose_service_object(const Project &project, const std::string &name) {
    json::object dcs = tilt_object("DockerComposeService", name, name);
    dcs["spec"] = json::object{{"service", name},
                               {"project", json::object{{"name", project.name},
                                                        {"projectPath", project.directory},
                                                        {"configPaths", strings(project.files)}}}};
    return dcs;
}

}  // namespace

WatchObjects watch_objects(const Project &project, const DockerignoreReader &dockerignore) {
    WatchObjects out;
    std::vector<json::object> watches;
    std::vector<json::object> services;
    std::vector<json::object> live_updates;
    for (const auto &[name, service] : project.services) {
        if (!service.watch || service.watch->empty()) continue;
        std::vector<ComposeIssue> errors;
        std::optional<std::string> context;
        if (service.build_context) context = common::join_path(project.directory, *service.build_context);
        const auto ignore_file = context ? dockerignore(*context) : std::nullopt;

        json::array sources;
        json::array syncs_out;
        json::array execs;
        json::array restart_paths;
        bool initial_sync = false;
        std::vector<json::object> service_watches;
        for (std::size_t i = 0; i < service.watch->size(); ++i) {
            const WatchRule &rule = (*service.watch)[i];
            const std::string at = "services." + name + ".develop.watch[" + std::to_string(i) + "]";
            if (kActions.count(rule.action) == 0) {
                errors.push_back({rule.action_where.line > 0 ? rule.action_where : rule.where,
                                  at + ": unknown action \"" + rule.action + "\" (valid: " + kValidActions + ")"});
                continue;
            }
            const auto path = rule_path(project, rule, at, errors);
            if (!path) continue;
            if (syncs(rule.action) && (!rule.target || rule.target->empty())) {
                errors.push_back(
                    {rule.where, at + ": action " + rule.action + " needs a target (the path in the container)"});
                continue;
            }
            if (rule.action == "sync+exec" && (!rule.exec || rule.exec->command.empty())) {
                errors.push_back({rule.where, at + ": action sync+exec needs exec.command"});
                continue;
            }
            if (!rule.sync_back.empty() && !syncs(rule.action)) {
                errors.push_back({rule.sync_back_where, at +
                                                            ".x-sync-back: files come back only through a rule that "
                                                            "syncs (sync, sync+restart, sync+exec), not " +
                                                            rule.action});
                continue;
            }
            if (rule.exec && rule.action != "sync+exec")
                out.warnings.push_back(
                    {rule.where, at + ": exec is only used by action sync+exec, not " + rule.action});
            const std::string watch_name = name + "-watch-" + std::to_string(i + 1);
            service_watches.push_back(file_watch(watch_name, name, *path, rule, context, ignore_file));
            if (rule.action == "rebuild") {
                out.rebuild_watches[watch_name] = name;
                continue;
            }
            sources.push_back(json::object{{"fileWatch", watch_name}});
            if (syncs(rule.action)) {
                json::object sync{{"localPath", *path}, {"containerPath", *rule.target}};
                if (!rule.sync_back.empty()) sync["syncBack"] = strings(rule.sync_back);
                syncs_out.push_back(std::move(sync));
            }
            if (rule.action == "sync+exec") execs.push_back(exec_of(*rule.exec, *path));
            if (rule.action == "sync+restart" || rule.action == "restart") restart_paths.emplace_back(*path);
            initial_sync |= rule.initial_sync && syncs(rule.action);
        }
        if (!errors.empty()) {
            out.errors.insert(out.errors.end(), errors.begin(), errors.end());
            std::erase_if(out.rebuild_watches, [service = name](const auto &entry) { return entry.second == service; });
            continue;
        }
        for (auto &w : service_watches) watches.push_back(std::move(w));

        services.push_back(compose_service_object(project, name));

        if (sources.empty()) continue;  // only rebuild rules: nothing to sync
        json::object lu = tilt_object("LiveUpdate", name, name);
        json::object spec{{"basePath", project.directory},
                          {"sources", std::move(sources)},
                          {"selector", json::object{{"dockerCompose", json::object{{"service", name}}}}},
                          {"syncs", std::move(syncs_out)}};
        if (!execs.empty()) spec["execs"] = std::move(execs);
        if (!restart_paths.empty()) spec["restartPaths"] = std::move(restart_paths);
        if (initial_sync) spec["initialSync"] = json::object{};
        lu["spec"] = std::move(spec);
        live_updates.push_back(std::move(lu));
    }
    for (auto *group : {&watches, &services, &live_updates})
        for (auto &o : *group) out.objects.push_back(std::move(o));
    return out;
}

}  // namespace liveupdate::host::compose
