#include "host/cluster/status_coalescer.hpp"

namespace liveupdate::host::cluster {

bool StatusCoalescer::offer(const std::string &key, const boost::json::object &status) {
    const auto written = written_.find(key);
    if (written != written_.end() && written->second == status) {
        pending_.erase(key);  // back to what the cluster holds: an older pending one must not be written
        return false;
    }
    const bool first = !pending_.contains(key);
    pending_[key] = status;
    return first;
}

std::map<std::string, boost::json::object> StatusCoalescer::take() {
    std::map<std::string, boost::json::object> out;
    out.swap(pending_);
    return out;
}

void StatusCoalescer::written(const std::string &key, const boost::json::object &status) { written_[key] = status; }

void StatusCoalescer::forget(const std::string &key) {
    written_.erase(key);
    pending_.erase(key);
}

}  // namespace liveupdate::host::cluster
