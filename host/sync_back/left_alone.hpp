// Sync back's say before a forward update sets the container to the local
// tree (an initial sync, a verify's repair) of a container synced into
// before (docs/sync-back.md): no daemon may have run while the app changed
// files that come back, and no watch reported them yet. The container is
// read through the updater's digest (liveupdate/ext/digest.h), each file
// judged by sync_back::forward_carries against the synced journal.
#pragma once

#include <string>
#include <vector>

#include "common/update_step/container_update.hpp"
#include "host/core/executor.hpp"
#include "host/core/log.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/updater.hpp"

namespace liveupdate::host::sync_back {

// The files beneath roots (the container paths of the rules that come back)
// that come back, that the update could carry, and that it must leave
// alone. None when the updater cannot digest the container (no digest
// extension: kubernetes with its agent off). Where it cannot run its agent
// there (LU_ERR_UNSUPPORTED), the files both sides agreed on, unread (said
// at warn). Throws std::runtime_error saying why the container cannot tell
// (the update then fails, rather than overwrite what it does not know).
std::vector<LeftAlone> left_alone(const Updater &via, const update_step::ContainerUpdate &update,
                                  const std::vector<std::string> &roots, const ComesBackFn &comes_back,
                                  const SyncedJournal &journal, const LogSinkFn &log);

}  // namespace liveupdate::host::sync_back
