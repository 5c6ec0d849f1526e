#include <boost/test/unit_test.hpp>

#include "host/cluster/status_coalescer.hpp"

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
    c.written("LiveUpdate/web", status(1));
    BOOST_TEST(!c.offer("LiveUpdate/web", status(1)));
    BOOST_TEST(c.take().empty());
    BOOST_TEST(c.offer("LiveUpdate/web", status(2)));
}

BOOST_AUTO_TEST_CASE(back_to_the_held_status_drops_the_pending_one) {
    StatusCoalescer c;
    c.written("LiveUpdate/web", status(1));
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
    c.written("LiveUpdate/web", status(1));
    c.offer("LiveUpdate/web", status(2));
    c.forget("LiveUpdate/web");
    BOOST_TEST(c.take().empty());
    BOOST_TEST(c.offer("LiveUpdate/web", status(1)));  // nothing is held any more
}

BOOST_AUTO_TEST_SUITE_END()
