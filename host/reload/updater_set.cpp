#include "host/reload/updater_set.hpp"
#include "common/mutex.hpp"

#include <algorithm>

#include "host/core/host_error.hpp"

namespace liveupdate::host::reload {
namespace fs = std::filesystem;

namespace {

std::string joined(const std::vector<std::string> &names) {
    std::string out;
    for (const auto &name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

std::shared_ptr<const host::UpdaterPlugin> load(const std::string &via, const fs::path &file,
                                                const host::PluginLoadOptions &options) {
    try {
        return host::UpdaterPlugin::load(file, options);
    } catch (const host::PluginLoadError &e) {
        throw host::PluginLoadError("cannot load the updater of class " + via, e.location(), e.reason());
    }
}

}  // namespace

std::string UpdaterChanges::summary() const {
    std::string out;
    auto part = [&](const char *verb, const std::vector<std::string> &names) {
        if (!names.empty()) out += (out.empty() ? "" : "; ") + std::string(verb) + " " + joined(names);
    };
    part("added", added);
    part("replaced", replaced);
    part("removed", removed);
    return out.empty() ? "no change" : out;
}

std::shared_ptr<const host::Updater> UpdaterSet::create(const std::string &via, const UpdaterChoice &choice,
                                                        std::shared_ptr<const host::UpdaterPlugin> plugin) const {
    try {
        return std::make_shared<const host::Updater>(std::move(plugin), services_, choice.settings);
    } catch (const host::PluginCallError &e) {
        throw host::PluginCallError("cannot create the updater of class " + via, e.location(), e.reason());
    }
}

UpdaterChanges UpdaterSet::apply(const UpdaterChoices &choices) {
    common::MutexLock lock(mutex_);
    // Plugins by file: those in service are reused when only settings change.
    std::map<fs::path, std::shared_ptr<const host::UpdaterPlugin>> plugin_of_file;
    for (const auto &[via, serving] : serving_) plugin_of_file.emplace(serving.choice.plugin, serving.plugin);

    UpdaterChanges changes;
    std::map<std::string, Serving, std::less<>> next;
    for (const auto &[via, choice] : choices) {
        auto current = serving_.find(via);
        if (current != serving_.end() && current->second.choice == choice) {
            next.emplace(via, current->second);
            continue;
        }
        auto &plugin = plugin_of_file[choice.plugin];
        if (!plugin) plugin = load(via, choice.plugin, load_);
        next.emplace(via, Serving{choice, plugin, create(via, choice, plugin)});
        (current == serving_.end() ? changes.added : changes.replaced).push_back(via);
    }
    for (const auto &[via, serving] : serving_) {
        if (choices.count(via) == 0) changes.removed.push_back(via);
    }
    for (const std::string &via : changes.added) registry_.set(via, next.at(via).updater);
    for (const std::string &via : changes.replaced) registry_.set(via, next.at(via).updater);
    for (const std::string &via : changes.removed) registry_.set(via, nullptr);
    serving_ = std::move(next);
    return changes;
}

std::vector<std::string> UpdaterSet::reload(const fs::path &file) {
    common::MutexLock lock(mutex_);
    std::vector<std::string> classes;
    for (const auto &[via, serving] : serving_) {
        if (serving.choice.plugin == file) classes.push_back(via);
    }
    if (classes.empty()) return classes;
    auto plugin = load(joined(classes), file, load_);
    std::map<std::string, std::shared_ptr<const host::Updater>> fresh;
    for (const std::string &via : classes) fresh[via] = create(via, serving_.at(via).choice, plugin);
    for (auto &[via, updater] : fresh) {
        registry_.set(via, updater);
        Serving &serving = serving_.at(via);
        serving.plugin = plugin;
        serving.updater = std::move(updater);
    }
    return classes;
}

std::set<fs::path> UpdaterSet::files() const {
    common::MutexLock lock(mutex_);
    std::set<fs::path> out;
    for (const auto &[via, serving] : serving_) out.insert(serving.choice.plugin);
    return out;
}

std::vector<LoadedUpdaterPlugin> UpdaterSet::loaded() const {
    common::MutexLock lock(mutex_);
    std::vector<LoadedUpdaterPlugin> out;
    for (const auto &[via, serving] : serving_) {
        const auto &plugin = serving.plugin;  // clang 14 cannot capture a structured binding
        auto same =
            std::find_if(out.begin(), out.end(), [&](const LoadedUpdaterPlugin &p) { return p.plugin == plugin; });
        if (same == out.end()) {
            out.push_back(LoadedUpdaterPlugin{plugin, {via}});
        } else {
            same->classes.push_back(via);
        }
    }
    return out;
}

}  // namespace liveupdate::host::reload
