// lu-agent's whole-file writes, watched with inotify: a new file appears
// under its name only once whole, a file that exists is replaced by a rename,
// and the folder a write keeps open never sends a later write astray.
#define BOOST_TEST_MODULE agent_file_writes
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tests/agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace lu_agent_test;
using liveupdate::test::TempDir;

namespace {

// Everything the kernel reported for a folder since the watch began: the
// events of a syscall are queued before it returns, so after the agent's
// answer they are all there.
class FolderEvents {
public:
    explicit FolderEvents(const std::string &folder) : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
        BOOST_REQUIRE(fd_ >= 0);
        BOOST_REQUIRE(::inotify_add_watch(fd_, folder.c_str(), IN_ALL_EVENTS) >= 0);
    }
    ~FolderEvents() { ::close(fd_); }

    // (name, mask) of each event so far, in order.
    std::vector<std::pair<std::string, std::uint32_t>> take() {
        std::vector<std::pair<std::string, std::uint32_t>> out;
        alignas(inotify_event) char buffer[64 * 1024];
        for (;;) {
            const auto got = ::read(fd_, buffer, sizeof buffer);
            if (got <= 0) return out;
            for (ssize_t at = 0; at < got;) {
                const auto *event = reinterpret_cast<const inotify_event *>(buffer + at);
                out.emplace_back(event->len > 0 ? std::string(event->name) : std::string(), event->mask);
                at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            }
        }
    }

private:
    int fd_;
};

// The masks of the events under `name`.
std::vector<std::uint32_t> masks_of(const std::vector<std::pair<std::string, std::uint32_t>> &events,
                                    const std::string &name) {
    std::vector<std::uint32_t> masks;
    for (const auto &[n, mask] : events)
        if (n == name) masks.push_back(mask);
    return masks;
}

ino_t inode_of(const std::string &path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// The flags of a file's first extent; nullopt when it has none or the
// filesystem cannot tell.
std::optional<std::uint32_t> first_extent_flags(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    // fiemap ends in a flexible array: room for one extent after it.
    alignas(fiemap) char buffer[sizeof(fiemap) + sizeof(fiemap_extent)] = {};
    auto *map = reinterpret_cast<fiemap *>(buffer);
    map->fm_length = FIEMAP_MAX_OFFSET;
    map->fm_extent_count = 1;
    const bool known = ::ioctl(fd, FS_IOC_FIEMAP, map) == 0 && map->fm_mapped_extents == 1;
    ::close(fd);
    if (!known) return std::nullopt;
    return map->fm_extents[0].fe_flags;
}

// Whether blocks can be allocated ahead (fallocate) in `folder` and told apart (FIEMAP).
bool allocates_ahead(const std::string &folder) {
    const std::string probe = folder + "/.probe";
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    const bool done = fd >= 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
    if (fd >= 0) ::close(fd);
    const bool told = done && (first_extent_flags(probe).value_or(0) & FIEMAP_EXTENT_UNWRITTEN) != 0;
    ::unlink(probe.c_str());
    return told;
}

// An open file of the agent: its /proc/PID/fd name and what that links to.
struct OpenFile {
    std::string name;
    std::string link;
};

std::vector<OpenFile> open_files_of(pid_t pid) {
    std::vector<OpenFile> out;
    for (const auto &entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
        std::error_code ec;
        const auto link = fs::read_symlink(entry.path(), ec);
        if (!ec) out.push_back({entry.path().string(), link.string()});
    }
    return out;
}

// Waits (10 s at most) until the link of one of the agent's open files starts with `prefix`; that file, or none.
std::optional<OpenFile> wait_for_open_file(pid_t pid, const std::string &prefix) {
    for (int i = 0; i < 1000; ++i) {
        for (const auto &file : open_files_of(pid))
            if (file.link.rfind(prefix, 0) == 0) return file;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
}

// The inode of an unnamed file the agent holds in `folder` ("FOLDER/#INO (deleted)"), once it holds one.
ino_t wait_for_spare(const Agent &agent, const std::string &folder) {
    const auto file = wait_for_open_file(agent.pid(), folder + "/#");
    return file ? static_cast<ino_t>(std::stoull(file->link.substr(folder.size() + 2))) : 0;
}

// Whether the agent's unnamed file in `folder` gets blocks chosen ahead (10 s at most): the agent opens the file
// before it allocates, so the first look may come between the two.
bool spare_allocated_ahead(const Agent &agent, const std::string &folder) {
    for (int i = 0; i < 1000; ++i) {
        const auto file = wait_for_open_file(agent.pid(), folder + "/#");
        if (file && (first_extent_flags(file->name).value_or(0) & FIEMAP_EXTENT_UNWRITTEN) != 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

Result write(Agent &agent, const std::string &path, const std::string &root, const std::string &content,
             std::uint32_t mode = 0644) {
    return agent.ask_for<Result>(encode(WriteFile{path, root, mode, kKeepOwner, kKeepOwner, content}));
}

// An app folder that held one file (name, with content) before a greeted agent started, wrote a.txt in it and, once
// quiet, made its unnamed spare inode there.
struct SpareMade {
    SpareMade(const std::string &name, const std::string &content) : app(app_holding(dir, name, content)) {
        agent.greet();
        BOOST_TEST(write(agent, app + "/a.txt", app, "a").error == 0);
        spare = wait_for_spare(agent, app);
        BOOST_REQUIRE_MESSAGE(spare != 0, "the agent made no unnamed file in " << app << " while quiet");
    }

    // The file is there before the agent starts, as the members' order keeps it.
    static std::string app_holding(const TempDir &dir, const std::string &name, const std::string &content) {
        std::string app = dir / "app";
        fs::create_directories(app);
        std::ofstream(app + "/" + name) << content;
        return app;
    }

    TempDir dir{"lu-agent-test"};
    std::string app;
    Agent agent;
    ino_t spare = 0;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_new_file_appears_under_its_name_only_once_whole) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app);
    Agent agent;
    agent.greet();
    FolderEvents events(app);
    BOOST_TEST(write(agent, app + "/new.txt", app, "whole content", 0640).error == 0);
    const auto seen = events.take();
    // Its name is made when the file is complete: created, never written or renamed under it.
    BOOST_TEST(masks_of(seen, "new.txt") == std::vector<std::uint32_t>{IN_CREATE});
    for (const auto &[name, mask] : seen)
        BOOST_TEST(name.find(".lu-agent-") == std::string::npos, name << " (mask " << mask << ")");
    BOOST_TEST(read_file(app + "/new.txt") == "whole content");
    BOOST_TEST(mode_of(app + "/new.txt") == 0640);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_file_that_exists_is_replaced_by_a_rename) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app);
    std::ofstream(app + "/a.txt") << "old a";
    std::ofstream(app + "/b.txt") << "old b";
    const ino_t old_a = inode_of(app + "/a.txt");
    const ino_t old_b = inode_of(app + "/b.txt");
    Agent agent;
    agent.greet();
    FolderEvents events(app);
    BOOST_TEST(write(agent, app + "/a.txt", app, "new a").error == 0);
    BOOST_TEST(write(agent, app + "/b.txt", app, "new b", 0600).error == 0);
    BOOST_TEST(write(agent, app + "/c.txt", app, "new c").error == 0);
    const auto seen = events.take();
    // Readers of a.txt and b.txt saw the old file or the new one: other inodes, moved in.
    BOOST_TEST(inode_of(app + "/a.txt") != old_a);
    BOOST_TEST(inode_of(app + "/b.txt") != old_b);
    BOOST_TEST(masks_of(seen, "a.txt") == std::vector<std::uint32_t>{IN_MOVED_TO});
    BOOST_TEST(masks_of(seen, "b.txt") == std::vector<std::uint32_t>{IN_MOVED_TO});
    BOOST_TEST(read_file(app + "/a.txt") == "new a");
    BOOST_TEST(read_file(app + "/b.txt") == "new b");
    BOOST_TEST(mode_of(app + "/b.txt") == 0600);
    BOOST_TEST(read_file(app + "/c.txt") == "new c");
    for (const auto &entry : fs::directory_iterator(app))
        BOOST_TEST(entry.path().filename().string().find(".lu-agent-") == std::string::npos, entry.path());
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_folder_removed_between_two_writes_is_made_again) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    Agent agent;
    agent.greet();
    BOOST_TEST(write(agent, app + "/d/x.txt", app, "x").error == 0);
    // A process of the container removes the folder the last write was in.
    fs::remove_all(app + "/d");
    BOOST_TEST(write(agent, app + "/d/y.txt", app, "y").error == 0);
    BOOST_TEST(read_file(app + "/d/y.txt") == "y");
    BOOST_TEST(!fs::exists(app + "/d/x.txt"));
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_folder_that_gives_way_is_not_written_into_later) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    Agent agent;
    agent.greet();
    BOOST_TEST(write(agent, app + "/a/x.txt", app, "x").error == 0);
    // The folder gives way to a file, then the file to a folder again, between writes in it.
    BOOST_TEST(write(agent, app + "/a", app, "a file").error == 0);
    BOOST_TEST(read_file(app + "/a") == "a file");
    BOOST_TEST(write(agent, app + "/a/y.txt", app, "y").error == 0);
    BOOST_TEST(read_file(app + "/a/y.txt") == "y");
    BOOST_TEST(!fs::exists(app + "/a/x.txt"));
    // A delete between two writes in one folder.
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{app + "/a", app})).error == 0);
    BOOST_TEST(write(agent, app + "/a/z.txt", app, "z").error == 0);
    BOOST_TEST(read_file(app + "/a/z.txt") == "z");
    BOOST_TEST(!fs::exists(app + "/a/y.txt"));
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_quiet_agent_makes_the_next_files_inode_ahead) {
    SpareMade made("old.txt", "old");
    const std::string &app = made.app;
    Agent &agent = made.agent;
    const ino_t spare = made.spare;
    // Its first block is chosen ahead too, so a rename over a file will not write it back.
    if (allocates_ahead(app))
        BOOST_TEST(spare_allocated_ahead(agent, app));
    else
        BOOST_TEST_MESSAGE("no blocks allocated ahead or no FIEMAP in " << app << ": not checked");
    // The next new file in the folder is that inode, linked in whole as before.
    FolderEvents events(app);
    BOOST_TEST(write(agent, app + "/b.txt", app, "b", 0640).error == 0);
    BOOST_TEST(inode_of(app + "/b.txt") == spare);
    BOOST_TEST(masks_of(events.take(), "b.txt") == std::vector<std::uint32_t>{IN_CREATE});
    BOOST_TEST(read_file(app + "/b.txt") == "b");
    BOOST_TEST(mode_of(app + "/b.txt") == 0640);
    // And so is a file that replaces another, once a new spare is made.
    const ino_t next = wait_for_spare(agent, app);
    BOOST_REQUIRE(next != 0);
    BOOST_TEST(write(agent, app + "/old.txt", app, "new").error == 0);
    BOOST_TEST(inode_of(app + "/old.txt") == next);
    BOOST_TEST(read_file(app + "/old.txt") == "new");
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_guarded_replacement_takes_the_spare_too) {
    SpareMade made("lock.json", "agreed");
    const std::string &app = made.app;
    Agent &agent = made.agent;
    const ino_t spare = made.spare;
    // A write that says what it may replace (sync back's forward guard) is compared and then renamed over it, as
    // fast as an unguarded one: in the inode made ahead.
    agent.send(encode(
        ExpectContent{app + "/lock.json", static_cast<std::uint8_t>(ExpectedKind::digest), XXH3_64bits("agreed", 6)}));
    BOOST_TEST(write(agent, app + "/lock.json", app, "saved").error == 0);
    BOOST_TEST(inode_of(app + "/lock.json") == spare);
    BOOST_TEST(read_file(app + "/lock.json") == "saved");
    // A refused one leaves the app's file as it is, and the spare it took is no temporary left behind.
    BOOST_REQUIRE(wait_for_spare(agent, app) != 0);
    std::ofstream(app + "/lock.json", std::ios::trunc) << "the app's";
    agent.send(encode(
        ExpectContent{app + "/lock.json", static_cast<std::uint8_t>(ExpectedKind::digest), XXH3_64bits("saved", 5)}));
    BOOST_TEST(write(agent, app + "/lock.json", app, "saved again").error == kNotAsExpected);
    BOOST_TEST(read_file(app + "/lock.json") == "the app's");
    for (const auto &entry : fs::directory_iterator(app))
        BOOST_TEST(entry.path().filename().string().find(".lu-agent-") == std::string::npos, entry.path());
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_spare_is_not_used_in_another_folder) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app + "/d");
    Agent agent;
    agent.greet();
    BOOST_TEST(write(agent, app + "/d/a.txt", app, "a").error == 0);
    const ino_t spare = wait_for_spare(agent, app + "/d");
    BOOST_REQUIRE(spare != 0);
    BOOST_TEST(write(agent, app + "/e/b.txt", app, "b").error == 0);
    BOOST_TEST(inode_of(app + "/e/b.txt") != spare);
    // The folder the spare was made in moves away; a write to its old path finds a new folder.
    fs::rename(app + "/d", app + "/moved");
    BOOST_TEST(write(agent, app + "/d/c.txt", app, "c").error == 0);
    BOOST_TEST(read_file(app + "/d/c.txt") == "c");
    BOOST_TEST(!fs::exists(app + "/moved/c.txt"));
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_replaced_file_is_let_go_once_quiet) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app);
    std::ofstream(app + "/a.txt") << "old a";
    Agent agent;
    agent.greet();
    BOOST_TEST(write(agent, app + "/a.txt", app, "new a").error == 0);
    BOOST_TEST(write(agent, app + "/a.txt", app, "newer a").error == 0);
    BOOST_TEST(read_file(app + "/a.txt") == "newer a");
    // Once quiet the agent has made its spare, and holds no replaced file any more.
    BOOST_REQUIRE(wait_for_spare(agent, app) != 0);
    for (const auto &file : open_files_of(agent.pid()))
        BOOST_TEST(file.link.find("a.txt") == std::string::npos, file.link);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_full_disk_gets_back_what_the_agent_holds_before_a_write_fails) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app);
    // 1 MiB of room: a file of 300 KiB, rewritten three times in one go, fits
    // only if the files it replaced are let go.
    BOOST_REQUIRE_MESSAGE(::mount("tmpfs", app.c_str(), "tmpfs", 0, "size=1m") == 0,
                          "mounting a 1 MiB tmpfs on " << app << " (needs root): " << std::strerror(errno));
    struct Unmount {
        std::string at;
        ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
    } unmount{app};
    constexpr std::size_t kSize = std::size_t{300} * 1024;
    std::ofstream(app + "/a.bin") << std::string(kSize, 'o');
    Agent agent;
    agent.greet();
    std::string requests;
    for (char c : {'x', 'y', 'z'})
        requests += encode(WriteFile{app + "/a.bin", app, 0644, kKeepOwner, kKeepOwner, std::string(kSize, c)});
    agent.send(requests);
    for (int i = 0; i < 3; ++i) {
        const auto answer = agent.next();
        BOOST_REQUIRE(answer.has_value());
        const auto result = decode<Result>(*answer);
        BOOST_TEST(result.error == 0, "rewrite " << i + 1 << ": " << result.message);
    }
    BOOST_TEST((read_file(app + "/a.bin") == std::string(kSize, 'z')), "a.bin holds the last rewrite");
    BOOST_TEST(agent.finish() == 0);
}
