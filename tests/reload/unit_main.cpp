#define BOOST_TEST_MODULE reload_unit_tests
#include <boost/test/unit_test.hpp>
