// What a LiveUpdate's log says of verify's checks (verify/verify_report_log.hpp):
// an open conflict found again at every periodic check is said to be left
// for sync back once, and again only when the files left change.
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "host/verify/verify_report_log.hpp"

using namespace liveupdate::host;
using namespace liveupdate::host::verify;
using liveupdate::common::LogLevel;

namespace {

struct Lines {
    std::vector<std::pair<LogLevel, std::string>> all;
    LogSinkFn sink() {
        return [this](LogLevel level, std::string_view text) { all.emplace_back(level, std::string(text)); };
    }
    std::size_t said(LogLevel level, const std::string &text) const {
        std::size_t n = 0;
        for (const auto &[l, line] : all)
            if (l == level && line.find(text) != std::string::npos) ++n;
        return n;
    }
};

// A check of container web that found only files left for sync back (repaired: a repair sent for another).
LiveUpdateReport left(const std::vector<std::string> &paths, bool repaired = false) {
    ContainerReport c;
    c.container = "web";
    c.id = "3f2a";
    for (const std::string &p : paths) {
        Difference d;
        d.container_path = p;
        d.local_path = "/src" + p;
        d.why = "content";
        c.found.different.push_back(d);
        c.left_for_sync_back.push_back(d);
    }
    if (repaired) {
        Difference other;
        other.container_path = "/app/other.txt";
        c.found.missing.push_back(other);
        c.repaired = true;
    }
    LiveUpdateReport r;
    r.name = "lu";
    r.containers.push_back(c);
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_report_log)

BOOST_AUTO_TEST_CASE(an_open_conflict_is_said_left_for_sync_back_once_over_periodic_checks) {
    Lines lines;
    LeftForSyncBackSaid said;
    const auto check = [&](const LiveUpdateReport &r) { log_verify_report(r, "every 1m", lines.sink(), said, false); };
    for (int i = 0; i < 4; ++i) check(left({"/app/gen/both.txt"}));
    BOOST_TEST(lines.said(LogLevel::info, "left for sync back") == 1u);
    BOOST_TEST(lines.said(LogLevel::debug, "left for sync back") == 3u);
    // Another file left: said again, once.
    for (int i = 0; i < 3; ++i) check(left({"/app/gen/both.txt", "/app/gen/new.txt"}));
    BOOST_TEST(lines.said(LogLevel::info, "2 file(s) left for sync back") == 1u);
    // A repair for another difference that leaves the same files: not said again.
    check(left({"/app/gen/both.txt", "/app/gen/new.txt"}, true));
    BOOST_TEST(lines.said(LogLevel::info, "left for sync back") == 2u);
    BOOST_TEST(lines.said(LogLevel::warn, "1 missing") == 1u);
    // Resolved (in sync), then open again: said again.
    check(left({}));
    check(left({"/app/gen/both.txt"}));
    BOOST_TEST(lines.said(LogLevel::info, "left for sync back") == 3u);
}

BOOST_AUTO_TEST_CASE(a_developers_own_verify_says_it_each_time) {
    Lines lines;
    LeftForSyncBackSaid said;
    for (int i = 0; i < 3; ++i)
        log_verify_report(left({"/app/gen/both.txt"}), "lu-host verify", lines.sink(), said, true);
    BOOST_TEST(lines.said(LogLevel::info, "left for sync back") == 3u);
    // Then a periodic check of the same: already said.
    log_verify_report(left({"/app/gen/both.txt"}), "every 1m", lines.sink(), said, false);
    BOOST_TEST(lines.said(LogLevel::info, "left for sync back") == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
