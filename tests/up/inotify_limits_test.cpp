#include <boost/test/unit_test.hpp>

#include <cerrno>

#include "host/up/inotify_limits.hpp"

using namespace liveupdate::host::up;

BOOST_AUTO_TEST_SUITE(inotify_limits)

BOOST_AUTO_TEST_CASE(out_of_instances_names_the_sysctl_and_its_value) {
    const std::string m = inotify_init_failure(EMFILE, 128, 40, 1024);
    BOOST_TEST(m.find("fs.inotify.max_user_instances = 128") != std::string::npos, m);
    BOOST_TEST(m.find("ulimit") == std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(out_of_open_files_names_ulimit) {
    const std::string m = inotify_init_failure(EMFILE, 128, 1023, 1024);
    BOOST_TEST(m.find("ulimit -n = 1024") != std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(an_unreadable_limit_is_said_so) {
    BOOST_TEST(describe_inotify_limit("max_user_watches", std::nullopt) == "fs.inotify.max_user_watches (unreadable)");
    BOOST_TEST(describe_inotify_limit("max_user_watches", 8192) == "fs.inotify.max_user_watches = 8192");
}

BOOST_AUTO_TEST_SUITE_END()
