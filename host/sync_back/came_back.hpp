// What sync back did to the developer's folder, so that the forward watcher
// tells its own echo from a developer's change (docs/sync-back.md, "No
// echo"): a file that still holds the digest that came back, a file deleted
// that is still absent, a folder made on the way, and sync back's temporary
// files. Noted before the write, so that no watcher sees it first; until the
// write ends, what sync back left at the path before is still its own (a
// watcher looking at the first of two writes of a file in a row finds it
// there). Thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/mutex.hpp"

namespace liveupdate::host::sync_back {

class CameBack {
public:
    // local_file is about to be written with digest, beneath local_root
    // (the folders missing on the way are about to be made).
    void expect_written(const std::string &local_file, const std::string &digest, const std::string &local_root);
    // local_file is about to be deleted.
    void expect_deleted(const std::string &local_file);
    // The write or delete expected last at local_file ended: in_place, it is
    // there; else the path holds what it held before.
    void ended(const std::string &local_file, bool in_place);
    // Whether a watcher's changed path is sync back's doing. A path that no
    // longer looks as sync back left it is forgotten: its changes are the developer's.
    bool is_echo(const std::string &path);

private:
    // A path as sync back leaves it: a regular file of this digest, or none.
    using Shape = std::optional<std::string>;
    struct Expected {
        Shape after;
        std::optional<Shape> before;  // while the write or delete is under way: what sync back had left there
    };
    void expect(const std::string &local_file, Shape after) LU_REQUIRES(mutex_);

    common::Mutex mutex_;
    std::map<std::string, Expected> files_ LU_GUARDED_BY(mutex_);  // local file → as sync back leaves it
    std::set<std::string> folders_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::sync_back
