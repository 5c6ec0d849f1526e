// Writing an updater plugin in C++, header-only: the C ABI glue of
// updater_plugin.h generated around a plain class.
//
//   namespace {
//   class Folder {
//   public:
//       static constexpr const char *name = "folder";  // lu_plugin_info name; messages say "folder updater: ..."
//       static constexpr const char *version = "0.1.0";
//       Folder(std::string_view config_json, const liveupdate::updater::Host &host);  // throws std::invalid_argument
//       liveupdate::updater::Outcome update(const liveupdate::updater::Request &request);  // logs with request.log
//       const void *extension(std::string_view id);  // optional; must not throw
//   };
//   }  // namespace
//
//   extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi, const lu_plugin_info **info) {
//       return liveupdate::updater::entry<Folder>(abi, info);
//   }
//
// Keep the class in an anonymous namespace: the tables generated for it then
// stay private to the plugin (no unique global symbol keeps it loaded after
// dlclose). update() may run concurrently on one instance, as the ABI says.
// An update logs through request.log, from any thread until update() returns:
// its lines reach that update's LiveUpdate.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "liveupdate/ext/local_containers.h"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::updater {

namespace detail {

// Whether a struct that starts with struct_size is long enough to hold member:
// an older caller hands shorter structs, whose late members must not be read.
template <class Struct, class Member>
bool has_member(const Struct &s, Member Struct::*member) noexcept {
    const auto end =
        static_cast<std::size_t>(reinterpret_cast<const char *>(&(s.*member) + 1) - reinterpret_cast<const char *>(&s));
    return s.struct_size >= end;
}

template <class Struct, class Member>
Member member_or(const Struct &s, Member Struct::*member, std::type_identity_t<Member> absent) noexcept {
    return has_member(s, member) ? s.*member : absent;
}

inline std::string text(const char *s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace detail

struct ContainerRef {
    std::string id;
    std::string name;
    std::string pod;             // "" outside Kubernetes
    std::string namespace_name;  // "" outside Kubernetes
    std::string root;            // local containers: the folder standing for "/"; else ""
    bool operator==(const ContainerRef &) const = default;
};

struct CopyMapping {
    std::string local_path;
    std::string container_path;
    bool operator==(const CopyMapping &) const = default;
};

struct RunStep {
    std::vector<std::string> argv;
    bool echo_off = false;           // do not log the command line
    std::string user{};              // "" : the container's default
    std::string working_dir{};       // "" : the container's default
    std::vector<std::string> env{};  // "KEY=VALUE", added
    bool privileged = false;
};

// Reads up to capacity bytes of the archive: the count read, 0 at the end, -1 on error.
using ArchiveReader = std::function<std::int64_t(void *buffer, std::size_t capacity)>;

// Starts the archive again from its first byte, built anew by the host from
// the files as they are now (lu_rewind_fn): false when it cannot.
using ArchiveRewinder = std::function<bool()>;

// Where one update's log lines go (lu_update_request.log); callable from any
// thread, concurrently too, until update() returns. Empty: lines are dropped.
class UpdateLog {
public:
    UpdateLog() = default;
    UpdateLog(lu_log_fn log, void *ctx) noexcept : log_(log), ctx_(ctx) {}

    void operator()(lu_log_level level, std::string_view line) const {
        if (log_ != nullptr) log_(ctx_, level, abi::to_lu_str(line));
    }
    explicit operator bool() const noexcept { return log_ != nullptr; }

private:
    lu_log_fn log_ = nullptr;
    void *ctx_ = nullptr;
};

// What a forward write may replace (lu_expected_kind, lu_update_request.expected).
struct ExpectedContent {
    enum class Kind : std::int32_t { any = LU_EXPECT_ANY, absent = LU_EXPECT_ABSENT, digest = LU_EXPECT_DIGEST };
    Kind kind = Kind::any;
    std::uint64_t digest = 0;  // XXH3-64 of the content, for Kind::digest
    bool operator==(const ExpectedContent &) const = default;
};

// The forward guard of an update (lu_update_request.expected/kept); empty
// from an older host or when nothing the update carries comes back: then
// every path expects anything.
class ForwardGuard {
public:
    ForwardGuard() = default;
    ForwardGuard(lu_expected_fn expected, lu_kept_fn kept, void *ctx) noexcept
        : expected_(expected), kept_(kept), ctx_(ctx) {}

    ExpectedContent expected(std::string_view container_path) const {
        if (expected_ == nullptr) return {};
        std::uint64_t digest = 0;
        switch (expected_(ctx_, abi::to_lu_str(container_path), &digest)) {
        case LU_EXPECT_ABSENT: return {ExpectedContent::Kind::absent, 0};
        case LU_EXPECT_DIGEST: return {ExpectedContent::Kind::digest, digest};
        default: return {};
        }
    }
    void kept(std::string_view container_path, std::string_view why) const {
        if (kept_ != nullptr) kept_(ctx_, abi::to_lu_str(container_path), abi::to_lu_str(why));
    }
    explicit operator bool() const noexcept { return expected_ != nullptr; }

private:
    lu_expected_fn expected_ = nullptr;
    lu_kept_fn kept_ = nullptr;
    void *ctx_ = nullptr;
};

struct Request {
    std::string live_update;  // the LiveUpdate's name, for logs
    std::string via;          // updater class
    ContainerRef container;
    std::vector<CopyMapping> copies;  // what the archive carries
    ArchiveReader archive;            // empty when the request carries no archive
    ArchiveRewinder archive_rewind;   // empty without an archive, or from an older host
    std::vector<std::string> delete_paths;
    std::vector<RunStep> runs;
    bool restart = false;
    bool initial_sync = false;
    UpdateLog log{};                      // this update's log lines; the host's log when the host is older
    std::vector<std::string> sync_roots;  // lu_update_request.sync_roots; empty from an older host
    ForwardGuard guard{};                 // lu_update_request.expected/kept; empty from an older host
};

// How an update reached into the container (lu_agent_source).
enum class AgentSource : std::int32_t {
    unknown = LU_AGENT_SOURCE_UNKNOWN,
    none = LU_AGENT_SOURCE_NONE,
    injected = LU_AGENT_SOURCE_INJECTED,
    copied = LU_AGENT_SOURCE_COPIED
};

struct Outcome {
    enum class Kind : std::int32_t {
        ok = LU_OUTCOME_OK,
        run_failure = LU_OUTCOME_RUN_FAILURE,
        infra_failure = LU_OUTCOME_INFRA_FAILURE,
        container_not_running = LU_OUTCOME_CONTAINER_NOT_RUNNING
    };
    Kind kind = Kind::ok;
    int exit_code = 0;  // of the failed command, for run_failure
    std::string message;
    AgentSource agent = AgentSource::unknown;  // lu_update_outcome.agent_source
    bool process_restarted = false;            // lu_update_outcome.process_restarted

    static Outcome ok(std::string message = {}) { return {Kind::ok, 0, std::move(message)}; }
    static Outcome run_failure(int exit_code, std::string message) {
        return {Kind::run_failure, exit_code, std::move(message)};
    }
    static Outcome infra_failure(std::string message) { return {Kind::infra_failure, 0, std::move(message)}; }
    static Outcome container_not_running(std::string message) {
        return {Kind::container_not_running, 0, std::move(message)};
    }
};

// The outcome an lu_update_outcome reports, with its message; none for a
// kind this header does not know. The 1.13 members are read as they stand:
// the caller zeroes them, an older plugin does not write them.
inline std::optional<Outcome> to_outcome(const lu_update_outcome &out, std::string message) {
    std::optional<Outcome> known;
    switch (out.kind) {
    case LU_OUTCOME_OK: known = Outcome::ok(std::move(message)); break;
    case LU_OUTCOME_RUN_FAILURE: known = Outcome::run_failure(out.exit_code, std::move(message)); break;
    case LU_OUTCOME_INFRA_FAILURE: known = Outcome::infra_failure(std::move(message)); break;
    case LU_OUTCOME_CONTAINER_NOT_RUNNING: known = Outcome::container_not_running(std::move(message)); break;
    default: return std::nullopt;
    }
    if (out.struct_size >= offsetof(lu_update_outcome, process_restarted) + sizeof(out.process_restarted)) {
        if (out.agent_source >= LU_AGENT_SOURCE_NONE && out.agent_source <= LU_AGENT_SOURCE_COPIED)
            known->agent = static_cast<AgentSource>(out.agent_source);
        known->process_restarted = out.process_restarted != 0;
    }
    return known;
}

inline ContainerRef to_container_ref(const lu_container_ref &c) {
    using detail::member_or;
    using detail::text;
    return ContainerRef{text(member_or(c, &lu_container_ref::container_id, nullptr)),
                        text(member_or(c, &lu_container_ref::container_name, nullptr)),
                        text(member_or(c, &lu_container_ref::pod_name, nullptr)),
                        text(member_or(c, &lu_container_ref::namespace_name, nullptr)),
                        text(member_or(c, &lu_container_ref::root, nullptr))};
}

// The C view of container, valid while container lives and is not changed.
inline lu_container_ref to_lu_container_ref(const ContainerRef &container) noexcept {
    return {sizeof(lu_container_ref),         container.id.c_str(),  container.name.c_str(), container.pod.c_str(),
            container.namespace_name.c_str(), container.root.c_str()};
}

inline Request to_request(const lu_update_request &r) {
    using detail::member_or;
    using detail::text;
    using R = lu_update_request;
    Request request;
    request.live_update = text(member_or(r, &R::live_update, nullptr));
    request.via = text(member_or(r, &R::via, nullptr));
    if (const lu_container_ref *c = member_or(r, &R::container, nullptr)) request.container = to_container_ref(*c);
    if (const lu_path_mapping *copies = member_or(r, &R::copies, nullptr)) {
        for (std::size_t i = 0, n = member_or(r, &R::copy_count, 0); i < n; ++i)
            request.copies.push_back({text(copies[i].local_path), text(copies[i].container_path)});
    }
    const lu_archive_stream stream = member_or(r, &R::archive, lu_archive_stream{nullptr, nullptr});
    if (stream.read != nullptr) {
        request.archive = [stream](void *buffer, std::size_t capacity) {
            return stream.read(stream.ctx, buffer, capacity);
        };
        if (const lu_rewind_fn rewind = member_or(r, &R::archive_rewind, nullptr))
            request.archive_rewind = [ctx = stream.ctx, rewind] { return rewind(ctx) == 0; };
    }
    if (const char *const *paths = member_or(r, &R::delete_paths, nullptr)) {
        for (std::size_t i = 0, n = member_or(r, &R::delete_count, 0); i < n; ++i)
            request.delete_paths.push_back(text(paths[i]));
    }
    if (const lu_run_step *runs = member_or(r, &R::runs, nullptr)) {
        for (std::size_t i = 0, n = member_or(r, &R::run_count, 0); i < n; ++i) {
            RunStep step{{}, runs[i].echo_off != 0};
            for (std::size_t a = 0; runs[i].argv != nullptr && a < runs[i].argc; ++a)
                step.argv.push_back(text(runs[i].argv[a]));
            request.runs.push_back(std::move(step));
        }
    }
    if (const lu_run_options *options = member_or(r, &R::run_options, nullptr)) {
        using O = lu_run_options;
        for (std::size_t i = 0; i < request.runs.size(); ++i) {
            const O &o = options[i];
            RunStep &step = request.runs[i];
            step.user = text(member_or(o, &O::user, nullptr));
            step.working_dir = text(member_or(o, &O::working_dir, nullptr));
            if (const char *const *env = member_or(o, &O::env, nullptr))
                for (std::size_t e = 0, n = member_or(o, &O::env_count, 0); e < n; ++e)
                    step.env.push_back(text(env[e]));
            step.privileged = member_or(o, &O::privileged, 0) != 0;
        }
    }
    request.restart = member_or(r, &R::restart, 0) != 0;
    request.initial_sync = member_or(r, &R::initial_sync, 0) != 0;
    request.log = UpdateLog(member_or(r, &R::log, nullptr), member_or(r, &R::log_ctx, nullptr));
    if (const char *const *roots = member_or(r, &R::sync_roots, nullptr)) {
        for (std::size_t i = 0, n = member_or(r, &R::sync_root_count, 0); i < n; ++i)
            request.sync_roots.push_back(text(roots[i]));
    }
    if (const lu_expected_fn expected = member_or(r, &R::expected, nullptr))
        request.guard = ForwardGuard(expected, member_or(r, &R::kept, nullptr), member_or(r, &R::guard_ctx, nullptr));
    return request;
}

// What a local container's process runs with; commands run in it get the same.
struct ContainerProcess {
    std::vector<std::pair<std::string, std::string>> env;  // added to the host's environment
    std::string working_dir;                               // a container path
};

// The host's LU_HOST_LOCAL_CONTAINERS_ID extension (it supervises local container processes).
class LocalContainers {
public:
    LocalContainers(void *host_ctx, const lu_host_local_containers *table) noexcept
        : ctx_(host_ctx),
          table_(table != nullptr && detail::member_or(*table, &lu_host_local_containers::restart, nullptr) != nullptr
                     ? table
                     : nullptr) {}

    // Whether the host offers the extension.
    explicit operator bool() const noexcept { return table_ != nullptr; }

    // Restarts the container's process: "" when done, else the host's reason.
    std::string restart(const ContainerRef &container) const {
        if (table_ == nullptr) return "the host does not supervise local containers";
        const lu_container_ref ref = to_lu_container_ref(container);
        char error[512] = {0};
        if (table_->restart(ctx_, &ref, error, sizeof error) == 0) return {};
        return error[0] != '\0' ? std::string(error) : std::string("the host gave no reason");
    }

    // The container's process settings; none when the host is older than
    // this call or does not know the container.
    std::optional<ContainerProcess> process(const ContainerRef &container) const {
        const auto describe =
            table_ == nullptr ? nullptr : detail::member_or(*table_, &lu_host_local_containers::process, nullptr);
        if (describe == nullptr) return std::nullopt;
        const lu_container_ref ref = to_lu_container_ref(container);
        ContainerProcess process;
        const auto add = [](void *each_ctx, const char *name, const char *value) {
            static_cast<ContainerProcess *>(each_ctx)->env.emplace_back(detail::text(name), detail::text(value));
        };
        char working_dir[4096] = {0};
        if (describe(ctx_, &ref, add, &process, working_dir, sizeof working_dir) != 0) return std::nullopt;
        process.working_dir = working_dir;
        return process;
    }

private:
    void *ctx_;
    const lu_host_local_containers *table_;
};

// What the host offers the plugin (lu_updater_host), copied at create time.
class Host {
public:
    Host() = default;
    explicit Host(const lu_updater_host *host) noexcept {
        if (host == nullptr) return;
        ctx_ = detail::member_or(*host, &lu_updater_host::ctx, nullptr);
        log_ = detail::member_or(*host, &lu_updater_host::log, nullptr);
        get_extension_ = detail::member_or(*host, &lu_updater_host::get_extension, nullptr);
    }

    // Lines not tied to one update; an update's go to its Request::log.
    void log(lu_log_level level, std::string_view line) const {
        if (log_ != nullptr) log_(ctx_, level, abi::to_lu_str(line));
    }

    // The host's log as an UpdateLog: where an older host's update lines go.
    UpdateLog update_log() const noexcept { return {log_, ctx_}; }

    // A host capability by versioned id; nullptr when the host does not offer it.
    const void *extension(const char *id) const {
        return get_extension_ != nullptr && id != nullptr ? get_extension_(ctx_, id) : nullptr;
    }

    LocalContainers local_containers() const {
        return {ctx_, static_cast<const lu_host_local_containers *>(extension(LU_HOST_LOCAL_CONTAINERS_ID))};
    }

    // The context a host extension's functions take.
    void *context() const noexcept { return ctx_; }

private:
    void *ctx_ = nullptr;
    lu_log_fn log_ = nullptr;
    const void *(*get_extension_)(void *ctx, const char *id) = nullptr;
};

template <class Impl>
concept UpdaterImpl = std::constructible_from<Impl, std::string_view, const Host &> &&
    requires(Impl &impl, const Request &request) {
    { impl.update(request) } -> std::same_as<Outcome>;
    { Impl::name } -> std::convertible_to<const char *>;
    { Impl::version } -> std::convertible_to<const char *>;
};

template <class Impl>
concept ServesExtensions = requires(Impl &impl, std::string_view id) {
    { impl.extension(id) } -> std::convertible_to<const void *>;
};

// An updater that can make a container ready before its first update
// (lu_updater_api.prepare); prepare throws when it could not.
template <class Impl>
concept Prepares = requires(Impl &impl, const ContainerRef &container) {
    { impl.prepare(container) } -> std::same_as<void>;
};

namespace detail {

// What an lu_updater handle made by entry<Impl>'s table points to: the plugin
// and the host it was created with.
template <class Impl>
struct Instance {
    Instance(std::string_view config_json, const lu_updater_host *c_host) : host(c_host), impl(config_json, host) {}

    Host host;
    Impl impl;
};

}  // namespace detail

// The instance behind an lu_updater handle made by entry<Impl>'s table, for a
// plugin's own extension functions (they receive the handle).
template <class Impl>
Impl &instance(lu_updater *updater) noexcept {
    return reinterpret_cast<detail::Instance<Impl> *>(updater)->impl;
}

namespace detail {

// "<name> updater: <what>", or what alone when there is no memory for more.
inline lu_message prefixed_message(std::string_view name, std::string_view what) noexcept {
    try {
        return abi::make_message(std::string(name) + " updater: " + std::string(what));
    } catch (const std::bad_alloc &) {
        return abi::make_message(what);
    }
}

// body's result; an exception it throws becomes LU_ERR_INTERNAL with
// "<name> updater: <what>" in out_error (when given).
template <class Body>
int32_t guarded(std::string_view name, lu_message *out_error, Body &&body) noexcept {
    try {
        return body();
    } catch (const std::exception &e) {
        if (out_error != nullptr) *out_error = prefixed_message(name, e.what());
    } catch (...) {
        if (out_error != nullptr) *out_error = prefixed_message(name, "unknown exception");
    }
    return LU_ERR_INTERNAL;
}

inline void write_outcome(lu_update_outcome &out, Outcome::Kind kind, int exit_code, lu_message message) noexcept {
    out.kind = static_cast<std::int32_t>(kind);
    out.exit_code = exit_code;
    out.message = message;
}

// The 1.13 members, where the host's struct covers them (an older host's is shorter).
inline void write_outcome_details(lu_update_outcome &out, const Outcome &outcome) noexcept {
    if (out.struct_size < offsetof(lu_update_outcome, process_restarted) + sizeof(out.process_restarted)) return;
    out.agent_source = static_cast<std::int32_t>(outcome.agent);
    out.process_restarted = outcome.process_restarted ? 1 : 0;
}

template <UpdaterImpl Impl>
struct Tables {
    static int32_t create(const lu_updater_host *host, lu_str config_json, lu_updater **out_updater,
                          lu_message *out_error) noexcept {
        if (out_updater == nullptr) return LU_ERR_INVALID_ARGUMENT;
        *out_updater = nullptr;
        return guarded(Impl::name, out_error, [&] {
            try {
                *out_updater = reinterpret_cast<lu_updater *>(new Instance<Impl>(abi::to_view(config_json), host));
                return LU_OK;
            } catch (const std::invalid_argument &e) {
                if (out_error != nullptr) *out_error = abi::make_message(e.what());
                return LU_ERR_INVALID_ARGUMENT;
            } catch (const std::bad_alloc &) {
                if (out_error != nullptr) *out_error = prefixed_message(Impl::name, "out of memory");
                return LU_ERR_INTERNAL;
            }
        });
    }

    static void destroy(lu_updater *updater) noexcept { delete reinterpret_cast<Instance<Impl> *>(updater); }

    static int32_t update(lu_updater *updater, const lu_update_request *request, lu_update_outcome *out) noexcept {
        if (updater == nullptr || request == nullptr || out == nullptr ||
            member_or(*request, &lu_update_request::container, nullptr) == nullptr)
            return LU_ERR_INVALID_ARGUMENT;
        lu_message error{};
        const int32_t done = guarded(Impl::name, &error, [&] {
            Request converted = to_request(*request);
            if (!converted.log) converted.log = reinterpret_cast<Instance<Impl> *>(updater)->host.update_log();
            const Outcome outcome = instance<Impl>(updater).update(converted);
            write_outcome(*out, outcome.kind, outcome.exit_code, abi::make_message(outcome.message));
            write_outcome_details(*out, outcome);
            return LU_OK;
        });
        if (done != LU_OK) write_outcome(*out, Outcome::Kind::infra_failure, 0, error);
        return LU_OK;
    }

    static void free_message(lu_message *message) noexcept { abi::release_message(message); }

    static const void *get_extension([[maybe_unused]] lu_updater *updater, [[maybe_unused]] const char *id) noexcept {
        if constexpr (ServesExtensions<Impl>) {
            if (updater != nullptr && id != nullptr) return instance<Impl>(updater).extension(id);
        }
        return nullptr;
    }

    static int32_t prepare(lu_updater *updater, const lu_container_ref *container, lu_message *out_error) noexcept {
        if (updater == nullptr || container == nullptr) return LU_ERR_INVALID_ARGUMENT;
        if constexpr (Prepares<Impl>) {
            return guarded(Impl::name, out_error, [&] {
                instance<Impl>(updater).prepare(to_container_ref(*container));
                return LU_OK;
            });
        }
        return LU_OK;
    }

    static constexpr lu_updater_api api{sizeof(lu_updater_api),
                                        LU_ABI_VERSION,
                                        create,
                                        destroy,
                                        update,
                                        free_message,
                                        get_extension,
                                        Prepares<Impl> ? prepare : nullptr};
    static constexpr lu_plugin_info info{sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION, "updater", Impl::name,
                                         Impl::version};
};

}  // namespace detail

// The body of a plugin's lu_updater_plugin_entry: its info always, its table
// when the host asks for the ABI revision this header describes.
template <UpdaterImpl Impl>
const lu_updater_api *entry(std::uint32_t abi_version, const lu_plugin_info **out_info) noexcept {
    if (out_info != nullptr) *out_info = &detail::Tables<Impl>::info;
    return abi_version == LU_ABI_VERSION ? &detail::Tables<Impl>::api : nullptr;
}

}  // namespace liveupdate::updater
