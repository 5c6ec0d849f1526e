// Which LiveUpdates have yet to see each FileEvent batch (by its sequence
// number). A batch is consumed once every LiveUpdate it made due has finished
// a reconcile that started with the batch already in the store; only then may
// its FileEvent be dropped. Folding a batch that one LiveUpdate had already
// seen into a newer event would sync its files there a second time.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace liveupdate::host::up {

class EventConsumers {
public:
    // The LiveUpdates batch seq made due (none: consumed at once).
    void expect(std::uint64_t seq, const std::vector<std::string> &live_updates);
    // live_update finished a reconcile that saw every batch up to seen.
    void reconciled(const std::string &live_update, std::uint64_t seen);
    // live_update is gone: no batch waits for it any more.
    void forget(const std::string &live_update);
    bool consumed(std::uint64_t seq) const { return waiting_.count(seq) == 0; }

private:
    std::map<std::uint64_t, std::set<std::string>> waiting_;  // only batches not consumed
};

}  // namespace liveupdate::host::up
