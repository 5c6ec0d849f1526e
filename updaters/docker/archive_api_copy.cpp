// Copies through the engine's archive API, for images without tar: the
// archive filtered and owned as tar would leave it, then checked path by path.
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <exception>
#include <thread>

#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/docker/tar_file_reader.hpp"
#include "updaters/shared/implied_dirs_filter.hpp"
#include "updaters/shared/update_failure.hpp"

namespace liveupdate::docker {

using updater::UpdateLog;

namespace {

constexpr std::size_t kVerifyProblemsShown = 20;

std::string decode_base64(std::string_view text) {
    static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (const char c : text) {
        const auto pos = kAlphabet.find(c);
        if (pos == std::string_view::npos) continue;  // padding and line breaks
        buffer = (buffer << 6) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buffer >> bits) & 0xFF);
        }
    }
    return out;
}

// A number of the x-docker-container-path-stat header (base64 of a JSON
// object); nullopt when absent, and an updaters::InfraFailure saying why when unreadable.
std::optional<std::int64_t> path_stat_number(const docker_engine::EngineResponse &response, std::string_view key) {
    try {
        const auto stat = common::parse_limited(decode_base64(response.header("x-docker-container-path-stat")));
        const auto &object = common::expect_object(stat, "");
        if (common::member(object, {key}) == nullptr) return std::nullopt;
        return common::int_field(object, {key});
    } catch (const common::DecodeError &e) {
        throw updaters::InfraFailure("the daemon's x-docker-container-path-stat: " + std::string(e.what()));
    }
}

}  // namespace

std::string DockerUpdater::container_file(const Target &target, const std::string &path) {
    const auto response =
        client_.get("/containers/" + target.id + "/archive?path=" + docker_engine::EngineClient::query_escape(path));
    if (response.status == 404) return {};
    try {
        docker_engine::EngineClient::expect_success(response,
                                                    "GET /containers/" + target.id.substr(0, 12) + "/archive");
        return first_file_in_tar(response.body).value_or(std::string());
    } catch (const std::exception &e) {
        throw updaters::InfraFailure("reading " + path + " from " + target.display() + ": " + e.what());
    }
}

std::optional<updaters::Owner> DockerUpdater::owner_in(const Target &target) {
    if (config_.user.empty()) return std::nullopt;
    {
        common::MutexLock lock(probe_cache_mutex_);
        if (const auto it = owner_.find(target.id); it != owner_.end()) return it->second;
    }
    updaters::Owner owner;
    try {
        owner = updaters::resolve_owner(config_.user, container_file(target, "/etc/passwd"),
                                        container_file(target, "/etc/group"));
    } catch (const std::invalid_argument &e) {
        throw updaters::InfraFailure("the docker updater's \"user\" setting cannot be applied in " + target.display() +
                                     ": " + e.what());
    }
    common::MutexLock lock(probe_cache_mutex_);
    owner_[target.id] = owner;
    return owner;
}

ContainerPathKind DockerUpdater::container_path_kind(const Target &target, const std::string &path) {
    const auto response =
        client_.head("/containers/" + target.id + "/archive?path=" + docker_engine::EngineClient::query_escape(path));
    if (response.status == 404) return ContainerPathKind::missing;
    docker_engine::EngineClient::expect_success(response, "HEAD /containers/" + target.id.substr(0, 12) + "/archive");
    const auto mode = path_stat_number(response, "mode");
    if (!mode)
        throw updaters::InfraFailure("the daemon gave no mode for " + path + " in " + target.display() +
                                     ": without it a symlink there cannot be told from a folder");
    // Go's os.FileMode: ModeDir is bit 31 (ModeSymlink, bit 27, and a file are "other").
    constexpr std::uint64_t kGoModeDir = std::uint64_t{1} << 31;
    return (static_cast<std::uint64_t>(*mode) & kGoModeDir) != 0 ? ContainerPathKind::folder : ContainerPathKind::other;
}

void DockerUpdater::copy_with_archive_api(const Target &target, const updater::Request &request,
                                          const std::vector<updaters::PlannedPath> &entries, const UpdateLog &log) {
    // The engine writes through a symlink on the way: below a sync's path a
    // symlink or a file where a folder comes is replaced by the folder instead.
    const std::set<std::string> explicit_folders = folders_to_make_explicit(
        entries, request.sync_roots, [&](const std::string &path) { return container_path_kind(target, path); });
    for (const auto &folder : explicit_folders)
        log(LU_LOG_DEBUG, "/" + folder + " in " + target.display() + " is not a folder: replacing it by one");
    // Docker extracts as root, keeping the archive's numeric owner: the entries
    // carry the configured user's, as tar running as that user would leave them.
    const std::optional<updaters::Owner> owner = owner_in(target);
    // libarchive pushes the filtered archive, curl pulls the request body: a
    // socket pair between a producer thread and curl's read callback.
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw updaters::InfraFailure(std::string("socketpair failed: ") + std::strerror(errno));
    std::exception_ptr producer_error;
    std::thread producer([&request, &producer_error, &explicit_folders, owner, fd = fds[1]] {
        try {
            updaters::copy_without_implied_dirs(
                request.archive,
                [fd](const char *data, std::size_t size) {
                    while (size > 0) {
                        const auto sent = ::send(fd, data, size, MSG_NOSIGNAL);
                        if (sent < 0 && errno == EINTR) continue;
                        if (sent < 0)
                            throw std::runtime_error(std::string("streaming the archive: ") + std::strerror(errno));
                        data += sent;
                        size -= static_cast<std::size_t>(sent);
                    }
                },
                owner, {}, explicit_folders);
        } catch (...) {
            producer_error = std::current_exception();
        }
        ::close(fd);
    });
    docker_engine::EngineResponse response;
    std::exception_ptr request_error;
    try {
        const docker_engine::BodyReader reader = [fd = fds[0]](char *buffer, std::size_t capacity) -> std::int64_t {
            for (;;) {
                const auto got = ::recv(fd, buffer, capacity, 0);
                if (got >= 0) return got;
                if (errno != EINTR) return -1;
            }
        };
        const std::string path = "/containers/" + target.id + "/archive?path=%2F";
        log(LU_LOG_DEBUG, "PUT " + path);
        response = client_.put_stream(path, "application/x-tar", reader,
                                      std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout));
    } catch (...) {
        request_error = std::current_exception();
    }
    ::close(fds[0]);
    producer.join();
    if (producer_error) std::rethrow_exception(producer_error);
    if (request_error) std::rethrow_exception(request_error);
    if (response.status < 200 || response.status >= 300) {
        try {
            docker_engine::EngineClient::expect_success(response,
                                                        "PUT /containers/" + target.id.substr(0, 12) + "/archive");
        } catch (const docker_engine::EngineError &e) {
            throw updaters::InfraFailure(std::string("copying changed files through the archive API: ") + e.what());
        }
    }
}

void DockerUpdater::verify_copies(const Target &target, const std::vector<updater::CopyMapping> &copies) {
    // The archive API can report success for files it failed to write.
    std::vector<std::string> problems;
    for (const auto &copy : copies) {
        const auto response = client_.head("/containers/" + target.id + "/archive?path=" +
                                           docker_engine::EngineClient::query_escape(copy.container_path));
        if (response.status == 404) {
            problems.push_back(copy.container_path + " (missing)");
            continue;
        }
        docker_engine::EngineClient::expect_success(response,
                                                    "HEAD /containers/" + target.id.substr(0, 12) + "/archive");
        struct stat local {};
        if (::lstat(copy.local_path.c_str(), &local) != 0 || !S_ISREG(local.st_mode)) continue;
        const auto size = path_stat_number(response, "size");
        if (!size) {
            problems.push_back(copy.container_path + " (the daemon gave no size)");
        } else if (*size != static_cast<std::int64_t>(local.st_size)) {
            problems.push_back(copy.container_path + " (size " + std::to_string(*size) + ", expected " +
                               std::to_string(local.st_size) + ")");
        }
    }
    if (problems.empty()) return;
    std::string message = "the archive API accepted the copy into " + target.display() + " but " +
                          std::to_string(problems.size()) + " of " + std::to_string(copies.size()) +
                          " path(s) did not arrive as sent:";
    for (std::size_t i = 0; i < problems.size() && i < kVerifyProblemsShown; ++i) message += "\n  " + problems[i];
    if (problems.size() > kVerifyProblemsShown)
        message += "\n  ... and " + std::to_string(problems.size() - kVerifyProblemsShown) + " more";
    throw updaters::InfraFailure(message);
}

}  // namespace liveupdate::docker
