#include "tests/soak/soak_daemon.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <deque>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tests/integration/up_daemon.hpp"
#include "tests/soak/soak_paths.hpp"

namespace lu_soak {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string objects_json(const std::string &project) {
    const json::array items{
        json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"},
            "spec": {"watchedPaths": ["src"]}})"),
        json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService",
            "metadata": {"name": "web"}, "spec": {"service": "web", "project": {"name": ")" +
                    project + R"(", "projectPath": "."}}})"),
        json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
            "metadata": {"name": ")" +
                    std::string(kLiveUpdateName) + R"(", "annotations": {"tilt.dev/resource": "web"}},
            "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}],
                     "selector": {"dockerCompose": {"service": "web"}}, "initialSync": {},
                     "syncs": [{"localPath": "src", "containerPath": ")" +
                    std::string(kSyncTarget) + R"(", "syncBack": [")" + kSyncBackDir + R"("]}]}})")};
    return json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}});
}

std::size_t count_of(const std::string &text, const std::string &needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

}  // namespace

SoakDaemon::SoakDaemon(fs::path dir, DaemonBinaries binaries, const std::string &compose_project)
    : dir_(std::move(dir)), binaries_(std::move(binaries)) {
    fs::create_directories(src());
    fs::create_directories(dir_ / "plugins");
    fs::copy_file(binaries_.liveupdate_plugin, dir_ / "plugins/libliveupdate.so");
    fs::copy_file(binaries_.docker_updater, dir_ / "plugins/libupdater_docker.so");
    up_it::write_file(dir_ / "objects.json", objects_json(compose_project));
}

SoakDaemon::~SoakDaemon() { stop(); }

void SoakDaemon::start() {
    const fs::path log = dir_ / "daemon.log";
    const std::size_t started_before = count_of(up_it::read_file(log), "up: watching");
    std::vector<std::string> args{binaries_.lu_host.string(),
                                  "up",
                                  "--control-socket",
                                  (dir_ / "ctl/control.sock").string(),
                                  "--no-web",
                                  "--debounce",
                                  "20",
                                  "--plugin",
                                  (dir_ / "plugins/libliveupdate.so").string(),
                                  "--updater",
                                  "docker=" + (dir_ / "plugins/libupdater_docker.so").string(),
                                  (dir_ / "objects.json").string()};
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    int rc = 0;
    {
        std::lock_guard lock(up_it::writing_or_spawning());
        rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    }
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("soak: cannot start " + binaries_.lu_host.string());
    bool exited = false;
    const bool watching = up_it::wait_until([&] {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) exited = true;
        return exited || count_of(up_it::read_file(log), "up: watching") > started_before;
    });
    if (exited) pid_ = -1;
    if (exited || !watching) throw std::runtime_error("soak: lu-host up did not start:\n" + log_tail(40));
}

void SoakDaemon::kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

void SoakDaemon::stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

json::value SoakDaemon::status() const {
    const json::value list = up_it::json_or_text(cli("get liveupdates -o json"));
    if (!list.is_object() || !list.as_object().contains("items")) return nullptr;
    for (const auto &item : list.at("items").as_array())
        if (item.at("metadata").at("name") == json::value(kLiveUpdateName)) {
            const auto *s = item.as_object().if_contains("status");
            return s != nullptr ? *s : json::value(json::object{});
        }
    return nullptr;
}

void SoakDaemon::reload_liveupdate_plugin() {
    replace_and_wait(binaries_.liveupdate_plugin, dir_ / "plugins/libliveupdate.so");
}

void SoakDaemon::reload_docker_updater() {
    replace_and_wait(binaries_.docker_updater, dir_ / "plugins/libupdater_docker.so");
}

std::string SoakDaemon::log_tail(std::size_t lines) const {
    std::istringstream in(up_it::read_file(dir_ / "daemon.log"));
    std::deque<std::string> last;
    for (std::string line; std::getline(in, line);) {
        last.push_back(line);
        if (last.size() > lines) last.pop_front();
    }
    std::string out;
    for (const auto &line : last) out += "    " + line + "\n";
    return out;
}

SoakDaemon::SyncBackStarts SoakDaemon::sync_back_starts(const std::string &container) const {
    std::istringstream in(up_it::read_file(dir_ / "daemon.log"));
    SyncBackStarts out;
    const std::string from = "Sync back from container " + container + " (";
    for (std::string line; std::getline(in, line);) {
        if (line.find(from) == std::string::npos) continue;
        out.running = line.ends_with(": started");
        if (out.running) ++out.started;
    }
    return out;
}

SoakDaemon::Verified SoakDaemon::verify() const {
    const auto r = up_it::run_command("timeout 120 " + binaries_.lu_host.string() + " verify --control-socket " +
                                      (dir_ / "ctl/control.sock").string() + " 2>&1");
    return {r.exit_code == 124 ? -1 : r.exit_code, r.output};
}

std::string SoakDaemon::cli(const std::string &args) const {
    return up_it::run_command(binaries_.lu_host.string() + " " + args + " --control-socket " +
                              (dir_ / "ctl/control.sock").string() + " 2>&1")
        .output;
}

unsigned SoakDaemon::reloads_of(const fs::path &file) const {
    const json::value list = up_it::json_or_text(cli("plugins -o json"));
    const json::array *plugins = nullptr;
    if (list.is_array())
        plugins = &list.as_array();
    else if (list.is_object() && list.as_object().contains("plugins"))
        plugins = &list.at("plugins").as_array();
    if (plugins == nullptr) return 0;
    for (const auto &p : *plugins) {
        const auto &o = p.as_object();
        const auto *f = o.if_contains("file");
        const auto *r = o.if_contains("reloads");
        if (f != nullptr && f->is_string() && fs::path(std::string(f->as_string())).filename() == file.filename() &&
            r != nullptr)
            return static_cast<unsigned>(r->to_number<std::int64_t>());
    }
    return 0;
}

// Written beside it and renamed over it, as a linker's output appears.
void SoakDaemon::replace_and_wait(const fs::path &built, const fs::path &copy) {
    const unsigned before = reloads_of(copy);
    const fs::path fresh = copy.string() + ".new";
    fs::copy_file(built, fresh, fs::copy_options::overwrite_existing);
    fs::rename(fresh, copy);
    if (!up_it::wait_until([&] { return reloads_of(copy) > before; }, std::chrono::seconds(30)))
        throw std::runtime_error("soak: the daemon did not reload " + copy.string() + ":\n" + log_tail(40));
}

}  // namespace lu_soak
