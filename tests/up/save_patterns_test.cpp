// Editors' save patterns reach the watcher's consumer without waiting for the
// debounce timer (set far longer than the tests wait, so a batch that
// arrives proves it was not held for it), whole; a 1,000-file burst arrives
// in a few batches.
#define BOOST_TEST_MODULE up_save_patterns
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "host/up/tree_watcher.hpp"
#include "tests/up/watch_test_support.hpp"

using namespace std::chrono_literals;
using namespace liveupdate::host::up;
using up_test::TempDir;
using up_test::write_file;
namespace fs = std::filesystem;

namespace {

// Every batch as it came, with the content of each file when it was reported.
class Batches {
public:
    void add(const std::vector<std::string> &paths) {
        std::vector<std::pair<std::string, std::string>> batch;
        for (const auto &p : paths) {
            std::string content;
            std::error_code ec;
            if (fs::is_regular_file(p, ec)) {
                std::ifstream in(p);
                content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            }
            batch.emplace_back(p, content);
        }
        std::lock_guard lock(m_);
        batches_.push_back(std::move(batch));
        cv_.notify_all();
    }
    // Waits until `path` was reported with `content`; the wait is far shorter than the debounce.
    bool wait_for(const std::string &path, const std::string &content, std::chrono::milliseconds limit = 5s) {
        std::unique_lock lock(m_);
        return cv_.wait_for(lock, limit, [&] {
            for (const auto &b : batches_)
                for (const auto &[p, c] : b)
                    if (p == path && c == content) return true;
            return false;
        });
    }
    std::size_t count() {
        std::lock_guard lock(m_);
        return batches_.size();
    }
    std::size_t paths_seen_matching(const std::string &prefix) {
        std::lock_guard lock(m_);
        std::set<std::string> seen;
        for (const auto &b : batches_)
            for (const auto &entry : b)
                if (entry.first.starts_with(prefix)) seen.insert(entry.first);
        return seen.size();
    }
    bool any_reported_with(const std::string &path, const std::string &content) {
        std::lock_guard lock(m_);
        for (const auto &b : batches_)
            for (const auto &[p, c] : b)
                if (p == path && c == content) return true;
        return false;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<std::vector<std::pair<std::string, std::string>>> batches_;
};

struct Fixture {
    TempDir dir;
    Batches got;
    std::unique_ptr<TreeWatcher> watcher;

    explicit Fixture(WatchTiming timing = {60s, 120s, 500ms}) {
        write_file(dir.path() / "src/main.c", "old\n");
        watcher = std::make_unique<TreeWatcher>(
            std::vector<std::string>{dir.path().string()}, WatchFilter{}, timing,
            [this](const std::vector<std::string> &paths) { got.add(paths); }, [](const std::string &) {});
    }
    std::string file() const { return dir / "src/main.c"; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_save_in_place_is_reported_at_once) {
    Fixture f;
    {
        std::ofstream out(f.file(), std::ios::trunc);  // VS Code, nano: truncate and write
        out << "new in place\n";
    }
    BOOST_TEST(f.got.wait_for(f.file(), "new in place\n"));
}

BOOST_AUTO_TEST_CASE(a_temporary_file_renamed_into_place_is_reported_at_once) {
    Fixture f;
    // gedit/GIO: a hidden temporary beside the file, then a rename over it.
    write_file(f.dir / "src/.goutputstream-AB12CD", "renamed into place\n");
    fs::rename(f.dir / "src/.goutputstream-AB12CD", f.file());
    BOOST_TEST(f.got.wait_for(f.file(), "renamed into place\n"));
}

BOOST_AUTO_TEST_CASE(a_jetbrains_safe_write_is_reported_at_once) {
    Fixture f;
    // New content to X___jb_tmp___, X to X___jb_old___, the temporary to X, the old one removed.
    write_file(f.dir / "src/main.c___jb_tmp___", "jetbrains\n");
    fs::rename(f.file(), f.dir / "src/main.c___jb_old___");
    fs::rename(f.dir / "src/main.c___jb_tmp___", f.file());
    fs::remove(f.dir / "src/main.c___jb_old___");
    BOOST_TEST(f.got.wait_for(f.file(), "jetbrains\n"));
}

BOOST_AUTO_TEST_CASE(a_backup_then_write_save_is_reported_at_once_and_whole) {
    Fixture f;
    // vim (backupcopy=no): the file moved to a backup, a new one written, the backup removed.
    fs::rename(f.file(), f.file() + "~");
    {
        std::ofstream out(f.file());
        out << "first half ";
        out.flush();
        out << "second half\n";
    }
    fs::remove(f.file() + "~");
    BOOST_TEST(f.got.wait_for(f.file(), "first half second half\n"));
    // Never reported half-written: a prompt batch comes only from a closed file.
    BOOST_TEST(!f.got.any_reported_with(f.file(), "first half "));
    BOOST_TEST(!f.got.any_reported_with(f.file() + "~", "old\n"));
}

BOOST_AUTO_TEST_CASE(a_burst_of_1000_files_arrives_in_a_few_batches) {
    Fixture f(WatchTiming{50ms, 10s, 500ms});
    for (int i = 0; i < 1000; ++i)
        write_file(f.dir.path() / ("co/d" + std::to_string(i % 10) + "/f" + std::to_string(i) + ".txt"),
                   std::to_string(i));
    const std::string last = f.dir / "co/d9/f999.txt";
    BOOST_TEST(f.got.wait_for(last, "999", 20s));
    // Wait for the quiet time to close the last batch.
    for (int i = 0; i < 500 && f.got.paths_seen_matching(f.dir / "co/") < 1010; ++i) std::this_thread::sleep_for(20ms);
    BOOST_TEST(f.got.paths_seen_matching(f.dir / "co/") == 1010u);  // 1,000 files and 10 folders
    // Gathered, not one batch per file. How few batches depends on how the
    // writer is scheduled (a busy machine splits the burst), so the count is
    // only told here, not bounded.
    BOOST_TEST(f.got.count() < 1000u, f.got.count() << " batches");
    BOOST_TEST_MESSAGE("1,000 files arrived in " << f.got.count() << " batches");
}
