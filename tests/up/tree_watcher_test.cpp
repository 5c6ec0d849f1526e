#define BOOST_TEST_MODULE up_watcher_tests
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "host/up/tree_watcher.hpp"
#include "tests/up/watch_test_support.hpp"

using namespace std::chrono_literals;
using namespace liveupdate::host::up;
using up_test::Collected;
using up_test::TempDir;
using up_test::write_file;
namespace fs = std::filesystem;

namespace {

struct Fixture {
    TempDir dir;
    Collected got;
    std::atomic<int> overflows{0};
    std::atomic<int> limit_warnings{0};
    std::mutex limit_warning_mutex;
    std::string limit_warning;
    std::unique_ptr<TreeWatcher> watcher;

    void start(WatchFilter filter = {}, WatchTiming timing = {10ms, 10s, 500ms}) {
        watcher = std::make_unique<TreeWatcher>(
            std::vector<std::string>{dir.path().string()}, std::move(filter), timing,
            [this](const std::vector<std::string> &paths) { got.add(paths); },
            [this](const std::string &msg) {
                if (msg.find("overflow") != std::string::npos) ++overflows;
                if (msg.find("watch limit reached") == std::string::npos) return;
                ++limit_warnings;
                std::lock_guard<std::mutex> lock(limit_warning_mutex);
                limit_warning = msg;
            });
    }
};

// Sets a machine-wide /proc/sys knob (root only) and puts the old value back
// at restore(), or at the latest when the test ends, however it ends.
class KnobSetting {
public:
    KnobSetting(const char *knob, const std::string &value) : knob_(knob) {
        std::ifstream(knob_) >> saved_;
        set_ = !saved_.empty() && write(value);
    }
    KnobSetting(const KnobSetting &) = delete;
    KnobSetting &operator=(const KnobSetting &) = delete;
    ~KnobSetting() { restore(); }
    bool set() const { return set_; }
    void restore() {
        if (set_) write(saved_);
        set_ = false;
    }

private:
    bool write(const std::string &value) const {
        std::ofstream out(knob_);
        out << value << std::flush;
        return out.good();
    }
    const char *knob_;
    std::string saved_;
    bool set_ = false;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(create_modify_delete_are_reported, Fixture) {
    write_file(dir / "old.txt", "x");
    start();
    write_file(dir / "a.txt", "1");
    BOOST_TEST(got.wait_for({dir / "a.txt"}));
    got.clear();
    std::ofstream(dir / "a.txt", std::ios::app) << "2";
    BOOST_TEST(got.wait_for({dir / "a.txt"}));
    fs::remove(dir / "old.txt");
    BOOST_TEST(got.wait_for({dir / "old.txt"}));
}

BOOST_FIXTURE_TEST_CASE(rename_reports_both_names, Fixture) {
    write_file(dir / "from.txt", "x");
    start();
    fs::rename(dir / "from.txt", dir / "to.txt");
    BOOST_TEST(got.wait_for({dir / "from.txt", dir / "to.txt"}));
}

BOOST_FIXTURE_TEST_CASE(new_subfolders_are_watched_and_their_files_reported, Fixture) {
    start();
    write_file(dir / "n1/n2/deep.txt", "d");
    BOOST_TEST(got.wait_for({dir / "n1/n2/deep.txt"}));
    got.clear();
    write_file(dir / "n1/n2/later.txt", "l");
    BOOST_TEST(got.wait_for({dir / "n1/n2/later.txt"}));
}

BOOST_FIXTURE_TEST_CASE(a_folder_moved_in_is_reported_whole, Fixture) {
    TempDir outside;
    write_file(outside / "pkg/a.txt", "a");
    write_file(outside / "pkg/sub/b.txt", "b");
    start();
    fs::rename(outside / "pkg", dir / "pkg");
    BOOST_TEST(got.wait_for({dir / "pkg/a.txt", dir / "pkg/sub/b.txt"}));
    got.clear();
    write_file(dir / "pkg/sub/c.txt", "c");
    BOOST_TEST(got.wait_for({dir / "pkg/sub/c.txt"}));
}

// The soak's seed 752784774: `mkdir -p d/c; mv c d/c/f` seen in one read.
// The new folder d/c is listed before the move's MOVED_FROM is handled, so
// the watches of c's folders (the same inodes, now beneath d/c/f) are taken
// over there; dropping c's watches then must not remove them from the kernel.
BOOST_FIXTURE_TEST_CASE(a_folder_moved_deeper_into_a_new_folder_stays_watched, Fixture) {
    write_file(dir / "c/d/e", "old");
    std::mutex hold;
    std::unique_lock<std::mutex> held(hold);
    std::atomic<bool> holding{false};
    auto held_watcher = std::make_unique<TreeWatcher>(
        std::vector<std::string>{dir.path().string()}, WatchFilter{}, WatchTiming{10ms, 10s, 500ms},
        [&](const std::vector<std::string> &paths) {
            holding = true;
            std::lock_guard<std::mutex> wait_for_moves(hold);
            got.add(paths);
        },
        nullptr);
    write_file(dir / "first.txt", "1");
    while (!holding) std::this_thread::yield();  // the watcher is stuck in its first batch: events queue up
    fs::create_directories(dir.path() / "d/c");
    fs::rename(dir.path() / "c", dir.path() / "d/c/f");
    held.unlock();
    write_file(dir / "settled.txt", "s");
    BOOST_TEST_REQUIRE(got.wait_for({dir / "d/c/f/d/e", dir / "settled.txt"}));
    got.clear();

    write_file(dir / "d/c/f/d/e", "new");
    write_file(dir / "later.txt", "l");  // after the modify: reported no earlier than it
    BOOST_TEST_REQUIRE(got.wait_for({dir / "later.txt"}));
    BOOST_TEST(got.saw(dir / "d/c/f/d/e"));
}

// A folder moved away takes its files along with one event, for the folder:
// they are reported gone too, or a folder made again at its name before the
// update is copied over the container's old one, which keeps them (the
// soak's `a -> e/a/a`, then `a/...` created by a burst).
BOOST_FIXTURE_TEST_CASE(a_folder_moved_away_reports_the_files_it_held, Fixture) {
    write_file(dir / "a/a", "1");
    write_file(dir / "a/sub/f", "2");
    write_file(dir / "a.d/kept", "3");  // sorts between "a" and "a/...": not in a
    start();
    fs::create_directories(dir.path() / "e/a");
    fs::rename(dir.path() / "a", dir.path() / "e/a/a");
    write_file(dir / "a/x", "new");
    BOOST_TEST_REQUIRE(got.wait_for({dir / "a", dir / "a/x", dir / "e/a/a/sub/f"}));
    BOOST_TEST(got.wait_for({dir / "a/a", dir / "a/sub", dir / "a/sub/f"}));
    BOOST_TEST(!got.saw(dir / "a.d/kept"));
}

// A folder moved out of the tree is no longer watched, its subfolders
// neither (a name such as "a.d" sorts between "a" and "a/sub").
BOOST_FIXTURE_TEST_CASE(a_folder_moved_out_of_the_tree_is_watched_no_more, Fixture) {
    TempDir outside;
    write_file(dir / "a/sub/f", "1");
    write_file(dir / "a.d/kept", "2");
    start();
    fs::rename(dir.path() / "a", outside.path() / "a");
    BOOST_TEST_REQUIRE(got.wait_for({dir / "a"}));
    write_file(outside / "a/sub/later", "3");
    write_file(dir / "settled.txt", "s");  // after the write outside: reported no earlier than it
    BOOST_TEST_REQUIRE(got.wait_for({dir / "settled.txt"}));
    BOOST_TEST(!got.saw(dir / "a/sub/later"));
}

BOOST_FIXTURE_TEST_CASE(ignored_and_editor_files_are_not_reported, Fixture) {
    // By value: the watcher outlives this body (it lives in the fixture).
    const std::string ignored_dir = dir / "build";
    start({[](const std::string &p) { return p.find("/build") != std::string::npos || p.ends_with(".log"); },
           [ignored_dir](const std::string &d) { return d == ignored_dir; }});
    write_file(dir / "build/out.o", "o");
    write_file(dir / "x.log", "l");
    write_file(dir / ".x.swp", "s");
    write_file(dir / ".git/HEAD", "h");
    write_file(dir / "sentinel.txt", "s");
    BOOST_TEST(got.wait_for({dir / "sentinel.txt"}));
    BOOST_TEST(!got.saw(dir / "build/out.o"));
    BOOST_TEST(!got.saw(dir / "x.log"));
    BOOST_TEST(!got.saw(dir / ".x.swp"));
    BOOST_TEST(!got.saw(dir / ".git/HEAD"));
}

BOOST_FIXTURE_TEST_CASE(a_watched_file_root_is_reported, Fixture) {
    write_file(dir / "conf.json", "{}");
    const std::string root = dir / "conf.json";
    watcher = std::make_unique<TreeWatcher>(
        std::vector<std::string>{root}, WatchFilter{}, WatchTiming{10ms, 10s, 500ms},
        [this](const std::vector<std::string> &paths) { got.add(paths); }, nullptr);
    write_file(dir / "other.json", "{}");
    write_file(root, "{\"a\":1}");
    BOOST_TEST(got.wait_for({root}));
    BOOST_TEST(!got.saw(dir / "other.json"));
}

// The cases below change machine-wide inotify limits for a moment (they need
// root for it); CTest runs this suite alone, so no other watcher is born
// under them, and reports it skipped where the limits cannot be changed.
BOOST_AUTO_TEST_SUITE(machine_limits)

// Needs root to shrink the inotify queue; the setting only affects inotify
// instances created while it is in force, and is restored right away. The
// first batch is held while the flood is written, so the queue must overflow.
BOOST_FIXTURE_TEST_CASE(overflow_loses_no_change, Fixture) {
    KnobSetting small_queue("/proc/sys/fs/inotify/max_queued_events", "16");
    // Run only where the queue can be shrunk (run_or_skip.sh in CMakeLists.txt).
    BOOST_TEST_REQUIRE(small_queue.set());
    fs::create_directories(dir.path() / "flood");  // watched from the start: its events queue up
    std::mutex hold;
    std::unique_lock<std::mutex> held(hold);
    std::atomic<bool> holding{false};
    // A local declared after `hold`: it stops before the mutex its callback
    // locks goes away (a late rescan batch may still arrive after the check).
    auto flood_watcher = std::make_unique<TreeWatcher>(
        std::vector<std::string>{dir.path().string()}, WatchFilter{}, WatchTiming{0ms, 10s, 500ms},
        [&](const std::vector<std::string> &paths) {
            holding = true;
            std::lock_guard<std::mutex> wait_for_flood(hold);
            got.add(paths);
        },
        [this](const std::string &msg) {
            if (msg.find("overflow") != std::string::npos) ++overflows;
        });
    small_queue.restore();

    write_file(dir / "first.txt", "1");
    while (!holding) std::this_thread::yield();  // the watcher is stuck in its first batch
    std::vector<std::string> expected{dir / "first.txt"};
    for (int i = 0; i < 300; ++i) {
        const std::string p = dir / ("flood/f" + std::to_string(i) + ".txt");
        write_file(p, std::to_string(i));
        expected.push_back(p);
    }
    held.unlock();
    BOOST_TEST(got.wait_for(expected));
    BOOST_TEST(overflows.load() > 0);
}

// With fewer watches allowed than are in use, every new watch fails, as on a
// machine out of watches: the watcher warns and polls. The files live in a
// subfolder, which no inotify watch covers then, so only polling can see them.
BOOST_FIXTURE_TEST_CASE(out_of_watches_falls_back_to_polling, Fixture) {
    write_file(dir / "sub/old.txt", "x");
    write_file(dir / "sub/gone.txt", "x");
    KnobSetting few_watches("/proc/sys/fs/inotify/max_user_watches", "1");
    // Run only where the limit can be lowered (run_or_skip.sh in CMakeLists.txt).
    BOOST_TEST_REQUIRE(few_watches.set());
    start({}, WatchTiming{10ms, 10s, 100ms});
    few_watches.restore();
    BOOST_TEST(limit_warnings.load() == 1);
    {
        // It names the limit and its value then, so that the user knows what to raise.
        std::lock_guard<std::mutex> lock(limit_warning_mutex);
        BOOST_TEST(limit_warning.find("fs.inotify.max_user_watches = 1") != std::string::npos, limit_warning);
    }

    write_file(dir / "sub/new.txt", "n");
    std::ofstream(dir / "sub/old.txt", std::ios::app) << "y";
    fs::remove(dir / "sub/gone.txt");
    write_file(dir / "sub/deeper/made.txt", "m");
    BOOST_TEST(
        got.wait_for({dir / "sub/new.txt", dir / "sub/old.txt", dir / "sub/gone.txt", dir / "sub/deeper/made.txt"}));
}

// With no inotify instance left to the user, the error names that limit and
// its value (issue 33: "inotify_init1: Too many open files" named neither).
BOOST_FIXTURE_TEST_CASE(out_of_instances_names_the_limit, Fixture) {
    KnobSetting no_instances("/proc/sys/fs/inotify/max_user_instances", "0");
    // Run only where the limit can be lowered (run_or_skip.sh in CMakeLists.txt).
    BOOST_TEST_REQUIRE(no_instances.set());
    std::string error;
    try {
        start();
    } catch (const std::runtime_error &e) {
        error = e.what();
    }
    no_instances.restore();
    BOOST_TEST(error.find("fs.inotify.max_user_instances = 0") != std::string::npos, error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_CASE(the_last_change_seen_is_known, Fixture) {
    start();
    BOOST_TEST(!watcher->last_change().has_value());
    const auto before = std::chrono::steady_clock::now();
    write_file(dir / "a.txt", "1");
    BOOST_TEST(got.wait_for({dir / "a.txt"}));
    BOOST_TEST_REQUIRE(watcher->last_change().has_value());
    BOOST_TEST((*watcher->last_change() >= before));
}
