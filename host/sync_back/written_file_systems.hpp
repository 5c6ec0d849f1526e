// The file systems some batches of sync back's local writes and deletes
// reached, each held by a folder open for reading: one flush of each
// (syncfs) makes them all durable, so they cost one journal commit of the
// disk rather than one per file (docs/sync-back.md, "Writing locally").
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/unique_fd.hpp"

namespace liveupdate::host::sync_back {

class WrittenFileSystems {
public:
    // A file was renamed into, or unlinked from, folder (an O_PATH descriptor
    // will do); where: that file, shown in an error.
    void add(int folder, const std::string &where);
    // Adds what other reached (each file system held once) and empties it.
    void take(WrittenFileSystems &&other);
    bool empty() const { return held_.empty() && errors_.empty(); }
    // Flushes each file system reached (syncfs) and forgets them all: ""
    // when everything added is on the disk, else what is not and why.
    std::string flush();
    // Forgets them all, unflushed.
    void clear();

private:
    struct Held {
        dev_t device = 0;
        common::UniqueFd folder;  // open for reading: syncfs takes no O_PATH descriptor
        std::string where;        // the first file written there
    };
    std::vector<Held> held_;
    std::vector<std::string> errors_;  // a folder that could not be held: its writes are not known durable
};

}  // namespace liveupdate::host::sync_back
