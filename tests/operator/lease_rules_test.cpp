#include <boost/test/unit_test.hpp>

#include "host/cluster/lease_rules.hpp"

using namespace liveupdate::host::cluster;
using liveupdate::common::MicroTime;
namespace json = boost::json;

namespace {

using Action = LeaseDecision::Action;

MicroTime at(const char *text) { return *MicroTime::parse(text); }

json::object held(const char *holder, const char *renewed) {
    return json::object{{"holderIdentity", holder},
                        {"leaseDurationSeconds", 15},
                        {"acquireTime", "2026-01-01T10:00:00.000000Z"},
                        {"renewTime", renewed},
                        {"leaseTransitions", 2}};
}

const char *kMe = "me@here pid 2";

const HolderGoneFn kHolderLives = [](const std::string &) { return false; };

}  // namespace

BOOST_AUTO_TEST_SUITE(lease_rules)

BOOST_AUTO_TEST_CASE(no_lease_is_created) {
    BOOST_TEST((decide_lease(std::nullopt, kMe, at("2026-01-01T10:00:00Z"), kHolderLives).action == Action::create));
}

BOOST_AUTO_TEST_CASE(a_live_holder_refuses_naming_it_and_since_when) {
    const auto d = decide_lease(held("ann@box pid 7", "2026-01-01T10:00:10.000000Z"), kMe, at("2026-01-01T10:00:20Z"),
                                kHolderLives);
    BOOST_TEST((d.action == Action::refuse));
    BOOST_TEST(d.message.find("ann@box pid 7") != std::string::npos);
    BOOST_TEST(d.message.find("since 2026-01-01T10:00:00.000000Z") != std::string::npos);
    BOOST_TEST(d.message.find("expires 2026-01-01T10:00:25.000000Z") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_expired_lease_is_taken) {
    const auto spec = held("ann@box pid 7", "2026-01-01T10:00:10.000000Z");
    BOOST_TEST((decide_lease(spec, kMe, at("2026-01-01T10:00:25Z"), kHolderLives).action == Action::take));
    BOOST_TEST((decide_lease(spec, kMe, at("2026-01-01T10:00:24.999999Z"), kHolderLives).action == Action::refuse));
}

BOOST_AUTO_TEST_CASE(a_live_lease_whose_holder_is_gone_is_taken_at_once_saying_so) {
    const auto spec = held("ann@box pid 7", "2026-01-01T10:00:10.000000Z");
    std::string asked;
    const auto d = decide_lease(spec, kMe, at("2026-01-01T10:00:11Z"), [&](const std::string &holder) {
        asked = holder;
        return true;
    });
    BOOST_TEST((d.action == Action::take));
    BOOST_TEST(asked == "ann@box pid 7");
    BOOST_TEST(d.message.find("taken over at once from ann@box pid 7") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_released_lease_is_taken_and_our_own_renewed) {
    BOOST_TEST((decide_lease(json::object{}, kMe, at("2026-01-01T10:00:00Z"), kHolderLives).action == Action::take));
    BOOST_TEST(
        (decide_lease(held(kMe, "2026-01-01T10:00:10.000000Z"), kMe, at("2026-01-01T10:00:11Z"), kHolderLives).action ==
         Action::renew));
}

BOOST_AUTO_TEST_CASE(renewing_keeps_the_acquire_time_taking_counts_a_transition) {
    const auto previous = held(kMe, "2026-01-01T10:00:10.000000Z");
    const auto renewed = next_lease_spec(previous, Action::renew, kMe, at("2026-01-01T10:00:15Z"), 15);
    BOOST_TEST(renewed.at("acquireTime").as_string() == "2026-01-01T10:00:00.000000Z");
    BOOST_TEST(renewed.at("renewTime").as_string() == "2026-01-01T10:00:15.000000Z");
    BOOST_TEST(renewed.at("leaseTransitions").as_int64() == 2);
    const auto taken = next_lease_spec(held("ann@box pid 7", "x"), Action::take, kMe, at("2026-01-01T11:00:00Z"), 15);
    BOOST_TEST(taken.at("acquireTime").as_string() == "2026-01-01T11:00:00.000000Z");
    BOOST_TEST(taken.at("holderIdentity").as_string() == kMe);
    BOOST_TEST(taken.at("leaseTransitions").as_int64() == 3);
}

BOOST_AUTO_TEST_SUITE_END()
