// What sync back did to the developer's folder, so that the forward watcher
// tells its own echo from a developer's change (docs/sync-back.md, "No
// echo"): a file that still holds the digest that came back, a file deleted
// that is still absent, a folder made on the way, and sync back's temporary
// files. Noted before the write, so that no watcher sees it first.
// Thread-safe.
#pragma once

#include <map>
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
    // Whether a watcher's changed path is sync back's doing. A path that no
    // longer looks as sync back left it is forgotten: its changes are the developer's.
    bool is_echo(const std::string &path);

private:
    common::Mutex mutex_;
    std::map<std::string, std::string> written_ LU_GUARDED_BY(mutex_);  // local file → digest
    std::set<std::string> deleted_ LU_GUARDED_BY(mutex_);
    std::set<std::string> folders_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::sync_back
