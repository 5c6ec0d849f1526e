#include <boost/test/unit_test.hpp>

#include "host/cli/kind_names.hpp"

using liveupdate::host::cli::kind_from_cli;

BOOST_AUTO_TEST_CASE(kind_names_on_the_command_line) {
    BOOST_TEST(kind_from_cli("liveupdates").value_or("") == "LiveUpdate");
    BOOST_TEST(kind_from_cli("LiveUpdate").value_or("") == "LiveUpdate");
    BOOST_TEST(kind_from_cli("fw").value_or("") == "FileWatch");
    BOOST_TEST(!kind_from_cli("pods").has_value());
}
