#include "host/up/local_container_supervisor.hpp"
#include "common/mutex.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/line_splitter.hpp"
#include "common/micro_time.hpp"
#include "common/subprocess/environment.hpp"
#include "host/up/child_spawner.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr auto kStopGrace = 5s;

std::string now_text() { return common::MicroTime::from_system(std::chrono::system_clock::now()).format(); }

std::string new_container_id() {
    static std::mutex m;
    static std::mt19937_64 rng{std::random_device{}()};
    std::lock_guard<std::mutex> lock(m);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
    return std::string("local-") + buf;
}

}  // namespace

struct LocalContainerSupervisor::Container {
    std::string name;
    LocalProcessSpec spec;
    std::string id;
    std::string status = "exited";
    std::string started_at;
    std::string finished_at;
    std::string error;
    int exit_code = 0;
    pid_t pid = -1;
    int generation = 0;
    std::thread monitor;
    std::condition_variable exited;

    json::object status_json() const {
        json::object state{{"status", status}, {"running", status == "running"}};
        if (!started_at.empty()) state["startedAt"] = started_at;
        if (!finished_at.empty()) state["finishedAt"] = finished_at;
        if (status == "exited") state["exitCode"] = exit_code;
        if (!error.empty()) state["error"] = error;
        return json::object{{"containerID", id}, {"containerName", name}, {"containerState", state}};
    }
};

LocalContainerSupervisor::LocalContainerSupervisor(StatusFn on_status, OutputFn on_output)
    : on_status_(std::move(on_status)), on_output_(std::move(on_output)), spawner_(std::make_unique<ChildSpawner>()) {}

LocalContainerSupervisor::~LocalContainerSupervisor() { stop_all(); }

void LocalContainerSupervisor::notify(const std::string &name) {
    std::optional<json::object> s = status(name);
    if (s && on_status_) on_status_(name, *s);
}

// Spawns the process; mutex_ is held. The monitor thread forwards output,
// reaps the process and records how it ended.
void LocalContainerSupervisor::start_locked(Container &c, bool same_container) {
    if (!same_container || c.id.empty()) c.id = new_container_id();
    c.started_at = now_text();
    c.finished_at.clear();
    c.error.clear();
    c.exit_code = 0;
    ++c.generation;
    std::error_code ec;
    const std::string cwd = host_path_in(c.spec, c.spec.working_dir);
    std::filesystem::create_directories(cwd, ec);
    if (c.spec.command.empty()) {
        c.status = "running";  // a folder alone: nothing to run
        return;
    }

    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        c.status = "exited";
        c.exit_code = 127;
        c.error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return;
    }
    // Its own process group: stop() signals the whole group.
    const subprocess::StartedChild spawned = spawner_->spawn({.argv = c.spec.command,
                                                              .env = subprocess::environment_with(c.spec.env),
                                                              .cwd = cwd,
                                                              .stdout_fd = pipe_fds[1],
                                                              .stderr_fd = pipe_fds[1],
                                                              .own_process_group = true});
    ::close(pipe_fds[1]);
    if (spawned.pid < 0) {
        ::close(pipe_fds[0]);
        c.status = "exited";
        c.exit_code = 127;
        c.finished_at = c.started_at;
        c.error =
            "cannot start \"" + c.spec.command[0] + "\" in " + cwd + ": " + subprocess::start_failure_text(spawned);
        return;
    }
    const pid_t pid = spawned.pid;
    c.pid = pid;
    c.status = "running";
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    const int output_fd = pipe_fds[0];
    const int generation = c.generation;
    c.monitor =
        std::thread([this, &c, pid, pidfd, output_fd, generation] { monitor(c, pid, pidfd, output_fd, generation); });
}

// On the container's own thread: its output line by line, then its exit.
void LocalContainerSupervisor::monitor(Container &c, pid_t pid, int pidfd, int output_fd, int generation) {
    common::LineSplitter lines([this, &c](std::string_view line) {
        if (on_output_) on_output_(c.name, line);
    });
    bool output_open = true;
    for (;;) {
        pollfd fds[2] = {{output_open ? output_fd : -1, POLLIN, 0}, {pidfd, POLLIN, 0}};
        if (::poll(fds, 2, pidfd < 0 ? 200 : -1) < 0 && errno != EINTR) break;
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            char buf[4096];
            const ssize_t n = ::read(output_fd, buf, sizeof buf);
            if (n <= 0) {
                output_open = false;
            } else {
                lines.feed(std::string_view(buf, static_cast<std::size_t>(n)));
            }
        }
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            lines.flush();
            {
                common::MutexLock lock(mutex_);
                if (c.generation == generation) {
                    c.status = "exited";
                    c.pid = -1;
                    c.finished_at = now_text();
                    c.exit_code = subprocess::exit_code_of(status);
                }
            }
            c.exited.notify_all();
            break;
        }
    }
    if (pidfd >= 0) ::close(pidfd);
    ::close(output_fd);
    notify(c.name);
}

void LocalContainerSupervisor::stop(const std::shared_ptr<Container> &c) {
    common::MutexLock lock(mutex_);
    const int generation = c->generation;
    if (c->pid > 0) {
        ::kill(-c->pid, SIGTERM);
        if (!lock.wait_for(c->exited, kStopGrace, [&] { return c->pid <= 0 || c->generation != generation; })) {
            ::kill(-c->pid, SIGKILL);
            lock.wait(c->exited, [&] { return c->pid <= 0 || c->generation != generation; });
        }
    }
    std::thread monitor = std::move(c->monitor);
    lock.unlock();
    if (monitor.joinable()) monitor.join();
}

void LocalContainerSupervisor::apply(const std::string &name, const LocalProcessSpec &spec) {
    std::shared_ptr<Container> c;
    {
        common::MutexLock lock(mutex_);
        auto &held = containers_[name];
        if (held && held->spec == spec) return;
        if (!held) {
            held = std::make_shared<Container>();
            held->name = name;
        }
        c = held;
    }
    stop(c);
    {
        common::MutexLock lock(mutex_);
        c->spec = spec;
        start_locked(*c, false);
    }
    notify(name);
}

void LocalContainerSupervisor::remove(const std::string &name) {
    std::shared_ptr<Container> c;
    {
        common::MutexLock lock(mutex_);
        auto it = containers_.find(name);
        if (it == containers_.end()) return;
        c = it->second;
        containers_.erase(it);
    }
    stop(c);
}

void LocalContainerSupervisor::restart(const std::string &name_or_id) {
    std::shared_ptr<Container> c;
    {
        common::MutexLock lock(mutex_);
        for (const auto &[name, candidate] : containers_)
            if (name == name_or_id || candidate->id == name_or_id) c = candidate;
        if (!c) throw std::runtime_error("no LocalContainer named or with ID \"" + name_or_id + "\"");
    }
    stop(c);
    std::string error;
    {
        common::MutexLock lock(mutex_);
        start_locked(*c, true);
        error = c->error;
    }
    notify(c->name);
    if (!error.empty()) throw std::runtime_error(error);
}

std::optional<json::object> LocalContainerSupervisor::status(const std::string &name) const {
    common::MutexLock lock(mutex_);
    auto it = containers_.find(name);
    if (it == containers_.end()) return std::nullopt;
    return it->second->status_json();
}

std::optional<LocalProcessSpec> LocalContainerSupervisor::spec(const std::string &name) const {
    common::MutexLock lock(mutex_);
    auto it = containers_.find(name);
    if (it == containers_.end()) return std::nullopt;
    return it->second->spec;
}

void LocalContainerSupervisor::stop_all() {
    std::vector<std::shared_ptr<Container>> all;
    {
        common::MutexLock lock(mutex_);
        for (auto &[name, c] : containers_) all.push_back(c);
        containers_.clear();
    }
    std::vector<std::thread> stoppers;
    stoppers.reserve(all.size());
    for (auto &c : all) stoppers.emplace_back([this, c] { stop(c); });
    for (auto &t : stoppers) t.join();
}

}  // namespace liveupdate::host::up
