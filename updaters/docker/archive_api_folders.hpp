// The Engine's archive API (PUT /containers/{id}/archive) writes through a
// symlink it meets on the way and cannot delete: an explicit folder entry is
// the one way to have it replace a symlink or a file where a folder comes
// (it removes what is not a folder, then makes the folder). Real folders get
// no entry, which would reset their mode.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "updaters/shared/path_preparation.hpp"

namespace liveupdate::docker {

enum class ContainerPathKind { missing, folder, other };

// The kind of one container path, not following a symlink at its last name.
using ContainerPathKindFn = std::function<ContainerPathKind(const std::string &path)>;

// The folders (no leading "/") that must be explicit in the archive: the
// parents of the archive's entries, strictly below each entry's sync root
// (agent_protocol::root_for), that the container has as a symlink or a file.
// Asks kind_of once per parent, outermost first, and nothing beneath a
// parent that is not a real folder.
std::set<std::string> folders_to_make_explicit(const std::vector<updaters::PlannedPath> &entries,
                                               const std::vector<std::string> &sync_roots,
                                               const ContainerPathKindFn &kind_of);

}  // namespace liveupdate::docker
