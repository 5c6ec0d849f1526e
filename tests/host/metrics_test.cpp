#include <boost/test/unit_test.hpp>

#include <string>
#include <thread>
#include <vector>

#include "host/core/host_metrics.hpp"
#include "host/core/metrics.hpp"

using namespace liveupdate::host::metrics;

BOOST_AUTO_TEST_CASE(metrics_render_counters_with_help_type_and_escaped_labels) {
    Registry registry;
    Family<Counter> &updates = registry.counter("lu_test_total", "Saves\\n counted\nhere", {"name", "result"});
    updates.with({"a\"b\\c\nd", "ok"}).add(2);
    updates.with({"plain", "failed"}).add();
    BOOST_TEST(registry.render() ==
               "# HELP lu_test_total Saves\\\\n counted\\nhere\n"
               "# TYPE lu_test_total counter\n"
               "lu_test_total{name=\"a\\\"b\\\\c\\nd\",result=\"ok\"} 2\n"
               "lu_test_total{name=\"plain\",result=\"failed\"} 1\n");
    BOOST_CHECK_THROW(updates.with({"only one"}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(metrics_render_a_histogram_as_cumulative_buckets_sum_and_count) {
    Registry registry;
    Family<Histogram> &seconds = registry.histogram("lu_test_seconds", "Time", {"lu"}, {0.25, 1});
    Histogram &h = seconds.with({"x"});
    h.observe(0.125);
    h.observe(0.25);  // le: a value on a bound is in that bucket
    h.observe(0.5);
    h.observe(7);
    BOOST_TEST(registry.render() ==
               "# HELP lu_test_seconds Time\n"
               "# TYPE lu_test_seconds histogram\n"
               "lu_test_seconds_bucket{lu=\"x\",le=\"0.25\"} 2\n"
               "lu_test_seconds_bucket{lu=\"x\",le=\"1\"} 3\n"
               "lu_test_seconds_bucket{lu=\"x\",le=\"+Inf\"} 4\n"
               "lu_test_seconds_sum{lu=\"x\"} 7.875\n"
               "lu_test_seconds_count{lu=\"x\"} 4\n");
}

BOOST_AUTO_TEST_CASE(metrics_collected_counter_is_read_at_render_until_its_handle_goes) {
    Registry registry;
    double reconnects = 3;
    std::shared_ptr<void> handle =
        registry.collected_counter("lu_test_reconnects_total", "Reconnects", {"updater"}, [&] {
            return std::vector<Sample>{{{"docker"}, reconnects}, {{"too", "many"}, 1}};
        });
    BOOST_TEST(registry.render().find("lu_test_reconnects_total{updater=\"docker\"} 3\n") != std::string::npos);
    reconnects = 4;
    const std::string text = registry.render();
    BOOST_TEST(text.find("lu_test_reconnects_total{updater=\"docker\"} 4\n") != std::string::npos);
    BOOST_TEST(text.find("too") == std::string::npos, "a sample with the wrong labels is left out");
    handle.reset();
    BOOST_TEST(registry.render().empty());
}

BOOST_AUTO_TEST_CASE(metrics_count_every_add_from_many_threads) {
    Registry registry;
    Family<Counter> &family = registry.counter("lu_test_threads_total", "Adds", {"t"});
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&family, t] {
            for (int i = 0; i < 10000; ++i) family.with({t % 2 == 0 ? "even" : "odd"}).add();
        });
    for (auto &t : threads) t.join();
    BOOST_TEST(family.with({"even"}).value() == 20000u);
    BOOST_TEST(family.with({"odd"}).value() == 20000u);
}

BOOST_AUTO_TEST_CASE(metrics_format_values_as_prometheus_reads_them) {
    BOOST_TEST(format_value(3) == "3");
    BOOST_TEST(format_value(0.25) == "0.25");
    BOOST_TEST(format_value(1e300 * 1e300) == "+Inf");
    BOOST_TEST(escape_label_value("a\"b") == "a\\\"b");
}

BOOST_AUTO_TEST_CASE(metrics_count_a_live_updates_updates_on_the_daemons_page_only) {
    for (int i = 0; i < 60; ++i)
        record_update({.live_update = "metrics-test-recent",
                       .ok = i % 2 == 0,
                       .seconds = 0.01 * i,
                       .files = static_cast<std::size_t>(i)});
    const std::string text = daemon_metrics_text();
    BOOST_TEST(text.find("lu_updates_total{live_update=\"metrics-test-recent\",result=\"ok\"} 30\n") !=
               std::string::npos);
    BOOST_TEST(text.find("lu_update_files_count{live_update=\"metrics-test-recent\"} 60\n") != std::string::npos);
    BOOST_TEST(text.find("# TYPE lu_hot_reloads_total counter\n") != std::string::npos);
    BOOST_TEST(webhook_metrics_text().find("lu_updates_total") == std::string::npos, "the webhook shows its own");
}
