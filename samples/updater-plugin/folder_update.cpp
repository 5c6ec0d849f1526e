#include "folder_update.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

extern char **environ;

namespace sample {
namespace fs = std::filesystem;
using liveupdate::updater::Outcome;
using liveupdate::updater::Request;

namespace {

// A container path made relative ("/app/a.txt" → "app/a.txt"); empty when it
// would climb out of the container.
std::string contained(std::string_view container_path) {
    const fs::path relative = fs::path(container_path).relative_path().lexically_normal();
    const std::string text = relative.generic_string();
    if (text == ".." || text.starts_with("../")) return "";
    return text == "." ? std::string() : text;
}

Outcome infra(std::string message) { return Outcome::infra_failure(std::move(message)); }

std::string error_of(struct archive *a) {
    const char *text = archive_error_string(a);
    return text != nullptr ? text : "unknown libarchive error";
}

Outcome delete_paths(const std::string &root, const Request &request) {
    for (const std::string &path : request.delete_paths) {
        const std::string relative = contained(path);
        if (relative.empty()) return infra("refusing to delete " + path);
        std::error_code ec;
        fs::remove_all(fs::path(root) / relative, ec);
        if (ec) return infra("cannot delete " + path + ": " + ec.message());
    }
    return {};
}

struct ReadContext {
    const liveupdate::updater::ArchiveReader &read;
    std::vector<char> buffer = std::vector<char>(std::size_t{64} * 1024);
};

la_ssize_t read_archive(struct archive *a, void *ctx, const void **out) {
    auto *context = static_cast<ReadContext *>(ctx);
    const int64_t n = context->read(context->buffer.data(), context->buffer.size());
    if (n < 0) {
        archive_set_error(a, EIO, "the host could not produce the archive");
        return -1;
    }
    *out = context->buffer.data();
    return static_cast<la_ssize_t>(n);
}

Outcome unpack(const std::string &root, const liveupdate::updater::ArchiveReader &read) {
    if (!read) return {};
    std::unique_ptr<struct archive, int (*)(struct archive *)> reader(archive_read_new(), archive_read_free);
    std::unique_ptr<struct archive, int (*)(struct archive *)> writer(archive_write_disk_new(), archive_write_free);
    archive_read_support_format_tar(reader.get());
    archive_write_disk_set_options(writer.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
                                                     ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
    ReadContext context{read};
    if (archive_read_open(reader.get(), &context, nullptr, read_archive, nullptr) != ARCHIVE_OK) {
        return infra("cannot read the archive: " + error_of(reader.get()));
    }
    struct archive_entry *entry = nullptr;
    for (int r; (r = archive_read_next_header(reader.get(), &entry)) != ARCHIVE_EOF;) {
        if (r < ARCHIVE_WARN) return infra("cannot read the archive: " + error_of(reader.get()));
        const std::string name = archive_entry_pathname(entry);
        const std::string relative = contained("/" + name);
        if (relative.empty() || archive_entry_hardlink(entry) != nullptr) {
            return infra("refusing archive entry " + name);
        }
        archive_entry_set_pathname(entry, (fs::path(root) / relative).c_str());
        if (archive_write_header(writer.get(), entry) != ARCHIVE_OK) {
            return infra("cannot write " + name + ": " + error_of(writer.get()));
        }
        const void *block = nullptr;
        size_t size = 0;
        la_int64_t offset = 0;
        while ((r = archive_read_data_block(reader.get(), &block, &size, &offset)) == ARCHIVE_OK) {
            if (archive_write_data_block(writer.get(), block, size, offset) != ARCHIVE_OK) {
                return infra("cannot write " + name + ": " + error_of(writer.get()));
            }
        }
        if (r != ARCHIVE_EOF) return infra("cannot read " + name + ": " + error_of(reader.get()));
        if (archive_write_finish_entry(writer.get()) != ARCHIVE_OK) {
            return infra("cannot finish " + name + ": " + error_of(writer.get()));
        }
    }
    return {};
}

// Runs argv in directory; its output goes to log line by line; returns the exit code or -errno.
int run(const std::vector<std::string> &args, const std::string &directory, const LineFn &log) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return -errno;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, out[1], 2);
    posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (const std::string &arg : args) argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (spawned != 0) {
        ::close(out[0]);
        return -spawned;
    }
    std::string pending;
    char buffer[4096];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        pending.append(buffer, static_cast<size_t>(n));
        for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
            log(std::string_view(pending).substr(0, nl));
        }
    }
    if (!pending.empty()) log(pending);
    ::close(out[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

Outcome apply_to_folder(const std::string &root, const std::string &working_dir, const Request &request,
                        const LineFn &log) {
    if (Outcome deleted = delete_paths(root, request); deleted.kind != Outcome::Kind::ok) return deleted;
    if (Outcome unpacked = unpack(root, request.archive); unpacked.kind != Outcome::Kind::ok) return unpacked;
    const fs::path directory = fs::path(root) / contained(working_dir);
    for (size_t i = 0; i < request.runs.size(); ++i) {
        const liveupdate::updater::RunStep &step = request.runs[i];
        if (step.argv.empty()) return infra("an empty command");
        std::string line;
        for (size_t a = 0; a < step.argv.size(); ++a) line += (a == 0 ? "" : " ") + step.argv[a];
        if (!step.echo_off)
            log("[CMD " + std::to_string(i + 1) + "/" + std::to_string(request.runs.size()) + "] " + line);
        const int code = run(step.argv, directory.string(), log);
        if (code < 0) return infra("cannot start " + step.argv[0] + ": " + std::strerror(-code));
        if (code != 0) {
            return Outcome::run_failure(code, "Run step \"" + (step.echo_off ? std::string("(hidden)") : line) +
                                                  "\" failed with exit code: " + std::to_string(code));
        }
    }
    return {};
}

}  // namespace sample
