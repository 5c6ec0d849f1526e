#include "up/daemon.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <deque>
#include <mutex>
#include <set>
#include <stdexcept>

#include "cli/install_paths.hpp"
#include "core/engine_slot.hpp"
#include "core/executor.hpp"
#include "core/host_services.hpp"
#include "core/json_text.hpp"
#include "core/object_store.hpp"
#include "core/reconcile_driver.hpp"
#include "core/updater.hpp"
#include "core/updater_registry.hpp"
#include "compose/compose_project.hpp"
#include "compose/compose_rebuilder.hpp"
#include "docker/compose_discovery.hpp"
#include "reload/hot_reloader.hpp"
#include "reload/quiesce_gate.hpp"
#include "up/control_socket.hpp"
#include "up/due_queue.hpp"
#include "up/file_watches.hpp"
#include "up/local_container_supervisor.hpp"
#include "up/object_files.hpp"

namespace liveupdate::up {
namespace json = boost::json;
using host::LogLevel;
using host::ObjectKey;

namespace {

constexpr std::size_t kRecentLogLines = 50;

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

MicroTime now() { return MicroTime::from_system(std::chrono::system_clock::now()); }

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
    void reconcile(const std::string &live_update);
    void remember_log(const std::string &live_update, std::string line);
    json::value handle_control(const json::object &request);

    const UpOptions &options_;
    UpLog &log_;
    host::ObjectStore store_;
    std::unique_ptr<host::EngineSlot> engine_;
    reload::QuiesceGate gate_;  // reconciles pass it; hot reload closes it
    std::shared_ptr<host::UpdaterHostServices> services_;
    host::UpdaterRegistry updaters_;
    std::unique_ptr<host::Executor> executor_;
    std::unique_ptr<host::ReconcileDriver> driver_;
    DueQueue queue_;
    std::unique_ptr<LocalContainerSupervisor> containers_;
    std::unique_ptr<host::docker::ComposeDiscovery> compose_;  // made with the first DockerComposeService
    std::unique_ptr<FileWatches> file_watches_;
    std::unique_ptr<TreeWatcher> object_file_watcher_;
    std::unique_ptr<ControlServer> control_;
    std::unique_ptr<reload::HotReloader> hot_reload_;

    std::mutex mutex_;  // guards the maps below
    std::map<std::string, std::vector<ObjectKey>> keys_of_file_;
    std::map<ObjectKey, Declared> declared_;
    std::map<std::string, Rejection> rejected_;  // LiveUpdate name → why admission refused it
    std::map<std::string, std::deque<std::string>> recent_log_;
    std::map<std::string, std::string> container_state_logged_;  // LocalContainer → "ID state"
    std::vector<std::set<std::string>> compose_watched_;  // per Compose project: its files and .env
    std::vector<std::map<std::string, compose::RebuildJob>> compose_rebuilds_;  // per project: FileWatch → job
    std::unique_ptr<compose::ComposeRebuilder> rebuilder_;  // made with the first rebuild rule
};

void Daemon::start() {
    const MicroTime start_time = now();
    // From a private copy: the plugin file may be rebuilt in place while its code runs (hot reload).
    engine_ = std::make_unique<host::EngineSlot>(options_.plugin, start_time, host::LoadOptions{.private_copy = true});
    containers_ = std::make_unique<LocalContainerSupervisor>(
        [this](const std::string &name, const json::object &status) { on_container_status(name, status); },
        [this](const std::string &name, std::string_view line) { log_.write(LogLevel::info, name, line); });
    services_ = std::make_shared<host::UpdaterHostServices>();
    services_->set_local_containers(std::make_shared<SupervisedContainers>(*containers_));
    reload::HotReloadOptions reload_options;
    reload_options.liveupdate_plugin = options_.plugin;
    reload_options.defaults["local"] = reload::UpdaterChoice{options_.local_updater, options_.local_updater_config};
    for (const auto &[via, file] : options_.extra_updaters) reload_options.defaults[via] = reload::UpdaterChoice{file, "{}"};
    reload_options.config = options_.updater_config;
    reload_options.resolve_name = [](std::string_view name) { return host::cli::updater_plugin(name); };
    hot_reload_ = std::make_unique<reload::HotReloader>(*engine_, gate_, updaters_, services_, std::move(reload_options));
    hot_reload_->start();
    executor_ = std::make_unique<host::Executor>(updaters_);
    driver_ = std::make_unique<host::ReconcileDriver>(
        *engine_, *executor_, store_, [] { return now(); },
        [this](const std::string &lu, LogLevel level, std::string_view text) {
            log_.write(level, lu, text);
            if (level >= LogLevel::info) remember_log(lu, std::string(text));
        });
    file_watches_ = std::make_unique<FileWatches>(
        WatchTiming{options_.debounce, options_.max_wait, std::chrono::milliseconds(500)},
        [this](const json::object &fw) {
            rebuild_if_asked(fw);
            return store(fw, "FileWatch");
        },
        [this](const std::vector<std::string> &due) { queue_.mark_due(due); },
        [this](const std::string &warning) { log_.write(LogLevel::warn, "", warning); });
    control_ = std::make_unique<ControlServer>(options_.control_socket,
                                               [this](const json::object &r) { return handle_control(r); });

    load_all();
    queue_.start(options_.workers, [this](const std::string &lu) { reconcile(lu); });

    std::vector<std::string> roots;
    for (const auto &p : options_.paths) roots.push_back(std::filesystem::absolute(p).lexically_normal().string());
    // A Compose project: the folders of its files and of its .env.
    for (const auto &project : options_.compose_projects) {
        for (const auto &file : project.files) {
            const std::string dir = std::filesystem::absolute(file).lexically_normal().parent_path().string();
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
        roots, WatchFilter{in_a_subfolder, below_a_root}, WatchTiming{std::chrono::milliseconds(50), std::chrono::seconds(2), std::chrono::milliseconds(500)},
        [this](std::vector<std::string> paths) {
            std::set<std::string> files;
            std::set<std::size_t> projects;
            for (const auto &p : paths) {
                for (const auto &given : options_.paths)
                    if (is_object_file_of(given, p)) files.insert(p);
                std::lock_guard<std::mutex> lock(mutex_);
                for (std::size_t i = 0; i < compose_watched_.size(); ++i)
                    if (compose_watched_[i].count(p) != 0) projects.insert(i);
            }
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
    object_file_watcher_.reset();
    if (file_watches_) file_watches_->stop_all();
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
                    log_.write(error ? LogLevel::error : LogLevel::info, service, line);
                    remember_log(service, std::string(line));
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
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::set<ObjectKey> now_declared;
        for (const auto &o : load.objects) now_declared.insert(ObjectKey{o.kind, o.name});
        for (const auto &key : keys_of_file_[file])
            if (now_declared.count(key) == 0) gone.push_back(key);
        keys_of_file_[file].assign(now_declared.begin(), now_declared.end());
        if (load.objects.empty() && !std::filesystem::exists(file, ec)) keys_of_file_.erase(file);
    }
    for (const auto &key : gone) {
        log_.write(LogLevel::info, "", file + ": " + key.text() + " removed");
        remove_object(key);
    }
    for (const auto &o : load.objects) apply(o);
}

void Daemon::apply(const DeclaredObject &d) {
    const ObjectKey key{d.kind, d.name};
    const std::string text = json::serialize(d.object);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto &keys = keys_of_file_[d.file];
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
        auto found = declared_.find(key);
        if (found != declared_.end()) {
            if (found->second.file == d.file && found->second.text == text) return;
            if (found->second.file != d.file)
                log_.write(LogLevel::warn, "",
                           key.text() + " is declared in " + found->second.file + " and in " + d.file + "; using " +
                               d.file);
        }
        declared_[key] = Declared{d.file, text};
    }
    const std::string origin = d.file + ": " + key.text();
    if (d.kind == "LiveUpdate") {
        upsert(d.object, origin);
    } else if (d.kind == "FileWatch") {
        const json::object with_status = file_watches_->apply(d.object);
        if (const auto *status = with_status.at("status").as_object().if_contains("error"))
            log_.write(LogLevel::error, "", origin + ": " + std::string(status->as_string()));
        upsert(with_status, origin);
    } else if (d.kind == "DockerComposeService") {
        apply_compose_service(d, origin);
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

void Daemon::remove_object(const ObjectKey &key) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        declared_.erase(key);
        if (key.kind == "LiveUpdate") rejected_.erase(key.name);
    }
    if (key.kind == "FileWatch") file_watches_->remove(key.name);
    if (key.kind == "LiveUpdate") file_watches_->forget(key.name);
    if (key.kind == "LocalContainer") containers_->remove(key.name);
    if (key.kind == "DockerComposeService") {
        std::lock_guard<std::mutex> lock(mutex_);
        if (compose_) compose_->unwatch(key.name);
    }
    const json::object result =
        engine_->with_engine([&](const host::Engine &e) { return e.remove(key.kind, key.name); });
    store_.remove(key);
    std::vector<std::string> due = strings_of(result.if_contains("due"));
    if (key.kind == "LiveUpdate") due.push_back(key.name);  // lets the plugin drop its state
    queue_.mark_due(due);
}

void Daemon::reconcile(const std::string &live_update) {
    const reload::QuiesceGate::Pass pass = gate_.enter();  // a hot reload waits for it, and holds the next
    try {
        const std::uint64_t seen = file_watches_->visible();
        const host::ReconcileResult r = driver_->reconcile(live_update);
        // A FileEvent may be dropped once every LiveUpdate it concerns has seen it.
        file_watches_->reconciled(live_update, seen);
        for (const auto &event : r.events)
            log_.write(LogLevel::debug, live_update, "event " + json::serialize(event));
    } catch (const std::exception &e) {
        log_.write(LogLevel::error, live_update, std::string("reconcile failed: ") + e.what());
    }
}

void Daemon::remember_log(const std::string &live_update, std::string line) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto &lines = recent_log_[live_update];
    lines.push_back(now().format() + " " + std::move(line));
    while (lines.size() > kRecentLogLines) lines.pop_front();
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
            if (auto l = recent_log_.find(name); l != recent_log_.end())
                for (const auto &line : l->second) lines.emplace_back(line);
            answer["log"] = std::move(lines);
        }
        if (!answer.contains("object") && !answer.contains("rejected"))
            return json::object{{"error", kind + " \"" + name + "\" not found"}};
        return answer;
    }
    if (op == "plugins") return json::object{{"plugins", hot_reload_->plugins()}};
    return json::object{{"error", "unknown op \"" + op + "\" (get, describe, plugins)"}};
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

}  // namespace liveupdate::up
