#include <boost/test/unit_test.hpp>

#include "host/core/host_error.hpp"
#include "host/core/object_store.hpp"

using namespace liveupdate::host;
namespace json = boost::json;

namespace {

json::object object(std::string_view text) { return json::parse(text).as_object(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(object_store)

BOOST_AUTO_TEST_CASE(put_get_remove_with_resource_versions) {
    JsonObjectStore store;
    const auto v1 = store.put(object(R"({"kind": "FileWatch", "metadata": {"name": "fw"}, "spec": {}})"));
    const auto v2 = store.put(object(R"({"kind": "FileWatch", "metadata": {"name": "fw"}, "spec": {"x": 1}})"));
    BOOST_TEST(v2 > v1);
    auto got = store.get(ObjectKey{"FileWatch", "fw"});
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->at("spec").at("x").as_int64() == 1);
    BOOST_TEST(got->at("metadata").at("resourceVersion").as_string() == std::to_string(v2));
    BOOST_TEST(store.list("FileWatch").size() == 1u);
    BOOST_TEST(store.remove(ObjectKey{"FileWatch", "fw"}));
    BOOST_TEST(!store.remove(ObjectKey{"FileWatch", "fw"}));
    BOOST_TEST(!store.get(ObjectKey{"FileWatch", "fw"}).has_value());
}

BOOST_AUTO_TEST_CASE(status_writes_count_only_changes) {
    JsonObjectStore store;
    const ObjectKey key{"LiveUpdate", "lu"};
    BOOST_TEST(!store.write_status(key, json::object{}));  // absent object
    store.put(object(R"({"kind": "LiveUpdate", "metadata": {"name": "lu"}})"), true);
    BOOST_TEST(store.get(key)->at("status").as_object().empty());
    BOOST_TEST(!store.write_status(key, json::object{}));  // unchanged
    BOOST_TEST(store.write_status(key, json::parse(R"({"a": 1})")));
    BOOST_TEST(!store.write_status(key, json::parse(R"({"a": 1})")));
    BOOST_TEST(store.status_writes(key) == 1u);
    // Re-applying keeps the status the reconciler wrote.
    store.put(object(R"({"kind": "LiveUpdate", "metadata": {"name": "lu"}, "status": {"b": 2}})"), true);
    BOOST_TEST(json::serialize(store.get(key)->at("status")) == R"({"a":1})");
}

BOOST_AUTO_TEST_CASE(listeners_see_every_change) {
    JsonObjectStore store;
    std::vector<int> seen;
    store.add_listener([&](const ObjectChange &change) { seen.push_back(static_cast<int>(change.type)); });
    store.put(object(R"({"kind": "LiveUpdate", "metadata": {"name": "lu"}})"), true);
    store.write_status(ObjectKey{"LiveUpdate", "lu"}, json::parse(R"({"a": 1})"));
    store.remove(ObjectKey{"LiveUpdate", "lu"});
    BOOST_TEST(seen == (std::vector{static_cast<int>(ObjectChange::Type::upserted),
                                    static_cast<int>(ObjectChange::Type::status_written),
                                    static_cast<int>(ObjectChange::Type::deleted)}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(objects_need_kind_and_name) {
    JsonObjectStore store;
    BOOST_CHECK_THROW(store.put(object(R"({"metadata": {"name": "x"}})")), HostError);
    BOOST_CHECK_THROW(store.put(object(R"({"kind": "K", "metadata": {}})")), HostError);
}

// The error names the object's kind and the field at fault, and why.
BOOST_AUTO_TEST_CASE(an_invalid_object_is_named_by_kind_and_field) {
    JsonObjectStore store;
    const auto where_and_why = [&](const char *text) {
        try {
            store.put(object(text));
        } catch (const HostError &e) {
            return e.location() + ": " + e.reason();
        }
        return std::string("accepted");
    };
    BOOST_TEST(where_and_why(R"({"kind": "K", "metadata": {"name": 5}})") == "K metadata.name: expected string");
    BOOST_TEST(where_and_why(R"({"kind": "K", "metadata": ["x"]})") == "K metadata: expected object");
    BOOST_TEST(where_and_why(R"({"kind": "K", "metadata": {"name": ""}})") == "K metadata.name: missing or empty");
    BOOST_TEST(where_and_why(R"({"kind": 7, "metadata": {"name": "x"}})") == "kind: expected string");
}

BOOST_AUTO_TEST_SUITE_END()
