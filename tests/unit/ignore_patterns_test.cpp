#include <boost/test/unit_test.hpp>

#include "common/ignore_patterns.hpp"
#include "common/paths.hpp"

using liveupdate::common::IgnorePatterns;

BOOST_AUTO_TEST_SUITE(ignore_patterns)

BOOST_AUTO_TEST_CASE(directory_pattern_covers_everything_beneath) {
    const IgnorePatterns p("/src", {"node_modules"});
    BOOST_TEST(p.matches("/src/node_modules/a/b.js"));
    BOOST_TEST(!p.matches("/src/app.js"));
    BOOST_TEST(p.matches_entire_dir("/src/node_modules"));
}

BOOST_AUTO_TEST_CASE(double_star_spans_directories) {
    const IgnorePatterns p("/src", {"**/*.pyc"});
    BOOST_TEST(p.matches("/src/a/b/c.pyc"));
    BOOST_TEST(p.matches("/src/c.pyc"));
    BOOST_TEST(!p.matches("/src/c.py"));
}

BOOST_AUTO_TEST_CASE(exception_wins_when_last) {
    const IgnorePatterns p("/src", {"*.md", "!README.md"});
    BOOST_TEST(p.matches("/src/NOTES.md"));
    BOOST_TEST(!p.matches("/src/README.md"));
    BOOST_TEST(!p.matches_entire_dir("/src"));
}

BOOST_AUTO_TEST_CASE(exception_beneath_a_directory_keeps_it_walkable) {
    const IgnorePatterns p("/src", {"build", "!build/keep.txt"});
    BOOST_TEST(!p.matches_entire_dir("/src/build"));
    BOOST_TEST(!p.matches("/src/build/keep.txt"));
    BOOST_TEST(p.matches("/src/build/other.txt"));
}

BOOST_AUTO_TEST_CASE(malformed_pattern_is_an_error) {
    BOOST_CHECK_THROW(IgnorePatterns("/src", {"[abc"}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(clean_and_join) {
    BOOST_TEST(liveupdate::common::clean_path("/a//b/./c/../d/") == "/a/b/d");
    BOOST_TEST(liveupdate::common::join_path("/base", "rel/x") == "/base/rel/x");
    BOOST_TEST(liveupdate::common::join_path("/base", "/abs") == "/abs");
    BOOST_TEST(liveupdate::common::join_path("/app/", ".") == "/app");
}

BOOST_AUTO_TEST_SUITE_END()
