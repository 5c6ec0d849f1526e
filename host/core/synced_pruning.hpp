// Which synced journals (host/core/synced_journal) are about containers that
// are gone, so that they can go: a local container whose root
// folder no longer exists, or a docker container the engine answers 404
// for. Anything else (an engine that cannot be asked, another updater, a
// container that still exists) keeps its journal.
#pragma once

#include <functional>
#include <string>

#include "host/core/synced_journal.hpp"

namespace liveupdate::host {

enum class ContainerPresence { present, gone, unknown };

// Asks the docker engine about one container ID.
using DockerPresenceFn = std::function<ContainerPresence(const std::string &id)>;

// docker_via: the updater class served by the docker updater with the
// engine `docker` asks ("" and null: none).
bool synced_container_gone(const SyncedKey &key, const std::string &docker_via, const DockerPresenceFn &docker);

// Prunes journals (SyncedJournals::prune) by synced_container_gone; the
// journals removed are told to `removed`, one call each.
void prune_gone_synced_journals(SyncedJournals &journals, const std::string &docker_via, const DockerPresenceFn &docker,
                                const std::function<void(const SyncedKey &)> &removed);

}  // namespace liveupdate::host
