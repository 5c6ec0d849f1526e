#define BOOST_TEST_MODULE host_tests
#include <boost/test/unit_test.hpp>
