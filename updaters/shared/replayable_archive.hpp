// An update's archive that can be read again from its first byte, for an
// updater that may send it twice (a broken lu-agent session, or the exec path
// after the agent gave up): through the host's rewind, which builds the
// archive anew from the source, or, from a host without one, through a
// temporary file that keeps what was read. Never whole in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "updaters/shared/implied_dirs_filter.hpp"

namespace liveupdate::updaters {

// Starts the source again from its first byte; false when it cannot.
using ArchiveRewindFn = std::function<bool()>;

class ReplayableArchive {
public:
    // rewind empty: the host has none, what is read is kept in a temporary file.
    ReplayableArchive(common::ArchiveReadFn source, ArchiveRewindFn rewind);

    // A reader of a pass over the archive: the first pass, or one that read
    // nothing yet, goes on where it is; a later one starts at the first byte.
    // Only one pass is read at a time. Throws std::runtime_error when the
    // archive cannot start again.
    common::ArchiveReadFn pass();

private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace liveupdate::updaters
