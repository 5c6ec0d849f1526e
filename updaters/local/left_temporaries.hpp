// The local updater's temporaries: a guarded write goes into one beside its
// path and is renamed into place (safe_extract.hpp), named as lu-agent's are
// (common/agent_protocol/temporary_names.hpp). One an lu-host killed between
// the write and the rename left in a container folder is removed when the
// updater starts serving that folder (docs/sync-back.md, "Forward writes over
// a container change"); nothing else is ever touched.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/agent_protocol/temporary_names.hpp"
#include "common/left_files.hpp"
#include "common/mutex.hpp"

namespace liveupdate::local {

// Who writes temporaries here: this process's pid, and the nonce drawn when
// this updater was loaded.
struct TemporaryWriter {
    long pid = 0;
    std::uint32_t nonce = 0;
};
TemporaryWriter this_writer();

// The token a writer on this host puts in its temporaries' names: its nonce,
// then a seal of its pid and nonce under this host's key (machine-id,
// boot_id, uid). A folder bind-mounted into a container also holds lu-agent's
// temporaries, named with pids of another pid namespace and a token of no
// seal: they are never taken for a dead writer's of ours.
std::uint64_t sealed_token(const TemporaryWriter &writer);

// The name of the n-th temporary of writer.
std::string temporary_name(const TemporaryWriter &writer, unsigned long n);

// A name for a temporary beside a path, unique in this process.
std::string temporary_name();

// Whether the temporary so named was left by a writer of ours that is gone:
// sealed on this host for its pid, not `self`'s (its pid and nonce: it may
// be writing it now), and no process with its pid runs, or that pid is
// self's with another nonce (an earlier lu-host that had this pid). No rule
// of time: a written file takes the archive's mtime.
bool left_behind(const agent_protocol::TemporaryName &name, const TemporaryWriter &self, bool owner_runs);

// Removes the temporaries left behind beneath each of sync_roots (container
// paths) in the container folder root (canonical), never through a symlink.
common::LeftFiles remove_left_temporaries(const std::string &root, const std::vector<std::string> &sync_roots);

// The sync roots of container folders this updater has swept: each once, at
// the first update that names it, and again at each whole sync.
class SweptFolders {
public:
    // Those of sync_roots (all of them for a whole sync) not swept yet in
    // root, marked swept from now on.
    std::vector<std::string> to_sweep(const std::string &root, const std::vector<std::string> &sync_roots,
                                      bool whole_sync);

private:
    common::Mutex mutex_;
    std::set<std::pair<std::string, std::string>> swept_ LU_GUARDED_BY(mutex_);  // root, sync root
};

}  // namespace liveupdate::local
