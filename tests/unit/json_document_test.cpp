#include <boost/test/unit_test.hpp>

#include <thread>
#include <vector>

#include "common/json_fields.hpp"
#include "plugin/core/document_arena.hpp"
#include "plugin/core/json_equal.hpp"

using namespace liveupdate;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(json_document)

BOOST_AUTO_TEST_CASE(json_equal_means_what_boost_equality_means) {
    const char *documents[] = {"null",
                               "true",
                               "false",
                               "0",
                               "1",
                               "-1",
                               "18446744073709551615",
                               "1.0",
                               "1.5",
                               "\"a\"",
                               "\"b\"",
                               "\"\"",
                               "[]",
                               "[1,2]",
                               "[2,1]",
                               "[1,2,3]",
                               "[[1],{\"a\":1}]",
                               "[[1],{\"a\":2}]",
                               "{}",
                               "{\"a\":1}",
                               "{\"a\":1.0}",
                               "{\"a\":1,\"b\":2}",
                               "{\"b\":2,\"a\":1}",
                               "{\"a\":1,\"c\":2}",
                               "{\"a\":{\"x\":[1,{\"y\":null}]},\"b\":\"s\"}",
                               "{\"b\":\"s\",\"a\":{\"x\":[1,{\"y\":null}]}}",
                               "{\"b\":\"s\",\"a\":{\"x\":[1,{\"y\":false}]}}"};
    std::vector<json::value> values;
    for (const char *d : documents) values.push_back(json::parse(d));
    values.push_back(json::value(std::uint64_t{1}));  // the same number as int64 1
    values.push_back(json::value(std::uint64_t{1} << 63));
    for (const auto &a : values) {
        for (const auto &b : values) {
            BOOST_TEST_CONTEXT(json::serialize(a) << " vs " << json::serialize(b)) {
                BOOST_TEST(json_equal(a, b) == (a == b));
            }
        }
    }
    BOOST_TEST(json_equal(json::parse("{\"a\":1,\"b\":2}"), json::parse("{\"b\":2,\"a\":1}")));
    BOOST_TEST(json_equal(json::value(std::int64_t{1}), json::value(std::uint64_t{1})));
    BOOST_TEST(!json_equal(json::parse("1"), json::parse("1.0")));
}

BOOST_AUTO_TEST_CASE(the_arena_serves_the_parse_then_the_heap) {
    DocumentArena *arena = nullptr;
    json::storage_ptr storage = json::make_shared_resource<DocumentArena>(64, arena);
    BOOST_REQUIRE(arena != nullptr);
    std::vector<void *> before;
    before.reserve(10);
    for (int i = 0; i < 10; ++i) before.push_back(storage->allocate(24, 8));
    BOOST_TEST(arena->bytes_reserved() >= 240u);
    for (void *p : before) BOOST_TEST(reinterpret_cast<std::uintptr_t>(p) % 8 == 0u);
    const std::size_t reserved = arena->bytes_reserved();
    arena->seal();
    // Allocations now come from the heap and go back to it (LeakSanitizer checks that).
    std::vector<void *> after;
    after.reserve(100);
    for (int i = 0; i < 100; ++i) after.push_back(storage->allocate(1000, 16));
    BOOST_TEST(arena->bytes_reserved() == reserved);
    for (void *p : after) storage->deallocate(p, 1000, 16);
    for (void *p : before) storage->deallocate(p, 24, 8);
}

BOOST_AUTO_TEST_CASE(parts_moved_out_outlive_the_document_and_copy_safely_on_any_thread) {
    json::value kept;
    {
        json::value document =
            parse_document(R"({"objects":[{"kind":"FileWatch","spec":{"watchedPaths":["/a","/b"]}}]})");
        // Moved, not copied: the part keeps the document's arena alive.
        kept = json::value(std::move(document.at("objects").at(0)));
        json::value moved(std::move(document.at("objects").at(0)));
        BOOST_TEST(moved.is_null());
    }
    BOOST_TEST(kept.at("spec").at("watchedPaths").at(1).as_string() == "/b");
    std::vector<std::thread> threads;
    std::vector<json::value> copies(4);
    for (std::size_t t = 0; t < copies.size(); ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) copies[t] = json::value(kept);  // copies keep kept's resource
        });
    }
    for (auto &t : threads) t.join();
    for (const auto &c : copies) BOOST_TEST(json_equal(c, kept));
}

BOOST_AUTO_TEST_CASE(parse_document_keeps_the_limits) {
    BOOST_CHECK_THROW(parse_document("[[[1]]]", 1000, 2), common::DecodeError);
    BOOST_CHECK_THROW(parse_document("{\"a\":", 1000, 8), common::DecodeError);
    BOOST_CHECK_THROW(parse_document(std::string(100, ' ') + "1", 50, 8), common::DecodeError);
    BOOST_TEST(parse_document("[1,2]", 1000, 8).as_array().size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
