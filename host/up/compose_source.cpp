#include "host/up/compose_source.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <filesystem>

namespace liveupdate::host::up {
using common::LogLevel;

ComposeSource::ComposeSource(std::vector<ComposeProjectOption> projects, compose::ComposeRebuilds &rebuilds,
                             SourceLogFn log)
    : projects_(std::move(projects)), rebuilds_(rebuilds), log_(std::move(log)), watched_(projects_.size()) {}

std::vector<FileLoad> ComposeSource::load() {
    std::vector<FileLoad> loads;
    for (std::size_t i = 0; i < projects_.size(); ++i) loads.push_back(load_project(i));
    return loads;
}

void ComposeSource::start(ObjectSink &sink) {
    sink_ = &sink;
    if (projects_.empty()) return;
    // The folders of its files and of its .env.
    std::vector<std::string> roots;
    for (const auto &project : projects_) {
        for (const auto &file : project.files) {
            const std::string dir = std::filesystem::path(absolute_path(file)).parent_path().string();
            if (std::find(roots.begin(), roots.end(), dir) == roots.end()) roots.push_back(dir);
        }
    }
    watcher_ = watch_folders(
        roots, [this](const std::vector<std::string> &paths) { changed(paths); }, log_);
}

void ComposeSource::stop() { watcher_.reset(); }

void ComposeSource::changed(const std::vector<std::string> &paths) {
    std::set<std::size_t> changed;
    {
        common::MutexLock lock(mutex_);
        for (const auto &p : paths)
            for (std::size_t i = 0; i < watched_.size(); ++i)
                if (watched_[i].count(p) != 0) changed.insert(i);
    }
    for (const std::size_t i : changed) {
        log_(LogLevel::info, projects_[i].files.front() + ": changed, reloading the Compose project");
        sink_->replace(load_project(i));
    }
}

// Its errors and warnings are logged here (file:line:column: why).
FileLoad ComposeSource::load_project(std::size_t index) {
    const ComposeProjectOption &project = projects_[index];
    const compose::ProjectLoad loaded =
        compose::load_compose_project({project.files, project.name}, compose::process_environment());
    FileLoad load;
    load.file = std::filesystem::absolute(project.files.front()).lexically_normal().string();
    for (const auto &w : loaded.warnings) log_(LogLevel::warn, w);
    for (const auto &e : loaded.errors) log_(LogLevel::error, e);
    load.errors = loaded.errors;
    for (const auto &o : loaded.objects) {
        const std::string kind(o.at("kind").as_string());
        const std::string name(o.at("metadata").at("name").as_string());
        load.objects.push_back({load.file, kind, name, o});
    }
    {
        common::MutexLock lock(mutex_);
        watched_[index] = std::set<std::string>(loaded.watched_files.begin(), loaded.watched_files.end());
    }
    rebuilds_.loaded(index, loaded);
    if (!loaded.name.empty())
        log_(LogLevel::info, load.file + ": Compose project " + loaded.name + ", " +
                                 std::to_string(load.objects.size()) + " object(s)");
    return load;
}

}  // namespace liveupdate::host::up
