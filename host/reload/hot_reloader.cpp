#include "host/reload/hot_reloader.hpp"

#include <cstdio>

#include "host/core/host_error.hpp"
#include "host/core/host_metrics.hpp"
#include "host/core/log.hpp"

namespace liveupdate::host::reload {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path normal(const fs::path &file) { return fs::absolute(file).lexically_normal(); }

common::MicroTime wall_now() { return common::MicroTime::from_system(std::chrono::system_clock::now()); }

std::string millis(std::chrono::microseconds us) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(us.count()) / 1000.0);
    return text;
}

std::string described(const host::PluginIdentity &identity, uint32_t abi) {
    return identity.name + " " + identity.version + ", ABI " + std::to_string(abi);
}

json::object entry_of(const host::PluginIdentity &identity, uint32_t abi, const fs::path &file) {
    return json::object{{"kind", identity.kind},
                        {"name", identity.name},
                        {"version", identity.version},
                        {"abi", abi},
                        {"abiRange", std::to_string(identity.abi_min) + ".." + std::to_string(identity.abi_max)},
                        {"file", file.string()}};
}

}  // namespace

HotReloader::HotReloader(host::PluginSlot &plugin_slot, QuiesceGate &gate, host::UpdaterRegistry &registry,
                         std::shared_ptr<host::UpdaterHostServices> services, HotReloadOptions options)
    : plugin_slot_(plugin_slot),
      plugin_reloader_(plugin_slot, gate, options.load),
      updaters_(registry, std::move(services), options.load),
      options_(std::move(options)) {
    options_.liveupdate_plugin = normal(options_.liveupdate_plugin);
    if (options_.config) options_.config = normal(*options_.config);
    for (auto &[via, choice] : options_.defaults) choice.plugin = normal(choice.plugin);
}

HotReloader::~HotReloader() {
    // A reload on the watcher's thread reads watcher_ (rewatch) under the
    // operation lock: take it out under that lock, then stop the thread.
    std::unique_ptr<PluginFileWatcher> watcher;
    {
        common::MutexLock operation(operation_mutex_);
        watcher = std::move(watcher_);
    }
    watcher.reset();
}

UpdaterChoices HotReloader::chosen() const {
    UpdaterChoices choices = options_.defaults;
    if (options_.config) {
        for (auto &[via, choice] : load_updater_config(*options_.config, options_.resolve_name)) {
            choices.insert_or_assign(via, std::move(choice));
        }
    }
    return choices;
}

void HotReloader::start() {
    common::MutexLock operation(operation_mutex_);
    updaters_.apply(chosen());
    loaded(options_.liveupdate_plugin, false);
    for (const fs::path &file : updaters_.files()) loaded(file, false);
    for (const auto &served : updaters_.loaded()) {
        std::string classes;
        for (const auto &via : served.classes) classes += (classes.empty() ? "" : ", ") + via;
        host::log::info("updater " + classes + ": " + served.plugin->file().string() + " (" +
                        described(served.plugin->identity(), served.plugin->api().abi_version) + ")");
    }
    if (!options_.watch) return;
    watcher_ = std::make_unique<PluginFileWatcher>(
        options_.settle, [this](const fs::path &file) { on_file_changed(file); },
        [](const std::string &warning) { host::log::warn(warning); });
    rewatch();
}

void HotReloader::rewatch() {
    if (!watcher_) return;
    std::set<fs::path> files = updaters_.files();
    files.insert(options_.liveupdate_plugin);
    if (options_.config) files.insert(*options_.config);
    watcher_->watch(files);
}

void HotReloader::on_file_changed(const fs::path &file) {
    if (options_.config && file == *options_.config) reload_config();
    if (file == options_.liveupdate_plugin) reload_liveupdate();
    if (updaters_.files().count(file) != 0) reload_updaters(file);
}

bool HotReloader::reload_liveupdate() {
    common::MutexLock operation(operation_mutex_);
    const fs::path &file = options_.liveupdate_plugin;
    try {
        const PluginReloadTimes times = plugin_reloader_.reload(file);
        {
            common::MutexLock lock(records_mutex_);
            last_plugin_reload_ = times;
        }
        loaded(file, true);
        metrics::record_hot_reload(file.string(), true);
        host::log::info("hot reload: liveupdate plugin " + file.string() + " (" +
                        described(plugin_slot_.identity(), LU_ABI_VERSION) + ") in service after " +
                        millis(times.total) + "; updates paused " + millis(times.pause));
        return true;
    } catch (const std::exception &e) {  // H02: a refused plugin leaves the running one in service
        host::log::error("hot reload: liveupdate plugin " + file.string() +
                         " refused, the running plugin stays in service: " + e.what());
        metrics::record_hot_reload(file.string(), false);
        failed(file, e.what());
        return false;
    }
}

bool HotReloader::reload_updaters(const fs::path &file) {
    common::MutexLock operation(operation_mutex_);
    try {
        const std::vector<std::string> classes = updaters_.reload(normal(file));
        if (classes.empty()) return true;
        loaded(normal(file), true);
        metrics::record_hot_reload(normal(file).string(), true);
        std::string served;
        for (const auto &via : classes) served += (served.empty() ? "" : ", ") + via;
        host::log::info("hot reload: updater plugin " + file.string() + " reloaded; serves " + served);
        return true;
    } catch (const std::exception &e) {
        host::log::error("hot reload: updater plugin " + file.string() +
                         " refused, the running updater stays in service: " + e.what());
        metrics::record_hot_reload(normal(file).string(), false);
        failed(normal(file), e.what());
        return false;
    }
}

bool HotReloader::reload_config() {
    common::MutexLock operation(operation_mutex_);
    if (!options_.config) return true;
    try {
        const std::set<fs::path> before = updaters_.files();
        const UpdaterChanges changes = updaters_.apply(chosen());
        for (const fs::path &file : updaters_.files()) {
            if (before.count(file) == 0) loaded(file, false);
        }
        host::log::info("updater configuration " + options_.config->string() + ": " + changes.summary());
        rewatch();
        return true;
    } catch (const std::exception &e) {
        host::log::error("updater configuration " + options_.config->string() +
                         " not applied, the updaters in service stay: " + e.what());
        return false;
    }
}

void HotReloader::loaded(const fs::path &file, bool is_reload) {
    common::MutexLock lock(records_mutex_);
    FileRecord &record = records_[file];
    record.loaded_at = wall_now();
    if (is_reload) ++record.reloads;
    record.last_error.clear();
}

void HotReloader::failed(const fs::path &file, const std::string &error) {
    common::MutexLock lock(records_mutex_);
    records_[file].last_error = error;
}

json::array HotReloader::plugins() const {
    json::array out;
    auto with_record = [&](json::object entry, const fs::path &file) {
        common::MutexLock lock(records_mutex_);
        if (auto found = records_.find(file); found != records_.end()) {
            entry["loadedAt"] = found->second.loaded_at.format();
            entry["reloads"] = found->second.reloads;
            if (!found->second.last_error.empty()) entry["lastError"] = found->second.last_error;
        }
        return entry;
    };
    out.push_back(with_record(entry_of(plugin_slot_.identity(), LU_ABI_VERSION, plugin_slot_.plugin_file()),
                              options_.liveupdate_plugin));
    for (const auto &served : updaters_.loaded()) {
        json::object entry =
            entry_of(served.plugin->identity(), served.plugin->api().abi_version, served.plugin->file());
        json::array classes;
        for (const auto &via : served.classes) classes.emplace_back(via);
        entry["classes"] = std::move(classes);
        out.push_back(with_record(std::move(entry), normal(served.plugin->file())));
    }
    return out;
}

std::optional<PluginReloadTimes> HotReloader::last_plugin_reload() const {
    common::MutexLock lock(records_mutex_);
    return last_plugin_reload_;
}

}  // namespace liveupdate::host::reload
