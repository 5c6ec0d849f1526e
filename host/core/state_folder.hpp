// The state folder of `lu-host up`: where the synced journals live (issue 33).
// Chosen, checked and locked at start, so that a folder that cannot be used
// is reported before any update rather than at the first one, and so that a
// second daemon on it is refused: two daemons on one folder lose journal lines (one
// compacts a journal while the other appends to the replaced file).
//
// The lock is flock(2) on the file "lock" in the folder, which also holds the
// daemon's pid (to name it in the refusal); the kernel drops it when the
// daemon dies, so a killed daemon leaves no stale lock behind.
#pragma once

#include <string>
#include <vector>

namespace liveupdate::host {

// Where the state folder may be: read from the environment once, passed in
// so that the choice can be tested without changing it.
struct StateFolderPlaces {
    std::string chosen;           // --state-dir, else $LIVEUPDATE_STATE_DIR: the only place when set
    std::string xdg_state_home;   // absolute, or "" (the XDG spec ignores relative ones)
    std::string home;             // absolute, or ""
    std::string xdg_runtime_dir;  // absolute, or ""
    std::string temp_dir;         // $TMPDIR, else /tmp

    // state_dir_option: --state-dir's value, "" when not given.
    static StateFolderPlaces from_environment(const std::string &state_dir_option);
    // The defaults in order: $XDG_STATE_HOME/liveupdate/synced,
    // ~/.local/state/liveupdate/synced, $XDG_RUNTIME_DIR/liveupdate/synced,
    // then the private folder <temp>/liveupdate-<uid>/synced; just `chosen` when set.
    std::vector<std::string> candidates() const;
    // The private per-user folder under the temporary directory (parent of the last candidate).
    std::string private_temp_folder() const;
};

// A state folder, locked for this object's life.
class StateFolder {
public:
    // The first usable place: a folder (created 0700 when absent) that this
    // process can write in and whose lock it holds. A default place that
    // cannot be written (a home that is missing or read-only) gives way to
    // the next; anything else (a file in the way, a full disk, another
    // daemon) is an error, as is every problem with a chosen place. Throws
    // HostError saying what, where and why.
    explicit StateFolder(const StateFolderPlaces &places);
    StateFolder(const StateFolder &) = delete;
    StateFolder &operator=(const StateFolder &) = delete;
    ~StateFolder();

    const std::string &path() const { return path_; }
    // One line when a fallback was taken (where, and why the ones before it
    // could not be used); "" otherwise.
    const std::string &fallback_note() const { return fallback_note_; }

private:
    std::string path_;
    std::string fallback_note_;
    int lock_fd_ = -1;
};

}  // namespace liveupdate::host
