// Tasks on kept threads (host/core/kept_threads.hpp): the archive writers
// of updates one after another run on one thread, not on a new one each;
// a task started while another runs gets a thread of its own; wait returns
// once the task has returned.
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <boost/test/unit_test.hpp>

#include "host/core/archive_builder.hpp"
#include "host/core/kept_threads.hpp"

using namespace liveupdate::host;
namespace fs = std::filesystem;

namespace {

struct ScratchFile {
    fs::path path = fs::temp_directory_path() / ("lu-kept-threads-" + std::to_string(::getpid()));
    ScratchFile() { std::ofstream(path) << "content\n"; }
    ~ScratchFile() { fs::remove(path); }
};

// The kernel's id of the thread that wrote the stream's entries.
pid_t writer_of_one_stream(const fs::path &file) {
    pid_t writer = 0;
    ArchiveStream stream(
        {{file.string(), "/app/f"}}, liveupdate::common::IgnoreSet{},
        [](liveupdate::common::LogLevel, std::string_view) {}, [&writer](const std::string &) { writer = ::gettid(); });
    char buffer[64 * 1024];
    while (stream.read(buffer, sizeof buffer) > 0) {
    }
    BOOST_TEST(!stream.finish(false).has_value());
    return writer;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kept_threads)

BOOST_AUTO_TEST_CASE(the_writers_of_streams_one_after_another_run_on_one_kept_thread) {
    ScratchFile file;
    const pid_t first = writer_of_one_stream(file.path);
    const pid_t second = writer_of_one_stream(file.path);
    BOOST_TEST(first != 0);
    BOOST_TEST(first != ::gettid());
    // Kernel thread ids are not handed out again soon, unlike pthread handles: the same id is the same thread.
    BOOST_TEST(second == first);
}

BOOST_AUTO_TEST_CASE(a_task_started_while_another_runs_gets_a_thread_of_its_own) {
    std::mutex mutex;
    std::condition_variable changed;
    bool second_ran = false;
    // The first waits for the second: run on one thread, they would never end.
    const auto first = run_on_kept_thread([&] {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return second_ran; });
    });
    const auto second = run_on_kept_thread([&] {
        const std::lock_guard lock(mutex);
        second_ran = true;
        changed.notify_all();
    });
    first->wait();
    second->wait();
    BOOST_TEST(second_ran);
}

BOOST_AUTO_TEST_CASE(wait_returns_once_the_task_has_returned) {
    std::mutex mutex;
    bool ended = false;
    const auto task = run_on_kept_thread([&] {
        const std::lock_guard lock(mutex);
        ended = true;
    });
    task->wait();
    const std::lock_guard lock(mutex);
    BOOST_TEST(ended);
}

BOOST_AUTO_TEST_SUITE_END()
