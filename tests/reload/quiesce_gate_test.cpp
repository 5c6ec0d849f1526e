// The quiesce gate: closing waits for passes in flight and holds new ones;
// a steady stream of passes cannot keep it from closing.
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "host/reload/quiesce_gate.hpp"

using liveupdate::host::reload::QuiesceGate;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(quiesce_gate)

// Spins until pred holds: the other thread has reached the gate.
template <class Pred>
void until(Pred pred) {
    while (!pred()) std::this_thread::yield();
}

BOOST_AUTO_TEST_CASE(close_waits_for_the_pass_in_flight) {
    QuiesceGate gate;
    std::optional<QuiesceGate::Pass> pass(gate.enter());
    std::atomic<bool> closed{false};
    QuiesceGate::Clock::time_point closed_at;
    std::thread closer([&] {
        QuiesceGate::Hold hold = gate.close();
        closed_at = hold.closed_at();
        closed = true;
    });
    until([&] { return gate.closers() == 1u || closed; });  // closing, while the pass is in flight
    BOOST_TEST(!closed.load());
    BOOST_TEST(gate.in_flight() == 1u);
    const QuiesceGate::Clock::time_point left_at = QuiesceGate::Clock::now();
    pass.reset();
    closer.join();
    BOOST_TEST(closed.load());
    BOOST_TEST((closed_at >= left_at));  // got through only once the pass had left
    BOOST_TEST(gate.in_flight() == 0u);
}

BOOST_AUTO_TEST_CASE(a_closed_gate_holds_new_passes_until_it_reopens) {
    QuiesceGate gate;
    std::optional<QuiesceGate::Hold> hold(gate.close());
    std::atomic<bool> entered{false};
    QuiesceGate::Clock::time_point entered_at;
    std::thread worker([&] {
        QuiesceGate::Pass pass = gate.enter();
        entered_at = QuiesceGate::Clock::now();
        entered = true;
    });
    until([&] { return gate.waiting() == 1u || entered; });  // held at the gate
    BOOST_TEST(!entered.load());
    const QuiesceGate::Clock::time_point reopened_at = QuiesceGate::Clock::now();
    hold.reset();
    worker.join();
    BOOST_TEST(entered.load());
    BOOST_TEST((entered_at >= reopened_at));
    BOOST_TEST((gate.longest_wait() > QuiesceGate::Clock::duration::zero()));
}

BOOST_AUTO_TEST_CASE(closing_wins_over_a_steady_stream_of_passes) {
    QuiesceGate gate;
    std::atomic<bool> stop{false};
    std::atomic<int> entered_while_held{0};
    std::atomic<bool> held{false};
    std::vector<std::thread> workers;
    // Overlapping passes: the gate is never empty unless closing holds new ones.
    for (int i = 0; i < 4; ++i) {
        workers.emplace_back([&] {
            while (!stop) {
                QuiesceGate::Pass pass = gate.enter();
                if (held) ++entered_while_held;
                std::this_thread::sleep_for(1ms);
            }
        });
    }
    std::this_thread::sleep_for(20ms);
    for (int round = 0; round < 5; ++round) {
        QuiesceGate::Hold hold = gate.close();
        held = true;
        BOOST_TEST(gate.in_flight() == 0u);
        std::this_thread::sleep_for(5ms);
        held = false;
    }
    stop = true;
    for (auto &w : workers) w.join();
    BOOST_TEST(entered_while_held.load() == 0);
}

BOOST_AUTO_TEST_CASE(closes_queue_up) {
    QuiesceGate gate;
    std::optional<QuiesceGate::Hold> first(gate.close());
    auto second = std::async(std::launch::async, [&] { return gate.close().closed_at(); });
    // The second is closing while the first holds.
    until([&] { return gate.closers() == 2u || second.wait_for(0s) == std::future_status::ready; });
    const QuiesceGate::Clock::time_point reopened_at = QuiesceGate::Clock::now();
    first.reset();
    BOOST_TEST((second.get() >= reopened_at));
    QuiesceGate::Pass pass = gate.enter();
    BOOST_TEST(gate.in_flight() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
