// The update a step asks of a container (common/update_step): the bytes the
// plugin writes, and the host's strict reading of them.
#include <boost/test/unit_test.hpp>

#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json_fields.hpp"
#include "common/update_step/container_update.hpp"
#include "common/update_step/outcome.hpp"
#include "common/update_step/step_version.hpp"

namespace json = boost::json;
using liveupdate::common::DecodeError;
using liveupdate::update_step::ContainerUpdate;
using liveupdate::update_step::decode_update;
using liveupdate::update_step::encode;
using liveupdate::update_step::step_version;
using Outcome = liveupdate::updater::Outcome;

namespace {

ContainerUpdate local_update() {
    ContainerUpdate u;
    u.live_update = "lu";
    u.via = "local";
    u.container = {"c-1", "web", "", "", "/srv/root"};
    u.copy = {{"/src/a.txt", "/app/a.txt"}};
    u.delete_paths = {"/app/old.txt"};
    u.runs = {{{"make", "all"}, false}, {{"sh", "-c", "x"}, true, "app", "/app", {"A=1"}, true}};
    u.restart = true;
    u.initial_sync = false;
    u.filter = {{"/src", {"*.log"}}};
    u.sync_roots = {"/app"};
    return u;
}

const std::string kLocalText =
    R"({"liveUpdate":"lu","via":"local","container":{"containerID":"c-1","containerName":"web","podName":"",)"
    R"("namespace":"","root":"/srv/root"},"copy":[{"local":"/src/a.txt","container":"/app/a.txt"}],)"
    R"("delete":["/app/old.txt"],"runs":[{"args":["make","all"],"echoOff":false},{"args":["sh","-c","x"],)"
    R"("echoOff":true,"user":"app","workingDir":"/app","env":["A=1"],"privileged":true}],"restart":true,)"
    R"("initialSync":false,"filter":[{"basePath":"/src","patterns":["*.log"]}],"syncRoots":["/app"]})";

// The error decoding `document` gives: "field: reason".
std::string decode_error(const json::value &document) {
    try {
        decode_update(document, "update");
    } catch (const DecodeError &e) {
        return e.field() + ": " + e.reason();
    }
    return "decoded";
}

// The encoded local update with the member at `path` (object keys, or array
// indexes as numbers in text) replaced by `value`, or erased when value is absent.
json::value with(std::vector<std::string> path, std::optional<json::value> value) {
    json::value doc = encode(local_update());
    json::value *at = &doc;
    for (std::size_t i = 0; i + 1 < path.size(); ++i)
        at = at->is_array() ? &at->as_array().at(std::stoul(path[i])) : &at->as_object().at(path[i]);
    if (!value) {
        at->as_object().erase(path.back());
    } else if (at->is_array()) {
        at->as_array().at(std::stoul(path.back())) = *value;
    } else {
        at->as_object()[path.back()] = *value;
    }
    return doc;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(update_step)

BOOST_AUTO_TEST_CASE(encodes_the_members_in_the_contracts_order) {
    BOOST_TEST(json::serialize(encode(local_update())) == kLocalText);
}

BOOST_AUTO_TEST_CASE(writes_root_for_local_containers_only_and_run_options_only_when_set) {
    ContainerUpdate u = local_update();
    u.via = "docker";
    u.container.root = "";
    u.runs = {{{"make"}, false}};
    const json::object o = encode(u);
    BOOST_TEST(!o.at("container").as_object().contains("root"));
    BOOST_TEST(json::serialize(o.at("runs")) == R"([{"args":["make"],"echoOff":false}])");
    // A local container's root is written even when empty, as the plugin always did.
    u.via = "local";
    BOOST_TEST(json::serialize(encode(u).at("container").at("root")) == R"("")");
}

BOOST_AUTO_TEST_CASE(decodes_what_it_encodes) {
    const ContainerUpdate back = decode_update(json::parse(kLocalText), "update");
    BOOST_TEST(json::serialize(encode(back)) == kLocalText);
    BOOST_TEST(back.container.root == "/srv/root");
    BOOST_TEST(back.runs[1].privileged);
}

BOOST_AUTO_TEST_CASE(each_required_member_missing_is_named) {
    const std::vector<std::vector<std::string>> required{{"liveUpdate"},
                                                         {"via"},
                                                         {"container"},
                                                         {"copy"},
                                                         {"delete"},
                                                         {"runs"},
                                                         {"restart"},
                                                         {"initialSync"},
                                                         {"filter"},
                                                         {"container", "containerID"},
                                                         {"container", "containerName"},
                                                         {"container", "podName"},
                                                         {"container", "namespace"},
                                                         {"copy", "0", "local"},
                                                         {"copy", "0", "container"},
                                                         {"runs", "0", "args"},
                                                         {"runs", "0", "echoOff"}};
    for (const auto &path : required) {
        std::string named = "update";
        for (const auto &part : path)
            named += std::isdigit(static_cast<unsigned char>(part[0])) ? "[" + part + "]" : "." + part;
        BOOST_TEST(decode_error(with(path, std::nullopt)) == named + ": missing");
    }
}

BOOST_AUTO_TEST_CASE(optional_members_absent_read_as_their_defaults) {
    json::value doc = with({"syncRoots"}, std::nullopt);
    doc.as_object()["container"].as_object().erase("root");
    json::object &run = doc.as_object()["runs"].as_array()[1].as_object();
    for (const char *key : {"user", "workingDir", "env", "privileged"}) run.erase(key);
    const ContainerUpdate u = decode_update(doc, "update");
    BOOST_TEST(u.sync_roots.empty());
    BOOST_TEST(u.container.root.empty());
    BOOST_TEST(u.runs[1].user.empty());
    BOOST_TEST(u.runs[1].env.empty());
    BOOST_TEST(!u.runs[1].privileged);
}

BOOST_AUTO_TEST_CASE(each_mistyped_member_is_named) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"liveUpdate"}, "update.liveUpdate: expected string"},
        {{"via"}, "update.via: expected string"},
        {{"container"}, "update.container: expected object"},
        {{"container", "containerID"}, "update.container.containerID: expected string"},
        {{"container", "containerName"}, "update.container.containerName: expected string"},
        {{"container", "podName"}, "update.container.podName: expected string"},
        {{"container", "namespace"}, "update.container.namespace: expected string"},
        {{"container", "root"}, "update.container.root: expected string"},
        {{"copy"}, "update.copy: expected array"},
        {{"copy", "0"}, "update.copy[0]: expected object"},
        {{"copy", "0", "local"}, "update.copy[0].local: expected string"},
        {{"copy", "0", "container"}, "update.copy[0].container: expected string"},
        {{"delete"}, "update.delete: expected array"},
        {{"delete", "0"}, "update.delete[0]: expected string"},
        {{"runs"}, "update.runs: expected array"},
        {{"runs", "1", "args", "2"}, "update.runs[1].args[2]: expected string"},
        {{"runs", "0", "echoOff"}, "update.runs[0].echoOff: expected boolean"},
        {{"runs", "1", "user"}, "update.runs[1].user: expected string"},
        {{"runs", "1", "workingDir"}, "update.runs[1].workingDir: expected string"},
        {{"runs", "1", "env"}, "update.runs[1].env: expected array"},
        {{"runs", "1", "privileged"}, "update.runs[1].privileged: expected boolean"},
        {{"restart"}, "update.restart: expected boolean"},
        {{"initialSync"}, "update.initialSync: expected boolean"},
        {{"filter"}, "update.filter: expected array"},
        {{"filter", "0", "patterns", "0"}, "update.filter[0].patterns[0]: expected string"},
        {{"syncRoots"}, "update.syncRoots: expected array"},
    };
    for (const auto &[path, error] : cases) BOOST_TEST(decode_error(with(path, json::value(7))) == error);
    BOOST_TEST(decode_error(with({"via"}, json::value(""))) == "update.via: names no updater");
    BOOST_TEST(decode_error(json::value(json::array())) == "update: expected object");
}

BOOST_AUTO_TEST_CASE(a_member_it_does_not_know_is_skipped) {
    const ContainerUpdate u = decode_update(with({"fromANewerPlugin"}, json::value(1)), "update");
    BOOST_TEST(json::serialize(encode(u)) == kLocalText);
}

BOOST_AUTO_TEST_CASE(a_step_version_out_of_range_is_refused) {
    BOOST_TEST(step_version(json::object{{"type", "done"}}, 2) == 1);
    BOOST_TEST(step_version(json::object{{"stepVersion", 2}}, 2) == 2);
    for (const json::value &bad : {json::value(3), json::value(0), json::value("2"), json::value(1.5)}) {
        try {
            step_version(json::object{{"stepVersion", bad}}, 2);
            BOOST_FAIL("stepVersion " << json::serialize(bad) << " was accepted");
        } catch (const DecodeError &e) {
            BOOST_TEST(e.field() == "stepVersion");
            BOOST_TEST(e.reason() ==
                       "the step is of stepVersion " + json::serialize(bad) + ", this host reads 1 to 2 only");
        }
    }
}

BOOST_AUTO_TEST_CASE(outcomes_encode_as_the_contract_writes_them_and_decode_back) {
    const std::vector<std::pair<Outcome, std::string>> cases{
        {Outcome::ok("said nothing"), R"({"ok":true})"},
        {Outcome::run_failure(2, "make failed"), R"({"runFailure":{"message":"make failed","exitCode":2}})"},
        {Outcome::run_failure(0, ""), R"({"runFailure":{"message":"","exitCode":0}})"},
        {Outcome::infra_failure("no route"), R"({"infraFailure":"no route"})"},
        {Outcome::container_not_running("gone"), R"({"containerNotRunning":"gone"})"},
    };
    for (const auto &[outcome, text] : cases) {
        BOOST_TEST(json::serialize(encode(outcome)) == text);
        const Outcome back = liveupdate::update_step::decode_outcome(json::parse(text), "");
        BOOST_TEST((back.kind == outcome.kind));
        BOOST_TEST(back.exit_code == outcome.exit_code);
        if (outcome.kind != Outcome::Kind::ok) BOOST_TEST(back.message == outcome.message);
    }
}

BOOST_AUTO_TEST_CASE(an_outcome_says_how_the_agent_got_there_and_a_restart_only_when_known) {
    using liveupdate::updater::AgentSource;
    Outcome injected = Outcome::ok();
    injected.agent = AgentSource::injected;
    injected.process_restarted = true;
    BOOST_TEST(json::serialize(encode(injected)) == R"({"ok":true,"agent":"injected","processRestarted":true})");
    Outcome copied = Outcome::run_failure(2, "make failed");
    copied.agent = AgentSource::copied;
    BOOST_TEST(json::serialize(encode(copied)) ==
               R"({"runFailure":{"message":"make failed","exitCode":2},"agent":"copied"})");
    for (const Outcome &outcome : {injected, copied}) {
        const Outcome back = liveupdate::update_step::decode_outcome(encode(outcome), "");
        BOOST_TEST((back.kind == outcome.kind));
        BOOST_TEST((back.agent == outcome.agent));
        BOOST_TEST(back.process_restarted == outcome.process_restarted);
    }
    const Outcome none = liveupdate::update_step::decode_outcome(json::parse(R"({"agent":"none","ok":true})"), "");
    BOOST_TEST((none.agent == AgentSource::none));
    BOOST_TEST(!none.process_restarted);
    const Outcome said_nothing = liveupdate::update_step::decode_outcome(json::parse(R"({"ok":true})"), "");
    BOOST_TEST((said_nothing.agent == AgentSource::unknown));
}

BOOST_AUTO_TEST_CASE(a_run_failure_may_leave_its_message_out) {
    const Outcome back = liveupdate::update_step::decode_outcome(json::parse(R"({"runFailure":{"exitCode":3}})"), "");
    BOOST_TEST((back.kind == Outcome::Kind::run_failure));
    BOOST_TEST(back.exit_code == 3);
    BOOST_TEST(back.message.empty());
}

BOOST_AUTO_TEST_CASE(a_malformed_outcome_is_named) {
    const auto error = [](std::string_view text) {
        try {
            liveupdate::update_step::decode_outcome(json::parse(text), "outcomes[1]");
        } catch (const DecodeError &e) {
            return std::string(e.what());
        }
        return std::string("decoded");
    };
    BOOST_TEST(error(R"({"ok": 1})") == "outcomes[1].ok: expected boolean");
    BOOST_TEST(error(R"({"runFailure": {"exitCode": "1"}})") == "outcomes[1].runFailure.exitCode: expected integer");
    BOOST_TEST(error(R"({"runFailure": {"exitCode": 4294967296}})") == "outcomes[1].runFailure.exitCode: out of range");
    BOOST_TEST(error(R"({"infraFailure": 3})") == "outcomes[1].infraFailure: expected string");
    BOOST_TEST(error(R"({"ok": false})") == "outcomes[1].ok: must be true");
    BOOST_TEST(error(R"({"runFailure": {"message": "x"}})") == "outcomes[1].runFailure.exitCode: missing");
    BOOST_TEST(error(R"({"ok": true, "infraFailure": "x"})") ==
               "outcomes[1]: expected exactly one of ok, runFailure, infraFailure, containerNotRunning");
    BOOST_TEST(error(R"({"crash": true})") == "outcomes[1]: unknown outcome \"crash\"");
    BOOST_TEST(error(R"({"agent": "copied"})") ==
               "outcomes[1]: expected exactly one of ok, runFailure, infraFailure, containerNotRunning");
    BOOST_TEST(error(R"({"ok": true, "agent": "borrowed"})") ==
               "outcomes[1].agent: expected one of none, injected, copied");
    BOOST_TEST(error(R"({"ok": true, "agent": 2})") == "outcomes[1].agent: expected string");
    BOOST_TEST(error(R"({"ok": true, "processRestarted": "yes"})") == "outcomes[1].processRestarted: expected boolean");
    BOOST_TEST(error(R"([])") == "outcomes[1]: expected object");
}

BOOST_AUTO_TEST_SUITE_END()
