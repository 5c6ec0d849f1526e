#define BOOST_TEST_MODULE host_unit_tests
#include <boost/test/unit_test.hpp>
