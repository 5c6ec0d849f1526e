#include "host/core/updater_registry.hpp"

#include <mutex>

namespace liveupdate::host {

void UpdaterRegistry::set(std::string via, std::shared_ptr<const Updater> updater) {
    common::WriterLock lock(mutex_);
    by_class_[std::move(via)] = std::move(updater);
}

void UpdaterRegistry::set_fallback(std::shared_ptr<const Updater> updater) {
    common::WriterLock lock(mutex_);
    fallback_ = std::move(updater);
}

std::shared_ptr<const Updater> UpdaterRegistry::find(std::string_view via) const {
    common::ReaderLock lock(mutex_);
    auto found = by_class_.find(via);
    return found != by_class_.end() ? found->second : fallback_;
}

std::vector<std::string> UpdaterRegistry::classes() const {
    common::ReaderLock lock(mutex_);
    std::vector<std::string> names;
    for (const auto &[via, updater] : by_class_) names.push_back(via);
    return names;
}

}  // namespace liveupdate::host
