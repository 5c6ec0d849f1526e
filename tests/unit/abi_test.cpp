// The plugin's C ABI as the host sees it: result codes and documents, never exceptions.
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include <string>

#include "liveupdate/liveupdate.hpp"
#include "tests/support/temp_dir.hpp"

extern "C" const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info);

namespace {

using liveupdate::abi::to_lu_str;
using liveupdate::abi::to_view;

struct Abi {
    const lu_liveupdate_api *api = lu_liveupdate_plugin_entry(LU_ABI_VERSION, &info);
    const lu_plugin_info *info = nullptr;
    lu_engine *engine = nullptr;

    Abi() {
        lu_message error{nullptr, 0};
        BOOST_REQUIRE(api != nullptr);
        BOOST_REQUIRE_EQUAL(
            api->create(nullptr, to_lu_str(R"({"startTime":"2026-01-01T00:00:00.000000Z"})"), &engine, &error), LU_OK);
    }
    ~Abi() { api->destroy(engine); }

    // Calls f(&message) and returns (rc, text), releasing the message.
    template <class F>
    std::pair<int32_t, std::string> call(F &&f) {
        lu_message m{nullptr, 0};
        const int32_t rc = f(&m);
        std::string text(to_view(m));
        api->free_message(&m);
        return {rc, text};
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(c_abi)

BOOST_AUTO_TEST_CASE(other_abi_versions_get_no_table_but_info) {
    const lu_plugin_info *info = nullptr;
    BOOST_TEST(lu_liveupdate_plugin_entry(LU_ABI_VERSION + 1, &info) == nullptr);
    BOOST_REQUIRE(info != nullptr);
    BOOST_TEST(std::string(info->kind) == "liveupdate");
}

BOOST_AUTO_TEST_CASE(rejections_are_documents_with_a_code) {
    Abi a;
    const auto [rc, text] = a.call([&](lu_message *m) { return a.api->upsert(a.engine, to_lu_str("{\"kind\":"), m); });
    BOOST_TEST(rc == LU_ERR_INVALID_ARGUMENT);
    const auto doc = boost::json::parse(text).as_object();
    BOOST_TEST(doc.at("accepted").as_bool() == false);
    BOOST_TEST(std::string(doc.at("message").as_string()).find("malformed JSON") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(absent_live_update_is_done_with_null_status) {
    Abi a;
    lu_reconcile *session = nullptr;
    const auto [rc, text] = a.call([&](lu_message *m) {
        return a.api->reconcile_begin(a.engine, to_lu_str("nope"), to_lu_str("2026-01-01T00:00:01.000000Z"), &session,
                                      m);
    });
    BOOST_REQUIRE_EQUAL(rc, LU_OK);
    const auto step = boost::json::parse(text).as_object();
    BOOST_TEST(step.at("type").as_string() == "done");
    BOOST_TEST(step.at("status").is_null());
    BOOST_TEST(step.at("statusChanged").as_bool() == false);
    // No update is pending: continuing is a state error, not a crash.
    const auto [rc2, text2] = a.call([&](lu_message *m) {
        return a.api->reconcile_continue(session, to_lu_str("{\"ok\":true}"), to_lu_str("x"), m);
    });
    BOOST_TEST(rc2 == LU_ERR_STATE);
    a.api->reconcile_end(session);
}

BOOST_AUTO_TEST_CASE(bad_outcome_and_bad_time_are_invalid_arguments) {
    Abi a;
    liveupdate::test::TempDir dir;
    dir.write("a.txt");
    const std::string objects[] = {
        R"({"kind":"DockerComposeService","metadata":{"name":"svc"},"status":{"containerID":"c1","containerName":"web","containerState":{"status":"running"}}})",
        R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":[{"time":"2026-01-01T00:00:01Z","seenFiles":[")" +
            dir.path().string() + R"(/a.txt"]}]}})",
        R"({"kind":"LiveUpdate","metadata":{"name":"lu"},"spec":{"basePath":")" + dir.path().string() +
            R"(","sources":[{"fileWatch":"fw"}],"selector":{"dockerCompose":{"service":"svc"}},"syncs":[{"localPath":".","containerPath":"/app"}]}})"};
    for (const auto &o : objects)
        BOOST_REQUIRE_EQUAL(a.call([&](lu_message *m) { return a.api->upsert(a.engine, to_lu_str(o), m); }).first,
                            LU_OK);
    lu_reconcile *session = nullptr;
    BOOST_TEST(a.call([&](lu_message *m) {
                    return a.api->reconcile_begin(a.engine, to_lu_str("lu"), to_lu_str("yesterday"), &session, m);
                }).first == LU_ERR_INVALID_ARGUMENT);
    const auto [rc, text] = a.call([&](lu_message *m) {
        return a.api->reconcile_begin(a.engine, to_lu_str("lu"), to_lu_str("2026-01-01T00:00:02.000000Z"), &session, m);
    });
    BOOST_REQUIRE_EQUAL(rc, LU_OK);
    BOOST_TEST(boost::json::parse(text).at("type").as_string() == "update");
    BOOST_TEST(a.call([&](lu_message *m) {
                    return a.api->reconcile_continue(session, to_lu_str("{\"maybe\":1}"),
                                                     to_lu_str("2026-01-01T00:00:02.000000Z"), m);
                }).first == LU_ERR_INVALID_ARGUMENT);
    // Ending before "done" abandons the update; the next reconcile reports it.
    a.api->reconcile_end(session);
    const auto [rc3, text3] = a.call([&](lu_message *m) {
        return a.api->reconcile_begin(a.engine, to_lu_str("lu"), to_lu_str("2026-01-01T00:00:03.000000Z"), &session, m);
    });
    BOOST_REQUIRE_EQUAL(rc3, LU_OK);
    const auto done = boost::json::parse(text3);
    BOOST_TEST(done.at("status").at("failed").at("reason").as_string() == "UpdateFailed");
    a.api->reconcile_end(session);
}

BOOST_AUTO_TEST_CASE(unknown_snapshot_version_is_unsupported) {
    Abi a;
    const auto [rc, text] = a.call([&](lu_message *m) {
        return a.api->restore(a.engine, to_lu_str(R"({"format":"liveupdate.plugin.state","version":7})"), m);
    });
    BOOST_TEST(rc == LU_ERR_UNSUPPORTED);
    BOOST_TEST(text.find("snapshot version 7 is not supported") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
