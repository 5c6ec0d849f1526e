// Files that each appear whole, as one change, and the check that the daemon
// synced every one of them exactly once (from its log).
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/up_daemon.hpp"

namespace up_it {

// A new file appears whole (written under an ignored name, then renamed): one change.
inline void add_file(const UpDaemon &daemon, int i) {
    const std::string name = "f" + std::to_string(i);
    write_file(daemon.src / (name + ".ignored"), "content of " + name);
    fs::rename(daemon.src / (name + ".ignored"), daemon.src / (name + ".txt"));
}

// How many times the daemon's log shows each of files 0..count-1 copied to /app.
inline std::vector<int> times_synced(const std::string &log, int count) {
    std::vector<int> times(count, 0);
    static const std::regex copied(R"(--> '/app/f([0-9]+)\.txt')");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), copied); it != std::sregex_iterator(); ++it) {
        const int i = std::stoi((*it)[1].str());
        if (i < count) ++times[i];
    }
    return times;
}

inline std::size_t occurrences(const std::string &text, const std::string &needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
    return count;
}

inline void check_every_change_synced_once(const UpDaemon &daemon, int files) {
    BOOST_TEST_REQUIRE(wait_outcome(
        wait_until([&] { return tree_of(daemon.root / "app") == tree_of(daemon.src); }, std::chrono::seconds(60)),
        [&] { return daemon.log_text(); }));
    // An update's "Will copy" lines are printed once it has run: the tree can be equal a moment before.
    wait_until(
        [&] {
            const std::vector<int> seen = times_synced(daemon.log_text(), files);
            return std::all_of(seen.begin(), seen.end(), [](int n) { return n > 0; });
        },
        std::chrono::seconds(10));
    const std::string log = daemon.log_text();
    const std::vector<int> times = times_synced(log, files);
    std::string lost, repeated;  // file names, and the log lines naming the repeated ones
    for (int i = 0; i < files; ++i) {
        const std::string name = "f" + std::to_string(i) + ".txt";
        if (times[i] == 0) lost += " " + name;
        if (times[i] > 1) {
            repeated += "\n" + name + ":";
            std::istringstream lines(log);
            for (std::string line; std::getline(lines, line);)
                if (line.find("/" + name + "'") != std::string::npos ||
                    line.find("/" + name + "\"") != std::string::npos)
                    repeated += "\n  " + line;
        }
    }
    BOOST_TEST(lost.empty(), "lost:" << lost);
    BOOST_TEST(repeated.empty(), "synced more than once:" << repeated);
    BOOST_TEST(occurrences(log, "Initial sync") == 0u);
}

}  // namespace up_it
