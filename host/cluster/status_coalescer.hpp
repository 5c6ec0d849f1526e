// Which statuses an operator writes back to the cluster: only one that differs
// from what the cluster holds, and under a burst only the latest of each
// object (many reconciles in a save storm become one write per window). A
// status someone else wrote (`kubectl patch --subresource=status`) that says
// otherwise than the daemon's is written over again; the cluster's copy of the
// operator's own write never is (no write loop, however the API server
// reformats it). Pure: the caller owns the clock and the thread that writes.
#pragma once

#include <map>
#include <string>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

// Whether two statuses say the same: objects whatever their key order, a
// null field as a missing one, numbers by value, times by the instant they
// name (the API server may write a time in another form than ours).
bool same_status(const boost::json::value &a, const boost::json::value &b);

class StatusCoalescer {
public:
    // A status the daemon wrote for key; false when nothing new is to be
    // written (it says what the cluster holds, or it only replaces one pending).
    bool offer(const std::string &key, const boost::json::object &status);
    // The statuses to write now, the latest of each key; none stays pending.
    std::map<std::string, boost::json::object> take();
    // The operator wrote status for key, which the cluster stored as stored
    // (its answer): reading stored back later is reading the operator's own.
    void written(const std::string &key, const boost::json::object &status, const boost::json::object &stored);
    // The cluster holds status for key (listed or watched). True when it says
    // otherwise than the daemon's own, which is then pending again.
    bool observed(const std::string &key, const boost::json::object &status);
    // The object is gone: nothing of it is written any more.
    void forget(const std::string &key);
    bool pending() const { return !pending_.empty(); }

private:
    std::map<std::string, boost::json::object> held_;    // what the cluster holds (ours when it is ours)
    std::map<std::string, boost::json::object> stored_;  // the cluster's copy of the operator's last write
    std::map<std::string, boost::json::object> own_;     // the daemon's latest
    std::map<std::string, boost::json::object> pending_;
};

}  // namespace liveupdate::host::cluster
