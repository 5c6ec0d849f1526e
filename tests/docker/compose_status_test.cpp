// The pure rules of Docker Compose discovery.
#define BOOST_TEST_MODULE compose_status
#include <boost/test/unit_test.hpp>

#include "common/json_fields.hpp"
#include "host/compose_discovery/compose_status.hpp"

using namespace liveupdate::host::compose_discovery;
namespace json = boost::json;

BOOST_AUTO_TEST_CASE(service_of_a_docker_compose_service) {
    const auto ok =
        compose_service_of(json::parse(R"({"spec": {"service": "web", "project": {"name": "demo"}}})").as_object());
    BOOST_TEST_REQUIRE(ok.has_value());
    BOOST_TEST(ok->project == "demo");
    BOOST_TEST(ok->service == "web");
    BOOST_TEST(!compose_service_of(json::parse(R"({"spec": {"service": "web"}})").as_object()));
    BOOST_TEST(!compose_service_of(json::parse(R"({"spec": {"service": "", "project": {"name": "d"}}})").as_object()));
    BOOST_TEST(!compose_service_of(json::parse(R"({"kind": "X"})").as_object()));
}

BOOST_AUTO_TEST_CASE(running_beats_newer_and_oneoffs_never_count) {
    const auto list = json::parse(R"([
      {"Id": "old-exited", "State": "exited", "Created": 100, "Labels": {}},
      {"Id": "running", "State": "running", "Created": 50, "Labels": {"com.docker.compose.oneoff": "False"}},
      {"Id": "newer-exited", "State": "exited", "Created": 200},
      {"Id": "oneoff", "State": "running", "Created": 300, "Labels": {"com.docker.compose.oneoff": "True"}}
    ])")
                          .as_array();
    BOOST_TEST(*pick_service_container(list) == "running");
    const auto exited =
        json::parse(R"([{"Id": "a", "State": "exited", "Created": 1}, {"Id": "b", "State": "exited", "Created": 2}])")
            .as_array();
    BOOST_TEST(*pick_service_container(exited) == "b");
    BOOST_TEST(!pick_service_container(json::array{}));
}

BOOST_AUTO_TEST_CASE(status_in_tilts_shape) {
    const auto running = compose_status_from_inspect(json::parse(R"({
      "Id": "abc", "Name": "/demo-web-1",
      "State": {"Status": "running", "Running": true, "ExitCode": 0, "Error": "",
                "StartedAt": "2026-11-30T07:42:31.123456789Z", "FinishedAt": "0001-01-01T00:00:00Z"}})")
                                                         .as_object());
    BOOST_TEST(
        json::serialize(running) ==
        R"({"containerID":"abc","containerName":"demo-web-1","containerState":{"status":"running","running":true,"startedAt":"2026-11-30T07:42:31.123456Z"}})");
    const auto exited = compose_status_from_inspect(json::parse(R"({
      "Id": "abc", "Name": "/w",
      "State": {"Status": "exited", "Running": false, "ExitCode": 137, "Error": "oom",
                "StartedAt": "2026-11-30T07:42:31Z", "FinishedAt": "2026-11-30T07:43:00.5Z"}})")
                                                        .as_object());
    BOOST_TEST(
        json::serialize(exited.at("containerState")) ==
        R"({"status":"exited","error":"oom","exitCode":137,"startedAt":"2026-11-30T07:42:31.000000Z","finishedAt":"2026-11-30T07:43:00.500000Z"})");
}

BOOST_AUTO_TEST_CASE(port_bindings_by_container_port) {
    const auto status = compose_status_from_inspect(json::parse(R"({
      "Id": "abc", "State": {"Status": "running", "Running": true},
      "NetworkSettings": {"Ports": {"8080/tcp": [{"HostIp": "0.0.0.0", "HostPort": "18080"}, {"HostIp": "::", "HostPort": "18080"}],
                                    "53/udp": [{"HostIp": "", "HostPort": "5353"}], "9000/tcp": null}}})")
                                                        .as_object());
    BOOST_TEST(
        json::serialize(status.at("portBindings")) ==
        R"([{"containerPort":53,"hostPort":5353},{"containerPort":8080,"hostPort":18080,"hostIP":"0.0.0.0"},{"containerPort":8080,"hostPort":18080,"hostIP":"::"}])");
    BOOST_TEST(!compose_status_from_inspect(json::parse(R"({"Id": "a", "NetworkSettings": {"Ports": {}}})").as_object())
                    .contains("portBindings"));
}

BOOST_AUTO_TEST_CASE(filter_names_both_labels) {
    BOOST_TEST(service_filter_json({"p", "s"}) ==
               R"({"label":["com.docker.compose.project=p","com.docker.compose.service=s"]})");
}

// An answer with a field of another type is refused naming it, never read as
// "not running" or "no container".
BOOST_AUTO_TEST_CASE(a_mistyped_field_in_an_answer_names_its_path) {
    const auto error_of = [](const auto &read) {
        try {
            read();
        } catch (const liveupdate::common::DecodeError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    BOOST_TEST(error_of([] {
                   compose_status_from_inspect(json::parse(R"({"Id": "a", "State": {"Running": "yes"}})").as_object());
               }) == "State.Running: expected boolean");
    BOOST_TEST(
        error_of([] {
            compose_status_from_inspect(
                json::parse(
                    R"({"Id": "a", "State": {}, "NetworkSettings": {"Ports": {"80/tcp": [{"HostPort": 8080}]}}})")
                    .as_object());
        }) == "NetworkSettings.Ports.80/tcp[0].HostPort: expected string");
    BOOST_TEST(error_of([] {
                   pick_service_container(
                       json::parse(R"([{"Id": "a", "Created": 1}, {"Id": "b", "Created": "today"}])").as_array());
               }) == "[1].Created: expected integer");
    BOOST_TEST(error_of([] { service_container_ids(json::parse(R"([{"Id": "a"}, 7])").as_array()); }) ==
               "[1]: expected object");
    BOOST_TEST(
        error_of([] {
            compose_status_from_inspect(
                json::parse(R"({"Id": "a", "State": {}, "NetworkSettings": {"Ports": {"80/tcp": null}}})").as_object());
        }) == "");
}
