// The local side of sync back (host/sync_back/beneath_files.*) at the moments
// a developer's save can hit it: a delete that comes back never deletes a
// save that landed after it looked at the file. The moments
// are reached through this program's own fsync, renameat and unlinkat,
// which note each call (and, when armed, play the developer's save just
// before one) and then make the real system call: the shipped code is not
// changed for the test.
#define BOOST_TEST_MODULE beneath_files
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "host/sync_back/beneath_files.hpp"
#include "host/sync_back/came_back.hpp"
#include "host/sync_back/left_temporaries.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace liveupdate::host::sync_back;
using liveupdate::test::TempDir;

namespace {

// What the calls below saw, and the developer's save to play before one.
struct Calls {
    std::mutex mutex;
    bool noting = false;
    std::vector<std::string> seen;  // "fsync PATH", "rename OLD NEW", "unlink NAME"
    // Played once, just before the first call whose line `when` matches.
    std::function<bool(const std::string &)> when;
    std::function<void()> save;
};

Calls &calls() {
    static Calls c;
    return c;
}

std::string path_of(int fd) {
    char buffer[4096];
    const ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buffer, sizeof buffer);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "?";
}

void note(const std::string &line) {
    std::function<void()> save;
    {
        std::lock_guard lock(calls().mutex);
        if (!calls().noting) return;
        calls().seen.push_back(line);
        if (calls().save && calls().when(line)) save.swap(calls().save);
    }
    if (save) save();
}

}  // namespace

extern "C" {

int fsync(int fd) {
    note("fsync " + path_of(fd));
    return static_cast<int>(::syscall(SYS_fsync, fd));
}

int renameat(int old_dir, const char *old_name, int new_dir, const char *new_name) noexcept {
    note(std::string("rename ") + old_name + " " + new_name);
    return static_cast<int>(::syscall(SYS_renameat2, old_dir, old_name, new_dir, new_name, 0));
}

int renameat2(int old_dir, const char *old_name, int new_dir, const char *new_name, unsigned flags) noexcept {
    note(std::string("rename ") + old_name + " " + new_name);
    return static_cast<int>(::syscall(SYS_renameat2, old_dir, old_name, new_dir, new_name, flags));
}

int unlinkat(int dir, const char *name, int flags) noexcept {
    note(std::string("unlink ") + name);
    return static_cast<int>(::syscall(SYS_unlinkat, dir, name, flags));
}

}  // extern "C"

namespace {

std::string text_of(const fs::path &p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::trunc) << text;
}

// A save as an editor that writes in place makes it: the same inode.
void save_in_place(const fs::path &p, const std::string &text) {
    std::ofstream(p, std::ios::in | std::ios::out | std::ios::trunc) << text;
}

// A save as an editor that writes beside and renames makes it: another inode.
void save_by_rename(const fs::path &p, const std::string &text) {
    const fs::path beside = p.parent_path() / ("." + p.filename().string() + ".swp");
    write(beside, text);
    ::syscall(SYS_renameat2, AT_FDCWD, beside.c_str(), AT_FDCWD, p.c_str(), 0);
}

std::string digest_of(const fs::path &p) {
    return open_beneath(p.parent_path().string(), p.filename().string(), UINT64_MAX).state.digest;
}

bool no_temporary_left(const fs::path &dir) {
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().starts_with(".lu-sync-back-")) return false;
    return true;
}

// Notes the calls while it lives; `save` played just before the first call `when` matches.
struct Noting {
    explicit Noting(std::function<bool(const std::string &)> when = {}, std::function<void()> save = {}) {
        std::lock_guard lock(calls().mutex);
        calls().seen.clear();
        calls().when = std::move(when);
        calls().save = std::move(save);
        calls().noting = true;
    }
    ~Noting() {
        std::lock_guard lock(calls().mutex);
        calls().noting = false;
        calls().when = nullptr;
        calls().save = nullptr;
    }
    Noting(const Noting &) = delete;
    Noting &operator=(const Noting &) = delete;
    std::vector<std::string> seen() const {
        std::lock_guard lock(calls().mutex);
        return calls().seen;
    }
    bool played() const {
        std::lock_guard lock(calls().mutex);
        return !calls().save;
    }
};

std::string joined(const std::vector<std::string> &lines) {
    std::string out;
    for (const std::string &line : lines) out += line + "\n";
    return out;
}

// A local folder holding gen/doomed.sql as both sides agreed on it.
struct Local {
    TempDir dir{"lu-beneath-files-test"};
    fs::path root = dir.path();
    fs::path doomed = root / "gen" / "doomed.sql";
    std::string agreed;
    Local() {
        write(doomed, "agreed");
        agreed = digest_of(doomed);
    }
    std::string remove() { return delete_beneath(root.string(), "gen/doomed.sql", agreed); }
};

}  // namespace

// The delete of a file the container deleted, with a developer's save
// landing between its look at the local file and its removal: the save is
// kept (a refusal says so), in place or by rename, and nothing is left
// behind.
BOOST_AUTO_TEST_CASE(a_save_landing_between_the_look_and_the_delete_is_kept) {
    for (const bool by_rename : {false, true}) {
        BOOST_TEST_CONTEXT((by_rename ? "saved by rename" : "saved in place")) {
            Local local;
            std::string error;
            {
                // The first rename or unlink of the name is the delete's removal: the save lands just before it.
                const Noting noting(
                    [](const std::string &line) {
                        return line.starts_with("rename doomed.sql ") || line == "unlink doomed.sql";
                    },
                    [&] {
                        if (by_rename)
                            save_by_rename(local.doomed, "developer");
                        else
                            save_in_place(local.doomed, "developer");
                    });
                error = local.remove();
                BOOST_TEST(noting.played(), joined(noting.seen()));
            }
            BOOST_TEST(fs::exists(local.doomed));
            if (fs::exists(local.doomed)) BOOST_TEST(text_of(local.doomed) == "developer");
            BOOST_TEST(error.find("changed locally meanwhile") != std::string::npos, error);
            BOOST_TEST(no_temporary_left(local.root));
        }
    }
}

// A save landing once the delete moved the file aside lands at the name and
// stays: the agreed file alone is deleted.
BOOST_AUTO_TEST_CASE(a_save_landing_after_the_file_was_moved_aside_stays) {
    Local local;
    std::string error;
    {
        const Noting noting([](const std::string &line) { return line.starts_with("unlink .lu-sync-back-"); },
                            [&] { write(local.doomed, "developer"); });
        error = local.remove();
        BOOST_TEST(noting.played(), joined(noting.seen()));
    }
    BOOST_TEST(error.empty(), error);
    BOOST_TEST(text_of(local.doomed) == "developer");
    BOOST_TEST(no_temporary_left(local.root));
}

// Nothing in the way: the agreed file is deleted, nothing left beside it.
// It is moved aside under a name of its own, which the forward watcher knows
// for sync back's, and which is never taken for a write's temporary that a
// crash left (it may be a developer's save kept there).
BOOST_AUTO_TEST_CASE(an_agreed_file_is_deleted) {
    Local local;
    std::vector<std::string> seen;
    {
        const Noting noting;
        BOOST_TEST(local.remove().empty());
        seen = noting.seen();
    }
    BOOST_TEST(!fs::exists(local.doomed));
    BOOST_TEST(no_temporary_left(local.root));
    const std::string moved = "rename " + local.doomed.filename().string() + " ";
    BOOST_TEST_REQUIRE((!seen.empty() && seen.front().starts_with(moved)), joined(seen));
    const std::string aside = seen.front().substr(moved.size());
    BOOST_TEST((aside.starts_with(".lu-sync-back-") && aside.ends_with(".aside")), aside);
    BOOST_TEST(!temporary_owner(aside).has_value());
    CameBack came_back;
    BOOST_TEST(came_back.is_echo((local.doomed.parent_path() / aside).string()));
}

// A copy that cannot read the container's file, or cannot write the local
// one (here a file size limit), says which and leaves neither a target nor
// a temporary file.
BOOST_AUTO_TEST_CASE(a_copy_that_cannot_read_or_write_says_which_and_leaves_nothing) {
    TempDir container{"lu-beneath-files-container"};
    TempDir local{"lu-beneath-files-test"};
    const std::string content(8192, 'c');
    std::ofstream(container.path() / "gen.sql") << content;
    const int source = ::open((container.path() / "gen.sql").c_str(), O_RDONLY | O_CLOEXEC);
    BOOST_REQUIRE(source >= 0);
    std::string unreadable;
    const std::string digest = content_digest(source, unreadable);
    BOOST_REQUIRE(unreadable.empty());

    const int write_only = ::open((container.path() / "gen.sql").c_str(), O_WRONLY | O_CLOEXEC);
    BOOST_REQUIRE(write_only >= 0);
    const WriteResult unread = write_beneath(local.path(), "gen.sql", write_only, 0644, digest, {});
    ::close(write_only);
    BOOST_TEST(unread.error.find("gen.sql: not written: cannot read the container file: ") != std::string::npos,
               unread.error);

    rlimit before{};
    BOOST_REQUIRE(::getrlimit(RLIMIT_FSIZE, &before) == 0);
    rlimit small = before;
    small.rlim_cur = 1000;
    const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
    BOOST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    const WriteResult unwritten = write_beneath(local.path(), "gen.sql", source, 0644, digest, {});
    ::setrlimit(RLIMIT_FSIZE, &before);
    ::signal(SIGXFSZ, old_handler);
    ::close(source);
    BOOST_TEST(unwritten.error.find("gen.sql: not written: cannot write: " + std::string(std::strerror(EFBIG))) !=
                   std::string::npos,
               unwritten.error);
    BOOST_TEST(!unwritten.no_room);
    BOOST_TEST(!fs::exists(local.path() / "gen.sql"));
    BOOST_TEST(no_temporary_left(local.path()));
}
