#include "tests/docker/docker_test_support.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

namespace lu_test {

ShellResult sh(const std::string &command) {
    ShellResult result;
    FILE *pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("popen failed for: " + command);
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string sh_ok(const std::string &command) {
    auto result = sh(command);
    if (result.exit_code != 0)
        throw std::runtime_error("command failed (" + std::to_string(result.exit_code) + "): " + command + "\n" +
                                 result.output);
    while (!result.output.empty() && result.output.back() == '\n') result.output.pop_back();
    return result.output;
}

std::string shell_quote(const std::string &text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

const std::string &no_cluster_kubeconfig() {
    struct File {
        std::string path = "/tmp/lu-no-cluster-kubeconfig-" + std::to_string(::getpid());
        File() { std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n"; }
        ~File() { std::remove(path.c_str()); }
    };
    static const File file;
    return file.path;
}

TestContainer::TestContainer(const std::string &image, const std::string &command, const std::string &extra_run_args) {
    static std::atomic<int> counter{0};
    std::random_device random;
    name_ = "lu-test-" + std::to_string(random() % 100000) + "-" + std::to_string(counter++);
    id_ = sh_ok("docker run -d --network none --name " + name_ + " " + extra_run_args + " " + image + " " + command);
}

TestContainer::~TestContainer() {
    try {
        sh("docker rm -f " + name_ + " >/dev/null 2>&1");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "removing container %s: %s\n", name_.c_str(), e.what());
    }
}

ShellResult TestContainer::exec(const std::string &shell_command) const {
    return sh("docker exec " + name_ + " sh -c " + shell_quote(shell_command) + " 2>&1");
}

std::string TestContainer::started_at() const { return sh_ok("docker inspect -f '{{.State.StartedAt}}' " + name_); }

struct TarBuilder::Impl {
    archive *writer = archive_write_new();
    std::string bytes;
};

namespace {

la_ssize_t append_bytes(archive *, void *user, const void *data, size_t size) {
    static_cast<std::string *>(user)->append(static_cast<const char *>(data), size);
    return static_cast<la_ssize_t>(size);
}

}  // namespace

TarBuilder::TarBuilder() : impl_(std::make_unique<Impl>()) {
    archive_write_set_format_pax_restricted(impl_->writer);
    archive_write_open(impl_->writer, &impl_->bytes, nullptr, append_bytes, nullptr);
}

TarBuilder::~TarBuilder() { archive_write_free(impl_->writer); }

TarBuilder &TarBuilder::file(const std::string &path, const std::string &content, int mode) {
    archive_entry *entry = archive_entry_new();
    archive_entry_set_pathname(entry, path.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, static_cast<mode_t>(mode));
    archive_entry_set_size(entry, static_cast<la_int64_t>(content.size()));
    archive_entry_set_mtime(entry, 1700000000, 0);
    archive_write_header(impl_->writer, entry);
    archive_write_data(impl_->writer, content.data(), content.size());
    archive_entry_free(entry);
    return *this;
}

TarBuilder &TarBuilder::dir(const std::string &path, int mode) {
    archive_entry *entry = archive_entry_new();
    archive_entry_set_pathname(entry, path.c_str());
    archive_entry_set_filetype(entry, AE_IFDIR);
    archive_entry_set_perm(entry, static_cast<mode_t>(mode));
    archive_entry_set_mtime(entry, 1700000000, 0);
    archive_write_header(impl_->writer, entry);
    archive_entry_free(entry);
    return *this;
}

TarBuilder &TarBuilder::symlink(const std::string &path, const std::string &target) {
    archive_entry *entry = archive_entry_new();
    archive_entry_set_pathname(entry, path.c_str());
    archive_entry_set_filetype(entry, AE_IFLNK);
    archive_entry_set_perm(entry, 0777);
    archive_entry_set_symlink(entry, target.c_str());
    archive_write_header(impl_->writer, entry);
    archive_entry_free(entry);
    return *this;
}

std::string TarBuilder::finish() {
    archive_write_close(impl_->writer);
    return impl_->bytes;
}

int64_t BytesStream::read(void *ctx, void *buffer, std::size_t capacity) {
    auto *self = static_cast<BytesStream *>(ctx);
    const auto n = std::min(capacity, self->bytes_.size() - self->offset_);
    if (n > 0) std::memcpy(buffer, self->bytes_.data() + self->offset_, n);
    self->offset_ += n;
    if (self->after_read_) self->after_read_(self->offset_);
    return static_cast<int64_t>(n);
}

int32_t BytesStream::rewind(void *ctx) {
    auto *self = static_cast<BytesStream *>(ctx);
    self->offset_ = 0;
    ++self->rewinds_;
    return 0;
}

bool Outcome::logged(const std::string &needle) const {
    return std::any_of(logs.begin(), logs.end(),
                       [&](const std::string &l) { return l.find(needle) != std::string::npos; });
}

std::string Outcome::log_text() const {
    std::string text;
    for (const std::string &line : logs) text += line + "\n";
    return text;
}

namespace {

const lu_updater_api &plugin_api(const std::string &path) {
    static std::mutex mutex;
    static std::map<std::string, const lu_updater_api *> loaded;
    std::lock_guard lock(mutex);
    if (const auto found = loaded.find(path); found != loaded.end()) return *found->second;
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
    auto entry = reinterpret_cast<lu_updater_entry_fn>(::dlsym(handle, LU_UPDATER_ENTRY_SYMBOL));
    if (entry == nullptr) throw std::runtime_error("no " LU_UPDATER_ENTRY_SYMBOL " in " + path);
    const lu_plugin_info *info = nullptr;
    const lu_updater_api *table = entry(LU_ABI_VERSION, &info);
    if (table == nullptr) throw std::runtime_error(path + " refused ABI version 1");
    loaded[path] = table;
    return *table;
}

}  // namespace

struct DockerUpdater::LogSink {
    std::mutex mutex;
    std::vector<std::string> lines;
    static void collect(void *ctx, int32_t, lu_str line) {
        auto *sink = static_cast<LogSink *>(ctx);
        std::lock_guard lock(sink->mutex);
        sink->lines.emplace_back(line.data, line.size);
    }
};

DockerUpdater::DockerUpdater(const std::string &config_json, const std::string &plugin_path)
    : api_(&plugin_api(plugin_path)), logs_(new LogSink) {
    const auto &api = *api_;
    lu_updater_host host{sizeof(lu_updater_host), logs_, &LogSink::collect, nullptr};
    lu_message error{};
    if (api.create(&host, {config_json.data(), config_json.size()}, &updater_, &error) != LU_OK) {
        std::string text(error.data == nullptr ? "" : error.data, error.size);
        api.free_message(&error);
        delete logs_;
        throw std::runtime_error("docker updater create failed: " + text);
    }
}

DockerUpdater::~DockerUpdater() {
    api_->destroy(updater_);
    delete logs_;
}

std::string DockerUpdater::create_error(const std::string &config_json, const std::string &plugin_path) {
    const auto &api = plugin_api(plugin_path);
    lu_updater_host host{sizeof(lu_updater_host), nullptr, nullptr, nullptr};
    lu_message error{};
    lu_updater *updater = nullptr;
    if (api.create(&host, {config_json.data(), config_json.size()}, &updater, &error) == LU_OK) {
        api.destroy(updater);
        return {};
    }
    std::string text(error.data == nullptr ? "" : error.data, error.size);
    api.free_message(&error);
    return text.empty() ? "(no message)" : text;
}

std::string DockerUpdater::prepare(const std::string &container_id, const std::string &container_name,
                                   const Update &where) {
    const auto &api = *api_;
    if (api.struct_size < offsetof(lu_updater_api, prepare) + sizeof api.prepare || api.prepare == nullptr)
        throw std::runtime_error("the plugin has no prepare");
    const lu_container_ref container{sizeof(lu_container_ref), container_id.c_str(),         container_name.c_str(),
                                     where.pod.c_str(),        where.namespace_name.c_str(), ""};
    lu_message error{};
    if (api.prepare(updater_, &container, &error) == LU_OK) return {};
    std::string text(error.data == nullptr ? "" : error.data, error.size);
    api.free_message(&error);
    return text.empty() ? "(no message)" : text;
}

Outcome DockerUpdater::update(const std::string &container_id, const std::string &container_name, const Update &u) {
    std::vector<lu_path_mapping> copies;
    for (const auto &[local, container] : u.copies) copies.push_back({local.c_str(), container.c_str()});
    std::vector<const char *> deletes;
    for (const auto &d : u.deletes) deletes.push_back(d.c_str());
    std::vector<std::vector<const char *>> argvs;
    std::vector<lu_run_step> runs;
    for (const auto &run : u.runs) {
        argvs.emplace_back();
        for (const auto &a : run.argv) argvs.back().push_back(a.c_str());
    }
    for (std::size_t i = 0; i < u.runs.size(); ++i)
        runs.push_back({argvs[i].data(), argvs[i].size(), u.runs[i].echo_off ? 1 : 0});
    lu_container_ref container{sizeof(lu_container_ref), container_id.c_str(),
                               container_name.c_str(),   u.pod.c_str(),
                               u.namespace_name.c_str(), ""};
    std::vector<const char *> roots;
    for (const auto &r : u.sync_roots) roots.push_back(r.c_str());
    BytesStream archive(u.archive, u.after_read);
    lu_update_request request{};
    request.struct_size = sizeof request;
    request.live_update = "test";
    request.via = "docker";
    request.container = &container;
    request.copies = copies.data();
    request.copy_count = copies.size();
    request.archive = archive.stream();
    request.delete_paths = deletes.data();
    request.delete_count = deletes.size();
    request.runs = runs.data();
    request.run_count = runs.size();
    request.restart = u.restart ? 1 : 0;
    request.sync_roots = roots.data();
    request.sync_root_count = roots.size();
    request.archive_rewind = u.rewindable ? &BytesStream::rewind : nullptr;
    lu_update_outcome outcome{};
    outcome.struct_size = sizeof outcome;
    {
        std::lock_guard lock(logs_->mutex);
        logs_->lines.clear();
    }
    const auto &api = *api_;
    if (api.update(updater_, &request, &outcome) != LU_OK)
        throw std::runtime_error("update() did not write an outcome");
    Outcome result{outcome.kind,
                   outcome.exit_code,
                   std::string(outcome.message.data == nullptr ? "" : outcome.message.data, outcome.message.size),
                   {},
                   archive.rewinds()};
    {
        std::lock_guard lock(logs_->mutex);
        result.logs = logs_->lines;
    }
    api.free_message(&outcome.message);
    return result;
}

}  // namespace lu_test
