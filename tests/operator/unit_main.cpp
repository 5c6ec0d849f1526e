#define BOOST_TEST_MODULE operator_unit_tests
#include <boost/test/unit_test.hpp>
