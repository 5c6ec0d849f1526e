#define BOOST_TEST_MODULE webhook_unit_tests
#include <boost/test/unit_test.hpp>
