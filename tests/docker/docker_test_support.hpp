// Helpers for the tests against the real Docker engine: shell commands,
// throw-away containers, in-memory tar archives, and the docker updater
// plugin loaded through its C ABI.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "liveupdate/updater_plugin.h"

namespace lu_test {

struct ShellResult {
    int exit_code = -1;
    std::string output;  // stdout only
};

// Runs a command through /bin/sh.
ShellResult sh(const std::string &command);
// Runs it and throws std::runtime_error unless it exits 0; returns stdout without the trailing newline.
std::string sh_ok(const std::string &command);
std::string shell_quote(const std::string &text);

// A kubeconfig with no cluster in it, written once per process (and gone
// at its exit). The kubernetes updater asks the kubeconfig's API server for
// a pod before it sends and after a failure; a kubectl stand-in's pods are
// Docker containers no API server knows, so given this one it cannot tell
// and the update's own outcome stands, whatever KUBECONFIG says.
const std::string &no_cluster_kubeconfig();

// A detached container removed at the end of the test.
class TestContainer {
public:
    // command: shell words after the image (already quoted as needed).
    TestContainer(const std::string &image, const std::string &command, const std::string &extra_run_args = "");
    ~TestContainer();
    TestContainer(const TestContainer &) = delete;
    TestContainer &operator=(const TestContainer &) = delete;

    const std::string &id() const { return id_; }
    const std::string &name() const { return name_; }
    // `docker exec` of a shell command; the result of it.
    ShellResult exec(const std::string &shell_command) const;
    std::string started_at() const;

private:
    std::string name_;
    std::string id_;
};

// A tar archive built in memory with libarchive.
class TarBuilder {
public:
    TarBuilder();
    ~TarBuilder();
    TarBuilder &file(const std::string &path, const std::string &content, int mode = 0644);
    TarBuilder &dir(const std::string &path, int mode = 0755);
    TarBuilder &symlink(const std::string &path, const std::string &target);
    std::string finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Serves bytes (not copied: they outlive the stream) through lu_archive_stream.
// after_read, when set, is told the bytes handed out so far after each read.
class BytesStream {
public:
    explicit BytesStream(std::string_view bytes, std::function<void(std::size_t)> after_read = {})
        : bytes_(bytes), after_read_(std::move(after_read)) {}
    lu_archive_stream stream() { return {this, &BytesStream::read}; }
    std::size_t consumed() const { return offset_; }
    // lu_rewind_fn: from the first byte again.
    static int32_t rewind(void *ctx);
    int rewinds() const { return rewinds_; }

private:
    static int64_t read(void *ctx, void *buffer, std::size_t capacity);
    std::string_view bytes_;
    std::function<void(std::size_t)> after_read_;
    std::size_t offset_ = 0;
    int rewinds_ = 0;
};

struct Outcome {
    int32_t kind = -1;
    int32_t exit_code = 0;
    std::string message;
    std::vector<std::string> logs;
    int archive_rewinds = 0;  // how often the plugin started the archive again
    bool logged(const std::string &needle) const;
    std::string log_text() const;  // every log line, for a failing check's message
};

struct Update {
    std::vector<std::pair<std::string, std::string>> copies;  // local, container
    std::string archive;
    std::vector<std::string> deletes;
    struct Run {
        std::vector<std::string> argv;
        bool echo_off = false;
    };
    std::vector<Run> runs;
    bool restart = false;
    std::vector<std::string> sync_roots;  // lu_update_request.sync_roots
    std::string pod;                      // kubernetes updater: the pod, its namespace
    std::string namespace_name;
    bool rewindable = false;                           // the request offers archive_rewind, as lu-host does
    std::function<void(std::size_t)> after_read = {};  // BytesStream's
};

// An updater plugin (by default build/lib/libupdater_docker.so) and one instance of it.
class DockerUpdater {
public:
    explicit DockerUpdater(const std::string &config_json = "{}",
                           const std::string &plugin_path = LU_DOCKER_UPDATER_PATH);
    ~DockerUpdater();
    DockerUpdater(const DockerUpdater &) = delete;
    DockerUpdater &operator=(const DockerUpdater &) = delete;

    Outcome update(const std::string &container_id, const std::string &container_name, const Update &update);
    // lu_updater_api.prepare for the container (pod and namespace from `where`): its error text, "" when it
    // succeeded. Throws when the plugin has no prepare.
    std::string prepare(const std::string &container_id, const std::string &container_name, const Update &where);
    // create() with this config: the error text, or "" when it succeeded.
    static std::string create_error(const std::string &config_json,
                                    const std::string &plugin_path = LU_DOCKER_UPDATER_PATH);

private:
    const lu_updater_api *api_ = nullptr;
    lu_updater *updater_ = nullptr;
    struct LogSink;
    LogSink *logs_ = nullptr;  // the plugin may log from several threads
};

}  // namespace lu_test
