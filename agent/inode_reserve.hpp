// The filesystem work of a file write that can wait for a quiet moment. A new
// inode (allocating one scans the group's recently deleted inodes on ext4
// without a journal: 0.1 to 0.5 ms in a container here) and the freeing of the
// file a write replaced (0.25 ms once its blocks were written back) both happen
// when the session has had no request for a while, not on the save: the next
// write in the same folder takes an unnamed file made ahead (its first block
// allocated too), and a replaced file is held open until then.
#pragma once

#include <sys/types.h>

#include <deque>
#include <string>
#include <utility>

#include "agent/fs_place.hpp"

namespace liveupdate::agent {

class InodeReserve {
public:
    // The folder the next spare is made in: that of the latest write.
    void note_folder(int folder);
    // The unnamed file made ahead in `folder` (mode 0600, empty), or none.
    UniqueFd take_spare(int folder);
    // Keeps the entry `leaf` of `folder` open (if there is one) until idle(),
    // so that replacing it does not free it.
    void hold_replaced(int folder, const std::string &leaf);

    // Lets the held files and the spare go at once (a full disk); false when there were none.
    bool give_back();

    bool has_idle_work() const;
    // Lets the held files go and makes a spare in the latest folder.
    void idle();

private:
    UniqueFd folder_;      // a copy of the latest write's folder
    UniqueFd spare_;       // an unnamed file in it
    dev_t spare_dev_ = 0;  // the folder the spare was made in
    ino_t spare_ino_ = 0;
    bool spares_work_ = true;                      // O_TMPFILE works in the folders seen
    std::deque<std::pair<UniqueFd, off_t>> held_;  // and their sizes
    off_t held_bytes_ = 0;
};

}  // namespace liveupdate::agent
