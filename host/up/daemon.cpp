#include "host/up/daemon.hpp"
#include "common/mutex.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "common/json_fields.hpp"
#include "host/compose/compose_rebuilds.hpp"
#include "host/compose_discovery/container_presence.hpp"
#include "host/core/executor.hpp"
#include "host/core/host_metrics.hpp"
#include "host/core/host_services.hpp"
#include "host/core/install_paths.hpp"
#include "host/core/object_store.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/reconcile_driver.hpp"
#include "host/core/state_folder.hpp"
#include "host/core/synced_pruning.hpp"
#include "host/core/updater_registry.hpp"
#include "host/reload/hot_reloader.hpp"
#include "host/reload/quiesce_gate.hpp"
#include "host/sync_back/agent_sync_back.hpp"
#include "host/sync_back/came_back.hpp"
#include "host/sync_back/conflicts_json.hpp"
#include "host/sync_back/held_deletes.hpp"
#include "host/sync_back/local_sync_back_watch.hpp"
#include "host/sync_back/sync_back_report.hpp"
#include "host/sync_back/sync_back_watches.hpp"
#include "host/up/activity.hpp"
#include "host/up/cluster_source.hpp"
#include "host/up/compose_source.hpp"
#include "host/up/container_warm_up.hpp"
#include "host/up/control_operations.hpp"
#include "host/up/control_socket.hpp"
#include "host/up/declarations.hpp"
#include "host/up/discoveries.hpp"
#include "host/up/due_queue.hpp"
#include "host/up/file_watches.hpp"
#include "host/up/local_container_supervisor.hpp"
#include "host/up/manual_triggers.hpp"
#include "host/up/object_file_source.hpp"
#include "host/up/object_keeper.hpp"
#include "host/up/stop_signals.hpp"
#include "host/up/supervised_containers.hpp"
#include "host/up/sync_back_targets.hpp"
#include "host/verify/verify_service.hpp"
#include "host/verify/verify_targets.hpp"
#include "host/web/web_server.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;
using common::LogLevel;

namespace {

// TreeWatcher's warning when the kernel dropped events (the trees are rescanned, changes may be lost).
constexpr std::string_view kOverflowWarning = "inotify queue overflow";

common::MicroTime now() { return common::MicroTime::from_system(std::chrono::system_clock::now()); }

// An update's figures from its reconcile's events: the files of its
// "started" events, failed when a "completed" one carries an error.
metrics::UpdateFigures update_figures(const std::string &live_update, const std::vector<json::object> &events,
                                      double seconds) {
    metrics::UpdateFigures figures{.live_update = live_update, .ok = true, .seconds = seconds, .files = 0};
    for (const auto &e : events) {
        const std::string type = common::string_field(e, {"type"});
        if (type == "started") {
            if (const json::value *files = common::member(e, "filesChanged"); files != nullptr && files->is_array())
                figures.files += files->as_array().size();
        } else if (type == "completed" && !common::string_field(e, {"error"}).empty()) {
            figures.ok = false;
        }
    }
    return figures;
}

// The parts of `lu-host up` wired together: start() makes them in the order
// they need each other, stop() ends them in the order that lets each finish.
class Daemon {
public:
    Daemon(const UpOptions &options, UpLog &log) : options_(options), log_(log) {}

    void start();
    void stop();

private:
    void start_plugin();
    void start_updaters(const PluginLoadOptions &load);
    // Drops the journals of containers known to be gone (host/core/synced_pruning).
    void prune_synced_journals();
    void start_objects();
    void start_services();
    void start_web();
    void reconcile(const std::string &live_update);
    void exclusive(const std::string &live_update, const std::function<void()> &fn);
    // Starts and stops the LiveUpdate's sync backs for the containers it selects now.
    void refresh_sync_back(const std::string &live_update);
    // Hands the LiveUpdate's open sync-back conflicts to the sources (a cluster's status).
    void publish_conflicts(const std::string &live_update);
    void notify_web(const std::string &live_update, const ActivityLine *line);
    LogSinkFn live_update_log(const std::string &live_update);
    // The sources added so far, called without the lock (their calls may come back to it).
    std::vector<ObjectSource *> sources() LU_EXCLUDES(sources_mutex_);
    kube::LoadOptions kube_load_options() const;

    const UpOptions &options_;
    UpLog &log_;
    std::unique_ptr<StateFolder> state_folder_;  // locked first, released last
    JsonObjectStore store_;
    Declarations declarations_;
    std::unique_ptr<PluginSlot> plugin_slot_;
    reload::QuiesceGate gate_;  // reconciles pass it; hot reload closes it
    std::shared_ptr<UpdaterHostServices> services_;
    UpdaterRegistry updaters_;
    std::shared_ptr<void> agent_session_metrics_;  // reads updaters_: declared after it, dropped before it
    std::unique_ptr<SyncedJournals> synced_;
    std::unique_ptr<sync_back::SyncBackWatches> sync_backs_;
    // What sync back wrote locally: the file watches drop its echo.
    std::shared_ptr<sync_back::CameBack> came_back_ = std::make_shared<sync_back::CameBack>();
    std::unique_ptr<Executor> executor_;
    std::unique_ptr<ReconcileDriver> driver_;
    std::unique_ptr<ContainerWarmUp> warm_up_;
    DueQueue queue_;
    Activity activity_;
    std::unique_ptr<LocalContainerSupervisor> containers_;
    std::unique_ptr<Discoveries> discoveries_;
    std::unique_ptr<compose::ComposeRebuilds> rebuilds_;
    std::unique_ptr<ManualTriggers> triggers_;
    std::unique_ptr<verify::VerifyService> verify_;
    std::unique_ptr<FileWatches> file_watches_;
    std::unique_ptr<ObjectKeeper> keeper_;
    // The sources are added while the control socket already serves triggers
    // and statuses are written; each lives as long as the daemon.
    common::Mutex sources_mutex_;
    std::vector<std::unique_ptr<ObjectSource>> sources_ LU_GUARDED_BY(sources_mutex_);
    std::unique_ptr<ControlOperations> operations_;
    std::unique_ptr<ControlServer> control_;
    std::unique_ptr<reload::HotReloader> hot_reload_;
    common::Mutex web_mutex_;
    std::unique_ptr<web::WebServer> web_ LU_GUARDED_BY(web_mutex_);  // it goes first when the daemon stops
};

void Daemon::start() {
    // First: a second daemon on the folder, or a folder that cannot be used, is refused before anything starts.
    state_folder_ = std::make_unique<StateFolder>(StateFolderPlaces::from_environment(options_.state_dir));
    if (!state_folder_->fallback_note().empty()) log_.write(LogLevel::warn, "", state_folder_->fallback_note());
    start_plugin();
    start_services();
    start_web();
    start_objects();
    log_.write(LogLevel::info, "",
               "up: watching " + std::to_string(declarations_.origin_count()) + " object file(s); control socket " +
                   control_->path());
}

void Daemon::start_plugin() {
    // From a private copy: the plugin file may be rebuilt in place while its code runs (hot reload).
    // Every plugin is first loaded in a child (this very program): one that crashes when loaded is refused.
    const PluginLoadOptions load{.private_copy = true, .prober = "/proc/self/exe"};
    plugin_slot_ = std::make_unique<PluginSlot>(options_.plugin, now(), load);
    containers_ = std::make_unique<LocalContainerSupervisor>(
        [this](const std::string &name, const json::object &status) { keeper_->container_status(name, status); },
        [this](const std::string &name, std::string_view line) {
            log_.write(LogLevel::info, name, line, LogSource::local_container);
        });
    services_ = std::make_shared<UpdaterHostServices>();
    services_->set_local_containers(std::make_shared<SupervisedContainers>(*containers_));
    start_updaters(load);
    synced_ = std::make_unique<SyncedJournals>(state_folder_->path());
    prune_synced_journals();
    sync_backs_ = std::make_unique<sync_back::SyncBackWatches>(
        [this](const sync_back::SyncBackTarget &target,
               sync_back::SyncBackReportFn report) -> std::unique_ptr<sync_back::ContainerSyncBack> {
            if (target.via == "local")
                return sync_back::start_local_sync_back(target, *synced_, came_back_, std::move(report));
            // Docker and kubernetes containers: the updater's watch through lu-agent.
            return sync_back::start_agent_sync_back(
                target, updaters_.find(target.via), *synced_, came_back_, std::move(report),
                [this, lu = target.live_update](LogLevel level, const std::string &line) {
                    live_update_log(lu)(level, line);
                });
        },
        [this](const sync_back::SyncBackTarget &target, const sync_back::SyncBackEvent &event) {
            if (event.opens_conflict) metrics::record_sync_back_conflict(target.live_update);
            const sync_back::ReportLine line = sync_back::report_line(target, event);
            live_update_log(target.live_update)(line.level, line.text);
            // A conflict may open or clear: the status page and a cluster's status show them.
            notify_web("", nullptr);
            if (event.kind != sync_back::SyncBackEvent::Kind::deferred) publish_conflicts(target.live_update);
        },
        [this](const sync_back::SyncBackTarget &target, LogLevel level, const std::string &text) {
            live_update_log(target.live_update)(level, text);
        });
    executor_ = std::make_unique<Executor>(
        updaters_, synced_.get(), [this](const update_step::ContainerUpdate &update) -> ForwardSyncBack {
            const std::optional<json::object> object = store_.get(ObjectKey{"LiveUpdate", update.live_update});
            if (!object) return {};
            ForwardSyncBack out;
            out.comes_back = comes_back(*object);
            // A local container's folder is this machine's: its deletes are checked here.
            if (out.comes_back && update.via == "local" && !update.container.root.empty())
                out.held_delete = [root = std::filesystem::weakly_canonical(update.container.root).string(),
                                   comes_back = out.comes_back](const std::string &path, const SyncedJournal &journal) {
                    return sync_back::held_delete(root, path, comes_back, journal);
                };
            // Another's is known by what its sync back's watch reported.
            else if (out.comes_back && update.via != "local")
                out.held_delete = [this, lu = update.live_update, id = update.container.id](
                                      const std::string &path, const SyncedJournal &journal) {
                    return sync_backs_->held_delete(lu, id, path, journal);
                };
            return out;
        });
    driver_ = std::make_unique<ReconcileDriver>(
        *plugin_slot_, *executor_, store_, [] { return now(); },
        [this](const std::string &lu, LogLevel level, std::string_view text) { live_update_log(lu)(level, text); },
        kDefaultParallelUpdates);
    warm_up_ = std::make_unique<ContainerWarmUp>(
        [this](const std::string &lu) { return verify::resolve_targets(lu, *plugin_slot_); }, updaters_,
        [this](LogLevel level, const std::string &lu, const std::string &line) { log_.write(level, lu, line); });
}

void Daemon::prune_synced_journals() {
    // The docker engine is asked only when the "docker" class is the docker
    // updater with its default settings: with an updater configuration its
    // engine may be another, whose containers this engine does not know.
    std::string docker_via;
    const auto docker = options_.extra_updaters.find("docker");
    if (!options_.updater_config && docker != options_.extra_updaters.end() &&
        docker->second.filename().string().find("updater_docker") != std::string::npos)
        docker_via = "docker";
    try {
        const DockerPresenceFn presence =
            docker_via.empty() ? DockerPresenceFn{} : compose_discovery::default_docker_presence();
        prune_gone_synced_journals(*synced_, docker_via, presence, [this](const SyncedKey &key) {
            log_.write(LogLevel::info, key.live_update,
                       "up: the synced journal of " + key.container + " (via " + key.via +
                           ") is removed: that container no longer exists");
        });
    } catch (const std::exception &e) {
        log_.write(LogLevel::warn, "", std::string("up: cannot prune the synced journals: ") + e.what());
    }
}

void Daemon::start_updaters(const PluginLoadOptions &load) {
    reload::HotReloadOptions reload_options;
    reload_options.liveupdate_plugin = options_.plugin;
    reload_options.defaults["local"] = reload::UpdaterChoice{options_.local_updater, options_.local_updater_config};
    for (const auto &[via, file] : options_.extra_updaters)
        reload_options.defaults[via] = reload::UpdaterChoice{file, "{}"};
    if (auto k = reload_options.defaults.find("kubernetes"); k != reload_options.defaults.end()) {
        json::object settings;
        if (!options_.kubeconfig.empty()) settings["kubeconfig"] = options_.kubeconfig;
        if (!options_.kube_context.empty()) settings["context"] = options_.kube_context;
        k->second.settings = json::serialize(settings);
    }
    reload_options.config = options_.updater_config;
    reload_options.load = load;
    reload_options.resolve_name = [](std::string_view name) { return updater_plugin(name); };
    hot_reload_ =
        std::make_unique<reload::HotReloader>(*plugin_slot_, gate_, updaters_, services_, std::move(reload_options));
    hot_reload_->start();
    agent_session_metrics_ = metrics::collect_agent_sessions(updaters_);
}

void Daemon::start_services() {
    rebuilds_ = std::make_unique<compose::ComposeRebuilds>(
        [this](const std::string &service, std::string_view line, bool error) {
            const LogLevel level = error ? LogLevel::error : LogLevel::info;
            activity_.line(service, level, line, now());
            log_.write(level, service, line, LogSource::service);
        });
    file_watches_ = std::make_unique<FileWatches>(
        WatchTiming{options_.debounce, options_.max_wait, std::chrono::milliseconds(500)},
        [this](const json::object &fw) {
            rebuilds_->file_watch_changed(common::string_field(fw.at("metadata"), {"name"}));
            return keeper_->admit(fw, "FileWatch");
        },
        [this](const std::vector<std::string> &due) { queue_.mark_due(due); },
        [this](const std::string &warning) {
            log_.write(LogLevel::warn, "", warning);
            if (warning.starts_with(kOverflowWarning)) verify_->request(std::string(kOverflowWarning));
        },
        [this](const std::string &path) { return came_back_->is_echo(path); });
    // After the file watches, whose changes its checks wait out; their warnings reach it only once watching.
    verify_ = std::make_unique<verify::VerifyService>(
        verify::VerifyService::Parts{
            store_, *plugin_slot_, updaters_, *executor_, *synced_,
            [this](const std::string &lu) -> std::optional<std::string> {
                if (auto r = declarations_.rejection(lu)) return r->message;
                return std::nullopt;
            },
            [this](const std::string &lu, const std::function<void()> &fn) { exclusive(lu, fn); },
            [this](const std::string &lu) { return driver_->reconcile_waiting(lu); },
            [this](const std::string &lu) { return live_update_log(lu); },
            [this](LogLevel level, const std::string &source, std::string_view text) {
                log_.write(level, source, text);
            },
            [this](const std::string &lu) { queue_.mark_due({lu}); }, [this] { return file_watches_->last_change(); }},
        verify::VerifyService::Schedule{options_.verify_every, options_.verify_after_loss});
    triggers_ = std::make_unique<ManualTriggers>(
        store_, declarations_,
        [this](const json::object &o, const std::string &origin) {
            {
                // Written where it lives first (the cluster's ConfigMap): a failure leaves the engine as it was.
                common::MutexLock lock(sources_mutex_);
                for (const auto &source : sources_) source->object_written(o);
            }
            return keeper_->admit(o, origin);
        },
        [this](const std::vector<std::string> &due) { queue_.mark_due(due); }, log_);
    discoveries_ = std::make_unique<Discoveries>(
        kube_load_options(),
        [this](const std::string &kind, const std::string &name, const json::object &status) {
            keeper_->discovered_status(kind, name, status);
        },
        [this](std::string_view warning) { log_.write(LogLevel::warn, "", warning); });
    keeper_ = std::make_unique<ObjectKeeper>(ObjectKeeper::Parts{log_, *plugin_slot_, store_, declarations_, queue_,
                                                                 *file_watches_, *containers_, *discoveries_, activity_,
                                                                 *triggers_});
    operations_ = std::make_unique<ControlOperations>(ControlOperations::Parts{
        store_, declarations_, activity_, *triggers_, [this] { return hot_reload_->plugins(); },
        [this](const json::object &request) { return verify_->handle(request); },
        [this](const std::string &lu) { return sync_back::conflicts_json(sync_backs_->conflicts(lu)); }});
    control_ = std::make_unique<ControlServer>(options_.control_socket,
                                               [this](const json::object &r) { return operations_->handle(r); });
}

void Daemon::start_web() {
    activity_.set_listener([this](const std::string &lu, const ActivityLine *line) { notify_web(lu, line); });
    store_.add_listener([this](const ObjectChange &change) {
        notify_web("", nullptr);
        if (change.type == ObjectChange::Type::deleted && change.key.kind == "LiveUpdate")
            sync_backs_->set(change.key.name, {});
        // Discoveries store their statuses with the object (an upsert): those count too.
        if (change.type == ObjectChange::Type::deleted) return;
        const std::optional<json::object> object = store_.get(change.key);
        const json::value *status = object ? common::member(*object, "status") : nullptr;
        if (status == nullptr || !status->is_object()) return;
        for (ObjectSource *source : sources()) source->status_written(change.key, status->as_object());
    });
    if (!options_.web) return;
    auto server = std::make_unique<web::WebServer>(
        web::WebOptions{options_.web_address, options_.web_port, !options_.web_port_given},
        [this](const json::object &r) { return operations_->handle(r); });
    if (options_.web_port != 0 && server->port() != options_.web_port)
        log_.write(LogLevel::warn, "",
                   "up: port " + std::to_string(options_.web_port) +
                       " is taken (another lu-host up?): the status page takes another");
    log_.write(LogLevel::info, "", "up: status page " + server->url());
    common::MutexLock lock(web_mutex_);
    web_ = std::move(server);
}

void Daemon::start_objects() {
    const SourceLogFn source_log = [this](LogLevel level, std::string_view text) { log_.write(level, "", text); };
    {
        common::MutexLock lock(sources_mutex_);
        sources_.push_back(std::make_unique<ObjectFileSource>(options_.paths, source_log));
        sources_.push_back(std::make_unique<ComposeSource>(options_.compose_projects, *rebuilds_, source_log));
        if (options_.from_cluster)
            sources_.push_back(std::make_unique<ClusterSource>(
                ClusterSourceOptions{.kubeconfig = kube_load_options(),
                                     .project_dir = absolute_path(options_.project_dir),
                                     .allowances = {.sync_back = options_.allow_sync_back}},
                source_log));
    }
    std::vector<FileLoad> loads;
    for (ObjectSource *source : sources())
        for (auto &load : source->load()) loads.push_back(std::move(load));
    keeper_->apply_all(loads);
    queue_.start(options_.workers, [this](const std::string &lu) { reconcile(lu); });
    for (ObjectSource *source : sources()) source->start(*keeper_);
}

std::vector<ObjectSource *> Daemon::sources() {
    common::MutexLock lock(sources_mutex_);
    std::vector<ObjectSource *> out;
    for (const auto &source : sources_) out.push_back(source.get());
    return out;
}

void Daemon::stop() {
    log_.write(LogLevel::info, "", "up: stopping (finishing updates in flight)");
    std::unique_ptr<web::WebServer> web;
    {
        common::MutexLock lock(web_mutex_);
        web = std::move(web_);
    }
    web.reset();  // first: its requests reach every part below
    for (ObjectSource *source : sources()) source->stop();
    if (file_watches_) file_watches_->stop_all();
    if (verify_) verify_->stop();  // lets a check in progress finish
    if (rebuilds_) rebuilds_->stop();
    if (discoveries_) discoveries_->stop();
    queue_.stop();
    if (sync_backs_) sync_backs_->stop_all();  // after the reconciles, which start them
    warm_up_.reset();                          // waits for a preparation in progress
    if (containers_) containers_->stop_all();
    control_.reset();
    hot_reload_.reset();  // after the control socket, which lists its plugins
    log_.write(LogLevel::info, "", "up: stopped");
}

void Daemon::reconcile(const std::string &live_update) {
    const std::uint64_t trigger_generation = triggers_->generation();
    activity_.began(live_update);
    std::vector<json::object> events;
    std::chrono::microseconds took{0};
    std::size_t updates = 0;
    {
        // A hot reload waits for it, and holds the next; the driver keeps a verification of it waiting.
        const reload::QuiesceGate::Pass pass = gate_.enter();
        try {
            const std::uint64_t seen = file_watches_->visible();
            const auto began = std::chrono::steady_clock::now();
            ReconcileResult r = driver_->reconcile(live_update);
            took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - began);
            // A FileEvent may be dropped once every LiveUpdate it concerns has seen it.
            file_watches_->reconciled(live_update, seen);
            // Only when shown: an initial sync's "started" event is megabytes of text.
            if (log_.threshold() <= LogLevel::debug)
                for (const auto &event : r.events)
                    log_.write(LogLevel::debug, live_update, "event " + json::serialize(event));
            events = std::move(r.events);
            updates = r.updates;
            if (warm_up_) warm_up_->reconciled(live_update, r.status);
            if (r.status.is_object()) {
                const cluster::ReconcileFacts facts{r.status.as_object(), r.updates, std::move(r.restarted)};
                for (ObjectSource *source : sources()) source->reconciled(live_update, facts);
            }
        } catch (const std::exception &e) {
            log_.write(LogLevel::error, live_update, std::string("reconcile failed: ") + e.what());
        }
    }
    if (updates > 0)
        metrics::record_update(update_figures(live_update, events, std::chrono::duration<double>(took).count()));
    activity_.finished(live_update, events, now(), took);
    // Outside the pass: taking a manifest off the queue goes through the engine.
    triggers_->reconciled(live_update, trigger_generation);
    refresh_sync_back(live_update);
}

void Daemon::refresh_sync_back(const std::string &live_update) {
    const std::optional<json::object> object = store_.get(ObjectKey{"LiveUpdate", live_update});
    if (!object || !asks_for_sync_back(*object) || declarations_.rejection(live_update)) {
        if (sync_backs_->running(live_update)) {
            sync_backs_->set(live_update, {});
            publish_conflicts(live_update);
        }
        return;
    }
    // Outside the pass: the engine answers after a hot reload as before it.
    sync_backs_->set(live_update, sync_back_targets(*object, verify::resolve_targets(live_update, *plugin_slot_)));
    publish_conflicts(live_update);  // those of a sync back stopped are gone
}

void Daemon::publish_conflicts(const std::string &live_update) {
    const json::array conflicts = sync_back::conflicts_json(sync_backs_->conflicts(live_update));
    for (ObjectSource *source : sources()) source->sync_back_conflicts(live_update, conflicts);
}

// A verification of the LiveUpdate: no reconcile of it meanwhile (the
// driver's lock), and a hot reload waits for it as for a reconcile.
void Daemon::exclusive(const std::string &live_update, const std::function<void()> &fn) {
    const reload::QuiesceGate::Pass pass = gate_.enter();
    driver_->exclusive(live_update, fn);
}

kube::LoadOptions Daemon::kube_load_options() const {
    kube::LoadOptions kubeconfig;
    kubeconfig.kubeconfig = options_.kubeconfig;
    kubeconfig.context = options_.kube_context;
    kubeconfig.namespace_name = options_.kube_namespace;
    return kubeconfig;
}

LogSinkFn Daemon::live_update_log(const std::string &live_update) {
    return [this, live_update](LogLevel level, std::string_view text) {
        // The LiveUpdate's log first: a line seen in the daemon's log is in `describe` too.
        if (level >= LogLevel::info) activity_.line(live_update, level, text, now());
        log_.write(level, live_update, text);
    };
}

void Daemon::notify_web(const std::string &live_update, const ActivityLine *line) {
    common::MutexLock lock(web_mutex_);
    if (!web_) return;
    if (line != nullptr)
        web_->log_line(live_update, to_json(*line));
    else
        web_->state_changed();
}

}  // namespace

int run_up(const UpOptions &options) {
    UpLog log(options.log_format, options.log_level);
    host::log::set_threshold(options.log_level);
    host::log::set_sink([&log](LogLevel level, std::string_view line) { log.write(level, "", line); });
    install_stop_signals();
    {
        Daemon daemon(options, log);
        try {
            daemon.start();
        } catch (...) {
            daemon.stop();
            host::log::set_sink(nullptr);
            throw;
        }
        wait_for_stop_signal();
        daemon.stop();
    }
    host::log::set_sink(nullptr);
    return 0;
}

}  // namespace liveupdate::host::up
