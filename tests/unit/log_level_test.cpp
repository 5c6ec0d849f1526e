#include <boost/test/unit_test.hpp>

#include "common/log_level.hpp"

using liveupdate::common::LogLevel;
namespace common = liveupdate::common;

BOOST_AUTO_TEST_SUITE(log_level)

BOOST_AUTO_TEST_CASE(text_round_trips) {
    for (const LogLevel level : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error}) {
        const auto parsed = common::parse_log_level(common::to_string(level));
        BOOST_REQUIRE(parsed);
        BOOST_TEST((*parsed == level), common::to_string(level));
    }
    BOOST_TEST(common::to_string(LogLevel::warn) == "warn");
}

BOOST_AUTO_TEST_CASE(unknown_text_is_no_level) {
    for (const char *text : {"", "Info", "warning", "err", "info ", "trace"})
        BOOST_TEST(!common::parse_log_level(text), text);
}

BOOST_AUTO_TEST_CASE(values_are_the_abis) {
    BOOST_TEST(common::to_abi(LogLevel::debug) == LU_LOG_DEBUG);
    BOOST_TEST(common::to_abi(LogLevel::info) == LU_LOG_INFO);
    BOOST_TEST(common::to_abi(LogLevel::warn) == LU_LOG_WARN);
    BOOST_TEST(common::to_abi(LogLevel::error) == LU_LOG_ERROR);
    for (const std::int32_t abi : {LU_LOG_DEBUG, LU_LOG_INFO, LU_LOG_WARN, LU_LOG_ERROR})
        BOOST_TEST(common::to_abi(common::from_abi(abi)) == abi);
}

BOOST_AUTO_TEST_CASE(levels_outside_the_abi_count_as_info) {
    BOOST_TEST((common::from_abi(-1) == LogLevel::info));
    BOOST_TEST((common::from_abi(LU_LOG_ERROR + 1) == LogLevel::info));
}

BOOST_AUTO_TEST_CASE(levels_order_by_severity) {
    BOOST_TEST(
        (LogLevel::debug < LogLevel::info && LogLevel::info < LogLevel::warn && LogLevel::warn < LogLevel::error));
}

BOOST_AUTO_TEST_SUITE_END()
