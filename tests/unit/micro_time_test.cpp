#include <boost/test/unit_test.hpp>

#include "common/micro_time.hpp"

using liveupdate::common::MicroTime;

BOOST_AUTO_TEST_SUITE(micro_time)

BOOST_AUTO_TEST_CASE(formats_with_six_digits_and_z) {
    const auto t = MicroTime::parse("2026-01-01T00:00:01.5Z");
    BOOST_REQUIRE(t);
    BOOST_TEST(t->format() == "2026-01-01T00:00:01.500000Z");
}

BOOST_AUTO_TEST_CASE(offsets_are_normalised_to_utc) {
    const auto a = MicroTime::parse("2026-01-01T02:00:00+02:00");
    const auto b = MicroTime::parse("2026-01-01T00:00:00Z");
    BOOST_REQUIRE(a && b);
    BOOST_TEST(a->micros() == b->micros());
}

BOOST_AUTO_TEST_CASE(ordering_follows_time) {
    BOOST_TEST((*MicroTime::parse("2026-01-01T00:00:00.000001Z") > *MicroTime::parse("2026-01-01T00:00:00Z")));
}

BOOST_AUTO_TEST_CASE(rejects_malformed_text) {
    for (const char *bad : {"", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z",
                            "2026-01-01T00:00:00Zjunk"})
        BOOST_TEST(!MicroTime::parse(bad), bad);
}

BOOST_AUTO_TEST_CASE(zero_formats_as_empty) { BOOST_TEST(MicroTime{}.format().empty()); }

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(micro_time_range)

BOOST_AUTO_TEST_CASE(offsets_cannot_leave_the_writable_range) {
    BOOST_TEST(!MicroTime::parse("9999-12-31T23:59:59-01:00"));
    const auto last = MicroTime::parse("9999-12-31T23:59:59.999999Z");
    BOOST_REQUIRE(last);
    BOOST_TEST(last->micros() == MicroTime::latest().micros());
    BOOST_TEST(MicroTime::parse(last->format())->micros() == last->micros());
    const auto first = MicroTime::parse("0000-01-01T00:00:00Z");
    BOOST_REQUIRE(first);
    BOOST_TEST(first->format() == "0000-01-01T00:00:00.000000Z");
    BOOST_TEST(!MicroTime::parse("0000-01-01T00:00:00+00:01"));
}

BOOST_AUTO_TEST_SUITE_END()
