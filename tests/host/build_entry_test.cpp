#include <boost/test/unit_test.hpp>

#include "host/core/build_entry.hpp"

using liveupdate::host::build_entry_line;

BOOST_AUTO_TEST_SUITE(build_entry)

BOOST_AUTO_TEST_CASE(one_file_and_several_files_as_tilt_writes_them) {
    BOOST_TEST(build_entry_line({"/w/src/a.txt"}, "/w") == "1 File Changed: [src/a.txt]");
    BOOST_TEST(build_entry_line({"/w/a", "/w/b/c", "/elsewhere/d"}, "/w") == "3 Files Changed: [a b/c /elsewhere/d]");
    BOOST_TEST(build_entry_line({}, "/w").empty());
}

BOOST_AUTO_TEST_CASE(paths_outside_or_without_a_working_directory_stay_absolute) {
    BOOST_TEST(build_entry_line({"/wx/a"}, "/w") == "1 File Changed: [/wx/a]");
    BOOST_TEST(build_entry_line({"/w/a"}, "") == "1 File Changed: [/w/a]");
}

BOOST_AUTO_TEST_CASE(at_most_five_paths_then_an_ellipsis) {
    BOOST_TEST(build_entry_line({"/w/1", "/w/2", "/w/3", "/w/4", "/w/5", "/w/6", "/w/7"}, "/w") ==
               "7 Files Changed: [1 2 3 4 5 ...]");
}

BOOST_AUTO_TEST_SUITE_END()
