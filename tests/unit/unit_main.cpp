#define BOOST_TEST_MODULE liveupdate_core
#include <boost/test/unit_test.hpp>
