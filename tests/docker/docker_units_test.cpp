// Pure parts of the docker updater: endpoints, stream frames, the tar filter,
// config, messages, and when a refused lu-agent is tried again.
#define BOOST_TEST_MODULE docker_units
#include <archive.h>
#include <archive_entry.h>

#include <boost/test/unit_test.hpp>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "common/agent_client/agent_refusals.hpp"
#include "common/docker_engine/endpoint.hpp"
#include "common/docker_engine/engine_client.hpp"
#include "common/docker_engine/frame_demuxer.hpp"
#include "common/tar_reader.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/docker/tar_file_reader.hpp"
#include "updaters/docker/updater_config.hpp"
#include "updaters/shared/container_owner.hpp"
#include "updaters/shared/implied_dirs_filter.hpp"
#include "updaters/shared/update_messages.hpp"

using namespace liveupdate::docker;

using namespace liveupdate::docker_engine;

using namespace liveupdate::updaters;

BOOST_AUTO_TEST_CASE(docker_host_forms) {
    const auto unix_ep = parse_docker_host("unix:///var/run/docker.sock");
    BOOST_TEST((unix_ep.kind == Endpoint::Kind::unix_socket));
    BOOST_TEST(unix_ep.socket_path == "/var/run/docker.sock");
    BOOST_TEST(unix_ep.describe() == "unix:///var/run/docker.sock");
    BOOST_TEST(parse_docker_host("/tmp/d.sock").socket_path == "/tmp/d.sock");
    const auto tcp = parse_docker_host("tcp://127.0.0.1:2376");
    BOOST_TEST((tcp.kind == Endpoint::Kind::tcp));
    BOOST_TEST(tcp.host == "127.0.0.1");
    BOOST_TEST(tcp.port == 2376);
    BOOST_TEST(tcp.base_url() == "http://127.0.0.1:2376");
    BOOST_TEST(parse_docker_host("tcp://docker").port == 2375);
    BOOST_TEST(parse_docker_host("tcp://[::1]:1234").host == "[::1]");
    BOOST_CHECK_THROW(parse_docker_host("ssh://me@box"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_docker_host("tcp://host:notaport"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_docker_host("tcp://:12"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_docker_host("unix://relative.sock"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(explicit_host_beats_the_environment) {
    ::setenv("DOCKER_HOST", "tcp://from-env:1", 1);
    BOOST_TEST(resolve_endpoint("").host == "from-env");
    BOOST_TEST(resolve_endpoint("unix:///x.sock").socket_path == "/x.sock");
    ::setenv("DOCKER_HOST", "", 1);
    BOOST_TEST(resolve_endpoint("").socket_path == "/var/run/docker.sock");
    ::unsetenv("DOCKER_HOST");
}

BOOST_AUTO_TEST_CASE(frames_are_demultiplexed_across_any_split) {
    std::string stream;
    const auto frame = [&](char id, const std::string &payload) {
        const auto n = static_cast<std::uint32_t>(payload.size());
        stream += std::string{id,
                              0,
                              0,
                              0,
                              static_cast<char>(n >> 24),
                              static_cast<char>(n >> 16),
                              static_cast<char>(n >> 8),
                              static_cast<char>(n)};
        stream += payload;
    };
    frame(1, "hello ");
    frame(2, "oops\n");
    frame(1, "world\n");
    frame(1, std::string(70000, 'z'));
    for (std::size_t step : {1u, 3u, 7u, 8u, 9u, 4096u, 1000000u}) {
        std::string out, err;
        FrameDemuxer demuxer(
            [&](OutputStream s, std::string_view d) { (s == OutputStream::stderr_stream ? err : out).append(d); });
        for (std::size_t i = 0; i < stream.size(); i += step) demuxer.feed(std::string_view(stream).substr(i, step));
        BOOST_TEST(out == "hello world\n" + std::string(70000, 'z'));
        BOOST_TEST(err == "oops\n");
        BOOST_TEST(demuxer.at_boundary());
    }
    FrameDemuxer bad([](OutputStream, std::string_view) {});
    BOOST_CHECK_THROW(bad.feed(std::string("\x07\0\0\0\0\0\0\0", 8)), std::runtime_error);
}

namespace {

struct EntryView {
    std::string path;
    bool dir;
    std::string content;
};

std::vector<EntryView> read_entries(const std::string &bytes) {
    std::vector<EntryView> out;
    liveupdate::common::TarReader reader{std::string_view(bytes)};
    while (archive_entry *entry = reader.next()) {
        EntryView v{archive_entry_pathname(entry), archive_entry_filetype(entry) == AE_IFDIR, {}};
        char buffer[4096];
        while (const std::size_t n = reader.read_data(buffer, sizeof buffer)) v.content.append(buffer, n);
        out.push_back(v);
    }
    return out;
}

std::string filtered(const std::string &input, std::optional<liveupdate::updaters::Owner> owner = std::nullopt) {
    std::size_t offset = 0;
    std::string out;
    copy_without_implied_dirs(
        [&](void *buffer, std::size_t capacity) -> std::int64_t {
            const auto n = std::min<std::size_t>({capacity, input.size() - offset, 100});  // small reads on purpose
            std::memcpy(buffer, input.data() + offset, n);
            offset += n;
            return static_cast<std::int64_t>(n);
        },
        [&](const char *data, std::size_t size) { out.append(data, size); }, owner);
    return out;
}

// "path uid/gid uname/gname" of each entry.
std::vector<std::string> owners_in(const std::string &tar) {
    std::vector<std::string> out;
    liveupdate::common::TarReader reader{std::string_view(tar)};
    while (archive_entry *entry = reader.next()) {
        const char *uname = archive_entry_uname(entry);
        const char *gname = archive_entry_gname(entry);
        out.push_back(std::string(archive_entry_pathname(entry)) + " " + std::to_string(archive_entry_uid(entry)) +
                      "/" + std::to_string(archive_entry_gid(entry)) + " " + (uname ? uname : "") + "/" +
                      (gname ? gname : ""));
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(implied_directory_entries_are_left_out) {
    const auto input = lu_test::TarBuilder()
                           .dir("var/")
                           .dir("var/run/")
                           .file("var/run/app.pid", "42")
                           .dir("./app")
                           .dir("app/empty")
                           .file("app/a.txt", std::string(100000, 'a'))
                           .symlink("app/link", "a.txt")
                           .dir("top-empty")
                           .finish();
    const auto entries = read_entries(filtered(input));
    std::vector<std::string> paths;
    paths.reserve(entries.size());
    for (const auto &e : entries) paths.push_back(e.path + (e.dir ? "(dir)" : ""));
    BOOST_TEST((paths == std::vector<std::string>{"var/run/app.pid", "app/empty/(dir)", "app/a.txt", "app/link",
                                                  "top-empty/(dir)"}));
    BOOST_TEST(entries[0].content == "42");
    BOOST_TEST(entries[2].content == std::string(100000, 'a'));
}

BOOST_AUTO_TEST_CASE(an_empty_archive_stays_valid_and_garbage_is_refused) {
    BOOST_TEST(read_entries(filtered("")).empty());
    BOOST_TEST(read_entries(filtered(lu_test::TarBuilder().finish())).empty());
    BOOST_CHECK_THROW(filtered(std::string(2048, 'g')), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(a_failing_reader_or_writer_surfaces) {
    BOOST_CHECK_THROW(copy_without_implied_dirs([](void *, std::size_t) -> std::int64_t { return -1; },
                                                [](const char *, std::size_t) {}),
                      std::runtime_error);
    const auto input = lu_test::TarBuilder().file("a", "x").finish();
    std::size_t offset = 0;
    struct Stop {};
    BOOST_CHECK_THROW(copy_without_implied_dirs(
                          [&](void *buffer, std::size_t capacity) -> std::int64_t {
                              const auto n = std::min(capacity, input.size() - offset);
                              std::memcpy(buffer, input.data() + offset, n);
                              offset += n;
                              return static_cast<std::int64_t>(n);
                          },
                          [](const char *, std::size_t) { throw Stop{}; }),
                      Stop);
}

BOOST_AUTO_TEST_CASE(config_fields) {
    const auto c = parse_updater_config(
        R"({"user":"app","host":"tcp://h:1","apiVersion":"v1.43","timeoutSeconds":5,"runTimeoutSeconds":90})");
    BOOST_TEST(c.user == "app");
    BOOST_TEST(c.host == "tcp://h:1");
    BOOST_TEST(c.api_version == "1.43");
    BOOST_TEST(c.timeout.count() == 5);
    BOOST_TEST(c.run_timeout.count() == 90);
    BOOST_TEST(parse_updater_config("").timeout.count() == 30);
    BOOST_CHECK_THROW(parse_updater_config("[]"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_updater_config(R"({"timeoutSeconds":0})"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_updater_config(R"({"user":3})"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_field) {
    const auto error_of = [](std::string_view text) {
        try {
            parse_updater_config(text);
        } catch (const std::invalid_argument &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    BOOST_TEST(error_of(R"({"user":3})") == "docker updater config: user: expected string");
    BOOST_TEST(error_of(R"({"agent":"no"})") == "docker updater config: agent: expected boolean");
    BOOST_TEST(error_of(R"({"users":"a"})") == "docker updater config: unknown field 'users'");
    BOOST_TEST(parse_updater_config(R"({"agent":null})").agent);
}

// A field of the wrong type in the daemon's answer is a protocol failure
// naming the call and the field, never read as "" or false.
BOOST_AUTO_TEST_CASE(a_mistyped_field_in_an_engine_answer_names_call_and_field) {
    const auto running = [](const boost::json::value &answer) {
        return liveupdate::common::bool_field(answer.as_object(), {"State", "Running"});
    };
    const EngineResponse good{200, R"({"State":{"Running":true}})", {}};
    BOOST_TEST(EngineClient::read_answer(good, "GET /containers/c/json", running));
    const EngineResponse mistyped{200, R"({"State":{"Running":"yes"}})", {}};
    try {
        EngineClient::read_answer(mistyped, "GET /containers/c/json", running);
        BOOST_FAIL("a mistyped field was read");
    } catch (const EngineError &e) {
        BOOST_TEST((e.failure() == EngineFailure::protocol));
        BOOST_TEST(std::string(e.what()) == "GET /containers/c/json: State.Running: expected boolean");
    }
    const EngineResponse truncated{200, R"({"State":{"Running":tr)", {}};
    BOOST_CHECK_EXCEPTION(EngineClient::read_answer(truncated, "GET /x", running), EngineError,
                          [](const EngineError &e) { return std::string(e.what()).starts_with("GET /x: "); });
}

BOOST_AUTO_TEST_CASE(run_steps_are_logged_as_tilt_logs_them) {
    BOOST_TEST(run_step_line(0, 2, {"make", "all"}) == "[CMD 1/2] make all");
    BOOST_TEST(run_step_line(1, 2, {"sh", "-c", "echo a b"}) == "[CMD 2/2] sh -c echo a b");
    BOOST_TEST(run_step_line(2, 3, {}) == "[CMD 3/3]");
}

BOOST_AUTO_TEST_CASE(messages_in_tilts_spirit) {
    BOOST_TEST(command_text({"sh", "-c", "make all"}) == "make all");
    BOOST_TEST(command_text({"echo", "a b", "c"}) == "echo 'a b' c");
    BOOST_TEST(exec_failure({"make"}, 2) == "command \"make\" failed with exit code: 2");
    BOOST_TEST(exec_failure({"x"}, 127).find("not found in PATH or not executable") != std::string::npos);
    BOOST_TEST(exec_failure({"x"}, 137).find("killed by container runtime") != std::string::npos);
    BOOST_TEST(tar_failure(2, "tar: x: Cannot open: Permission denied", "").find("refused the write") !=
               std::string::npos);
    BOOST_TEST(tar_failure(1, "tar: can't open 'a': Permission denied", "app").find("user 'app'") != std::string::npos);
    BOOST_TEST(tar_failure(127, "", "").find("needs `tar` in $PATH") != std::string::npos);
    BOOST_TEST(tar_failure(1, "short read", "").find("refused") == std::string::npos);
    BOOST_TEST(output_tail("  abc\n\n", 10) == "abc");
    BOOST_TEST(output_tail("0123456789", 3) == "789");
}

BOOST_AUTO_TEST_CASE(a_user_setting_resolves_as_docker_resolves_it) {
    using liveupdate::updaters::resolve_owner;
    const std::string passwd =
        "# users\nroot:x:0:0:root:/root:/bin/sh\r\n\napp:x:1500:1600:app:/app:/bin/sh\nbroken:x:y\n";
    const std::string group = "root:x:0:\napp:x:1600:\nweb:x:1700:app\n";
    const auto owner = [&](const std::string &user) {
        const auto o = resolve_owner(user, passwd, group);
        return std::to_string(o.uid) + ":" + std::to_string(o.gid);
    };
    BOOST_TEST(owner("app") == "1500:1600");   // the user's primary group
    BOOST_TEST(owner("1500") == "1500:1600");  // a uid with an entry: its primary group too
    BOOST_TEST(owner("4242") == "4242:0");     // a uid without one: group 0, as Docker
    BOOST_TEST(owner("app:web") == "1500:1700");
    BOOST_TEST(owner("app:77") == "1500:77");
    BOOST_TEST(owner("4242:web") == "4242:1700");
    BOOST_TEST(owner("root") == "0:0");
    const auto refused = [&](const std::string &user, const std::string &passwd_text) {
        try {
            resolve_owner(user, passwd_text, group);
        } catch (const std::invalid_argument &e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    BOOST_TEST(refused("ghost", passwd) == "user 'ghost' is not in the container's /etc/passwd (give it as uid:gid)");
    BOOST_TEST(refused("app", "") == "user 'app' is not in the container's /etc/passwd (give it as uid:gid)");
    BOOST_TEST(refused("broken", passwd) == "user 'broken' is not in the container's /etc/passwd (give it as uid:gid)");
    BOOST_TEST(refused("app:staff", passwd) ==
               "group 'staff' is not in the container's /etc/group (give it as uid:gid)");
}

BOOST_AUTO_TEST_CASE(an_owner_is_given_to_every_entry_copied) {
    const auto input = lu_test::TarBuilder().dir("app/new").file("app/new/a.txt", "a").symlink("app/l", "a").finish();
    BOOST_TEST((owners_in(filtered(input, liveupdate::updaters::Owner{1500, 1700})) ==
                std::vector<std::string>{"app/new/a.txt 1500/1700 /", "app/l 1500/1700 /"}));
    BOOST_TEST((owners_in(filtered(input)) == std::vector<std::string>{"app/new/a.txt 0/0 /", "app/l 0/0 /"}));
}

BOOST_AUTO_TEST_CASE(the_first_file_of_a_tar_is_read_out) {
    using liveupdate::docker::first_file_in_tar;
    BOOST_TEST(
        first_file_in_tar(lu_test::TarBuilder().dir("etc").file("etc/passwd", "root:x:0:0::/:/bin/sh\n").finish())
            .value_or("none") == "root:x:0:0::/:/bin/sh\n");
    BOOST_TEST(!first_file_in_tar(lu_test::TarBuilder().dir("etc").finish()).has_value());
    BOOST_TEST(!first_file_in_tar("").has_value());
    BOOST_CHECK_THROW(first_file_in_tar(std::string(1024, 'x')), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(only_steps_with_exec_options_need_an_exec_of_their_own) {
    using liveupdate::docker::needs_own_exec;
    using liveupdate::updater::RunStep;
    BOOST_TEST(!needs_own_exec(RunStep{{"make"}, true}));
    RunStep as_user{{"make"}};
    as_user.user = "1000";
    RunStep in_dir{{"make"}};
    in_dir.working_dir = "/src";
    RunStep with_env{{"make"}};
    with_env.env = {"A=1"};
    RunStep privileged{{"make"}};
    privileged.privileged = true;
    for (const RunStep &step : {as_user, in_dir, with_env, privileged}) BOOST_TEST(needs_own_exec(step));
}

BOOST_AUTO_TEST_CASE(an_agent_refusal_lasts_one_start_and_a_bounded_number_of_updates) {
    liveupdate::agent_client::AgentRefusals refusals;
    BOOST_TEST(!refusals.refusal("c1", "t1", true));
    refusals.refuse("c1", "t1", "read-only");
    BOOST_TEST(refusals.refusal("c1", "t1", false).value_or("") == "read-only");
    BOOST_TEST(!refusals.refusal("c2", "t1", true));
    for (int i = 0; i < liveupdate::agent_client::AgentRefusals::kUpdatesBeforeRetry; ++i)
        BOOST_TEST(refusals.refusal("c1", "t1", true).has_value());
    BOOST_TEST(!refusals.refusal("c1", "t1", true));  // used up: tried again
    BOOST_TEST(!refusals.refusal("c1", "t1", false));

    refusals.refuse("c1", "t1", "read-only");
    BOOST_TEST(!refusals.refusal("c1", "t2", false));  // started again: tried again
    BOOST_TEST(!refusals.refusal("c1", "t1", false));  // and forgotten
}
