// The daemon's log on stdout: the lines written while a log::HeldLines lives
// on the writing thread go out together when it ends (one write for a step's
// updates), and the others at once.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#define BOOST_TEST_MODULE up_log
#include <boost/test/included/unit_test.hpp>

#include <boost/json.hpp>

#include "host/core/log.hpp"
#include "host/core/log_line.hpp"
#include "host/up/up_log.hpp"

using liveupdate::common::LogLevel;
using liveupdate::common::MicroTime;
using liveupdate::host::format_log_line;
using liveupdate::host::LogFormat;
using liveupdate::host::LogSource;
using liveupdate::host::up::UpLog;
namespace host_log = liveupdate::host::log;

namespace {

// stdout goes to a file while one lives.
struct CapturedStdout {
    std::string path = "/tmp/up_log_test." + std::to_string(::getpid());
    int saved = -1;

    CapturedStdout() {
        std::fflush(stdout);
        saved = ::dup(1);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        BOOST_TEST_REQUIRE(fd >= 0);
        ::dup2(fd, 1);
        ::close(fd);
    }
    ~CapturedStdout() {
        std::fflush(stdout);
        ::dup2(saved, 1);
        ::close(saved);
        ::unlink(path.c_str());
    }
    // The lines written so far.
    int lines() const {
        std::ifstream in(path);
        int count = 0;
        for (std::string line; std::getline(in, line);) ++count;
        return count;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(up_log)

BOOST_AUTO_TEST_CASE(a_line_goes_out_at_once_when_nothing_holds_it) {
    CapturedStdout out;
    UpLog log(LogFormat::text, LogLevel::info);
    log.write(LogLevel::info, "web", "one");
    BOOST_TEST(out.lines() == 1);
    log.write(LogLevel::debug, "web", "below the threshold");
    BOOST_TEST(out.lines() == 1);
}

BOOST_AUTO_TEST_CASE(held_lines_go_out_together_when_the_outermost_hold_ends) {
    CapturedStdout out;
    UpLog log(LogFormat::text, LogLevel::info);
    {
        const host_log::HeldLines outer;
        log.write(LogLevel::info, "web", "Will copy 1 file(s)");
        {
            const host_log::HeldLines inner;
            log.write(LogLevel::info, "web", "- a.txt");
        }
        log.write(LogLevel::info, "web", "Container web-1 updated!");
        BOOST_TEST(out.lines() == 0);
    }
    BOOST_TEST(out.lines() == 3);
    std::ifstream in(out.path);
    std::stringstream text;
    text << in.rdbuf();
    BOOST_TEST(text.str().find("- a.txt\n") < text.str().find("Container web-1 updated!\n"));
    log.write(LogLevel::info, "web", "after");
    BOOST_TEST(out.lines() == 4);
}

BOOST_AUTO_TEST_CASE(a_json_line_is_one_object_naming_what_it_is_about) {
    const MicroTime at = *MicroTime::parse("2026-01-02T03:04:05.000006Z");
    const std::string line = format_log_line(LogFormat::json, at, LogLevel::warn, "web", "two\nlines \"quoted\"");
    BOOST_TEST(line.find('\n') == std::string::npos);
    BOOST_TEST(
        line ==
        R"({"time":"2026-01-02T03:04:05.000006Z","level":"warn","liveUpdate":"web","message":"two\nlines \"quoted\""})");
    BOOST_TEST(format_log_line(LogFormat::json, at, LogLevel::info, "", "up: stopped") ==
               R"({"time":"2026-01-02T03:04:05.000006Z","level":"info","message":"up: stopped"})");
    const auto container = boost::json::parse(
        format_log_line(LogFormat::json, at, LogLevel::info, "box", "out", LogSource::local_container));
    BOOST_TEST(container.at("localContainer").as_string() == "box");
    BOOST_TEST(!container.as_object().contains("liveUpdate"));
    // Bytes that are not UTF-8 (a container's output) cannot go into JSON as they are.
    const auto binary = boost::json::parse(format_log_line(LogFormat::json, at, LogLevel::info, "web", "a\xff b"));
    BOOST_TEST(binary.at("message").as_string() == "a\\xff b");
    BOOST_TEST(format_log_line(LogFormat::text, at, LogLevel::info, "web", "a\x1b[0m") ==
               "2026-01-02T03:04:05.000006Z info  [web] a\\x1b[0m");
}

BOOST_AUTO_TEST_SUITE_END()
