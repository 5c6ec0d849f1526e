// lu-agent's sync back half over pipes, on a scratch folder of this machine:
// the changes of wanted files arrive once stable with their bytes and digest
// (a file being written once its writer is done), symlinks and FIFOs as what
// they are, and a storm of files neither stalls forward writes nor grows
// without bound.
#define BOOST_TEST_MODULE lu_agent_watch
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tests/agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace lu_agent_test;
using liveupdate::test::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kPatience = std::chrono::seconds(20);

std::uint8_t kind(ChangeKind k) { return static_cast<std::uint8_t>(k); }

// The agent's frames, read with a deadline; changes kept apart from answers.
class Reader {
public:
    explicit Reader(int fd) : fd_(fd) {}
    // The next frame by the deadline, or nullopt.
    std::optional<Frame> next(Clock::time_point deadline) {
        for (;;) {
            if (auto f = decoder_.next()) return f;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) return std::nullopt;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
            char buffer[65536];
            const auto got = ::read(fd_, buffer, sizeof buffer);
            if (got <= 0) return std::nullopt;
            decoder_.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
        }
    }
    // The next answer (changes before it are kept).
    Frame answer() {
        for (;;) {
            auto f = next(Clock::now() + kPatience);
            BOOST_REQUIRE(f.has_value());
            if (f->type != MessageType::container_change) return *f;
            changes.push_back(decode<ContainerChange>(*f));
        }
    }
    // Changes until `done` says so or the patience ends.
    template <class Done>
    void changes_until(Done done, std::chrono::milliseconds patience = kPatience) {
        const auto deadline = Clock::now() + patience;
        while (!done()) {
            auto f = next(deadline);
            if (!f) return;
            BOOST_REQUIRE(f->type == MessageType::container_change);
            changes.push_back(decode<ContainerChange>(*f));
        }
    }
    // The last change of path so far.
    const ContainerChange *last(const std::string &path) const {
        for (auto it = changes.rbegin(); it != changes.rend(); ++it)
            if (it->path == path) return &*it;
        return nullptr;
    }
    std::vector<ContainerChange> changes;

private:
    int fd_;
    FrameDecoder decoder_;
};

void write_text(const std::string &path, const std::string &text) { std::ofstream(path, std::ios::binary) << text; }

struct Watched {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    Reader reader{agent.out};
    explicit Watched(std::vector<std::string> patterns, std::uint8_t report_existing = 0,
                     const std::function<void(const TempDir &)> &before = {}) {
        if (before) before(dir);
        agent.greet();
        agent.send(encode(
            WatchChanges{7, dir.path(), std::move(patterns), std::uint64_t{1} << 20, 30, report_existing, {}, {}}));
        const auto result = decode<Result>(reader.answer());
        BOOST_REQUIRE_MESSAGE(result.error == 0, result.message);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_written_arrives_with_its_bytes_and_digest_then_its_delete) {
    Watched w({"lock.json", "gen"});
    // A forward write first: the folders it keeps open do not blind the watch.
    w.agent.send(encode(WriteFile{w.dir / "fwd.txt", w.dir.path(), 0644, kKeepOwner, kKeepOwner, "f"}));
    BOOST_TEST(decode<Result>(w.reader.answer()).error == 0);
    fs::create_directories(w.dir / "gen/deep");
    write_text(w.dir / "lock.json", std::string("{\"v\":1}\0\n", 9));
    write_text(w.dir / "gen/deep/m.sql", "create table t;");
    write_text(w.dir / "other.txt", "not wanted");
    // A writer paused past the quiet wait (a loaded machine, a sanitized build)
    // shows an empty file first: wait for the whole one.
    const auto whole = [&](const std::string &path, std::size_t size) {
        const auto *c = w.reader.last(path);
        return c && c->size == size;
    };
    w.reader.changes_until([&] { return whole("lock.json", 9) && whole("gen/deep/m.sql", 15); });
    const auto *lock = w.reader.last("lock.json");
    BOOST_REQUIRE(lock);
    BOOST_TEST(lock->watch_id == 7u);
    BOOST_TEST(lock->kind == kind(ChangeKind::written));
    BOOST_TEST(lock->has_content == 1u);
    BOOST_TEST(lock->content == std::string("{\"v\":1}\0\n", 9));
    BOOST_TEST(lock->size == 9u);
    BOOST_TEST(lock->hash == XXH3_64bits(lock->content.data(), lock->content.size()));
    BOOST_TEST(lock->mode == static_cast<std::uint32_t>(mode_of(w.dir / "lock.json")));
    // A folder made after the watch began is watched too.
    BOOST_TEST(w.reader.last("gen/deep/m.sql")->content == "create table t;");

    fs::remove(w.dir / "lock.json");
    w.reader.changes_until([&] { return w.reader.last("lock.json")->kind == kind(ChangeKind::deleted); });
    BOOST_TEST(w.reader.last("lock.json")->kind == kind(ChangeKind::deleted));
    BOOST_TEST(!w.reader.last("other.txt"));
    // Forward writes still work, answered in order among the changes.
    w.agent.send(encode(WriteFile{w.dir / "fwd.txt", w.dir.path(), 0644, kKeepOwner, kKeepOwner, "f"}));
    BOOST_TEST(decode<Result>(w.reader.answer()).error == 0);
    BOOST_TEST(w.agent.finish() == 0);
}

// An agent's temporary file (a forward write of another session on its way
// into place) is never reported; an app's file that merely looks like one is.
BOOST_AUTO_TEST_CASE(an_agents_temporary_files_are_not_reported) {
    Watched w({"gen"});
    fs::create_directories(w.dir / "gen");
    write_text(w.dir / "gen/.lu-agent-12-3-0123456789abcdef", "half of a forward write");
    write_text(w.dir / "gen/.lu-agent-1-2", "the app's");
    write_text(w.dir / "gen/after.txt", "after");
    w.reader.changes_until([&] { return w.reader.last("gen/after.txt") && w.reader.last("gen/.lu-agent-1-2"); });
    BOOST_TEST(w.reader.last("gen/after.txt"));
    BOOST_TEST(w.reader.last("gen/.lu-agent-1-2"));
    BOOST_TEST(!w.reader.last("gen/.lu-agent-12-3-0123456789abcdef"));
    BOOST_TEST(w.agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_file_written_in_pieces_arrives_once_whole) {
    Watched w({"big.bin"});
    {
        std::ofstream out(w.dir / "big.bin", std::ios::binary);
        for (int i = 0; i < 20; ++i) {
            out << std::string(1000, static_cast<char>('a' + i));
            out.flush();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    w.reader.changes_until([&] {
        const auto *c = w.reader.last("big.bin");
        return c && c->size == 20000;
    });
    const auto *big = w.reader.last("big.bin");
    BOOST_REQUIRE(big);
    BOOST_TEST(big->content.size() == 20000u);
    BOOST_TEST(big->content.substr(19000) == std::string(1000, 't'));
    // Debounced: the pieces do not each come back.
    std::size_t count = 0;
    for (const auto &c : w.reader.changes) count += c.path == "big.bin";
    BOOST_TEST(count <= 3u);
}

// `echo x > f`, a generator, many editors: open with O_TRUNC, write, close.
// A pause between the truncation and the write longer than the debounce must
// not bring the file back empty first: one change, the whole file.
BOOST_AUTO_TEST_CASE(a_file_rewritten_in_place_comes_back_once_whole) {
    const std::string whole = "generated: the whole file";
    Watched w({"gen.txt"}, 0, [](const TempDir &dir) { write_text(dir / "gen.txt", "the old content"); });
    const int fd = ::open((w.dir / "gen.txt").c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    BOOST_REQUIRE(fd >= 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));  // twice the watch's debounce
    BOOST_REQUIRE(::write(fd, whole.data(), whole.size()) == static_cast<ssize_t>(whole.size()));
    BOOST_REQUIRE(::close(fd) == 0);
    w.reader.changes_until([&] {
        const auto *c = w.reader.last("gen.txt");
        return c && c->content == whole;
    });
    // Whatever else would come of it comes within this: it was due at its close.
    w.reader.changes_until([] { return false; }, std::chrono::milliseconds(500));
    std::vector<std::string> contents;
    for (const auto &c : w.reader.changes)
        if (c.path == "gen.txt") contents.push_back(c.content);
    BOOST_TEST(contents == std::vector<std::string>{whole}, boost::test_tools::per_element());
    BOOST_TEST(w.agent.finish() == 0);
}

// A log its writer keeps open: a line comes back once the file is quiet, and
// lines written without a pause come back before the writer closes it.
BOOST_AUTO_TEST_CASE(a_file_held_open_comes_back_while_open_quiet_or_not) {
    Watched w({"app.log"});
    const int fd = ::open((w.dir / "app.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    BOOST_REQUIRE(fd >= 0);
    std::string written;
    const auto append = [&](const std::string &line) {
        BOOST_REQUIRE(::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
        written += line;
    };
    append("started\n");
    w.reader.changes_until([&] {
        const auto *c = w.reader.last("app.log");
        return c && c->content == written;
    });
    BOOST_REQUIRE(w.reader.last("app.log"));
    BOOST_TEST(w.reader.last("app.log")->content == written);
    // A line every 50 ms: never quiet long enough, it comes at the watch's hold.
    const std::size_t before = w.reader.changes.size();
    const auto deadline = Clock::now() + kPatience;
    for (int line = 0; w.reader.changes.size() == before && Clock::now() < deadline; ++line) {
        append("line " + std::to_string(line) + "\n");
        w.reader.changes_until([&] { return w.reader.changes.size() > before; }, std::chrono::milliseconds(50));
    }
    BOOST_REQUIRE_MESSAGE(w.reader.changes.size() > before, "nothing came back while the file was held open");
    const auto *held = w.reader.last("app.log");
    BOOST_REQUIRE(held);
    BOOST_TEST(held->content.size() > std::string("started\n").size());
    BOOST_TEST(written.starts_with(held->content));
    BOOST_REQUIRE(::close(fd) == 0);
    BOOST_TEST(w.agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(symlinks_fifos_and_folders_are_reported_as_what_they_are_never_followed) {
    Watched w({"**"});
    fs::create_directory_symlink("/etc", w.dir / "etc-link");
    BOOST_REQUIRE(::mkfifo((w.dir / "pipe").c_str(), 0600) == 0);
    write_text(w.dir / "..hidden", "dots");
    w.reader.changes_until(
        [&] { return w.reader.last("etc-link") && w.reader.last("pipe") && w.reader.last("..hidden"); });
    const auto *link = w.reader.last("etc-link");
    BOOST_REQUIRE(link);
    BOOST_TEST(link->kind == kind(ChangeKind::symlink));
    BOOST_TEST(!link->has_content);
    BOOST_TEST(link->hash == XXH3_64bits("/etc", 4));
    const auto *fifo = w.reader.last("pipe");
    BOOST_REQUIRE(fifo);
    BOOST_TEST(fifo->kind == kind(ChangeKind::other));
    BOOST_TEST(!fifo->has_content);
    BOOST_TEST(w.reader.last("..hidden")->content == "dots");
    // Nothing beneath the symlinked folder was watched or sent.
    for (const auto &c : w.reader.changes) BOOST_TEST(c.path.rfind("etc-link/", 0) != 0, c.path);
}

BOOST_AUTO_TEST_CASE(files_there_before_come_only_when_asked_and_a_file_over_the_limit_without_content) {
    const auto before = [](const TempDir &dir) {
        write_text(dir / "old.txt", "old");
        write_text(dir / "huge.bin", std::string(std::size_t{2} << 20, 'h'));
    };
    {
        Watched w({"*"}, 0, before);
        write_text(w.dir / "new.txt", "new");
        w.reader.changes_until([&] { return w.reader.last("new.txt") != nullptr; });
        BOOST_TEST(!w.reader.last("old.txt"));
        // Known from the start: its delete comes.
        fs::remove(w.dir / "old.txt");
        w.reader.changes_until([&] { return w.reader.last("old.txt") != nullptr; });
        BOOST_REQUIRE(w.reader.last("old.txt"));
        BOOST_TEST(w.reader.last("old.txt")->kind == kind(ChangeKind::deleted));
    }
    {
        Watched w({"*"}, 1, before);
        w.reader.changes_until([&] { return w.reader.last("old.txt") && w.reader.last("huge.bin"); });
        BOOST_REQUIRE(w.reader.last("old.txt"));
        BOOST_TEST(w.reader.last("old.txt")->content == "old");
        const auto *huge = w.reader.last("huge.bin");
        BOOST_REQUIRE(huge);
        BOOST_TEST(huge->kind == kind(ChangeKind::written));
        BOOST_TEST(huge->size == 2u * 1024 * 1024);
        BOOST_TEST(!huge->has_content);
        BOOST_TEST(huge->note.find("over the limit") != std::string::npos, huge->note);
    }
}

BOOST_AUTO_TEST_CASE(a_watch_from_agreements_sends_what_changed_while_none_ran_and_nothing_else) {
    TempDir dir{"lu-agent-test"};
    fs::create_directories(dir / "gen");
    write_text(dir / "gen/same.txt", "same");
    write_text(dir / "gen/changed.txt", "changed while no watch ran");
    write_text(dir / "gen/new.txt", "new");
    write_text(dir / "other.txt", "not wanted");
    const auto hash = [](std::string_view text) { return XXH3_64bits(text.data(), text.size()); };
    Agent agent;
    Reader reader{agent.out};
    agent.greet();
    WatchChanges watch{3, dir.path(), {"gen"}, std::uint64_t{1} << 20, 5, 1, {}, {}};
    // Agreements beneath the root: kept, changed, deleted, and one the patterns do not want.
    for (const auto &[path, text] : std::vector<std::pair<std::string, std::string>>{
             {"gen/same.txt", "same"}, {"gen/changed.txt", "before"}, {"gen/gone.txt", "gone"}, {"other.txt", "x"}}) {
        watch.agreed_paths.push_back(path);
        watch.agreed_hashes.push_back(hash(text));
    }
    agent.send(encode(watch));
    BOOST_REQUIRE(decode<Result>(reader.answer()).error == 0);
    reader.changes_until(
        [&] { return reader.last("gen/changed.txt") && reader.last("gen/new.txt") && reader.last("gen/gone.txt"); });
    BOOST_REQUIRE(reader.last("gen/changed.txt"));
    BOOST_TEST(reader.last("gen/changed.txt")->content == "changed while no watch ran");
    BOOST_REQUIRE(reader.last("gen/new.txt"));
    BOOST_TEST(reader.last("gen/new.txt")->content == "new");
    BOOST_REQUIRE(reader.last("gen/gone.txt"));
    BOOST_TEST(reader.last("gen/gone.txt")->kind == kind(ChangeKind::deleted));
    // A later change comes as usual; by then the agreed, unchanged file would have come.
    write_text(dir / "gen/after.txt", "after");
    reader.changes_until([&] { return reader.last("gen/after.txt") != nullptr; });
    BOOST_TEST(reader.last("gen/after.txt"));
    BOOST_TEST(!reader.last("gen/same.txt"));
    BOOST_TEST(!reader.last("other.txt"));
    // Agreed or not, a change of the kept file after the start is sent.
    write_text(dir / "gen/same.txt", "edited");
    reader.changes_until([&] { return reader.last("gen/same.txt") != nullptr; });
    BOOST_REQUIRE(reader.last("gen/same.txt"));
    BOOST_TEST(reader.last("gen/same.txt")->content == "edited");
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_watch_with_unpaired_agreements_is_refused) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    Reader reader{agent.out};
    agent.greet();
    agent.send(encode(WatchChanges{1, dir.path(), {"*"}, 1024, 0, 1, {"a", "b"}, {1}}));
    const auto result = decode<Result>(reader.answer());
    BOOST_TEST(result.error == EINVAL);
    BOOST_TEST(result.message.find("2 agreed paths but 1 hashes") != std::string::npos, result.message);
}

BOOST_AUTO_TEST_CASE(a_storm_of_files_does_not_stall_forward_writes) {
    Watched w({"**"});
    fs::create_directories(w.dir / "storm");
    std::atomic<bool> storming = true;
    std::atomic<int> written = 0;
    std::thread storm([&] {
        // Short names rewritten in place: as many events as the kernel takes.
        for (int i = 0; storming && i < 400'000; ++i) {
            write_text(w.dir / ("storm/" + std::to_string(i % 50'000)), "s");
            ++written;
        }
        storming = false;
    });
    while (written < 20'000 && storming) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // Forward writes while the storm goes on are answered, before it ends.
    int answered = 0;
    for (int i = 0; i < 20; ++i) {
        w.agent.send(
            encode(WriteFile{w.dir / ("fwd/" + std::to_string(i)), w.dir.path(), 0644, kKeepOwner, kKeepOwner, "f"}));
        if (decode<Result>(w.reader.answer()).error == 0) ++answered;
    }
    const bool still_storming = storming;
    storming = false;
    storm.join();
    BOOST_TEST(answered == 20);
    BOOST_TEST(still_storming, "the storm ended before the forward writes were answered");
    // The storm's files come back (some as a rescan), and the session stays usable.
    const std::string last_file = "storm/" + std::to_string(std::min(written.load(), 50'000) - 1);
    // What the full queue dropped comes from rescans of at most 10,000 paths a second,
    // each a walk of 50,000 files: longer than the usual patience on a loaded machine.
    w.reader.changes_until([&] { return w.reader.last(last_file) != nullptr; }, std::chrono::seconds(90));
    BOOST_TEST(w.reader.last(last_file), last_file);
    bool rescanned = false;
    for (const auto &c : w.reader.changes) rescanned = rescanned || c.kind == kind(ChangeKind::rescan);
    BOOST_TEST_MESSAGE("storm: " << written << " writes, " << w.reader.changes.size() << " changes, rescan "
                                 << rescanned);
    w.agent.send(encode(Remove{w.dir / "fwd", w.dir.path()}));
    BOOST_TEST(decode<Result>(w.reader.answer()).error == 0);
}

BOOST_AUTO_TEST_CASE(a_file_past_one_frame_comes_in_parts_with_forward_answers_between_them) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    Reader reader{agent.out};
    agent.greet();
    agent.send(encode(WatchChanges{7, dir.path(), {"big.bin"}, std::uint64_t{64} << 20, 5, 0, {}, {}}));
    BOOST_REQUIRE(decode<Result>(reader.answer()).error == 0);
    // 40 MiB, each MiB different, so that a part lost, repeated or out of order shows.
    std::string content(std::size_t{40} << 20, '\0');
    for (std::size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>((i * 7 + (i >> 20)) & 0xff);
    write_text(dir / "big.tmp", content);
    fs::rename(dir / "big.tmp", dir / "big.bin");
    // The first part; the agent's next ones wait for this side to read on.
    const auto first = reader.next(Clock::now() + kPatience);
    BOOST_REQUIRE(first.has_value());
    BOOST_REQUIRE(first->type == MessageType::container_change_part);
    std::string joined = decode<ContainerChangePart>(*first).data;
    agent.send(encode(WriteFile{dir / "fwd.txt", dir.path(), 0644, kKeepOwner, kKeepOwner, "f"}));
    bool answered_between = false;
    std::optional<ContainerChange> change;
    while (!change) {
        const auto f = reader.next(Clock::now() + kPatience);
        BOOST_REQUIRE(f.has_value());
        if (f->type == MessageType::container_change_part) {
            const auto part = decode<ContainerChangePart>(*f);
            BOOST_TEST(part.path == "big.bin");
            BOOST_TEST(part.data.size() <= kChangePartBytes);
            joined += part.data;
        } else if (f->type == MessageType::container_change) {
            change = decode<ContainerChange>(*f);
        } else {
            BOOST_TEST(decode<Result>(*f).error == 0);
            answered_between = true;
        }
    }
    BOOST_TEST(answered_between, "the forward write was answered only after the whole file");
    BOOST_TEST(change->path == "big.bin");
    BOOST_TEST(change->has_content == 1u);
    joined += change->content;
    BOOST_TEST(change->size == content.size());
    BOOST_TEST((joined == content), "the content came back other than written");
    BOOST_TEST(change->hash == XXH3_64bits(content.data(), content.size()));
}

BOOST_AUTO_TEST_CASE(a_watch_of_a_missing_root_or_a_bad_pattern_is_refused_with_why) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    agent.greet();
    Reader reader(agent.out);
    agent.send(encode(WatchChanges{1, dir / "missing", {"*"}, 1024, 0, 0, {}, {}}));
    const auto missing = decode<Result>(reader.answer());
    BOOST_TEST(missing.error == ENOENT);
    BOOST_TEST(missing.message.find(dir / "missing") != std::string::npos, missing.message);
    agent.send(encode(WatchChanges{1, dir.path(), {"[unclosed"}, 1024, 0, 0, {}, {}}));
    const auto bad = decode<Result>(reader.answer());
    BOOST_TEST(bad.error == EINVAL, bad.message);
    BOOST_TEST(agent.finish() == 0);
}
