// liveupdate/updater.hpp seen from the host's side: a tiny plugin class made
// into the C table, then driven through that table only.
#define BOOST_TEST_MODULE updater_helper_tests
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "liveupdate/ext/record.h"
#include "liveupdate/updater.hpp"

namespace lu = liveupdate::updater;

namespace {

// Updates answer what request.via asks for: "ok", "run", "infra" or "throw".
class Probe {
public:
    static constexpr const char *name = "probe";
    static constexpr const char *version = "9.8.7";

    Probe(std::string_view config_json, const lu::Host &host_in) : config(config_json), host(host_in) {
        if (config_json == "invalid") throw std::invalid_argument("probe: config \"invalid\" refused");
        if (config_json == "internal") throw std::runtime_error("disk on fire");
        if (config_json == "not-an-exception") throw 42;
    }

    lu::Outcome update(const lu::Request &request) {
        last = request;
        if (request.archive) {
            archive.clear();
            char buffer[3];
            for (std::int64_t n; (n = request.archive(buffer, sizeof buffer)) > 0;)
                archive.append(buffer, static_cast<std::size_t>(n));
        }
        host.log(LU_LOG_WARN, "updating " + request.container.name);
        if (request.via == "run") return lu::Outcome::run_failure(7, "Run step \"make\" failed with exit code: 7");
        if (request.via == "infra") return lu::Outcome::infra_failure("the copy failed");
        if (request.via == "throw") throw std::runtime_error("container vanished");
        if (request.via == "throw-int") throw 42;
        if (request.via == "injected") {
            lu::Outcome restarted = lu::Outcome::ok("fine");
            restarted.agent = lu::AgentSource::injected;
            restarted.process_restarted = true;
            return restarted;
        }
        return lu::Outcome::ok("fine");
    }

    std::string config;
    lu::Host host;
    std::optional<lu::Request> last;
    std::string archive;
};

// Logs its update's line from a thread of its own, as updaters that read
// command output on a separate thread do.
class ThreadLogger {
public:
    static constexpr const char *name = "thread-logger";
    static constexpr const char *version = "1.0.0";

    ThreadLogger(std::string_view, const lu::Host &) {}

    lu::Outcome update(const lu::Request &request) {
        std::thread worker([&request] { request.log(LU_LOG_INFO, "from its own thread: " + request.live_update); });
        worker.join();
        return lu::Outcome::ok();
    }
};

// Where a request's log lines land (lu_update_request.log).
struct RequestLog {
    std::mutex mutex;
    std::vector<std::pair<int32_t, std::string>> lines;

    static void log(void *ctx, int32_t level, lu_str line) {
        auto *self = static_cast<RequestLog *>(ctx);
        std::lock_guard lock(self->mutex);
        self->lines.emplace_back(level, std::string(line.data, line.size));
    }
};

constexpr lu_record_extension kProbeExtension{sizeof(lu_record_extension), nullptr, nullptr};

class ProbeWithExtension : public Probe {
public:
    using Probe::Probe;
    const void *extension(std::string_view id) const { return id == "probe.ext/1" ? &kProbeExtension : nullptr; }
};

// A host that records what plugins ask of it.
struct HostSide {
    std::vector<std::pair<int32_t, std::string>> lines;
    std::vector<std::string> extension_ids;
    std::vector<std::string> restarted;
    std::string restart_error;         // non-empty: restarts fail with it
    std::string process_dir = "/srv";  // empty: the host does not know the container
    lu_host_local_containers local{sizeof(lu_host_local_containers), &HostSide::restart, &HostSide::process};
    bool offer_local = true;

    static void log(void *ctx, int32_t level, lu_str line) {
        static_cast<HostSide *>(ctx)->lines.emplace_back(level, std::string(line.data, line.size));
    }
    static const void *extension(void *ctx, const char *id) {
        auto *self = static_cast<HostSide *>(ctx);
        self->extension_ids.emplace_back(id);
        return self->offer_local && std::string_view(id) == LU_HOST_LOCAL_CONTAINERS_ID ? &self->local : nullptr;
    }
    static int32_t restart(void *ctx, const lu_container_ref *container, char *error, size_t capacity) {
        auto *self = static_cast<HostSide *>(ctx);
        if (!self->restart_error.empty()) {
            std::snprintf(error, capacity, "%s", self->restart_error.c_str());
            return 1;
        }
        self->restarted.emplace_back(std::string(container->container_id) + "/" + container->root);
        return 0;
    }

    static int32_t process(void *ctx, const lu_container_ref *container,
                           void (*each_env)(void *, const char *, const char *), void *each_ctx, char *working_dir,
                           size_t capacity) {
        auto *self = static_cast<HostSide *>(ctx);
        if (self->process_dir.empty() || std::string_view(container->container_name) != "web") return 1;
        each_env(each_ctx, "GREETING", "hi");
        each_env(each_ctx, "EMPTY", "");
        std::snprintf(working_dir, capacity, "%s", self->process_dir.c_str());
        return 0;
    }

    lu_updater_host table() {
        return lu_updater_host{sizeof(lu_updater_host), this, &HostSide::log, &HostSide::extension};
    }
};

std::string text(const lu_message &m) { return std::string(liveupdate::abi::to_view(m)); }

// Bytes served to the plugin by the C archive stream.
struct Bytes {
    std::string data;
    std::size_t at = 0;
    bool fail = false;
    static int64_t read(void *ctx, void *buffer, size_t capacity) {
        auto *self = static_cast<Bytes *>(ctx);
        if (self->fail) return -1;
        const std::size_t n = std::min(capacity, self->data.size() - self->at);
        std::memcpy(buffer, self->data.data() + self->at, n);
        self->at += n;
        return static_cast<int64_t>(n);
    }
};

template <class Impl>
struct Plugin {
    const lu_plugin_info *info = nullptr;
    const lu_updater_api *api = lu::entry<Impl>(LU_ABI_VERSION, &info);
    HostSide host_side;
    lu_updater_host host = host_side.table();
    lu_updater *updater = nullptr;

    explicit Plugin(std::string_view config = "{}") {
        BOOST_TEST_REQUIRE(api != nullptr);
        lu_message error{};
        BOOST_TEST_REQUIRE(api->create(&host, liveupdate::abi::to_lu_str(config), &updater, &error) == LU_OK);
        BOOST_TEST(error.data == nullptr);
    }
    ~Plugin() { api->destroy(updater); }

    Impl &impl() { return lu::instance<Impl>(updater); }

    struct Result {
        int32_t rc;
        int32_t kind;
        int32_t exit_code;
        std::string message;
    };
    Result update(const lu_update_request &request) {
        lu_update_outcome out{sizeof(lu_update_outcome), -1, -1, {nullptr, 0}, -1, -1};
        const int32_t rc = api->update(updater, &request, &out);
        Result result{rc, out.kind, out.exit_code, text(out.message)};
        api->free_message(&out.message);
        BOOST_TEST(out.message.data == nullptr);
        return result;
    }
};

lu_container_ref container_ref() {
    return lu_container_ref{sizeof(lu_container_ref), "c-1", "web", "web-7f9", "dev", "/srv/web"};
}

lu_update_request request_with(const lu_container_ref &container, const char *via = "ok") {
    lu_update_request request{};
    request.struct_size = sizeof request;
    request.live_update = "frontend";
    request.via = via;
    request.container = &container;
    return request;
}

struct CreateResult {
    int32_t rc;
    bool created;
    std::string message;
};

template <class Impl>
CreateResult create(std::string_view config) {
    const lu_updater_api *api = lu::entry<Impl>(LU_ABI_VERSION, nullptr);
    lu_updater *updater = reinterpret_cast<lu_updater *>(&config);  // must be reset on failure
    lu_message error{};
    const int32_t rc = api->create(nullptr, liveupdate::abi::to_lu_str(config), &updater, &error);
    CreateResult result{rc, updater != nullptr, text(error)};
    api->free_message(&error);
    if (updater != nullptr) api->destroy(updater);
    return result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(entry_point)

BOOST_AUTO_TEST_CASE(describes_the_plugin_and_serves_only_its_abi_revision) {
    const lu_plugin_info *info = nullptr;
    BOOST_TEST(lu::entry<Probe>(LU_ABI_VERSION + 1, &info) == nullptr);
    BOOST_TEST_REQUIRE(info != nullptr);
    BOOST_TEST(info->struct_size == sizeof(lu_plugin_info));
    BOOST_TEST(info->abi_min == LU_ABI_VERSION);
    BOOST_TEST(info->abi_max == LU_ABI_VERSION);
    BOOST_TEST(std::string(info->kind) == "updater");
    BOOST_TEST(std::string(info->name) == "probe");
    BOOST_TEST(std::string(info->version) == "9.8.7");
    const lu_updater_api *api = lu::entry<Probe>(LU_ABI_VERSION, nullptr);
    BOOST_TEST_REQUIRE(api != nullptr);
    BOOST_TEST(api->struct_size == sizeof(lu_updater_api));
    BOOST_TEST(api->abi_version == LU_ABI_VERSION);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(create_and_destroy)

BOOST_AUTO_TEST_CASE(the_constructor_gets_the_config_text) {
    Plugin<Probe> plugin(R"({"workingDir": "/app"})");
    BOOST_TEST(plugin.impl().config == R"({"workingDir": "/app"})");
}

BOOST_AUTO_TEST_CASE(invalid_argument_is_an_invalid_argument_with_its_own_text) {
    const CreateResult r = create<Probe>("invalid");
    BOOST_TEST(r.rc == LU_ERR_INVALID_ARGUMENT);
    BOOST_TEST(!r.created);
    BOOST_TEST(r.message == "probe: config \"invalid\" refused");
}

BOOST_AUTO_TEST_CASE(other_exceptions_are_internal_errors_named_after_the_plugin) {
    const CreateResult r = create<Probe>("internal");
    BOOST_TEST(r.rc == LU_ERR_INTERNAL);
    BOOST_TEST(!r.created);
    BOOST_TEST(r.message == "probe updater: disk on fire");
    const CreateResult odd = create<Probe>("not-an-exception");
    BOOST_TEST(odd.rc == LU_ERR_INTERNAL);
    BOOST_TEST(odd.message == "probe updater: unknown exception");
}

BOOST_AUTO_TEST_CASE(without_a_place_for_the_updater_nothing_is_created) {
    const lu_updater_api *api = lu::entry<Probe>(LU_ABI_VERSION, nullptr);
    lu_message error{};
    BOOST_TEST(api->create(nullptr, lu_str{"{}", 2}, nullptr, &error) == LU_ERR_INVALID_ARGUMENT);
    BOOST_TEST(error.data == nullptr);
    api->destroy(nullptr);
}

BOOST_AUTO_TEST_CASE(a_null_host_gives_a_host_that_logs_nowhere) {
    const CreateResult r = create<Probe>("{}");
    BOOST_TEST(r.rc == LU_OK);
    BOOST_TEST(r.created);
    BOOST_TEST(r.message.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(requests)

BOOST_AUTO_TEST_CASE(every_member_arrives_as_a_value) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    const lu_path_mapping copies[] = {{"/src/a.txt", "/app/a.txt"}, {"/src/b", "/app/b"}};
    const char *const deletes[] = {"/app/old.txt", nullptr};
    const char *const make[] = {"make", "all"};
    const char *const secret[] = {"login", "--token", "t"};
    const lu_run_step runs[] = {{make, 2, 0}, {secret, 3, 1}};
    Bytes bytes{"archive bytes, read in small pieces"};
    lu_update_request request = request_with(container);
    request.copies = copies;
    request.copy_count = 2;
    request.archive = lu_archive_stream{&bytes, &Bytes::read};
    request.delete_paths = deletes;
    request.delete_count = 2;
    request.runs = runs;
    request.run_count = 2;
    request.restart = 1;
    request.initial_sync = 1;

    const auto result = plugin.update(request);
    BOOST_TEST(result.rc == LU_OK);
    BOOST_TEST_REQUIRE(plugin.impl().last.has_value());
    const lu::Request &r = *plugin.impl().last;
    BOOST_TEST(r.live_update == "frontend");
    BOOST_TEST(r.via == "ok");
    BOOST_TEST(r.container.id == "c-1");
    BOOST_TEST(r.container.name == "web");
    BOOST_TEST(r.container.pod == "web-7f9");
    BOOST_TEST(r.container.namespace_name == "dev");
    BOOST_TEST(r.container.root == "/srv/web");
    BOOST_TEST_REQUIRE(r.copies.size() == 2u);
    BOOST_TEST(r.copies[1].local_path == "/src/b");
    BOOST_TEST(r.copies[1].container_path == "/app/b");
    BOOST_TEST(plugin.impl().archive == "archive bytes, read in small pieces");
    BOOST_TEST((r.delete_paths == std::vector<std::string>{"/app/old.txt", ""}));
    BOOST_TEST_REQUIRE(r.runs.size() == 2u);
    BOOST_TEST((r.runs[0].argv == std::vector<std::string>{"make", "all"}));
    BOOST_TEST(!r.runs[0].echo_off);
    BOOST_TEST((r.runs[1].argv == std::vector<std::string>{"login", "--token", "t"}));
    BOOST_TEST(r.runs[1].echo_off);
    BOOST_TEST(r.restart);
    BOOST_TEST(r.initial_sync);
}

BOOST_AUTO_TEST_CASE(an_absent_archive_is_an_empty_reader) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    BOOST_TEST(plugin.update(request_with(container)).rc == LU_OK);
    BOOST_TEST(!plugin.impl().last->archive);
    BOOST_TEST(plugin.impl().last->copies.empty());
    BOOST_TEST(!plugin.impl().last->restart);
}

BOOST_AUTO_TEST_CASE(a_failing_archive_stream_reads_as_minus_one) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    Bytes bytes{"x", 0, true};
    lu_update_request request = request_with(container);
    request.archive = lu_archive_stream{&bytes, &Bytes::read};
    plugin.update(request);
    char buffer[4];
    BOOST_TEST(plugin.impl().last->archive(buffer, sizeof buffer) == -1);
}

BOOST_AUTO_TEST_CASE(a_container_ref_older_than_root_reads_root_as_empty) {
    Plugin<Probe> plugin;
    lu_container_ref container = container_ref();
    container.root = "/must/not/be/read";
    container.struct_size = offsetof(lu_container_ref, root);
    plugin.update(request_with(container));
    BOOST_TEST(plugin.impl().last->container.root == "");
    BOOST_TEST(plugin.impl().last->container.namespace_name == "dev");
}

BOOST_AUTO_TEST_CASE(a_container_ref_crosses_to_c_and_back_unchanged) {
    const lu::ContainerRef ref{"c-1", "web", "pod-1", "dev", "/srv/web"};
    const lu_container_ref c = lu::to_lu_container_ref(ref);
    BOOST_TEST(c.struct_size == sizeof(lu_container_ref));
    BOOST_TEST(std::string(c.pod_name) == "pod-1");
    BOOST_TEST((lu::to_container_ref(c) == ref));
}

// The shorter struct an older host really hands: reading past it is an overflow (ASan).
BOOST_AUTO_TEST_CASE(a_short_container_ref_is_not_read_past_its_end) {
    struct OlderContainerRef {
        uint32_t struct_size;
        const char *container_id;
        const char *container_name;
        const char *pod_name;
        const char *namespace_name;
    };
    const OlderContainerRef older{sizeof(OlderContainerRef), "c-0", "old", "", ""};
    // Heap memory of exactly the older size, as a C caller would hand it.
    const std::unique_ptr<void, decltype(&std::free)> bytes(std::malloc(sizeof older), &std::free);
    std::memcpy(bytes.get(), &older, sizeof older);
    Plugin<Probe> plugin;
    plugin.update(request_with(*static_cast<const lu_container_ref *>(bytes.get())));
    BOOST_TEST(plugin.impl().last->container.name == "old");
    BOOST_TEST(plugin.impl().last->container.root == "");
}

BOOST_AUTO_TEST_CASE(a_request_older_than_initial_sync_reads_it_as_false) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    lu_update_request request = request_with(container);
    request.restart = 1;
    request.initial_sync = 1;
    request.struct_size = offsetof(lu_update_request, initial_sync);
    plugin.update(request);
    BOOST_TEST(plugin.impl().last->restart);
    BOOST_TEST(!plugin.impl().last->initial_sync);
}

BOOST_AUTO_TEST_CASE(null_arguments_are_invalid_and_write_no_outcome) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    const lu_update_request request = request_with(container);
    lu_update_outcome out{sizeof(lu_update_outcome), -1, -1, {nullptr, 0}, -1, -1};
    BOOST_TEST(plugin.api->update(nullptr, &request, &out) == LU_ERR_INVALID_ARGUMENT);
    BOOST_TEST(plugin.api->update(plugin.updater, nullptr, &out) == LU_ERR_INVALID_ARGUMENT);
    BOOST_TEST(plugin.api->update(plugin.updater, &request, nullptr) == LU_ERR_INVALID_ARGUMENT);
    lu_update_request without_container = request;
    without_container.container = nullptr;
    BOOST_TEST(plugin.api->update(plugin.updater, &without_container, &out) == LU_ERR_INVALID_ARGUMENT);
    BOOST_TEST(out.kind == -1);
    BOOST_TEST(out.message.data == nullptr);
    BOOST_TEST(!plugin.impl().last.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(outcomes)

// Exceptions from update() are infra failures named after the plugin.
BOOST_AUTO_TEST_CASE(outcomes_and_exceptions_reach_the_c_outcome) {
    struct Expected {
        const char *via;
        int32_t kind;
        int32_t exit_code;
        const char *message;
    };
    const Expected cases[] = {
        {"ok", LU_OUTCOME_OK, 0, "fine"},
        {"run", LU_OUTCOME_RUN_FAILURE, 7, "Run step \"make\" failed with exit code: 7"},
        {"infra", LU_OUTCOME_INFRA_FAILURE, 0, "the copy failed"},
        {"throw", LU_OUTCOME_INFRA_FAILURE, 0, "probe updater: container vanished"},
        {"throw-int", LU_OUTCOME_INFRA_FAILURE, 0, "probe updater: unknown exception"},
    };
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    for (const Expected &expected : cases) {
        BOOST_TEST_CONTEXT("via " << expected.via) {
            const auto result = plugin.update(request_with(container, expected.via));
            BOOST_TEST(result.rc == LU_OK);
            BOOST_TEST(result.kind == expected.kind);
            BOOST_TEST(result.exit_code == expected.exit_code);
            BOOST_TEST(result.message == expected.message);
        }
    }
}

// ABI 1.13: the agent and the restart reach a host whose struct covers
// them, and a host's shorter struct (older) is not written past its end.
BOOST_AUTO_TEST_CASE(the_agent_and_the_restart_reach_a_host_that_has_room_for_them) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    const lu_update_request request = request_with(container, "injected");
    lu_update_outcome out{sizeof(lu_update_outcome), -1, -1, {nullptr, 0}, -1, -1};
    BOOST_TEST(plugin.api->update(plugin.updater, &request, &out) == LU_OK);
    BOOST_TEST(out.agent_source == LU_AGENT_SOURCE_INJECTED);
    BOOST_TEST(out.process_restarted == 1);
    const auto back = lu::to_outcome(out, "fine");
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((back->agent == lu::AgentSource::injected));
    BOOST_TEST(back->process_restarted);
    plugin.api->free_message(&out.message);

    lu_update_outcome older{offsetof(lu_update_outcome, agent_source), -1, -1, {nullptr, 0}, -1, -1};
    BOOST_TEST(plugin.api->update(plugin.updater, &request, &older) == LU_OK);
    BOOST_TEST(older.kind == LU_OUTCOME_OK);
    BOOST_TEST(older.agent_source == -1);
    BOOST_TEST(older.process_restarted == -1);
    plugin.api->free_message(&older.message);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(host_handle)

BOOST_AUTO_TEST_CASE(log_lines_reach_the_host_with_their_level) {
    Plugin<Probe> plugin;
    const lu_container_ref container = container_ref();
    plugin.update(request_with(container));
    BOOST_TEST_REQUIRE(plugin.host_side.lines.size() == 1u);
    BOOST_TEST(plugin.host_side.lines[0].first == LU_LOG_WARN);
    BOOST_TEST(plugin.host_side.lines[0].second == "updating web");
}

BOOST_AUTO_TEST_CASE(an_update_logs_through_its_request_from_any_thread) {
    Plugin<ThreadLogger> plugin;
    const lu_container_ref container = container_ref();
    RequestLog sink;
    lu_update_request request = request_with(container);
    request.log = &RequestLog::log;
    request.log_ctx = &sink;
    BOOST_TEST(plugin.update(request).rc == LU_OK);
    BOOST_TEST_REQUIRE(sink.lines.size() == 1u);
    BOOST_TEST(sink.lines[0].first == LU_LOG_INFO);
    BOOST_TEST(sink.lines[0].second == "from its own thread: frontend");
    BOOST_TEST(plugin.host_side.lines.empty());
}

BOOST_AUTO_TEST_CASE(a_request_older_than_log_logs_through_the_host) {
    Plugin<ThreadLogger> plugin;
    const lu_container_ref container = container_ref();
    RequestLog sink;
    lu_update_request request = request_with(container);
    request.log = &RequestLog::log;
    request.log_ctx = &sink;
    request.struct_size = offsetof(lu_update_request, log);  // a host older than the member
    BOOST_TEST(plugin.update(request).rc == LU_OK);
    BOOST_TEST(sink.lines.empty());
    BOOST_TEST_REQUIRE(plugin.host_side.lines.size() == 1u);
    BOOST_TEST(plugin.host_side.lines[0].second == "from its own thread: frontend");
}

BOOST_AUTO_TEST_CASE(a_host_table_without_get_extension_offers_none) {
    HostSide side;
    lu_updater_host table = side.table();
    table.struct_size = offsetof(lu_updater_host, get_extension);
    const lu::Host host(&table);
    BOOST_TEST(host.extension(LU_HOST_LOCAL_CONTAINERS_ID) == nullptr);
    BOOST_TEST(!host.local_containers());
    BOOST_TEST(side.extension_ids.empty());
    host.log(LU_LOG_INFO, "still logs");
    BOOST_TEST(side.lines.size() == 1u);
}

BOOST_AUTO_TEST_CASE(extensions_are_looked_up_by_id) {
    HostSide side;
    const lu_updater_host table = side.table();
    const lu::Host host(&table);
    BOOST_TEST(host.extension(LU_HOST_LOCAL_CONTAINERS_ID) == &side.local);
    BOOST_TEST(host.extension("liveupdate.host.unknown/1") == nullptr);
    BOOST_TEST(host.extension(nullptr) == nullptr);
    BOOST_TEST(
        (side.extension_ids == std::vector<std::string>{LU_HOST_LOCAL_CONTAINERS_ID, "liveupdate.host.unknown/1"}));
    BOOST_TEST(host.context() == &side);
}

BOOST_AUTO_TEST_CASE(local_containers_restart_through_the_host) {
    HostSide side;
    const lu_updater_host table = side.table();
    const lu::Host host(&table);
    const lu::LocalContainers local = host.local_containers();
    BOOST_TEST_REQUIRE(static_cast<bool>(local));
    BOOST_TEST(local.restart(lu::ContainerRef{"c-1", "web", "", "", "/srv/web"}) == "");
    BOOST_TEST((side.restarted == std::vector<std::string>{"c-1//srv/web"}));
    side.restart_error = "process would not stop";
    BOOST_TEST(local.restart(lu::ContainerRef{"c-1", "web", "", "", "/srv/web"}) == "process would not stop");
}

BOOST_AUTO_TEST_CASE(local_containers_describe_their_process) {
    HostSide side;
    const lu_updater_host table = side.table();
    const lu::LocalContainers local = lu::Host(&table).local_containers();
    const std::optional<lu::ContainerProcess> process = local.process(lu::ContainerRef{"c-1", "web", "", "", "/r"});
    BOOST_TEST_REQUIRE(process.has_value());
    BOOST_TEST(process->working_dir == "/srv");
    const std::vector<std::pair<std::string, std::string>> env{{"GREETING", "hi"}, {"EMPTY", ""}};
    BOOST_TEST((process->env == env));
    BOOST_TEST(!local.process(lu::ContainerRef{"c-2", "db", "", "", "/r"}).has_value());  // unknown to the host
    side.local.struct_size = offsetof(lu_host_local_containers, process);                 // a host older than process
    BOOST_TEST(!lu::Host(&table).local_containers().process(lu::ContainerRef{"c-1", "web", "", "", "/r"}).has_value());
}

BOOST_AUTO_TEST_CASE(local_containers_are_absent_when_the_host_does_not_supervise_them) {
    HostSide side;
    side.offer_local = false;
    const lu_updater_host table = side.table();
    BOOST_TEST(!lu::Host(&table).local_containers());
    side.offer_local = true;
    side.local.struct_size = offsetof(lu_host_local_containers, restart);  // too old to have restart
    BOOST_TEST(!lu::Host(&table).local_containers());
    BOOST_TEST(!lu::Host(nullptr).local_containers());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(plugin_extensions)

BOOST_AUTO_TEST_CASE(a_class_without_extension_serves_none) {
    Plugin<Probe> plugin;
    BOOST_TEST(plugin.api->get_extension(plugin.updater, "probe.ext/1") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_class_with_extension_serves_its_tables_by_id) {
    Plugin<ProbeWithExtension> plugin;
    BOOST_TEST(plugin.api->get_extension(plugin.updater, "probe.ext/1") == &kProbeExtension);
    BOOST_TEST(plugin.api->get_extension(plugin.updater, "probe.ext/2") == nullptr);
    BOOST_TEST(plugin.api->get_extension(plugin.updater, nullptr) == nullptr);
    BOOST_TEST(plugin.api->get_extension(nullptr, "probe.ext/1") == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
