#include <boost/test/unit_test.hpp>

#include "host/cluster/status_coalescer.hpp"

using liveupdate::host::cluster::same_status;
using liveupdate::host::cluster::StatusCoalescer;
namespace json = boost::json;

namespace {

json::object status(int n) { return json::object{{"n", n}}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(status_coalescer)

BOOST_AUTO_TEST_CASE(a_burst_becomes_one_write_of_the_latest) {
    StatusCoalescer c;
    BOOST_TEST(c.offer("LiveUpdate/web", status(1)));
    for (int i = 2; i <= 200; ++i) BOOST_TEST(!c.offer("LiveUpdate/web", status(i)));
    const auto batch = c.take();
    BOOST_TEST(batch.size() == 1u);
    BOOST_TEST(batch.at("LiveUpdate/web") == status(200));
    BOOST_TEST(!c.pending());
}

BOOST_AUTO_TEST_CASE(a_status_the_cluster_holds_is_not_written) {
    StatusCoalescer c;
    c.observed("LiveUpdate/web", status(1));
    BOOST_TEST(!c.offer("LiveUpdate/web", status(1)));
    BOOST_TEST(c.take().empty());
    BOOST_TEST(c.offer("LiveUpdate/web", status(2)));
}

BOOST_AUTO_TEST_CASE(back_to_the_held_status_drops_the_pending_one) {
    StatusCoalescer c;
    c.observed("LiveUpdate/web", status(1));
    BOOST_TEST(c.offer("LiveUpdate/web", status(2)));
    BOOST_TEST(!c.offer("LiveUpdate/web", status(1)));
    BOOST_TEST(c.take().empty());
}

BOOST_AUTO_TEST_CASE(each_object_keeps_its_own_latest) {
    StatusCoalescer c;
    BOOST_TEST(c.offer("LiveUpdate/a", status(1)));
    BOOST_TEST(c.offer("KubernetesDiscovery/a", status(2)));
    BOOST_TEST(!c.offer("LiveUpdate/a", status(3)));
    const auto batch = c.take();
    BOOST_TEST(batch.size() == 2u);
    BOOST_TEST(batch.at("LiveUpdate/a") == status(3));
    BOOST_TEST(batch.at("KubernetesDiscovery/a") == status(2));
}

BOOST_AUTO_TEST_CASE(a_forgotten_object_writes_nothing) {
    StatusCoalescer c;
    c.observed("LiveUpdate/web", status(1));
    c.offer("LiveUpdate/web", status(2));
    c.forget("LiveUpdate/web");
    BOOST_TEST(c.take().empty());
    BOOST_TEST(c.offer("LiveUpdate/web", status(1)));  // nothing is held any more
}

// Issue 33: `kubectl patch --subresource=status` by someone else stayed until
// the daemon's own status next changed.
BOOST_AUTO_TEST_CASE(a_status_someone_else_wrote_is_written_over) {
    StatusCoalescer c;
    BOOST_TEST(c.offer("LiveUpdate/web", status(1)));
    c.take();
    c.written("LiveUpdate/web", status(1), status(1));
    BOOST_TEST(c.observed("LiveUpdate/web", json::object{{"failed", {{"reason", "Patched"}}}}));
    const auto batch = c.take();
    BOOST_TEST_REQUIRE(batch.size() == 1u);
    BOOST_TEST(batch.at("LiveUpdate/web") == status(1));
}

BOOST_AUTO_TEST_CASE(the_clusters_copy_of_its_own_write_is_not_written_again) {
    StatusCoalescer c;
    const json::object own{{"lastFileTimeSynced", "2026-01-01T00:00:01.000000Z"}, {"extra", "pruned"}};
    const json::object stored{{"lastFileTimeSynced", "2026-01-01T00:00:01Z"}};  // reformatted, a field pruned
    BOOST_TEST(c.offer("LiveUpdate/web", own));
    c.take();
    c.written("LiveUpdate/web", own, stored);
    BOOST_TEST(!c.observed("LiveUpdate/web", stored));  // its watch event
    BOOST_TEST(!c.pending());
    BOOST_TEST(!c.offer("LiveUpdate/web", own));  // the daemon says it again
}

BOOST_AUTO_TEST_CASE(a_status_only_observed_is_not_written) {
    StatusCoalescer c;
    BOOST_TEST(!c.observed("LiveUpdate/web", status(7)));  // no status of the daemon's yet
    BOOST_TEST(!c.pending());
}

BOOST_AUTO_TEST_CASE(a_rewrite_already_done_is_not_repeated) {
    StatusCoalescer c;
    c.offer("LiveUpdate/web", status(1));
    c.take();
    BOOST_TEST(c.observed("LiveUpdate/web", status(9)));  // arrives while the write of 1 is under way
    c.written("LiveUpdate/web", status(1), status(1));
    BOOST_TEST(c.take().empty());
}

BOOST_AUTO_TEST_CASE(statuses_compare_by_meaning) {
    BOOST_TEST(
        same_status(json::parse(R"({"a":1,"b":{"c":[1,2]},"n":null})"), json::parse(R"({"b":{"c":[1,2]},"a":1.0})")));
    BOOST_TEST(same_status(json::value("2026-01-01T01:00:00+01:00"), json::value("2026-01-01T00:00:00.000000Z")));
    BOOST_TEST(same_status(json::value(std::uint64_t{3}), json::value(std::int64_t{3})));
    BOOST_TEST(!same_status(json::parse(R"({"a":1})"), json::parse(R"({"a":1,"b":2})")));
    BOOST_TEST(!same_status(json::parse(R"([1,2])"), json::parse(R"([2,1])")));
    BOOST_TEST(!same_status(json::value("2026"), json::value("2027")));
    BOOST_TEST(!same_status(json::value(std::int64_t{-1}), json::value(std::uint64_t{18446744073709551615ull})));
}

BOOST_AUTO_TEST_SUITE_END()
