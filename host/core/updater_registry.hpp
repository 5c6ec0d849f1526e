// Which updater serves which updater class ("via": docker, kubernetes, local, ...).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/updater.hpp"

namespace liveupdate::host {

class UpdaterRegistry {
public:
    // Replaces whatever served via before.
    void set(std::string via, std::shared_ptr<const Updater> updater);
    // Serves every class without its own updater (replay: the record updater).
    void set_fallback(std::shared_ptr<const Updater> updater);
    // nullptr when nothing serves via.
    std::shared_ptr<const Updater> find(std::string_view via) const;
    std::vector<std::string> classes() const;

private:
    mutable common::SharedMutex mutex_;
    std::map<std::string, std::shared_ptr<const Updater>, std::less<>> by_class_ LU_GUARDED_BY(mutex_);
    std::shared_ptr<const Updater> fallback_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
