// lu-agent's forward guard (protocol 8, ExpectContent): a write or delete
// that says what it may replace leaves anything else at its path as it is,
// answers kNotAsExpected saying what is there, and leaves no temporary file;
// a host of version 7 is served as before.
#define BOOST_TEST_MODULE lu_agent_guard
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/delta/content_hash.hpp"
#include "common/delta/instructions.hpp"
#include "tests/agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace lu_agent_test;
using liveupdate::test::TempDir;

namespace {

std::uint64_t xxh3(std::string_view content) { return XXH3_64bits(content.data(), content.size()); }

std::string expect_digest(const std::string &path, std::string_view content) {
    return encode(ExpectContent{path, static_cast<std::uint8_t>(ExpectedKind::digest), xxh3(content)});
}

std::string expect_absent(const std::string &path) {
    return encode(ExpectContent{path, static_cast<std::uint8_t>(ExpectedKind::absent), 0});
}

std::string write_of(const TempDir &dir, const std::string &path, const std::string &content) {
    return encode(WriteFile{path, dir.path().string(), 0644, kKeepOwner, kKeepOwner, content});
}

// No temporary file of the agent's is left anywhere beneath the folder.
void no_temporaries_in(const TempDir &dir) {
    for (const auto &entry : fs::recursive_directory_iterator(dir.path()))
        BOOST_TEST(entry.path().filename().string().find(".lu-agent-") == std::string::npos, entry.path());
}

// A large file's requests (one data part), ending in its commit.
std::string large_file(const TempDir &dir, const std::string &path, const std::string &content) {
    liveupdate::delta::InstructionWriter part;
    part.literal(content);
    liveupdate::delta::ContentHash hash;
    hash.update(content);
    const auto digest = hash.digest();
    return encode(FileBegin{path, dir.path().string(), 0644, kKeepOwner, kKeepOwner, 0, content.size()}) +
           encode(FilePart{part.take()}) + encode(FileCommit{content.size(), digest.low, digest.high});
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_write_replaces_only_the_content_it_expects) {
    TempDir dir{"lu-agent-guard"};
    const std::string path = dir.write("app/x.txt", "agreed");
    Agent agent;
    agent.greet();
    agent.send(expect_digest(path, "agreed"));
    BOOST_TEST(agent.ask_for<Result>(write_of(dir, path, "saved")).error == 0);
    BOOST_TEST(read_file(path) == "saved");

    // The app changed it since: its bytes stay, and the answer says what is there.
    std::ofstream(path, std::ios::trunc) << "the app's";
    agent.send(expect_digest(path, "saved"));
    const auto refused = agent.ask_for<Result>(write_of(dir, path, "saved again"));
    BOOST_TEST(refused.error == kNotAsExpected);
    BOOST_TEST(refused.message == "holds other content (9 bytes)");
    BOOST_TEST(read_file(path) == "the app's");

    // The guard held for that write only: the next one replaces whatever is there.
    BOOST_TEST(agent.ask_for<Result>(write_of(dir, path, "unguarded")).error == 0);
    BOOST_TEST(read_file(path) == "unguarded");
    no_temporaries_in(dir);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_write_expecting_nothing_leaves_what_is_there) {
    TempDir dir{"lu-agent-guard"};
    const std::string file = dir.write("app/file", "app");
    const std::string folder = (dir / "app/folder").string();
    fs::create_directories(folder + "/inside");
    const std::string link = (dir / "app/link").string();
    fs::create_symlink("file", link);
    const std::string fresh = (dir / "app/fresh").string();
    Agent agent;
    agent.greet();
    const std::pair<std::string, std::string> cases[] = {{file, "holds a file where none was agreed"},
                                                         {folder, "holds a folder where none was agreed"},
                                                         {link, "holds a symlink where none was agreed"}};
    for (const auto &[path, found] : cases) {
        agent.send(expect_absent(path));
        const auto refused = agent.ask_for<Result>(write_of(dir, path, "new"));
        BOOST_TEST(refused.error == kNotAsExpected, path);
        BOOST_TEST(refused.message == found);
    }
    BOOST_TEST(read_file(file) == "app");
    BOOST_TEST(fs::is_directory(folder + "/inside"));
    BOOST_TEST(fs::read_symlink(link) == "file");
    agent.send(expect_absent(fresh));
    BOOST_TEST(agent.ask_for<Result>(write_of(dir, fresh, "new")).error == 0);
    BOOST_TEST(read_file(fresh) == "new");
    no_temporaries_in(dir);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_write_expecting_a_file_refuses_a_symlink_a_folder_or_nothing) {
    TempDir dir{"lu-agent-guard"};
    const std::string target = dir.write("app/target", "agreed");
    const std::string link = (dir / "app/link").string();
    fs::create_symlink("target", link);
    const std::string folder = (dir / "app/folder").string();
    fs::create_directories(folder);
    const std::string gone = (dir / "app/gone").string();
    Agent agent;
    agent.greet();
    // A symlink to the agreed content is not that file: the link is never followed.
    const std::pair<std::string, std::string> cases[] = {
        {link, "holds a symlink"}, {folder, "holds a folder"}, {gone, "holds nothing (deleted)"}};
    for (const auto &[path, found] : cases) {
        agent.send(expect_digest(path, "agreed"));
        const auto refused = agent.ask_for<Result>(write_of(dir, path, "new"));
        BOOST_TEST(refused.error == kNotAsExpected, path);
        BOOST_TEST(refused.message == found);
    }
    BOOST_TEST(fs::read_symlink(link) == "target");
    BOOST_TEST(fs::is_directory(folder));
    BOOST_TEST(!fs::exists(fs::symlink_status(gone)));
    no_temporaries_in(dir);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_large_file_is_compared_at_its_commit) {
    TempDir dir{"lu-agent-guard"};
    const std::string path = dir.write("app/big.bin", "agreed");
    const std::string content(3u << 20, 'n');
    Agent agent;
    agent.greet();
    // Changed by the app between the host's look and the commit.
    agent.send(expect_digest(path, "agreed"));
    std::ofstream(path, std::ios::trunc) << "the app's";
    const auto refused = agent.ask_for<Result>(large_file(dir, path, content));
    BOOST_TEST(refused.error == kNotAsExpected);
    BOOST_TEST(refused.message == "holds other content (9 bytes)");
    BOOST_TEST(read_file(path) == "the app's");
    no_temporaries_in(dir);

    agent.send(expect_digest(path, "the app's"));
    BOOST_TEST(agent.ask_for<Result>(large_file(dir, path, content)).error == 0);
    BOOST_TEST(read_file(path) == content);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_write_sent_again_finds_its_own_content) {
    // The session broke after the writes landed, before their answers: the
    // update is sent again with the same expectations.
    TempDir dir{"lu-agent-guard"};
    const std::string small = dir.write("app/small", "saved");
    const std::string fresh = dir.write("app/fresh", "new");
    const std::string content(3u << 20, 'n');
    const std::string big = dir.write("app/big", content);
    Agent agent;
    agent.greet();
    agent.send(expect_digest(small, "agreed"));
    BOOST_TEST(agent.ask_for<Result>(write_of(dir, small, "saved")).error == 0);
    agent.send(expect_absent(fresh));
    BOOST_TEST(agent.ask_for<Result>(write_of(dir, fresh, "new")).error == 0);
    agent.send(expect_digest(big, "agreed"));
    BOOST_TEST(agent.ask_for<Result>(large_file(dir, big, content)).error == 0);
    BOOST_TEST(read_file(small) == "saved");
    BOOST_TEST(read_file(fresh) == "new");
    BOOST_TEST(read_file(big) == content);
    no_temporaries_in(dir);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_delete_removes_only_what_it_expects) {
    TempDir dir{"lu-agent-guard"};
    const std::string agreed = dir.write("app/agreed", "agreed");
    const std::string changed = dir.write("app/changed", "the app's");
    const std::string folder = (dir / "app/folder").string();
    fs::create_directories(folder);
    const std::string made = dir.write("app/made", "the app's");
    Agent agent;
    agent.greet();
    const auto remove = [&](const std::string &path, const std::string &expectation) {
        agent.send(expectation);
        return agent.ask_for<Result>(encode(Remove{path, dir.path().string()}));
    };
    BOOST_TEST(remove(agreed, expect_digest(agreed, "agreed")).error == 0);
    BOOST_TEST(!fs::exists(agreed));
    const auto other = remove(changed, expect_digest(changed, "agreed"));
    BOOST_TEST(other.error == kNotAsExpected);
    BOOST_TEST(other.message == "holds other content (9 bytes)");
    BOOST_TEST(read_file(changed) == "the app's");
    BOOST_TEST(remove(folder, expect_digest(folder, "agreed")).error == kNotAsExpected);
    BOOST_TEST(fs::is_directory(folder));
    BOOST_TEST(remove(made, expect_absent(made)).error == kNotAsExpected);
    BOOST_TEST(read_file(made) == "the app's");
    // Gone already: both sides agree it is gone, nothing of the app's is lost.
    BOOST_TEST(remove(agreed, expect_digest(agreed, "agreed")).error == 0);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(an_expectation_for_another_path_ends_the_session) {
    TempDir dir{"lu-agent-guard"};
    const std::string path = dir.write("app/x", "agreed");
    Agent agent;
    agent.greet();
    agent.send(expect_digest(dir.path().string() + "/app/y", "agreed"));
    const auto fatal = agent.ask_for<Fatal>(write_of(dir, path, "new"));
    BOOST_TEST(fatal.message.find("followed by a write request of " + path) != std::string::npos, fatal.message);
    BOOST_TEST(read_file(path) == "agreed");
    BOOST_TEST(agent.finish() == 1);
}

BOOST_AUTO_TEST_CASE(a_version_7_host_is_served_as_before) {
    TempDir dir{"lu-agent-guard"};
    const std::string path = dir.write("app/x", "the app's");
    Agent agent;
    BOOST_TEST(agent.ask_for<HelloReply>(encode(Hello{7})).version == 7u);
    BOOST_TEST(agent.ask_for<Result>(write_of(dir, path, "saved")).error == 0);
    BOOST_TEST(read_file(path) == "saved");
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{path, dir.path().string()})).error == 0);
    BOOST_TEST(!fs::exists(path));
    // Version 7 has no guard: asking for one is a protocol error.
    const auto fatal = agent.ask_for<Fatal>(expect_absent(path));
    BOOST_TEST(fatal.message == "an expect content request in protocol version 7");
    BOOST_TEST(agent.finish() == 1);
}
