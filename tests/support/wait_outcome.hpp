// The outcome of a wait for a Boost.Test check, described only after the wait
// failed. A check's message argument is evaluated before its condition
// (BOOST_TEST(wait_until(...), d.log_text()) reports the log from before the
// wait), so the description comes as a callback instead:
//   BOOST_TEST(wait_outcome(wait_until(...), [&] { return d.log_text(); }));
#pragma once

#include <boost/test/tools/assertion_result.hpp>

#include <functional>
#include <string>

namespace liveupdate::test {

inline boost::test_tools::assertion_result wait_outcome(bool met, const std::function<std::string()> &describe) {
    boost::test_tools::assertion_result outcome(met);
    if (!met) outcome.message() << describe();
    return outcome;
}

}  // namespace liveupdate::test
