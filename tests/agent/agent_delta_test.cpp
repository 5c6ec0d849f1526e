// Large files through common/agent_client and a real lu-agent on this
// machine: the delta cases of delta_cases.hpp in a scratch folder, then the
// protocol's edges (signatures of what is not a regular file, a commit whose
// hash does not match, parts out of order, a session ending mid-file, an
// agent of protocol version 2).
#define BOOST_TEST_MODULE agent_delta
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/agent_client/agent_binary.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/agent_protocol/temporary_names.hpp"
#include "common/delta/instructions.hpp"
#include "tests/agent/delta_cases.hpp"

using namespace lu_agent_test;
using namespace liveupdate::agent_protocol;
namespace fs = std::filesystem;

namespace {

class LocalTarget : public DeltaTarget {
public:
    LocalTarget() { fs::create_directories(root_); }
    ~LocalTarget() override { fs::remove_all(root_); }
    std::vector<std::string> agent_argv() override { return {LU_AGENT_PATH}; }
    std::string root() override { return root_.string(); }
    std::string read(const std::string &path) override {
        std::ifstream in(path, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    std::vector<std::string> names_in(const std::string &folder) override {
        std::vector<std::string> names;
        for (const auto &entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
        return names;
    }
    void kill_agent(PipeAgentStream &session) override { session.kill_now(); }

private:
    fs::path root_ = fs::temp_directory_path() / ("lu-agent-delta-" + std::to_string(::getpid()) + "-" +
                                                  std::to_string(::time(nullptr)) + "-" + std::to_string(counter_++));
    static inline int counter_ = 0;
};

Frame ask(PipeAgentStream &session, const std::string &frame) {
    session.send(frame, PipeAgentStream::Clock::now() + kStall);
    return session.receive(PipeAgentStream::Clock::now() + kStall);
}

std::string literal_part(const std::string &bytes) {
    liveupdate::delta::InstructionWriter writer;
    writer.literal(bytes);
    return encode(FilePart{writer.take()});
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_that_grows_sends_what_was_added) {
    LocalTarget t;
    a_file_that_grows(t);
}
BOOST_AUTO_TEST_CASE(a_file_that_shrinks_sends_almost_nothing) {
    LocalTarget t;
    a_file_that_shrinks(t);
}
BOOST_AUTO_TEST_CASE(a_file_rewritten_from_the_start_sends_the_new_start) {
    LocalTarget t;
    a_file_rewritten_from_the_start(t);
}
BOOST_AUTO_TEST_CASE(a_file_with_blocks_moved_sends_almost_nothing) {
    LocalTarget t;
    a_file_with_blocks_moved(t);
}
BOOST_AUTO_TEST_CASE(a_file_replaced_by_another_of_the_same_size_is_sent_whole) {
    LocalTarget t;
    a_file_replaced_by_another_of_the_same_size(t);
}
BOOST_AUTO_TEST_CASE(a_transfer_broken_mid_way_leaves_the_old_file_and_completes_next_time) {
    LocalTarget t;
    a_transfer_broken_mid_way(t);
}

// The agent keeps the signatures of what it wrote; a file changed behind its
// back (same size, new bytes) must not be matched against them.
BOOST_AUTO_TEST_CASE(a_file_changed_behind_the_agents_back_is_signed_afresh) {
    LocalTarget t;
    const std::string path = t.root() + "/changed";
    auto content = random_bytes(std::size_t{3} << 20, 31);
    auto session = open_session(t);
    const auto write = [&](const std::string &bytes) {
        const auto tar = tar_of({{path.substr(1), bytes}});
        const auto read = reader_of(tar);
        liveupdate::agent_client::apply_files_through_agent(*session, {}, &read, kStall, {t.root()});
        BOOST_TEST((liveupdate::delta::strong_hash(t.read(path)) == liveupdate::delta::strong_hash(bytes)));
    };
    write(content);
    {
        const auto other = random_bytes(std::size_t{1} << 20, 32);
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(std::streamoff{1} << 20);
        f.write(other.data(), static_cast<std::streamsize>(other.size()));
    }
    content[10] ^= 1;
    write(content);
    // And once more, from what it signed when it read the file.
    content[20] ^= 1;
    write(content);
}

// The host's archive stream ends with -1 when it cannot go on (say, its
// synced journal cannot be written): libarchive then has no error
// text of its own. Wherever that happens, the update fails saying so.
BOOST_AUTO_TEST_CASE(an_archive_whose_source_fails_is_an_error_not_a_crash) {
    LocalTarget t;
    const auto tar = tar_of({{(t.root() + "/small").substr(1), "x"},
                             {(t.root() + "/medium").substr(1), random_bytes(std::size_t{512} << 10, 41)},
                             {(t.root() + "/large").substr(1), random_bytes(std::size_t{8} << 20, 42)}});
    // At the start, in the second entry's header, in a whole-frame file's
    // data, in a large file's data.
    const std::size_t medium_data = 1536;
    const std::size_t large_data = medium_data + (std::size_t{512} << 10) + 512;
    for (const std::size_t fail_at :
         {std::size_t{0}, std::size_t{1100}, medium_data + 100000, large_data + (std::size_t{3} << 20)}) {
        std::size_t offset = 0;
        const liveupdate::common::ArchiveReadFn read = [&](void *buffer, std::size_t capacity) -> std::int64_t {
            if (offset >= fail_at) return -1;
            const std::size_t n = std::min({capacity, tar.size() - offset, fail_at - offset});
            std::memcpy(buffer, tar.data() + offset, n);
            offset += n;
            return static_cast<std::int64_t>(n);
        };
        auto session = open_session(t);
        std::string error;
        try {
            liveupdate::agent_client::apply_files_through_agent(*session, {}, &read, kStall, {t.root()});
        } catch (const std::runtime_error &e) {
            error = e.what();
        }
        BOOST_TEST(error.find("its source failed") != std::string::npos, "failing at " << fail_at << ": " << error);
        // The session stays in step: the next update goes through.
        const auto whole = reader_of(tar);
        liveupdate::agent_client::apply_files_through_agent(*session, {}, &whole, kStall, {t.root()});
        BOOST_TEST(t.read(t.root() + "/small") == "x");
    }
}

BOOST_AUTO_TEST_CASE(signatures_are_only_of_regular_files) {
    LocalTarget t;
    fs::create_directories(t.root() + "/folder");
    fs::create_symlink(t.root() + "/folder", t.root() + "/link");
    std::ofstream(t.root() + "/file") << "0123456789";
    auto session = open_session(t);
    const auto of = [&](const std::string &name) {
        return decode<BlockSignaturesReply>(ask(*session, encode(BlockSignatures{t.root() + "/" + name, t.root()})));
    };
    BOOST_TEST(of("missing").error == ENOENT);
    BOOST_TEST(of("folder").error == EINVAL);
    BOOST_TEST(of("link").error == EINVAL);  // below the root a symlink is not followed
    const auto file = of("file");
    BOOST_TEST_REQUIRE(file.error == 0, file.message);
    const auto signature = liveupdate::delta::decode_signature(file.signature);
    BOOST_TEST(signature.file_size == 10u);
    BOOST_TEST(signature.blocks.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_commit_that_does_not_match_keeps_the_old_file) {
    LocalTarget t;
    const std::string path = t.root() + "/kept";
    std::ofstream(path) << "old";
    auto session = open_session(t);
    session->send(encode(FileBegin{path, t.root(), 0644, kKeepOwner, kKeepOwner, 0}) + literal_part("new content"),
                  PipeAgentStream::Clock::now() + kStall);
    const auto wrong = liveupdate::delta::strong_hash("other content");
    const auto result = decode<Result>(ask(*session, encode(FileCommit{11, wrong.low, wrong.high})));
    BOOST_TEST(result.error == EIO);
    BOOST_TEST(result.message.find(path) != std::string::npos, result.message);
    BOOST_TEST(t.read(path) == "old");
    BOOST_TEST(!has_temporary(t));
    // The session goes on: the right hash puts the file in place.
    const auto right = liveupdate::delta::strong_hash("new content");
    session->send(encode(FileBegin{path, t.root(), 0600, kKeepOwner, kKeepOwner, 0}) + literal_part("new content"),
                  PipeAgentStream::Clock::now() + kStall);
    BOOST_TEST(decode<Result>(ask(*session, encode(FileCommit{11, right.low, right.high}))).error == 0);
    BOOST_TEST(t.read(path) == "new content");
    BOOST_TEST(((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write)));
}

BOOST_AUTO_TEST_CASE(a_copy_beyond_the_base_fails_the_file_only) {
    LocalTarget t;
    const std::string path = t.root() + "/base";
    std::ofstream(path) << "0123456789";
    auto session = open_session(t);
    liveupdate::delta::InstructionWriter writer;
    writer.copy(5, 6);
    session->send(encode(FileBegin{path, t.root(), 0644, kKeepOwner, kKeepOwner, 1}) + encode(FilePart{writer.take()}),
                  PipeAgentStream::Clock::now() + kStall);
    const auto result = decode<Result>(ask(*session, encode(FileCommit{6, 0, 0})));
    BOOST_TEST(result.error == EINVAL);
    BOOST_TEST(t.read(path) == "0123456789");
    BOOST_TEST(!has_temporary(t));
}

BOOST_AUTO_TEST_CASE(parts_out_of_order_end_the_session_without_a_trace) {
    LocalTarget t;
    {
        auto session = open_session(t);
        BOOST_CHECK_THROW(ask(*session, literal_part("x")), liveupdate::agent_client::AgentSessionBroken);
    }
    {
        auto session = open_session(t);
        const std::string begin = encode(FileBegin{t.root() + "/a", t.root(), 0644, kKeepOwner, kKeepOwner, 0});
        BOOST_CHECK_THROW(ask(*session, begin + literal_part("x") + begin),
                          liveupdate::agent_client::AgentSessionBroken);
    }
    BOOST_TEST(!has_temporary(t));
    BOOST_TEST(!fs::exists(t.root() + "/a"));
}

BOOST_AUTO_TEST_CASE(a_session_ending_mid_file_leaves_no_temporary_file) {
    LocalTarget t;
    {
        auto session = open_session(t);
        session->send(
            encode(FileBegin{t.root() + "/cut", t.root(), 0644, kKeepOwner, kKeepOwner, 0}) + literal_part("part"),
            PipeAgentStream::Clock::now() + kStall);
        // A request after it proves the begin was acted on.
        BOOST_TEST(
            decode<BlockSignaturesReply>(ask(*session, encode(BlockSignatures{t.root() + "/x", t.root()}))).error ==
            ENOENT);
        BOOST_TEST(has_temporary(t));
    }  // stdin closed: the agent ends
    BOOST_TEST(!has_temporary(t));
    BOOST_TEST(!fs::exists(t.root() + "/cut"));
}

BOOST_AUTO_TEST_CASE(an_agent_of_protocol_version_2_is_refused_and_a_new_one_has_its_own_path) {
    // A HelloReply of version 2, as a resident older agent answers.
    PipeAgentStream old_agent(
        {"sh", "-c", R"(printf '\010\000\000\000\100\002\000\000\000\000\000\000\000'; cat >/dev/null)"});
    try {
        liveupdate::agent_client::handshake(old_agent, PipeAgentStream::Clock::now() + kStall);
        BOOST_FAIL("a version 2 agent was accepted");
    } catch (const liveupdate::agent_client::AgentSessionBroken &e) {
        const std::string expected = "protocol version 2, not one of " +
                                     std::to_string(liveupdate::agent_protocol::kOldestProtocolVersion) + " to " +
                                     std::to_string(liveupdate::agent_protocol::kProtocolVersion);
        BOOST_TEST(std::string(e.what()).find(expected) != std::string::npos, e.what());
    }
    // So the updaters copy this agent in under a name of its own version, beside the old one.
    const auto binary = liveupdate::agent_client::load_agent_binary(LU_AGENT_PATH);
    BOOST_TEST(binary.container_path.find("/lu-agent-" + std::to_string(liveupdate::agent_protocol::kProtocolVersion) +
                                          "-") != std::string::npos,
               binary.container_path);
}

// An agent of version 6 (before sync back) is driven as it is: the handshake
// says which version it speaks, so the host keeps that session one-way.
BOOST_AUTO_TEST_CASE(an_agent_of_protocol_version_6_is_accepted_and_says_so) {
    PipeAgentStream old_agent(
        {"sh", "-c", R"(printf '\017\000\000\000\100\006\000\000\000\007\000\000\000old one'; cat >/dev/null)"});
    std::uint32_t version = 0;
    const auto description =
        liveupdate::agent_client::handshake(old_agent, PipeAgentStream::Clock::now() + kStall, &version);
    BOOST_TEST(version == 6u);
    BOOST_TEST(description == "old one");
}

// A begin clears what killed agents left in its folder: only entries named
// with an agent's token whose pid is gone. An app's file that looks like an
// older name, and a running agent's entry, stay.
BOOST_AUTO_TEST_CASE(a_begin_deletes_only_temporary_files_of_agents_no_longer_running) {
    LocalTarget t;
    const pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ::waitpid(gone, nullptr, 0);
    const std::string left = temporary_name(gone, 3, 0x0123456789abcdefu);
    const std::string running = temporary_name(::getpid(), 3, 0x0123456789abcdefu);
    const std::string app = ".lu-agent-" + std::to_string(gone) + "-3";
    for (const auto &name : {left, running, app}) std::ofstream(t.root() + "/" + name) << "x";
    {
        auto session = open_session(t);
        session->send(
            encode(FileBegin{t.root() + "/new", t.root(), 0644, kKeepOwner, kKeepOwner, 0}) + literal_part("part"),
            PipeAgentStream::Clock::now() + kStall);
        BOOST_TEST(
            decode<BlockSignaturesReply>(ask(*session, encode(BlockSignatures{t.root() + "/x", t.root()}))).error ==
            ENOENT);
    }
    BOOST_TEST(!fs::exists(t.root() + "/" + left));
    BOOST_TEST(fs::exists(t.root() + "/" + running));
    BOOST_TEST(fs::exists(t.root() + "/" + app));
}
