// Which statuses an operator writes back to the cluster: only one that differs
// from what the cluster holds, and under a burst only the latest of each
// object (many reconciles in a save storm become one write per window).
// Pure: the caller owns the clock and the thread that writes.
#pragma once

#include <map>
#include <string>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

class StatusCoalescer {
public:
    // A status the daemon wrote for key; false when nothing new is to be
    // written (it equals the cluster's, or it only replaces one pending).
    bool offer(const std::string &key, const boost::json::object &status);
    // The statuses to write now, the latest of each key; none stays pending.
    std::map<std::string, boost::json::object> take();
    // The cluster now holds status for key (written by us, or read back).
    void written(const std::string &key, const boost::json::object &status);
    // The object is gone: nothing of it is written any more.
    void forget(const std::string &key);
    bool pending() const { return !pending_.empty(); }

private:
    std::map<std::string, boost::json::object> written_;
    std::map<std::string, boost::json::object> pending_;
};

}  // namespace liveupdate::host::cluster
