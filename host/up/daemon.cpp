#include "host/up/daemon.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "host/compose/compose_project.hpp"
#include "host/compose/compose_rebuilder.hpp"
#include "host/core/engine_slot.hpp"
#include "host/core/executor.hpp"
#include "host/core/host_services.hpp"
#include "host/core/install_paths.hpp"
#include "host/core/json_text.hpp"
#include "host/core/object_store.hpp"
#include "host/core/reconcile_driver.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"
#include "host/docker/compose_discovery.hpp"
#include "host/kubernetes/kubernetes_discovery.hpp"
#include "host/reload/hot_reloader.hpp"
#include "host/reload/quiesce_gate.hpp"
#include "host/up/activity.hpp"
#include "host/up/admission_warnings.hpp"
#include "host/up/control_socket.hpp"
#include "host/up/due_queue.hpp"
#include "host/up/file_watches.hpp"
#include "host/up/local_container_supervisor.hpp"
#include "host/up/object_files.hpp"
#include "host/up/trigger_queue.hpp"
#include "host/verify/first_sight.hpp"
#include "host/verify/repaired_failures.hpp"
#include "host/verify/verifier.hpp"
#include "host/verify/verify_schedule.hpp"
#include "host/web/web_server.hpp"
#include "liveupdate/ext/digest.h"

namespace liveupdate::host::up {
namespace json = boost::json;
using common::LogLevel;
using host::ObjectKey;

namespace {

constexpr std::size_t kRecentLogLines = 50;
constexpr int kSettleRetries = 20;
constexpr auto kSettleStep = std::chrono::milliseconds(100);
// Differences listed in a LiveUpdate's log per container and check.
constexpr std::size_t kVerifyLinesLogged = 20;
// TreeWatcher's warning when the kernel dropped events (the trees are rescanned, changes may be lost).
constexpr std::string_view kOverflowWarning = "inotify queue overflow";

int g_signal_pipe[2] = {-1, -1};
std::atomic<int> g_signals{0};

// The first signal starts a clean stop. Tools like timeout(1) send a second
// one to the whole group, so only a third one gives up waiting.
void on_signal(int) {
    if (g_signals.fetch_add(1) >= 2) ::_exit(130);
    const char byte = 1;
    if (::write(g_signal_pipe[1], &byte, 1) < 0) {
        // Nothing can be done in a signal handler; the pipe is never full here.
    }
}

void install_signal_handlers() {
    if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create the signal pipe");
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

void wait_for_signal() {
    char byte = 0;
    while (::read(g_signal_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
}

std::vector<std::string> strings_of(const json::value *v) {
    std::vector<std::string> out;
    if (v != nullptr && v->is_array())
        for (const auto &s : v->as_array())
            if (s.is_string()) out.emplace_back(s.as_string());
    return out;
}

// Its annotation tilt.dev/resource: the name the trigger queue uses.
std::string manifest_of(const json::object &live_update) {
    const json::value *meta = live_update.if_contains("metadata");
    const json::value *annotations = meta != nullptr && meta->is_object() ? meta->as_object().if_contains("annotations") : nullptr;
    return annotations != nullptr ? host::string_member(*annotations, "tilt.dev/resource") : std::string();
}

common::MicroTime now() { return common::MicroTime::from_system(std::chrono::system_clock::now()); }

// Absolute and normal, without a trailing "/": "objects/" names the folder "objects",
// as the watcher's paths and the object file names spell it.
std::string absolute_path(const std::string &given) {
    std::filesystem::path abs = std::filesystem::absolute(given).lexically_normal();
    if (!abs.has_filename() && abs.has_parent_path() && abs != abs.root_path()) abs = abs.parent_path();
    return abs.string();
}

class Daemon;

// A Compose project's objects are filed under its first compose file.
std::string compose_key(const ComposeProjectOption &project) {
    return std::filesystem::absolute(project.files.front()).lexically_normal().string();
}

// The host extension LU_HOST_LOCAL_CONTAINERS_ID, backed by the supervisor.
class SupervisedContainers : public host::LocalContainers {
public:
    explicit SupervisedContainers(LocalContainerSupervisor &s) : supervisor_(s) {}
    void restart(const lu_container_ref &c) override { supervisor_.restart(name_or_id(c)); }
    std::optional<host::LocalProcess> process(const lu_container_ref &c) override {
        const std::optional<LocalContainerSpec> spec = supervisor_.spec(name_or_id(c));
        if (!spec) return std::nullopt;
        return host::LocalProcess{spec->env, spec->working_dir};
    }

private:
    static std::string name_or_id(const lu_container_ref &c) {
        const std::string name = c.container_name != nullptr ? c.container_name : "";
        return !name.empty() ? name : (c.container_id != nullptr ? c.container_id : "");
    }

    LocalContainerSupervisor &supervisor_;
};

class Daemon {
public:
    Daemon(const UpOptions &options, UpLog &log) : options_(options), log_(log) {}

    void start();
    void stop();

private:
    struct Declared {
        std::string file;
        std::string text;
    };
    struct Rejection {
        std::string file;
        json::value errors;
        std::string message;
    };

    void load_all();
    void reload_file(const std::string &file);
    bool is_folder_given(const std::string &given, const std::string &path);
    void reload_folder(const std::string &dir);
    // Replaces the objects declared by file (an object file, or a Compose
    // project's first file) with those of load; gone ones are removed.
    void replace_file_objects(const std::string &file, const FileLoad &load);
    FileLoad load_compose(const ComposeProjectOption &project);
    // A batch of changes on a rebuild rule's FileWatch rebuilds its service.
    void rebuild_if_asked(const json::object &file_watch);
    void apply(const DeclaredObject &d);
    void remove_object(const ObjectKey &key);
    void upsert(const json::object &object, const std::string &origin);
    // Admits and stores it; returns the LiveUpdates it makes due, unmarked.
    std::vector<std::string> store(const json::object &object, const std::string &origin);
    void on_container_status(const std::string &name, const json::object &status);
    void apply_compose_service(const DeclaredObject &d, const std::string &origin);
    void on_compose_status(const std::string &name, const json::object &status);
    void apply_kubernetes_discovery(const DeclaredObject &d, const std::string &origin);
    void on_discovered_status(const std::string &kind, const std::string &name, const json::object &status);
    void reconcile(const std::string &live_update);
    void notify_web(const std::string &live_update, const ActivityLine *line);
    json::value handle_control(const json::object &request);
    json::value trigger(const json::value *names);
    // `lu-host verify`: {"names": [...] (none: all), "fix": bool} → {"liveUpdates": [report...]}.
    json::value verify(const json::object &request);
    std::vector<verify::LiveUpdateReport> verify_live_updates(const std::vector<std::string> &names, bool repair,
                                                              bool delete_extra = false);
    // The LiveUpdates the daemon verifies on its own: neither manual nor failed.
    std::vector<std::string> scheduled_live_updates() const;
    // Why to verify now: a container synced into before this daemon started, not yet checked.
    std::optional<std::string> unchecked_containers();
    void log_verify(const verify::LiveUpdateReport &report, const std::string &reason);
    void verify_on_schedule(const std::string &reason);
    // Why to verify now: an updater reconnected to a container since the last look.
    std::optional<std::string> reconnected_updaters();
    // Held by a reconcile of the LiveUpdate and by its verification.
    std::shared_ptr<std::mutex> lock_of(const std::string &live_update);
    host::LogSinkFn live_update_log(const std::string &live_update);
    std::vector<std::string> live_updates_of(const std::string &manifest) const;
    void take_off_trigger_queue(const std::vector<std::string> &manifests);

    const UpOptions &options_;
    UpLog &log_;
    host::ObjectStore store_;
    std::unique_ptr<host::EngineSlot> engine_;
    reload::QuiesceGate gate_;  // reconciles pass it; hot reload closes it
    std::shared_ptr<host::UpdaterHostServices> services_;
    host::UpdaterRegistry updaters_;
    std::unique_ptr<host::SyncedRecords> synced_;
    std::unique_ptr<host::Executor> executor_;
    std::unique_ptr<host::ReconcileDriver> driver_;
    DueQueue queue_;
    std::unique_ptr<LocalContainerSupervisor> containers_;
    std::unique_ptr<host::docker::ComposeDiscovery> compose_;  // made with the first DockerComposeService
    std::unique_ptr<host::kubernetes::KubernetesDiscovery> kubernetes_;  // made with the first KubernetesDiscovery
    std::unique_ptr<FileWatches> file_watches_;
    std::unique_ptr<TreeWatcher> object_file_watcher_;
    std::unique_ptr<ControlServer> control_;
    std::unique_ptr<reload::HotReloader> hot_reload_;
    TriggerTracker triggers_;
    Activity activity_;
    std::mutex web_mutex_;  // guards web_: it goes first when the daemon stops
    std::unique_ptr<web::WebServer> web_;
    std::mutex trigger_queue_mutex_;  // one read-modify-write of the trigger queue at a time
    std::unique_ptr<verify::Verifier> verifier_;
    std::unique_ptr<verify::FirstSight> first_sight_;
    std::unique_ptr<verify::VerifySchedule> verify_schedule_;
    std::mutex verify_mutex_;  // guards the maps below
    std::map<std::string, std::shared_ptr<std::mutex>> live_update_locks_;
    std::map<std::string, std::pair<std::weak_ptr<const host::Updater>, std::uint64_t>> reconnects_seen_;
    std::map<std::string, std::string> verify_error_logged_;  // LiveUpdate → its last scheduled check's error

    std::mutex mutex_;  // guards the maps below
    std::map<std::string, std::vector<ObjectKey>> keys_of_file_;
    std::map<ObjectKey, Declared> declared_;  // the declaration in use
    // Every file's declaration of a key, the one in use last: when a file stops
    // declaring it, another file's declaration takes over.
    std::map<ObjectKey, std::vector<DeclaredObject>> declarations_;
    std::map<std::string, Rejection> rejected_;  // LiveUpdate name → why admission refused it
    std::map<std::string, std::string> container_state_logged_;  // LocalContainer → "ID state"
    std::vector<std::set<std::string>> compose_watched_;  // per Compose project: its files and .env
    std::vector<std::map<std::string, compose::RebuildJob>> compose_rebuilds_;  // per project: FileWatch → job
    std::unique_ptr<compose::ComposeRebuilder> rebuilder_;  // made with the first rebuild rule
};

void Daemon::start() {
    const common::MicroTime start_time = now();
    // From a private copy: the plugin file may be rebuilt in place while its code runs (hot reload).
    // Every plugin is first loaded in a child (this very program): one that crashes when loaded is refused.
    const host::LoadOptions load{.private_copy = true, .prober = "/proc/self/exe"};
    engine_ = std::make_unique<host::EngineSlot>(options_.plugin, start_time, load);
    containers_ = std::make_unique<LocalContainerSupervisor>(
        [this](const std::string &name, const json::object &status) { on_container_status(name, status); },
        [this](const std::string &name, std::string_view line) { log_.write(LogLevel::info, name, line); });
    services_ = std::make_shared<host::UpdaterHostServices>();
    services_->set_local_containers(std::make_shared<SupervisedContainers>(*containers_));
    reload::HotReloadOptions reload_options;
    reload_options.liveupdate_plugin = options_.plugin;
    reload_options.defaults["local"] = reload::UpdaterChoice{options_.local_updater, options_.local_updater_config};
    for (const auto &[via, file] : options_.extra_updaters) reload_options.defaults[via] = reload::UpdaterChoice{file, "{}"};
    if (auto k = reload_options.defaults.find("kubernetes"); k != reload_options.defaults.end()) {
        json::object settings;
        if (!options_.kubeconfig.empty()) settings["kubeconfig"] = options_.kubeconfig;
        if (!options_.kube_context.empty()) settings["context"] = options_.kube_context;
        k->second.settings = json::serialize(settings);
    }
    reload_options.config = options_.updater_config;
    reload_options.load = load;
    reload_options.resolve_name = [](std::string_view name) { return host::updater_plugin(name); };
    hot_reload_ = std::make_unique<reload::HotReloader>(*engine_, gate_, updaters_, services_, std::move(reload_options));
    hot_reload_->start();
    synced_ = std::make_unique<host::SyncedRecords>(options_.state_dir.empty() ? host::default_synced_folder()
                                                                               : options_.state_dir);
    executor_ = std::make_unique<host::Executor>(updaters_, synced_.get());
    driver_ = std::make_unique<host::ReconcileDriver>(
        *engine_, *executor_, store_, [] { return now(); },
        [this](const std::string &lu, LogLevel level, std::string_view text) {
            log_.write(level, lu, text);
            if (level >= LogLevel::info) activity_.line(lu, level, text, now());
        });
    verifier_ = std::make_unique<verify::Verifier>(updaters_, *executor_);
    first_sight_ = std::make_unique<verify::FirstSight>(*synced_);
    if (options_.verify_every.count() > 0 || options_.verify_after_loss) {
        verify::VerifySchedule::ProbeFn probe;
        if (options_.verify_after_loss)
            probe = [this] {
                auto reason = reconnected_updaters();
                return reason ? reason : unchecked_containers();
            };
        verify_schedule_ = std::make_unique<verify::VerifySchedule>(
            verify::VerifySchedule::Timing{options_.verify_every}, [this](const std::string &reason) { verify_on_schedule(reason); },
            std::move(probe));
    }
    file_watches_ = std::make_unique<FileWatches>(
        WatchTiming{options_.debounce, options_.max_wait, std::chrono::milliseconds(500)},
        [this](const json::object &fw) {
            rebuild_if_asked(fw);
            return store(fw, "FileWatch");
        },
        [this](const std::vector<std::string> &due) { queue_.mark_due(due); },
        [this](const std::string &warning) {
            log_.write(LogLevel::warn, "", warning);
            if (options_.verify_after_loss && verify_schedule_ && warning.starts_with(kOverflowWarning))
                verify_schedule_->request(std::string(kOverflowWarning));
        });
    control_ = std::make_unique<ControlServer>(options_.control_socket,
                                               [this](const json::object &r) { return handle_control(r); });
    activity_.set_listener([this](const std::string &lu, const ActivityLine *line) { notify_web(lu, line); });
    store_.add_listener([this](const host::ObjectChange &) { notify_web("", nullptr); });
    if (options_.web) {
        auto server = std::make_unique<web::WebServer>(
            web::WebOptions{options_.web_address, options_.web_port, !options_.web_port_given},
            [this](const json::object &r) { return handle_control(r); });
        if (options_.web_port != 0 && server->port() != options_.web_port)
            log_.write(LogLevel::warn, "", "up: port " + std::to_string(options_.web_port) +
                                               " is taken (another lu-host up?): the status page takes another");
        log_.write(LogLevel::info, "", "up: status page " + server->url());
        std::lock_guard<std::mutex> lock(web_mutex_);
        web_ = std::move(server);
    }

    load_all();
    queue_.start(options_.workers, [this](const std::string &lu) { reconcile(lu); });

    std::vector<std::string> roots;
    for (const auto &p : options_.paths) roots.push_back(absolute_path(p));
    // A Compose project: the folders of its files and of its .env.
    for (const auto &project : options_.compose_projects) {
        for (const auto &file : project.files) {
            const std::string dir = std::filesystem::path(absolute_path(file)).parent_path().string();
            if (std::find(roots.begin(), roots.end(), dir) == roots.end()) roots.push_back(dir);
        }
    }
    // Only files directly in a given folder are object files: its subfolders
    // (often a sample's sources and container) need no watching here.
    const auto below_a_root = [roots](const std::string &dir) {
        if (std::find(roots.begin(), roots.end(), dir) != roots.end()) return false;
        for (const auto &root : roots)
            if (dir.size() > root.size() && dir.compare(0, root.size(), root) == 0 && dir[root.size()] == '/')
                return true;
        return false;
    };
    const auto in_a_subfolder = [below_a_root](const std::string &path) {
        return below_a_root(std::filesystem::path(path).parent_path().string());
    };
    object_file_watcher_ = std::make_unique<TreeWatcher>(
        roots, WatchFilter{in_a_subfolder, below_a_root},
        WatchTiming{std::chrono::milliseconds(50), std::chrono::seconds(2), std::chrono::milliseconds(500)},
        [this](const std::vector<std::string> &paths) {
            std::set<std::string> folders, files;
            std::set<std::size_t> projects;
            for (const auto &p : paths) {
                for (const auto &given : options_.paths) {
                    if (is_folder_given(given, p))
                        folders.insert(p);
                    else if (is_object_file_of(given, p))
                        files.insert(p);
                }
                std::lock_guard<std::mutex> lock(mutex_);
                for (std::size_t i = 0; i < compose_watched_.size(); ++i)
                    if (compose_watched_[i].count(p) != 0) projects.insert(i);
            }
            for (const auto &f : folders) reload_folder(f);
            for (const auto &f : files) reload_file(f);
            for (const std::size_t i : projects) {
                const auto &project = options_.compose_projects[i];
                log_.write(LogLevel::info, "", project.files.front() + ": changed, reloading the Compose project");
                replace_file_objects(compose_key(project), load_compose(project));
            }
        },
        [this](const std::string &warning) { log_.write(LogLevel::warn, "", warning); });
    object_file_watcher_->wait_ready();
    log_.write(LogLevel::info, "",
               "up: watching " + std::to_string(keys_of_file_.size()) + " object file(s); control socket " +
                   control_->path());
}

void Daemon::stop() {
    log_.write(LogLevel::info, "", "up: stopping (finishing updates in flight)");
    std::unique_ptr<web::WebServer> web;
    {
        std::lock_guard<std::mutex> lock(web_mutex_);
        web = std::move(web_);
    }
    web.reset();  // first: its requests reach every part below
    object_file_watcher_.reset();
    if (file_watches_) file_watches_->stop_all();
    verify_schedule_.reset();  // lets a check in progress finish
    std::unique_ptr<compose::ComposeRebuilder> rebuilder;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        rebuilder = std::move(rebuilder_);
    }
    rebuilder.reset();  // outside the lock: its lines are remembered under it
    std::unique_ptr<host::docker::ComposeDiscovery> compose;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        compose = std::move(compose_);
    }
    compose.reset();  // outside the lock: its callbacks take it
    std::unique_ptr<host::kubernetes::KubernetesDiscovery> kubernetes;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        kubernetes = std::move(kubernetes_);
    }
    kubernetes.reset();
    queue_.stop();
    if (containers_) containers_->stop_all();
    control_.reset();
    hot_reload_.reset();  // after the control socket, which lists its plugins
    log_.write(LogLevel::info, "", "up: stopped");
}

void Daemon::load_all() {
    std::vector<DeclaredObject> all;
    for (const auto &given : options_.paths) {
        for (const auto &file : object_files_of(given)) {
            FileLoad load = load_object_file(file);
            for (const auto &e : load.errors) log_.write(LogLevel::error, "", e);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                keys_of_file_[file];
            }
            for (auto &o : load.objects) all.push_back(std::move(o));
        }
    }
    for (const auto &project : options_.compose_projects) {
        FileLoad load = load_compose(project);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            keys_of_file_[load.file];
        }
        for (auto &o : load.objects) all.push_back(std::move(o));
    }
    // Objects a LiveUpdate refers to first: fewer transient "not found" states.
    auto rank = [](const std::string &kind) { return kind == "FileWatch" ? 0 : kind == "LiveUpdate" ? 2 : 1; };
    std::stable_sort(all.begin(), all.end(),
                     [&](const DeclaredObject &a, const DeclaredObject &b) { return rank(a.kind) < rank(b.kind); });
    for (const auto &d : all) apply(d);
}

// Objects of a Compose project, declared by its first file; its errors and
// warnings are logged here (file:line:column: why).
FileLoad Daemon::load_compose(const ComposeProjectOption &project) {
    const compose::ProjectLoad loaded = compose::load_compose_project({project.files, project.name},
                                                                      compose::process_environment());
    FileLoad load;
    load.file = compose_key(project);
    for (const auto &w : loaded.warnings) log_.write(LogLevel::warn, "", w);
    for (const auto &e : loaded.errors) log_.write(LogLevel::error, "", e);
    load.errors = loaded.errors;
    for (const auto &o : loaded.objects) {
        const std::string kind(o.at("kind").as_string());
        const std::string name(o.at("metadata").at("name").as_string());
        load.objects.push_back({load.file, kind, name, o});
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::set<std::string> watched(loaded.watched_files.begin(), loaded.watched_files.end());
        const auto index = static_cast<std::size_t>(&project - options_.compose_projects.data());
        if (compose_watched_.size() <= index) compose_watched_.resize(index + 1);
        compose_watched_[index] = std::move(watched);
        if (compose_rebuilds_.size() <= index) compose_rebuilds_.resize(index + 1);
        if (loaded.errors.empty() || !load.objects.empty()) {
            compose_rebuilds_[index].clear();
            for (const auto &[watch, service] : loaded.rebuild_watches)
                compose_rebuilds_[index][watch] =
                    compose::RebuildJob{loaded.name, loaded.files, loaded.directory, service};
        }
        if (!loaded.rebuild_watches.empty() && !rebuilder_)
            rebuilder_ = std::make_unique<compose::ComposeRebuilder>(
                [this](const std::string &service, std::string_view line, bool error) {
                    const LogLevel level = error ? LogLevel::error : LogLevel::info;
                    log_.write(level, service, line);
                    activity_.line(service, level, line, now());
                });
    }
    if (!loaded.name.empty())
        log_.write(LogLevel::info, "",
                   load.file + ": Compose project " + loaded.name + ", " + std::to_string(load.objects.size()) +
                       " object(s)");
    return load;
}

void Daemon::rebuild_if_asked(const json::object &file_watch) {
    const std::string name = host::string_member(file_watch.at("metadata"), "name");
    std::lock_guard<std::mutex> lock(mutex_);
    if (!rebuilder_) return;
    for (const auto &rebuilds : compose_rebuilds_)
        if (auto found = rebuilds.find(name); found != rebuilds.end()) rebuilder_->request(found->second);
}

void Daemon::reload_file(const std::string &file) {
    std::error_code ec;
    FileLoad load;
    load.file = file;
    if (std::filesystem::exists(file, ec)) {
        load = load_object_file(file);
        // A file written in place (not renamed into it) may be caught half-written: retry while the write settles.
        for (int retry = 0; load.incomplete && retry < kSettleRetries; ++retry) {
            std::this_thread::sleep_for(kSettleStep);
            load = load_object_file(file);
        }
        for (const auto &e : load.errors) log_.write(LogLevel::error, "", e);
    }
    replace_file_objects(file, load);
}

void Daemon::replace_file_objects(const std::string &file, const FileLoad &load) {
    std::error_code ec;
    if (load.objects.empty() && !load.errors.empty()) {
        log_.write(LogLevel::error, "", file + ": not loaded, its objects stay as they were");
        return;
    }
    std::vector<ObjectKey> gone;
    std::vector<DeclaredObject> fallbacks;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::set<ObjectKey> now_declared;
        for (const auto &o : load.objects) now_declared.insert(ObjectKey{o.kind, o.name});
        for (const auto &key : keys_of_file_[file]) {
            if (now_declared.count(key) != 0) continue;
            auto &decls = declarations_[key];
            const bool in_use = !decls.empty() && decls.back().file == file;
            std::erase_if(decls, [&](const DeclaredObject &o) { return o.file == file; });
            if (decls.empty()) {
                declarations_.erase(key);
                gone.push_back(key);
            } else if (in_use) {
                fallbacks.push_back(decls.back());
            }
        }
        keys_of_file_[file].assign(now_declared.begin(), now_declared.end());
        if (load.objects.empty() && !std::filesystem::exists(file, ec)) keys_of_file_.erase(file);
    }
    for (const auto &key : gone) {
        log_.write(LogLevel::info, "", file + ": " + key.text() + " removed");
        remove_object(key);
    }
    for (const auto &d : fallbacks) {
        log_.write(LogLevel::info, "",
                   file + ": no longer declares " + ObjectKey{d.kind, d.name}.text() + "; using its declaration in " +
                       d.file);
        apply(d);
    }
    for (const auto &o : load.objects) apply(o);
}

// A given folder is the folder the daemon was given, that is or was a folder.
bool Daemon::is_folder_given(const std::string &given, const std::string &path) {
    if (absolute_path(given) != path) return false;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return true;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &[file, keys] : keys_of_file_)
        if (std::filesystem::path(file).parent_path() == path) return true;
    return false;
}

// The folder itself moved away (or was deleted), or came back: each of its
// object files goes, or comes back, as a file would.
void Daemon::reload_folder(const std::string &dir) {
    std::error_code ec;
    const bool present = std::filesystem::is_directory(dir, ec);
    std::set<std::string> files;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto &[file, keys] : keys_of_file_)
            if (std::filesystem::path(file).parent_path() == dir) files.insert(file);
    }
    if (present) {
        for (const auto &f : object_files_of(dir)) files.insert(f);
        log_.write(LogLevel::info, "", "objects folder " + dir + " is there (again): loading its object files");
    } else {
        log_.write(LogLevel::warn, "",
                   "objects folder " + dir +
                       " was moved away or deleted: the objects of its files are removed until it is back");
    }
    for (const auto &f : files) reload_file(f);
}

void Daemon::apply(const DeclaredObject &d) {
    const ObjectKey key{d.kind, d.name};
    const std::string text = json::serialize(d.object);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto &keys = keys_of_file_[d.file];
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
        auto &decls = declarations_[key];
        std::erase_if(decls, [&](const DeclaredObject &o) { return o.file == d.file; });
        decls.push_back(d);
        auto found = declared_.find(key);
        if (found != declared_.end()) {
            if (found->second.file == d.file && found->second.text == text) return;
            if (found->second.file != d.file && decls.size() > 1)
                log_.write(LogLevel::warn, "",
                           key.text() + " is declared in " + found->second.file + " and in " + d.file + "; using " +
                               d.file);
        }
        declared_[key] = Declared{d.file, text};
    }
    const std::string origin = d.file + ": " + key.text();
    for (const auto &warning : admission_warnings(d.object))
        log_.write(LogLevel::warn, "", std::string(origin).append(": ").append(warning));
    if (d.kind == "FileWatch") {
        const json::object with_status = file_watches_->apply(d.object);
        if (const auto *status = with_status.at("status").as_object().if_contains("error"))
            log_.write(LogLevel::error, "", origin + ": " + std::string(status->as_string()));
        upsert(with_status, origin);
    } else if (d.kind == "DockerComposeService") {
        apply_compose_service(d, origin);
    } else if (d.kind == "KubernetesDiscovery") {
        apply_kubernetes_discovery(d, origin);
    } else if (d.kind == "LocalContainer") {
        LocalContainerSpec spec;
        try {
            spec = parse_local_container_spec(d.object);
        } catch (const std::invalid_argument &e) {
            log_.write(LogLevel::error, "", origin + ": rejected: " + e.what());
            return;
        }
        const bool was_running = containers_->spec(d.name).has_value();
        containers_->apply(d.name, spec);
        if (was_running)
            if (auto status = containers_->status(d.name)) on_container_status(d.name, *status);
    } else {
        // LiveUpdate and every other kind go to the engine as they are.
        upsert(d.object, origin);
    }
}

// Upserts into the engine (and the store); marks the LiveUpdates it makes due.
void Daemon::upsert(const json::object &object, const std::string &origin) { queue_.mark_due(store(object, origin)); }

std::vector<std::string> Daemon::store(const json::object &object, const std::string &origin) {
    const std::string text = json::serialize(object);
    const json::object result = engine_->with_engine([&](const host::Engine &e) { return e.upsert(text); });
    const json::value *accepted = result.if_contains("accepted");
    const bool ok = accepted != nullptr && accepted->is_bool() && accepted->as_bool();
    const ObjectKey key = host::key_of(object);
    if (!ok) {
        const json::value *errors = result.if_contains("errors");
        if (errors != nullptr && errors->is_array() && !errors->as_array().empty()) {
            for (const auto &e : errors->as_array())
                log_.write(LogLevel::error, "",
                           origin + ": rejected: " + host::string_member(e, "field") + ": " +
                               host::string_member(e, "message"));
        } else {
            log_.write(LogLevel::error, "", origin + ": rejected: " + host::string_member(result, "message"));
        }
        if (key.kind == "LiveUpdate") {
            std::lock_guard<std::mutex> lock(mutex_);
            rejected_[key.name] = Rejection{origin.substr(0, origin.rfind(": ")),
                                            errors != nullptr ? *errors : json::value(json::array()),
                                            host::string_member(result, "message")};
        }
        return {};
    }
    if (key.kind == "LiveUpdate") {
        std::lock_guard<std::mutex> lock(mutex_);
        rejected_.erase(key.name);
    }
    // Stored before any reconcile can run: its status is written into the store.
    // A LiveUpdate keeps the status its reconciles wrote.
    store_.put(object, key.kind == "LiveUpdate");
    return strings_of(result.if_contains("due"));
}

void Daemon::on_container_status(const std::string &name, const json::object &status) {
    json::object object;
    const std::string id = host::string_member(status, "containerID");
    const json::value *state = status.if_contains("containerState");
    const std::string phase = state != nullptr ? host::string_member(*state, "status") : "";
    std::string news;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = declared_.find(ObjectKey{"LocalContainer", name});
        if (found == declared_.end()) return;
        object = json::parse(found->second.text).as_object();
        std::string &logged = container_state_logged_[name];
        if (logged != id + " " + phase) {
            logged = id + " " + phase;
            news = "LocalContainer/" + name + " " + phase + " (" + id + ")";
            if (phase == "exited" && state != nullptr && state->as_object().contains("exitCode"))
                news += ", exit code " + json::serialize(state->at("exitCode"));
            if (state != nullptr && state->as_object().contains("error"))
                news += ": " + host::string_member(*state, "error");
        }
    }
    if (!news.empty()) log_.write(phase == "exited" ? LogLevel::warn : LogLevel::info, "", news);
    object["status"] = status;
    upsert(object, "LocalContainer/" + name);
}

// A DockerComposeService keeps the status discovery last reported; discovery
// follows its service's container on the Docker engine from then on.
void Daemon::apply_compose_service(const DeclaredObject &d, const std::string &origin) {
    const auto service = host::docker::compose_service_of(d.object);
    if (!service) {
        log_.write(LogLevel::warn, "", origin + ": no spec.service and spec.project.name, so its container is not discovered");
        upsert(d.object, origin);
        return;
    }
    host::docker::ComposeDiscovery *discovery = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!compose_)
            compose_ = std::make_unique<host::docker::ComposeDiscovery>(
                host::docker::ComposeDiscovery::Options{},
                [this](const std::string &name, const json::object &status) { on_compose_status(name, status); },
                [this](std::string_view warning) { log_.write(LogLevel::warn, "", warning); });
        discovery = compose_.get();
    }
    json::object object = d.object;
    if (auto status = discovery->status(d.name)) object["status"] = *status;
    upsert(object, origin);
    discovery->watch(d.name, *service);
}

void Daemon::on_compose_status(const std::string &name, const json::object &status) {
    json::object object;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = declared_.find(ObjectKey{"DockerComposeService", name});
        if (found == declared_.end()) return;
        object = json::parse(found->second.text).as_object();
    }
    object["status"] = status;
    upsert(object, "DockerComposeService/" + name);
}

// A KubernetesDiscovery keeps the pods discovery last reported; discovery
// follows them on the API server from then on.
void Daemon::apply_kubernetes_discovery(const DeclaredObject &d, const std::string &origin) {
    host::kubernetes::DiscoverySpec spec;
    try {
        spec = host::kubernetes::discovery_spec_of(d.object);
    } catch (const std::invalid_argument &e) {
        log_.write(LogLevel::error, "", origin + ": its pods are not discovered: " + e.what());
        upsert(d.object, origin);
        return;
    }
    host::kubernetes::KubernetesDiscovery *discovery = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!kubernetes_) {
            host::kubernetes::KubernetesDiscovery::Options o;
            o.kubeconfig.kubeconfig = options_.kubeconfig;
            o.kubeconfig.context = options_.kube_context;
            o.kubeconfig.namespace_name = options_.kube_namespace;
            kubernetes_ = std::make_unique<host::kubernetes::KubernetesDiscovery>(
                std::move(o),
                [this](const std::string &name, const json::object &status) {
                    on_discovered_status("KubernetesDiscovery", name, status);
                },
                [this](std::string_view warning) { log_.write(LogLevel::warn, "", warning); });
        }
        discovery = kubernetes_.get();
    }
    json::object object = d.object;
    if (auto status = discovery->status(d.name)) object["status"] = *status;
    upsert(object, origin);
    discovery->watch(d.name, std::move(spec));
}

void Daemon::on_discovered_status(const std::string &kind, const std::string &name, const json::object &status) {
    json::object object;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = declared_.find(ObjectKey{kind, name});
        if (found == declared_.end()) return;
        object = json::parse(found->second.text).as_object();
    }
    object["status"] = status;
    upsert(object, kind + "/" + name);
}

void Daemon::remove_object(const ObjectKey &key) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        declared_.erase(key);
        declarations_.erase(key);
        if (key.kind == "LiveUpdate") rejected_.erase(key.name);
    }
    if (key.kind == "FileWatch") file_watches_->remove(key.name);
    if (key.kind == "LiveUpdate") {
        file_watches_->forget(key.name);
        activity_.forget(key.name);
        take_off_trigger_queue(triggers_.forget(key.name));
    }
    if (key.kind == "LocalContainer") containers_->remove(key.name);
    if (key.kind == "DockerComposeService") {
        std::lock_guard<std::mutex> lock(mutex_);
        if (compose_) compose_->unwatch(key.name);
    }
    if (key.kind == "KubernetesDiscovery") {
        std::lock_guard<std::mutex> lock(mutex_);
        if (kubernetes_) kubernetes_->unwatch(key.name);
    }
    const json::object result =
        engine_->with_engine([&](const host::Engine &e) { return e.remove(key.kind, key.name); });
    store_.remove(key);
    std::vector<std::string> due = strings_of(result.if_contains("due"));
    if (key.kind == "LiveUpdate") due.push_back(key.name);  // lets the plugin drop its state
    queue_.mark_due(due);
}

void Daemon::reconcile(const std::string &live_update) {
    const std::uint64_t trigger_generation = triggers_.generation();
    activity_.began(live_update);
    std::vector<json::object> events;
    {
        const std::shared_ptr<std::mutex> held = lock_of(live_update);
        const std::lock_guard<std::mutex> one_at_a_time(*held);  // a verification of it waits, and the other way round
        const reload::QuiesceGate::Pass pass = gate_.enter();  // a hot reload waits for it, and holds the next
        try {
            const std::uint64_t seen = file_watches_->visible();
            host::ReconcileResult r = driver_->reconcile(live_update);
            // A FileEvent may be dropped once every LiveUpdate it concerns has seen it.
            file_watches_->reconciled(live_update, seen);
            for (const auto &event : r.events)
                log_.write(LogLevel::debug, live_update, "event " + json::serialize(event));
            events = std::move(r.events);
        } catch (const std::exception &e) {
            log_.write(LogLevel::error, live_update, std::string("reconcile failed: ") + e.what());
        }
    }
    activity_.finished(live_update, events, now());
    // Outside the pass: taking a manifest off the queue goes through the engine.
    take_off_trigger_queue(triggers_.reconciled(live_update, trigger_generation));
}

std::vector<std::string> Daemon::live_updates_of(const std::string &manifest) const {
    std::vector<std::string> out;
    for (const auto &lu : store_.list("LiveUpdate"))
        if (manifest_of(lu) == manifest) out.push_back(host::string_member(lu.at("metadata"), "name"));
    return out;
}

// `lu-host trigger`: every name is checked before anything is queued.
json::value Daemon::trigger(const json::value *names) {
    if (names == nullptr || !names->is_array() || names->as_array().empty())
        return json::object{{"error", "trigger needs \"names\": a list of LiveUpdate names"}};
    std::vector<std::string> manifests;
    json::array triggered;
    for (const auto &n : names->as_array()) {
        const std::string name = n.is_string() ? std::string(n.as_string()) : json::serialize(n);
        const std::optional<json::object> lu = store_.get(ObjectKey{"LiveUpdate", name});
        if (!lu) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (auto r = rejected_.find(name); r != rejected_.end())
                return json::object{{"error", std::string("LiveUpdate \"")
                                                  .append(name)
                                                  .append("\" was rejected (")
                                                  .append(r->second.message)
                                                  .append("); `lu-host describe liveupdate ")
                                                  .append(name)
                                                  .append("` says why")}};
            return json::object{{"error", "LiveUpdate \"" + name +
                                              "\" not found (`lu-host get liveupdates` lists them)"}};
        }
        const std::string manifest = manifest_of(*lu);
        if (manifest.empty())
            return json::object{{"error", "LiveUpdate \"" + name +
                                              "\" has no tilt.dev/resource annotation: the trigger queue names "
                                              "manifests, so it cannot be triggered"}};
        if (std::find(manifests.begin(), manifests.end(), manifest) == manifests.end()) manifests.push_back(manifest);
        triggered.push_back(json::object{{"name", name}, {"manifest", manifest}});
    }
    std::lock_guard<std::mutex> lock(trigger_queue_mutex_);
    for (const auto &manifest : manifests) {
        const json::object queue = queue_with(store_.get(ObjectKey{"ConfigMap", kTriggerQueueName}), manifest);
        const std::vector<std::string> due = store(queue, "lu-host trigger");
        // Recorded before the reconciles it asks for can run.
        triggers_.queued(manifest, live_updates_of(manifest));
        queue_.mark_due(due);
        log_.write(LogLevel::info, "", "trigger: manifest " + manifest + " queued");
    }
    return json::object{{"triggered", std::move(triggered)}};
}

void Daemon::take_off_trigger_queue(const std::vector<std::string> &manifests) {
    if (manifests.empty()) return;
    std::lock_guard<std::mutex> lock(trigger_queue_mutex_);
    const std::optional<json::object> current = store_.get(ObjectKey{"ConfigMap", kTriggerQueueName});
    if (!current) return;
    std::vector<std::string> due = store(queue_without(*current, {manifests.begin(), manifests.end()}), "lu-host trigger");
    // Reconciled once more, a manual LiveUpdate shows it waits for a trigger again.
    for (const auto &manifest : manifests)
        for (auto &lu : live_updates_of(manifest)) due.push_back(std::move(lu));
    queue_.mark_due(due);
}

std::shared_ptr<std::mutex> Daemon::lock_of(const std::string &live_update) {
    std::lock_guard<std::mutex> lock(verify_mutex_);
    auto &held = live_update_locks_[live_update];
    if (!held) held = std::make_shared<std::mutex>();
    return held;
}

host::LogSinkFn Daemon::live_update_log(const std::string &live_update) {
    return [this, live_update](LogLevel level, std::string_view text) {
        log_.write(level, live_update, text);
        if (level >= LogLevel::info) activity_.line(live_update, level, text, now());
    };
}

std::vector<verify::LiveUpdateReport> Daemon::verify_live_updates(const std::vector<std::string> &names, bool repair,
                                                                  bool delete_extra) {
    // Every LiveUpdate's targets: a target nested in another is left to its own LiveUpdate.
    std::vector<verify::LiveUpdateTargets> all;
    for (const auto &lu : store_.list("LiveUpdate"))
        all.push_back(verify::resolve_targets(host::string_member(lu.at("metadata"), "name"), *engine_));
    std::vector<verify::LiveUpdateReport> reports;
    for (const auto &name : names) {
        const auto found = std::find_if(all.begin(), all.end(), [&](const verify::LiveUpdateTargets &t) { return t.name == name; });
        verify::LiveUpdateTargets targets = found != all.end() ? *found : verify::resolve_targets(name, *engine_);
        if (found == all.end()) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (auto r = rejected_.find(name); r != rejected_.end())
                targets.problem = "LiveUpdate \"" + name + "\" was rejected (" + r->second.message + ")";
        }
        const std::shared_ptr<std::mutex> held = lock_of(name);
        const std::lock_guard<std::mutex> one_at_a_time(*held);
        const reload::QuiesceGate::Pass pass = gate_.enter();  // the updaters stay while it digests
        reports.push_back(verifier_->verify(targets, all, repair, live_update_log(name), delete_extra));
        if (repair) first_sight_->checked(targets);
    }
    return reports;
}

void Daemon::log_verify(const verify::LiveUpdateReport &report, const std::string &reason) {
    const host::LogSinkFn log = live_update_log(report.name);
    for (const auto &c : report.containers) {
        if (c.found.empty()) {
            if (c.error.empty()) log(LogLevel::debug, "verify (" + reason + "): " + c.container + ": in sync");
            continue;
        }
        log(LogLevel::warn, "verify (" + reason + "): " + c.container + ": " + std::to_string(c.found.missing.size()) +
                                " missing, " + std::to_string(c.found.extra.size()) + " extra, " +
                                std::to_string(c.found.different.size()) + " different" +
                                (c.repaired ? "; repaired" : ""));
        for (const auto &line : verify::difference_lines(c.found, kVerifyLinesLogged)) log(LogLevel::info, "- " + line);
        if (c.repaired && !c.remaining.empty()) {
            log(LogLevel::error, "verify: " + c.container + ": " + std::to_string(c.remaining.count()) +
                                     " difference(s) remain after the repair");
            for (const auto &line : verify::difference_lines(c.remaining, kVerifyLinesLogged))
                log(LogLevel::error, "- " + line);
        }
    }
}

json::value Daemon::verify(const json::object &request) {
    std::vector<std::string> names;
    if (const json::value *given = request.if_contains("names"); given != nullptr && !given->is_null()) {
        if (!given->is_array()) return json::object{{"error", "verify takes \"names\": a list of LiveUpdate names"}};
        for (const auto &n : given->as_array())
            names.push_back(n.is_string() ? std::string(n.as_string()) : json::serialize(n));
    } else {
        for (const auto &lu : store_.list("LiveUpdate")) names.push_back(host::string_member(lu.at("metadata"), "name"));
    }
    const json::value *fix = request.if_contains("fix");
    const bool repair = fix != nullptr && fix->is_bool() && fix->as_bool();
    const json::value *extra = request.if_contains("deleteExtra");
    const bool delete_extra = repair && extra != nullptr && extra->is_bool() && extra->as_bool();
    json::array out;
    for (const auto &report : verify_live_updates(names, repair, delete_extra)) {
        log_verify(report,
                   "lu-host verify" + std::string(repair ? " --fix" : "") + (delete_extra ? " --delete-extra" : ""));
        if (repair && verify::clear_repaired_failures(report, *engine_, live_update_log(report.name)))
            queue_.mark_due({report.name});
        out.push_back(verify::to_json(report));
    }
    return json::object{{"liveUpdates", std::move(out)}};
}

std::vector<std::string> Daemon::scheduled_live_updates() const {
    // Left out: a manual LiveUpdate holds its changes until a trigger, and a
    // failed one until a rebuild; a repair would send them behind its back.
    std::vector<std::string> names;
    for (const auto &lu : store_.list("LiveUpdate")) {
        const json::value *meta = lu.if_contains("metadata");
        const json::value *annotations = meta != nullptr ? host::find_member(*meta, "annotations") : nullptr;
        const bool manual =
            annotations != nullptr && host::string_member(*annotations, "tilt.dev/update-mode") == "manual";
        const json::value *status = lu.if_contains("status");
        const json::value *failure = status != nullptr ? host::find_member(*status, "failed") : nullptr;
        const bool failed = failure != nullptr && !failure->is_null();
        if (!manual && !failed) names.push_back(host::string_member(lu.at("metadata"), "name"));
    }
    return names;
}

std::optional<std::string> Daemon::unchecked_containers() {
    std::vector<verify::LiveUpdateTargets> targets;
    for (const auto &name : scheduled_live_updates()) targets.push_back(verify::resolve_targets(name, *engine_));
    if (!first_sight_->any_unchecked(targets)) return std::nullopt;
    return std::string("daemon start: a container synced into before");
}

void Daemon::verify_on_schedule(const std::string &reason) {
    const std::vector<std::string> names = scheduled_live_updates();
    log_.write(LogLevel::debug, "", "verify: checking " + std::to_string(names.size()) + " LiveUpdate(s) (" + reason + ")");
    for (const auto &report : verify_live_updates(names, true)) {
        log_verify(report, reason);
        // What keeps a LiveUpdate from being checked is said once, not at every check.
        std::string error = report.error;
        for (const auto &c : report.containers)
            if (!c.error.empty()) error += (error.empty() ? "" : "; ") + c.container + ": " + c.error;
        std::lock_guard<std::mutex> lock(verify_mutex_);
        std::string &logged = verify_error_logged_[report.name];
        if (error != logged && !error.empty())
            log_.write(LogLevel::warn, report.name,
                       std::string("verify (").append(reason).append("): cannot check: ").append(error));
        logged = error;
    }
}

std::optional<std::string> Daemon::reconnected_updaters() {
    std::vector<std::string> reconnected;
    for (const auto &via : updaters_.classes()) {
        const std::shared_ptr<const host::Updater> updater = updaters_.find(via);
        if (!updater) continue;
        const auto *table = static_cast<const lu_digest_extension *>(updater->extension(LU_DIGEST_EXTENSION_ID));
        constexpr std::size_t needed = offsetof(lu_digest_extension, reconnect_count) + sizeof(table->reconnect_count);
        if (table == nullptr || table->struct_size < needed || table->reconnect_count == nullptr) continue;
        const std::uint64_t count = table->reconnect_count(updater->handle());
        std::lock_guard<std::mutex> lock(verify_mutex_);
        auto &[seen_updater, seen_count] = reconnects_seen_[via];
        // Every updater counts from zero when loaded (a hot reload too): one not
        // looked at before has reconnected when its count is above zero.
        const std::uint64_t before = seen_updater.lock() == updater ? seen_count : 0;
        if (count > before) reconnected.push_back(via);
        seen_updater = updater;
        seen_count = count;
    }
    if (reconnected.empty()) return std::nullopt;
    std::string reason = "the ";
    for (std::size_t i = 0; i < reconnected.size(); ++i) reason += (i > 0 ? ", " : "") + reconnected[i];
    return reason + " updater reconnected to a container";
}

void Daemon::notify_web(const std::string &live_update, const ActivityLine *line) {
    std::lock_guard<std::mutex> lock(web_mutex_);
    if (!web_) return;
    if (line != nullptr)
        web_->log_line(live_update, to_json(*line));
    else
        web_->state_changed();
}

json::value Daemon::handle_control(const json::object &request) {
    const std::string op = host::string_member(request, "op");
    const std::string kind = host::string_member(request, "kind", "LiveUpdate");
    if (op == "get") {
        json::array items;
        for (auto &o : store_.list(kind)) items.push_back(std::move(o));
        json::array rejected;
        if (kind == "LiveUpdate") {
            std::lock_guard<std::mutex> lock(mutex_);
            for (const auto &[name, r] : rejected_)
                rejected.push_back(json::object{{"name", name}, {"file", r.file}, {"errors", r.errors},
                                                {"message", r.message}});
        }
        return json::object{{"kind", "List"}, {"items", std::move(items)}, {"rejected", std::move(rejected)}};
    }
    if (op == "describe") {
        const std::string name = host::string_member(request, "name");
        json::object answer;
        if (auto o = store_.get(ObjectKey{kind, name})) answer["object"] = std::move(*o);
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto d = declared_.find(ObjectKey{kind, name}); d != declared_.end()) answer["file"] = d->second.file;
        if (kind == "LiveUpdate") {
            if (auto r = rejected_.find(name); r != rejected_.end())
                answer["rejected"] = json::object{{"file", r->second.file}, {"errors", r->second.errors},
                                                  {"message", r->second.message}};
            json::array lines;
            const std::vector<ActivityLine> recent = activity_.lines(name);
            for (std::size_t i = recent.size() > kRecentLogLines ? recent.size() - kRecentLogLines : 0; i < recent.size(); ++i)
                lines.emplace_back(recent[i].time + " " + recent[i].text);
            answer["log"] = std::move(lines);
        }
        if (!answer.contains("object") && !answer.contains("rejected"))
            return json::object{{"error", kind + " \"" + name + "\" not found"}};
        return answer;
    }
    if (op == "plugins") return json::object{{"plugins", hot_reload_->plugins()}};
    if (op == "trigger") return trigger(request.if_contains("names"));
    if (op == "verify") return verify(request);
    if (op == "activity") {
        if (!request.contains("name")) return json::object{{"activity", activity_.summary()}};
        const std::string name = host::string_member(request, "name");
        if (!store_.get(ObjectKey{"LiveUpdate", name}))
            return json::object{{"error", "LiveUpdate \"" + name + "\" not found"}};
        json::array lines;
        for (const auto &line : activity_.lines(name)) lines.push_back(to_json(line));
        return json::object{{"name", name}, {"lines", std::move(lines)}};
    }
    return json::object{{"error", "unknown op \"" + op + "\" (get, describe, plugins, trigger, activity, verify)"}};
}

}  // namespace

int run_up(const UpOptions &options) {
    UpLog log(options.log_format, options.log_level);
    host::log::set_threshold(options.log_level);
    host::log::set_sink([&log](LogLevel level, std::string_view line) { log.write(level, "", line); });
    install_signal_handlers();
    {
        Daemon daemon(options, log);
        try {
            daemon.start();
        } catch (...) {
            daemon.stop();
            host::log::set_sink(nullptr);
            throw;
        }
        wait_for_signal();
        daemon.stop();
    }
    host::log::set_sink(nullptr);
    return 0;
}

}  // namespace liveupdate::host::up
