// The object files and folders given to `lu-host up` as a source of objects:
// every file is an origin; a file or folder that changes, goes or comes back
// is read anew (a folder: each of its object files).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/log_level.hpp"
#include "host/up/object_source.hpp"
#include "host/up/tree_watcher.hpp"

namespace liveupdate::host::up {

using SourceLogFn = std::function<void(common::LogLevel, std::string_view)>;

// Absolute and normal, without a trailing "/": "objects/" names the folder "objects",
// as the watcher's paths and the object file names spell it.
std::string absolute_path(const std::string &given);

// Watches the files directly in each root folder (its subfolders, often a
// sample's sources and container, need no watching here); on_batch on its thread.
std::unique_ptr<TreeWatcher> watch_folders(const std::vector<std::string> &roots, TreeWatcher::BatchFn on_batch,
                                           const SourceLogFn &log);

class ObjectFileSource : public ObjectSource {
public:
    ObjectFileSource(std::vector<std::string> paths, SourceLogFn log);

    std::vector<FileLoad> load() override;
    void start(ObjectSink &sink) override;
    void stop() override;

private:
    void changed(const std::vector<std::string> &paths);
    void reload_file(const std::string &file);
    bool is_folder_given(const std::string &given, const std::string &path) const;
    void reload_folder(const std::string &dir);

    std::vector<std::string> paths_;
    SourceLogFn log_;
    ObjectSink *sink_ = nullptr;
    std::unique_ptr<TreeWatcher> watcher_;
};

}  // namespace liveupdate::host::up
