#include "tests/soak/soak_container.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "tests/docker/docker_test_support.hpp"

namespace lu_soak {

using lu_test::sh;
using lu_test::sh_ok;

namespace {

std::set<std::string> entries_of(const std::string &dir) {
    std::set<std::string> out;
    DIR *d = ::opendir(dir.c_str());
    if (d == nullptr) throw std::system_error(errno, std::generic_category(), "soak: cannot list " + dir);
    while (const dirent *e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") out.insert(name);
    }
    ::closedir(d);
    return out;
}

// Creates or appends, never through a symlink.
void write_app_file(const std::string &path, const std::string &content, bool append) {
    const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC);
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "soak: the app cannot write " + path);
    const ssize_t n = ::write(fd, content.data(), content.size());
    const int error = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(content.size()))
        throw std::system_error(error, std::generic_category(), "soak: the app cannot write " + path);
}

}  // namespace

namespace {

void run_replica(const std::string &project, const std::string &name, int number) {
    sh_ok("docker run -d --network none --name " + name + " --label com.docker.compose.project=" + project +
          " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
          " --label com.docker.compose.container-number=" +
          std::to_string(number) + " lu-busybox:latest sleep 100000 >/dev/null");
}

}  // namespace

SoakContainer::SoakContainer(const std::string &project)
    : project_(project), name_(project + "-web-1"), replica_name_(project + "-web-2") {
    run_replica(project_, name_, 1);
    refresh_pid();
    if (::mkdir(host_path(kOutsideDir).c_str(), 0755) != 0)
        throw std::system_error(errno, std::generic_category(), "soak: cannot create " + host_path(kOutsideDir));
    root_entries_ = entries_of(host_path("/"));
}

SoakContainer::~SoakContainer() { sh("docker rm -f " + name_ + " " + replica_name_ + " >/dev/null 2>&1"); }

void SoakContainer::start_replica() {
    sh("docker rm -f " + replica_name_ + " >/dev/null 2>&1");
    run_replica(project_, replica_name_, 2);
}

void SoakContainer::kill_replica() { sh_ok("docker kill " + replica_name_ + " >/dev/null"); }

std::string SoakContainer::host_path(const std::string &container_path) const {
    return "/proc/" + pid_ + "/root" + container_path;
}

void SoakContainer::restart() {
    sh_ok("docker restart -t 0 " + name_ + " >/dev/null");
    refresh_pid();
}

void SoakContainer::pause() { sh_ok("docker pause " + name_ + " >/dev/null"); }
void SoakContainer::unpause() { sh_ok("docker unpause " + name_ + " >/dev/null"); }

int SoakContainer::kill_agents() const {
    std::istringstream pids(sh_ok("docker top " + name_ + " -eo pid,args | awk '/\\.lu-agent\\/lu-agent/ {print $1}'"));
    int killed = 0;
    for (std::string pid; pids >> pid;)
        if (::kill(std::stoi(pid), SIGKILL) == 0) ++killed;
    return killed;
}

std::string SoakContainer::app_write(Random &random) {
    const std::string target = host_path(kSyncTarget);
    if (!app_files_.empty() && random.percent(40)) {  // the app appends to a file it keeps
        auto it = app_files_.begin();
        std::advance(it, static_cast<long>(random.below(app_files_.size())));
        const std::string more = random.text(random.between(1, 200));
        write_app_file(target + "/" + it->first, more, true);
        it->second += more;
        return "app appends to " + it->first;
    }
    const int n = app_counter_++;
    std::string rel = "app-" + std::to_string(n) + ".db";
    if (random.percent(50)) {
        if (::mkdir((target + "/uploads").c_str(), 0755) != 0 && errno != EEXIST)
            throw std::system_error(errno, std::generic_category(),
                                    "soak: the app cannot create " + target + "/uploads");
        rel = "uploads/" + std::to_string(n);
    }
    const std::string content = random.text(random.between(1, 1000));
    write_app_file(target + "/" + rel, content, false);
    app_files_[rel] = content;
    return "app writes " + rel;
}

std::string SoakContainer::app_sync_back_write(Random &random) {
    const std::string target = host_path(kSyncTarget);
    const std::string dir = std::string(kSyncBackDir);
    if (!back_files_.empty() && random.percent(40)) {
        auto it = back_files_.begin();
        std::advance(it, static_cast<long>(random.below(back_files_.size())));
        const std::string rel = it->first;
        if (random.percent(50)) {
            if (::unlink((target + "/" + rel).c_str()) != 0)
                throw std::system_error(errno, std::generic_category(), "soak: the app cannot delete " + rel);
            back_files_.erase(it);
            back_deleted_.insert(rel);
            return "app deletes " + rel;
        }
        it->second = random.text(random.between(1, 1000));
        write_app_file(target + "/" + rel, it->second, false);
        return "app rewrites " + rel;
    }
    const std::string sub = random.percent(50) ? "/deep" : "";
    for (const std::string &folder : {dir, dir + sub}) {
        const std::string path = target + "/";
        if (::mkdir((path + folder).c_str(), 0755) != 0 && errno != EEXIST)
            throw std::system_error(errno, std::generic_category(), "soak: the app cannot create " + folder);
    }
    const std::string rel = dir + sub + "/back-" + std::to_string(back_counter_++) + ".txt";
    const std::string content = random.text(random.between(1, 1000));
    write_app_file(target + "/" + rel, content, false);
    back_files_[rel] = content;
    back_deleted_.erase(rel);
    return "app writes " + rel + " (comes back)";
}

std::string SoakContainer::app_races_a_local_save(Random &random, const std::filesystem::path &src) {
    auto it = back_files_.begin();
    std::advance(it, static_cast<long>(random.below(back_files_.size())));
    const std::string rel = it->first;
    const Race race{"app " + random.text(random.between(1, 200)), "local " + random.text(random.between(1, 200))};
    // Not come back yet, the file's folder may not be here: the developer makes it.
    std::filesystem::create_directories((src / rel).parent_path());
    write_app_file((src / rel).string(), race.local, false);
    write_app_file(host_path(kSyncTarget) + "/" + rel, race.app, false);
    back_files_.erase(it);
    raced_[rel] = race;
    return "app rewrites " + rel + " as it is saved locally (a race)";
}

void SoakContainer::make_sparse_app_file(const std::string &rel, std::uint64_t size) const {
    const std::filesystem::path path = host_path(std::string(kSyncTarget) + "/" + rel);
    std::filesystem::create_directories(path.parent_path());
    if (::truncate(path.c_str(), 0) != 0 && errno != ENOENT)
        throw std::system_error(errno, std::generic_category(), "soak: cannot empty " + path.string());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "soak: cannot create " + path.string());
    const int rc = ::ftruncate(fd, static_cast<off_t>(size));
    const int error = errno;
    ::close(fd);
    if (rc != 0) throw std::system_error(error, std::generic_category(), "soak: cannot extend " + path.string());
}

bool SoakContainer::is_app_path(const std::string &rel) {
    return rel == "uploads" || rel.starts_with("uploads/") || (rel.starts_with("app-") && rel.ends_with(".db"));
}

std::set<std::string> SoakContainer::new_root_entries() const {
    std::set<std::string> added;
    for (const auto &name : entries_of(host_path("/")))
        if (!root_entries_.contains(name) && name != std::string(kSyncTarget).substr(1) && name != ".lu-agent")
            added.insert(name);
    return added;
}

void SoakContainer::refresh_pid() {
    pid_ = sh_ok("docker inspect -f '{{.State.Pid}}' " + name_);
    if (pid_.empty() || pid_ == "0") throw std::runtime_error("soak: container " + name_ + " is not running");
}

}  // namespace lu_soak
