#define BOOST_TEST_MODULE web_unit_tests
#include <boost/test/unit_test.hpp>
