#include "host/compose/compose_rebuilds.hpp"

namespace liveupdate::host::compose {

void ComposeRebuilds::loaded(std::size_t project, const ProjectLoad &load) {
    common::MutexLock lock(mutex_);
    if (rules_.size() <= project) rules_.resize(project + 1);
    if (load.errors.empty() || !load.objects.empty()) {
        rules_[project].clear();
        for (const auto &[watch, service] : load.rebuild_watches)
            rules_[project][watch] = RebuildJob{load.name, load.files, load.directory, service};
    }
    if (!load.rebuild_watches.empty() && !rebuilder_) rebuilder_ = std::make_unique<ComposeRebuilder>(on_line_);
}

void ComposeRebuilds::file_watch_changed(const std::string &file_watch) {
    common::MutexLock lock(mutex_);
    if (!rebuilder_) return;
    for (const auto &rules : rules_)
        if (auto found = rules.find(file_watch); found != rules.end()) rebuilder_->request(found->second);
}

void ComposeRebuilds::stop() {
    std::unique_ptr<ComposeRebuilder> rebuilder;
    {
        common::MutexLock lock(mutex_);
        rebuilder = std::move(rebuilder_);
    }
    rebuilder.reset();  // outside the lock: a rebuild's lines may come while it finishes
}

}  // namespace liveupdate::host::compose
