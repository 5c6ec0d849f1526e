#include "host/up/object_keeper.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "host/core/admission_warnings.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;
using common::LogLevel;

namespace {

// A discovered kind goes in with the status its discovery last reported;
// discovery follows it from then on.
template <class Discovery, class Spec, class Upsert>
void kept_and_watched(Discovery &discovery, const DeclaredObject &d, Spec spec, Upsert &&upsert) {
    json::object object = d.object;
    if (auto status = discovery.status(d.name)) object["status"] = *status;
    upsert(object);
    discovery.watch(d.name, std::move(spec));
}

}  // namespace

void ObjectKeeper::apply_all(const std::vector<FileLoad> &loads) {
    std::vector<DeclaredObject> all;
    for (const auto &load : loads) {
        p_.declarations.track(load.file);
        for (const auto &o : load.objects) all.push_back(o);
    }
    // Objects a LiveUpdate refers to first: fewer transient "not found" states.
    auto rank = [](const std::string &kind) { return kind == "FileWatch" ? 0 : kind == "LiveUpdate" ? 2 : 1; };
    std::stable_sort(all.begin(), all.end(),
                     [&](const DeclaredObject &a, const DeclaredObject &b) { return rank(a.kind) < rank(b.kind); });
    common::MutexLock lock(replace_mutex_);
    for (const auto &d : all) apply(d);
}

void ObjectKeeper::replace(const FileLoad &load) {
    const std::string &file = load.file;
    if (load.objects.empty() && !load.errors.empty()) {
        p_.log.write(LogLevel::error, "", file + ": not loaded, its objects stay as they were");
        return;
    }
    common::MutexLock lock(replace_mutex_);
    const Declarations::Replaced replaced = p_.declarations.replace(file, load);
    for (const auto &key : replaced.gone) {
        p_.log.write(LogLevel::info, "", file + ": " + key.text() + " removed");
        remove(key);
    }
    for (const auto &d : replaced.fallbacks) {
        p_.log.write(
            LogLevel::info, "",
            file + ": no longer declares " + ObjectKey{d.kind, d.name}.text() + "; using its declaration in " + d.file);
        apply(d);
    }
    for (const auto &o : load.objects) apply(o);
}

std::set<std::string> ObjectKeeper::origins_in(const std::string &dir) const { return p_.declarations.origins_in(dir); }

void ObjectKeeper::apply(const DeclaredObject &d) {
    const ObjectKey key{d.kind, d.name};
    const Declarations::Declared declared = p_.declarations.declare(d, json::serialize(d.object));
    if (!declared.changed) return;
    if (!declared.replaced_from.empty())
        p_.log.write(
            LogLevel::warn, "",
            key.text() + " is declared in " + declared.replaced_from + " and in " + d.file + "; using " + d.file);
    const std::string origin = d.file + ": " + key.text();
    for (const auto &warning : admission_warnings(d.object))
        p_.log.write(LogLevel::warn, "", std::string(origin).append(": ").append(warning));
    if (d.kind == "FileWatch") {
        const json::object with_status = p_.file_watches.apply(d.object);
        if (const std::string error = common::string_field(with_status, {"status", "error"}); !error.empty())
            p_.log.write(LogLevel::error, "", origin + ": " + error);
        upsert(with_status, origin);
    } else if (d.kind == "DockerComposeService") {
        apply_compose_service(d, origin);
    } else if (d.kind == "KubernetesDiscovery") {
        apply_kubernetes_discovery(d, origin);
    } else if (d.kind == "LocalContainer") {
        apply_local_container(d, origin);
    } else if (d.kind == "ConfigMap" && d.name == kTriggerQueueName) {
        const std::vector<std::string> due = admit(d.object, origin);
        p_.triggers.queue_declared(d.object);
        p_.due.mark_due(due);
    } else {
        // LiveUpdate and every other kind go to the engine as they are.
        upsert(d.object, origin);
    }
}

void ObjectKeeper::apply_local_container(const DeclaredObject &d, const std::string &origin) {
    LocalProcessSpec spec;
    try {
        spec = parse_local_container_spec(d.object);
    } catch (const std::invalid_argument &e) {
        p_.log.write(LogLevel::error, "", origin + ": rejected: " + e.what());
        return;
    }
    const bool was_running = p_.containers.spec(d.name).has_value();
    p_.containers.apply(d.name, spec);
    if (was_running)
        if (auto status = p_.containers.status(d.name)) container_status(d.name, *status);
}

// A DockerComposeService keeps the status discovery last reported; discovery
// follows its service's container on the Docker engine from then on.
void ObjectKeeper::apply_compose_service(const DeclaredObject &d, const std::string &origin) {
    const auto service = compose_discovery::compose_service_of(d.object);
    if (!service) {
        p_.log.write(LogLevel::warn, "",
                     origin + ": no spec.service and spec.project.name, so its container is not discovered");
        upsert(d.object, origin);
        return;
    }
    kept_and_watched(p_.discoveries.compose(), d, *service, [&](const json::object &o) { upsert(o, origin); });
}

// A KubernetesDiscovery keeps the pods discovery last reported.
void ObjectKeeper::apply_kubernetes_discovery(const DeclaredObject &d, const std::string &origin) {
    kubernetes::DiscoverySpec spec;
    try {
        spec = kubernetes::discovery_spec_of(d.object);
    } catch (const std::invalid_argument &e) {
        p_.log.write(LogLevel::error, "", origin + ": its pods are not discovered: " + e.what());
        upsert(d.object, origin);
        return;
    }
    kept_and_watched(p_.discoveries.kubernetes(), d, std::move(spec),
                     [&](const json::object &o) { upsert(o, origin); });
}

void ObjectKeeper::upsert(const json::object &object, const std::string &origin) {
    p_.due.mark_due(admit(object, origin));
}

std::vector<std::string> ObjectKeeper::admit(const json::object &object, const std::string &origin) {
    const std::string text = json::serialize(object);
    const json::object result =
        p_.plugin_slot.with_instance([&](const PluginInstance &instance) { return instance.upsert(text); });
    const bool ok = common::bool_field(result, "accepted", "upsert result");
    const ObjectKey key = key_of(object);
    if (!ok) {
        const json::array *errors = common::array_field(result, "errors", "upsert result");
        if (errors != nullptr && !errors->empty()) {
            for (const auto &e : *errors) {
                const std::string field = common::string_field(e, {"field"});
                p_.log.write(LogLevel::error, "",
                             origin + ": rejected: " + (field.empty() ? "" : field + ": ") +
                                 common::string_field(e, {"message"}));
            }
        } else {
            p_.log.write(LogLevel::error, "", origin + ": rejected: " + common::string_field(result, {"message"}));
        }
        if (key.kind == "LiveUpdate")
            p_.declarations.reject(key.name,
                                   Rejection{origin.substr(0, origin.rfind(": ")),
                                             errors != nullptr ? json::value(*errors) : json::value(json::array()),
                                             common::string_field(result, {"message"})});
        return {};
    }
    if (key.kind == "LiveUpdate") p_.declarations.admit(key.name);
    // Stored before any reconcile can run: its status is written into the store.
    // A LiveUpdate keeps the status its reconciles wrote.
    p_.store.put(object, key.kind == "LiveUpdate");
    return common::string_array_field(result, "due", "upsert result");
}

void ObjectKeeper::container_status(const std::string &name, const json::object &status) {
    std::optional<json::object> object = p_.declarations.declared(ObjectKey{"LocalContainer", name});
    if (!object) return;
    const std::string id = common::string_field(status, {"containerID"});
    const json::object *state = common::object_field(status, {"containerState"});
    const std::string phase = state != nullptr ? common::string_field(*state, "status", "containerState") : "";
    std::string news;
    {
        common::MutexLock lock(containers_mutex_);
        std::string &logged = container_state_logged_[name];
        if (logged != id + " " + phase) {
            logged = id + " " + phase;
            news = "LocalContainer/" + name + " " + phase + " (" + id + ")";
            const json::value *exit_code = state != nullptr ? common::member(*state, "exitCode") : nullptr;
            if (phase == "exited" && exit_code != nullptr) news += ", exit code " + json::serialize(*exit_code);
            if (state != nullptr && common::member(*state, "error") != nullptr)
                news += ": " + common::string_field(*state, "error", "containerState");
        }
    }
    if (!news.empty()) p_.log.write(phase == "exited" ? LogLevel::warn : LogLevel::info, "", news);
    (*object)["status"] = status;
    upsert(*object, "LocalContainer/" + name);
}

void ObjectKeeper::discovered_status(const std::string &kind, const std::string &name, const json::object &status) {
    std::optional<json::object> object = p_.declarations.declared(ObjectKey{kind, name});
    if (!object) return;
    (*object)["status"] = status;
    upsert(*object, kind + "/" + name);
}

void ObjectKeeper::remove(const ObjectKey &key) {
    p_.declarations.remove(key);
    if (key.kind == "FileWatch") p_.file_watches.remove(key.name);
    if (key.kind == "LiveUpdate") {
        p_.file_watches.forget(key.name);
        p_.activity.forget(key.name);
        p_.triggers.forget(key.name);
    }
    if (key.kind == "LocalContainer") p_.containers.remove(key.name);
    p_.discoveries.unwatch(key);
    const json::object result = p_.plugin_slot.with_instance(
        [&](const PluginInstance &instance) { return instance.remove(key.kind, key.name); });
    p_.store.remove(key);
    std::vector<std::string> due = common::string_array_field(result, "due", "remove result");
    if (key.kind == "LiveUpdate") due.push_back(key.name);  // lets the plugin drop its state
    p_.due.mark_due(due);
}

}  // namespace liveupdate::host::up
