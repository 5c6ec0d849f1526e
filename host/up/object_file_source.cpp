#include "host/up/object_file_source.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

namespace liveupdate::host::up {
using common::LogLevel;

namespace {

constexpr int kSettleRetries = 20;
constexpr auto kSettleStep = std::chrono::milliseconds(100);

}  // namespace

std::string absolute_path(const std::string &given) {
    std::filesystem::path abs = std::filesystem::absolute(given).lexically_normal();
    if (!abs.has_filename() && abs.has_parent_path() && abs != abs.root_path()) abs = abs.parent_path();
    return abs.string();
}

std::unique_ptr<TreeWatcher> watch_folders(const std::vector<std::string> &roots, TreeWatcher::BatchFn on_batch,
                                           const SourceLogFn &log) {
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
    return std::make_unique<TreeWatcher>(
        roots, WatchFilter{in_a_subfolder, below_a_root},
        WatchTiming{std::chrono::milliseconds(50), std::chrono::seconds(2), std::chrono::milliseconds(500)},
        std::move(on_batch), [log](const std::string &warning) { log(LogLevel::warn, warning); });
}

ObjectFileSource::ObjectFileSource(std::vector<std::string> paths, SourceLogFn log)
    : paths_(std::move(paths)), log_(std::move(log)) {}

std::vector<FileLoad> ObjectFileSource::load() {
    std::vector<FileLoad> loads;
    for (const auto &given : paths_) {
        for (const auto &file : object_files_of(given)) {
            FileLoad load = load_object_file(file);
            for (const auto &e : load.errors) log_(LogLevel::error, e);
            loads.push_back(std::move(load));
        }
    }
    return loads;
}

void ObjectFileSource::start(ObjectSink &sink) {
    sink_ = &sink;
    if (paths_.empty()) return;
    std::vector<std::string> roots;
    for (const auto &p : paths_) roots.push_back(absolute_path(p));
    watcher_ = watch_folders(
        roots, [this](const std::vector<std::string> &paths) { changed(paths); }, log_);
}

void ObjectFileSource::stop() { watcher_.reset(); }

void ObjectFileSource::changed(const std::vector<std::string> &paths) {
    std::set<std::string> folders, files;
    for (const auto &p : paths) {
        for (const auto &given : paths_) {
            if (is_folder_given(given, p))
                folders.insert(p);
            else if (is_object_file_of(given, p))
                files.insert(p);
        }
    }
    for (const auto &f : folders) reload_folder(f);
    for (const auto &f : files) reload_file(f);
}

void ObjectFileSource::reload_file(const std::string &file) {
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
        for (const auto &e : load.errors) log_(LogLevel::error, e);
    }
    sink_->replace(load);
}

// A given folder is the folder the daemon was given, that is or was a folder.
bool ObjectFileSource::is_folder_given(const std::string &given, const std::string &path) const {
    if (absolute_path(given) != path) return false;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return true;
    return !sink_->origins_in(path).empty();
}

// The folder itself moved away (or was deleted), or came back: each of its
// object files goes, or comes back, as a file would.
void ObjectFileSource::reload_folder(const std::string &dir) {
    std::error_code ec;
    const bool present = std::filesystem::is_directory(dir, ec);
    std::set<std::string> files = sink_->origins_in(dir);
    if (present) {
        for (const auto &f : object_files_of(dir)) files.insert(f);
        log_(LogLevel::info, "objects folder " + dir + " is there (again): loading its object files");
    } else {
        log_(LogLevel::warn, "objects folder " + dir +
                                 " was moved away or deleted: the objects of its files are removed until it is back");
    }
    for (const auto &f : files) reload_file(f);
}

}  // namespace liveupdate::host::up
