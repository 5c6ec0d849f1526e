// The Compose projects given to `lu-host up` as a source of objects: a
// project's objects are filed under its first compose file (its origin); a
// change to one of its files or its .env reads the project anew. Its rebuild
// rules go to the ComposeRebuilds.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/mutex.hpp"
#include "host/compose/compose_rebuilds.hpp"
#include "host/up/daemon.hpp"
#include "host/up/object_file_source.hpp"

namespace liveupdate::host::up {

class ComposeSource : public ObjectSource {
public:
    ComposeSource(std::vector<ComposeProjectOption> projects, compose::ComposeRebuilds &rebuilds, SourceLogFn log);

    std::vector<FileLoad> load() override;
    void start(ObjectSink &sink) override;
    void stop() override;

private:
    FileLoad load_project(std::size_t index);
    void changed(const std::vector<std::string> &paths);

    std::vector<ComposeProjectOption> projects_;
    compose::ComposeRebuilds &rebuilds_;
    SourceLogFn log_;
    ObjectSink *sink_ = nullptr;
    common::Mutex mutex_;
    std::vector<std::set<std::string>> watched_ LU_GUARDED_BY(mutex_);  // per project: its files and .env
    std::unique_ptr<TreeWatcher> watcher_;
};

}  // namespace liveupdate::host::up
