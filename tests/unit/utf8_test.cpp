#include <boost/test/unit_test.hpp>

#include "common/utf8.hpp"
#include "plugin/core/initial_sync.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

BOOST_AUTO_TEST_SUITE(utf8)

BOOST_AUTO_TEST_CASE(well_formed_utf8_is_told_from_bytes) {
    BOOST_TEST(common::is_valid_utf8("/src/a.txt"));
    BOOST_TEST(common::is_valid_utf8("/src/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80"));
    BOOST_TEST(
        !common::is_valid_utf8("/src/\xff\xfe"
                               "A"));
    BOOST_TEST(!common::is_valid_utf8("/src/\xc0\xaf"));          // overlong "/"
    BOOST_TEST(!common::is_valid_utf8("/src/\xed\xa0\x80"));      // a surrogate
    BOOST_TEST(!common::is_valid_utf8("/src/\xf4\x90\x80\x80"));  // past U+10FFFF
    BOOST_TEST(!common::is_valid_utf8("/src/\xe2\x82"));          // cut short
}

BOOST_AUTO_TEST_CASE(printable_paths_escape_bytes_and_control_characters) {
    BOOST_TEST(common::printable_path("/src/\xff\xfe"
                                      "A") == "/src/\\xff\\xfeA");
    BOOST_TEST(common::printable_path("/src/caf\xc3\xa9") == "/src/caf\xc3\xa9");
    BOOST_TEST(common::printable_path("/src/a\nb\\c") == "/src/a\\x0ab\\\\c");
}

BOOST_AUTO_TEST_CASE(the_initial_sync_walk_leaves_such_names_out_with_a_warning) {
    test::TempDir dir;
    dir.write("src/a.txt");
    dir.write(
        "src/\xff\xfe"
        "A");
    dir.write("src/bad\xff/inside.txt");
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}};
    const auto files = collect_initial_sync_files(spec, ignore_set_of(initial_sync_filter({})));
    BOOST_TEST((files.files == std::vector<std::string>{dir.path().string() + "/src/a.txt"}),
               boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(files.warnings.size(), 2u);
    for (const auto &w : files.warnings) {
        BOOST_TEST(common::is_valid_utf8(w), w);
        BOOST_TEST(w.find("\\xff") != std::string::npos, w);
    }
}

BOOST_AUTO_TEST_SUITE_END()
