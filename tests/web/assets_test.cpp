// The page's files are compiled in and found by exact name only.
#include <boost/test/unit_test.hpp>

#include "host/web/assets.hpp"

using namespace liveupdate::host::web;

BOOST_AUTO_TEST_SUITE(assets)

BOOST_AUTO_TEST_CASE(the_page_and_its_files_are_built_in) {
    const Asset *index = find_asset("/");
    BOOST_TEST_REQUIRE(index != nullptr);
    BOOST_TEST(index->path == "/index.html");
    BOOST_TEST(index->content_type.starts_with("text/html"));
    BOOST_TEST(index->body.find("<main>") != std::string_view::npos);
    BOOST_TEST_REQUIRE(find_asset("/app.js?v=1") != nullptr);
    BOOST_TEST(find_asset("/app.js")->content_type.starts_with("text/javascript"));
    BOOST_TEST(find_asset("/style.css")->content_type.starts_with("text/css"));
}

BOOST_AUTO_TEST_CASE(nothing_else_is_reachable) {
    for (const char *target : {"/../app.js", "/%2e%2e/etc/passwd", "/../../etc/passwd", "/assets/app.js", "//app.js",
                               "/app.js/", "/APP.JS", "/index.html/..", "", "app.js", "/etc/passwd"})
        BOOST_TEST(find_asset(target) == nullptr, target);
}

BOOST_AUTO_TEST_CASE(no_asset_loads_anything_from_elsewhere) {
    for (const Asset &a : embedded_assets()) {
        BOOST_TEST(a.body.find("http://") == std::string_view::npos, a.path);
        BOOST_TEST(a.body.find("https://") == std::string_view::npos, a.path);
    }
}

// Names and log lines come from objects anyone may write: the page sets them
// as text (textContent, attributes), never parses them as markup.
BOOST_AUTO_TEST_CASE(the_script_never_writes_markup) {
    const Asset *script = find_asset("/app.js");
    BOOST_TEST_REQUIRE(script != nullptr);
    for (const char *sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("})
        BOOST_TEST(script->body.find(sink) == std::string_view::npos, sink);
}

BOOST_AUTO_TEST_SUITE_END()
