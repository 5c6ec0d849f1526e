// The step document around the updates (common/update_step/step_envelope):
// the host's strict reading of what the plugin writes, and that its one field
// list describes the plugin's bytes exactly.
#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

#include "common/json_fields.hpp"
#include "common/update_step/step_envelope.hpp"
#include "plugin/core/step.hpp"

namespace json = boost::json;
using liveupdate::common::DecodeError;
using liveupdate::common::LogLevel;
using liveupdate::update_step::decode_step;
using liveupdate::update_step::StepEnvelope;

namespace {

liveupdate::update_step::ContainerUpdate docker_update(const std::string &id) {
    liveupdate::update_step::ContainerUpdate u;
    u.live_update = "lu";
    u.via = "docker";
    u.container = {id, "web", "", "", ""};
    u.copy = {{"/src/a.txt", "/app/a.txt"}};
    u.runs = {{{"make"}, false}};
    u.sync_roots = {"/app"};
    return u;
}

// An "updates" step as the plugin writes it, with a started event.
std::string updates_text() {
    liveupdate::Step step;
    step.log = {{LogLevel::info, "1 file changed"}};
    step.events = {{"started", "lu", "web", {"/src/a.txt"}, ""}};
    step.updates = {{{{LogLevel::info, "Will copy 1 file"}}, docker_update("c-1")},
                    {{{LogLevel::warn, "replica two"}}, docker_update("c-2")}};
    step.stops_at_infra_failure = false;
    return liveupdate::encode_step(step, 2);
}

// A "done" step after an "updates" step, as the plugin writes it.
std::string done_text() {
    liveupdate::Step step;
    step.events = {{"completed", "lu", "web", {}, ""}};
    step.results = {{{LogLevel::error, "make failed"}}, {}};
    step.status_changed = true;
    return liveupdate::encode_step(step, 2);
}

json::object parsed(const std::string &text) { return json::parse(text).as_object(); }

// The error decoding `document` gives: "field: reason".
std::string decode_error(json::object document) {
    try {
        decode_step(std::move(document));
    } catch (const DecodeError &e) {
        return e.what();
    }
    return "decoded";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(step_envelope)

BOOST_AUTO_TEST_CASE(its_field_list_writes_the_plugins_bytes_back) {
    for (const std::string &text : {updates_text(), done_text()})
        BOOST_TEST(json::serialize(encode(decode_step(parsed(text)))) == text);
}

BOOST_AUTO_TEST_CASE(decodes_an_updates_step_into_typed_updates) {
    const StepEnvelope step = decode_step(parsed(updates_text()));
    BOOST_TEST(step.type == "updates");
    BOOST_TEST(step.step_version == 2);
    BOOST_TEST(!step.stops_at_infra_failure);
    BOOST_TEST_REQUIRE(step.updates.size() == 2u);
    BOOST_TEST(step.updates[1].update.container.id == "c-2");
    BOOST_TEST((step.updates[1].log[0].level == LogLevel::warn));
    BOOST_TEST(step.log[0].text == "1 file changed");
    BOOST_TEST_REQUIRE(step.events.size() == 1u);
    BOOST_TEST(json::serialize(step.events[0].at("filesChanged")) == R"(["/src/a.txt"])");
}

BOOST_AUTO_TEST_CASE(decodes_a_done_step_with_its_status_and_results) {
    const StepEnvelope step = decode_step(parsed(done_text()));
    BOOST_TEST(step.type == "done");
    BOOST_TEST(step.status.is_null());
    BOOST_TEST(step.status_changed);
    BOOST_TEST_REQUIRE(step.results.size() == 2u);
    BOOST_TEST(step.results[0].log[0].text == "make failed");
    BOOST_TEST(step.results[1].log.empty());
}

BOOST_AUTO_TEST_CASE(optional_members_absent_read_as_their_defaults) {
    json::object updates = parsed(updates_text());
    updates.erase("stopsAtInfraFailure");
    updates.erase("stepVersion");
    const StepEnvelope step = decode_step(std::move(updates));
    BOOST_TEST(step.stops_at_infra_failure);
    BOOST_TEST(step.step_version == 1);
    json::object done = parsed(done_text());
    done.erase("results");
    BOOST_TEST(decode_step(std::move(done)).results.empty());
}

BOOST_AUTO_TEST_CASE(a_misspelt_key_is_a_missing_member_named_by_its_path) {
    json::object step = parsed(updates_text());
    json::object &container = step["updates"].as_array()[0].as_object()["update"].as_object()["container"].as_object();
    container["containerNme"] = container["containerName"];
    container.erase("containerName");
    BOOST_TEST(decode_error(std::move(step)) == "updates[0].update.container.containerName: missing");

    json::object done = parsed(done_text());
    done["statusChange"] = done["statusChanged"];
    done.erase("statusChanged");
    BOOST_TEST(decode_error(std::move(done)) == "statusChanged: missing");
}

BOOST_AUTO_TEST_CASE(a_wrong_type_is_named_by_its_path) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"type"}, "type: expected string"},
        {{"log"}, "log: expected array"},
        {{"log", "0", "text"}, "log[0].text: expected string"},
        {{"log", "0", "level"}, "log[0].level: expected string"},
        {{"events", "0"}, "events[0]: expected object"},
        {{"events", "0", "filesChanged"}, "events[0].filesChanged: expected array"},
        {{"events", "0", "filesChanged", "0"}, "events[0].filesChanged[0]: expected string"},
        {{"updates"}, "updates: expected array"},
        {{"updates", "1", "log"}, "updates[1].log: expected array"},
        {{"updates", "1", "update"}, "updates[1].update: expected object"},
        {{"updates", "0", "update", "container", "containerName"},
         "updates[0].update.container.containerName: expected string"},
    };
    for (const auto &[path, error] : cases) {
        json::value step = parsed(updates_text());
        json::value *at = &step;
        for (std::size_t i = 0; i + 1 < path.size(); ++i)
            at = at->is_array() ? &at->as_array().at(std::stoul(path[i])) : &at->as_object().at(path[i]);
        if (at->is_array())
            at->as_array().at(std::stoul(path.back())) = json::value(true);
        else
            at->as_object()[path.back()] = json::value(true);
        BOOST_TEST(decode_error(std::move(step.as_object())) == error);
    }
    for (const char *key : {"stopsAtInfraFailure", "stepVersion"}) {
        json::object step = parsed(updates_text());
        step[key] = "yes";
        BOOST_TEST(decode_error(std::move(step)) ==
                   std::string(key) +
                       (key == std::string("stepVersion") ? ": expected integer" : ": expected boolean"));
    }
    json::object done = parsed(done_text());
    done["statusChanged"] = "yes";
    BOOST_TEST(decode_error(std::move(done)) == "statusChanged: expected boolean");
}

BOOST_AUTO_TEST_CASE(each_member_a_step_of_its_type_needs_missing_is_named) {
    const std::vector<std::pair<std::string, std::string>> updates{{"type", "type: missing"},
                                                                   {"log", "log: missing"},
                                                                   {"events", "events: missing"},
                                                                   {"updates", "updates: missing"}};
    for (const auto &[key, error] : updates) {
        json::object step = parsed(updates_text());
        step.erase(key);
        BOOST_TEST(decode_error(std::move(step)) == error);
    }
    for (const char *key : {"status", "statusChanged"}) {
        json::object done = parsed(done_text());
        done.erase(key);
        BOOST_TEST(decode_error(std::move(done)) == std::string(key) + ": missing");
    }
    json::object update{{"type", "update"}, {"log", json::array()}, {"events", json::array()}};
    BOOST_TEST(decode_error(update) == "update: missing");
}

BOOST_AUTO_TEST_CASE(an_unknown_type_level_or_event_and_an_empty_batch_are_refused) {
    json::object step = parsed(done_text());
    step["type"] = "undo";
    BOOST_TEST(decode_error(step) == "type: unknown step type \"undo\"");
    step = parsed(done_text());
    step["log"] = json::array{json::object{{"level", "loud"}, {"text", "x"}}};
    BOOST_TEST(decode_error(step) == "log[0].level: unknown log level \"loud\"");
    step = parsed(done_text());
    step["events"].as_array()[0].as_object()["type"] = "paused";
    BOOST_TEST(decode_error(step) == "events[0].type: unknown event type \"paused\"");
    step = parsed(updates_text());
    step["updates"] = json::array();
    BOOST_TEST(decode_error(step) == "updates: empty");
}

BOOST_AUTO_TEST_SUITE_END()
