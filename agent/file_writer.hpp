// lu-agent's whole-file writes (WriteFile). A path where nothing is gets its
// file in one piece: written unnamed (O_TMPFILE) and linked in under its name,
// so neither a reader nor an agent killed midway ever leaves a part of it
// there. A path that is taken (a file, a folder, a symlink) is replaced as
// fs_replace.hpp says: through a temporary entry and a rename. Where O_TMPFILE
// or /proc/self/fd is missing, every write takes that second way.
//
// The folder of the last write stays open for the next write in the same
// folder: a burst of files resolves each folder once, not once a file (half of
// the syscalls of a small file). It is dropped as soon as a request of another
// kind arrives (forget()); a folder removed under it meanwhile is found again.
// What a write can leave for a quiet moment waits in its InodeReserve: the
// session calls idle() when no request has come for a while.
//
// A guarded write (its ExpectContent) compares at its last step: a new file's
// link fails when a name appeared there; a replacement is compared just
// before its rename (content_guard.hpp).
#pragma once

#include <optional>
#include <string>

#include "agent/fs_place.hpp"
#include "agent/inode_reserve.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

class FileWriter {
public:
    // expected: what the write may replace (its ExpectContent), or null for anything.
    agent_protocol::Result write(const agent_protocol::WriteFile &request,
                                 const agent_protocol::ExpectContent *expected = nullptr);
    void forget() { folder_.reset(); }
    bool has_idle_work() const { return reserve_.has_idle_work(); }
    void idle() { reserve_.idle(); }

private:
    struct OpenFolder {
        std::string root;
        std::string path;  // of the folder
        Place place;
        // A name in it was taken: a rewritten tree is rewritten whole, as a
        // rule, so the rest go the rename way at once.
        bool rewritten = false;
    };
    struct Unnamed {
        int error = 0;  // 0: linked in place; EEXIST: the name is taken
        UniqueFd file;  // the written file, while not linked in place
    };

    agent_protocol::Result write_once(const agent_protocol::WriteFile &request,
                                      const agent_protocol::ExpectContent *expected);
    Unnamed write_unnamed(const Place &place, const agent_protocol::WriteFile &request);
    // The reserve's spare for the folder with the request's content, mode and owner, or none.
    UniqueFd filled_spare(const Place &place, const agent_protocol::WriteFile &request);
    agent_protocol::Result write_through_rename(const Place &place, const agent_protocol::WriteFile &request,
                                                const UniqueFd &written, const agent_protocol::ExpectContent *expected);
    bool unnamed_files_ = true;     // O_TMPFILE and /proc/self/fd work here
    bool empty_path_links_ = true;  // linkat(AT_EMPTY_PATH) works here
    std::optional<OpenFolder> folder_;
    InodeReserve reserve_;
};

}  // namespace liveupdate::agent
