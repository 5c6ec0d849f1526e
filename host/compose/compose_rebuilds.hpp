// The rebuild watch actions of the Compose projects given to `lu-host up`:
// which FileWatch rebuilds which service, as each project's last good load
// says, and the rebuilder (made with the first rule) that runs them.
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/mutex.hpp"
#include "host/compose/compose_project.hpp"
#include "host/compose/compose_rebuilder.hpp"

namespace liveupdate::host::compose {

class ComposeRebuilds {
public:
    explicit ComposeRebuilds(ComposeRebuilder::LineFn on_line) : on_line_(std::move(on_line)) {}

    // Project number `project` loaded: a load that failed outright keeps its rules.
    void loaded(std::size_t project, const ProjectLoad &load);
    // A batch of changes on a rebuild rule's FileWatch rebuilds its service.
    void file_watch_changed(const std::string &file_watch);
    // Waits for the rebuild in progress; none runs afterwards.
    void stop();

private:
    ComposeRebuilder::LineFn on_line_;
    common::Mutex mutex_;
    std::vector<std::map<std::string, RebuildJob>> rules_ LU_GUARDED_BY(mutex_);  // per project: FileWatch → job
    std::unique_ptr<ComposeRebuilder> rebuilder_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::compose
