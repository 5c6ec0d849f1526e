#include <boost/test/unit_test.hpp>

#include "host/core/abi_range.hpp"

using liveupdate::host::AbiRange;
using liveupdate::host::highest_common_abi;

BOOST_AUTO_TEST_SUITE(abi_range)

BOOST_AUTO_TEST_CASE(the_highest_version_both_serve_is_chosen) {
    BOOST_TEST(highest_common_abi({1, 1}, {1, 5}).value() == 1u);
    BOOST_TEST(highest_common_abi({1, 3}, {2, 5}).value() == 3u);
    BOOST_TEST(highest_common_abi({2, 4}, {1, 3}).value() == 3u);
    BOOST_TEST(highest_common_abi({1, 4}, {2, 2}).value() == 2u);
}

BOOST_AUTO_TEST_CASE(ranges_that_do_not_meet_share_no_version) {
    BOOST_TEST(!highest_common_abi({1, 1}, {7, 9}).has_value());
    BOOST_TEST(!highest_common_abi({3, 4}, {1, 2}).has_value());
    BOOST_TEST(!highest_common_abi({1, 4}, {3, 2}).has_value());
}

BOOST_AUTO_TEST_CASE(a_range_is_written_as_one_version_or_two_ends) {
    BOOST_TEST((AbiRange{1, 1}.text() == "1"));
    BOOST_TEST((AbiRange{1, 3}.text() == "1..3"));
}

BOOST_AUTO_TEST_SUITE_END()
