// Two-way-safe forward deletes for a local container (docs/sync-back.md): a
// delete the forward sync asks for is held when it would destroy a container
// file that sync back brings back and that both sides never agreed on, such
// as what the app wrote into a folder that took the place of our symlink.
// That file is the container's change, not ours to delete; sync back brings
// it back (or reports the conflict) instead.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "host/core/synced_journal.hpp"

namespace liveupdate::host::sync_back {

// container_root: the local container's folder; delete_path: absolute in the
// container. Why the delete is held (naming the file), or "" to go ahead. A
// symlink on the way is never followed: beyond it nothing is deleted anyway.
std::string held_delete(const std::string &container_root, const std::string &delete_path,
                        const std::function<bool(const std::string &container_file)> &comes_back,
                        const SyncedJournal &journal);

// The same for a container this machine cannot read (docker, kubernetes):
// reported maps each file the container's watch said it holds (absolute, each
// one that comes back) to its content digest. Why the delete is held, or "".
std::string held_delete_of_reported(const std::string &delete_path, const std::map<std::string, std::string> &reported,
                                    const SyncedJournal &journal);

}  // namespace liveupdate::host::sync_back
