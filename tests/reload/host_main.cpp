#define BOOST_TEST_MODULE reload_host_tests
#include <boost/test/unit_test.hpp>
