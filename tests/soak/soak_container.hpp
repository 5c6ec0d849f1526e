// The soak's container: a busybox labelled as service "web" of its own
// Compose project (and, for a fault, a second replica of it), reached from this machine through /proc/<pid>/root (fast,
// and working while it is paused), with the faults that can happen to it and
// the files its app writes into the sync target.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "tests/soak/soak_paths.hpp"
#include "tests/soak/soak_random.hpp"

namespace lu_soak {

class SoakContainer {
public:
    explicit SoakContainer(const std::string &project);
    ~SoakContainer();  // removes it
    SoakContainer(const SoakContainer &) = delete;
    SoakContainer &operator=(const SoakContainer &) = delete;

    const std::string &project() const { return project_; }
    const std::string &name() const { return name_; }
    // This machine's path of an absolute path in the container.
    std::string host_path(const std::string &container_path) const;

    void restart();
    void pause();
    void unpause();
    // SIGKILLs every lu-agent in it; how many there were.
    int kill_agents() const;
    // A second replica of the service (container number 2), in place of the
    // one killed before: the LiveUpdate starts updating it too.
    void start_replica();
    // docker kill of that replica; it stays, exited, until the next start or the end.
    void kill_replica();

    // The app writes a file of its own into the sync target (a path the source
    // never has): what it did. Needs the sync target to exist.
    std::string app_write(Random &random);
    // The app writes a new file into the sync-back folder, rewrites one or
    // deletes one: what it did.
    std::string app_sync_back_write(Random &random);
    // The app rewrites a file of the sync-back folder in the instant the
    // developer saves it in src too (the save first, the app's write right
    // after, before any watch could judge either): what it did. Needs
    // back_files() not empty; the file is the race's from then on.
    std::string app_races_a_local_save(Random &random, const std::filesystem::path &src);
    // Every file of the sync-back folder the app keeps (relative to the sync
    // target) and its content, and those it deleted since.
    const std::map<std::string, std::string> &back_files() const { return back_files_; }
    const std::set<std::string> &back_deleted() const { return back_deleted_; }
    // The files an app write raced a local save of, and what each side wrote.
    struct Race {
        std::string app;
        std::string local;
    };
    const std::map<std::string, Race> &raced() const { return raced_; }
    // The app's sparse file of `size` bytes at rel (relative to the sync target), none of them written.
    void make_sparse_app_file(const std::string &rel, std::uint64_t size) const;
    // Every app file and the content it last wrote.
    const std::map<std::string, std::string> &app_files() const { return app_files_; }
    // Whether rel (relative to the sync target) is the app's, or beneath an app folder.
    static bool is_app_path(const std::string &rel);

    // Names at the container's root that were not there at the start (besides
    // the sync target and lu-agent's folder): writes that escaped.
    std::set<std::string> new_root_entries() const;

private:
    void refresh_pid();

    std::string project_;
    std::string name_;
    std::string replica_name_;
    std::string pid_;
    std::set<std::string> root_entries_;
    std::map<std::string, std::string> app_files_;
    int app_counter_ = 0;
    std::map<std::string, std::string> back_files_;
    std::set<std::string> back_deleted_;
    std::map<std::string, Race> raced_;
    int back_counter_ = 0;
};

}  // namespace lu_soak
