// The delta transfer cases, run through common/agent_client and a real
// lu-agent: on this machine (agent_delta_test) and in a container
// (tests/docker). Each ends with the target file's content equal to the
// source's (XXH3-128 compared) and bounds the bytes the host sent.
#pragma once

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/agent_client/agent_apply.hpp"
#include "common/delta/signature.hpp"
#include "tests/agent/pipe_agent_stream.hpp"

namespace lu_agent_test {

// Where the agent runs and how the test looks at its files.
class DeltaTarget {
public:
    virtual ~DeltaTarget() = default;
    virtual std::vector<std::string> agent_argv() = 0;
    virtual std::string root() = 0;  // an absolute folder the updates write into
    virtual std::string read(const std::string &path) = 0;
    virtual std::vector<std::string> names_in(const std::string &folder) = 0;
    // SIGKILL to the agent of `session` (in a container, the process there).
    virtual void kill_agent(PipeAgentStream &session) = 0;
};

inline std::string random_bytes(std::size_t size, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::string s(size, '\0');
    for (std::size_t i = 0; i + 8 <= size; i += 8) {
        const auto v = rng();
        std::memcpy(s.data() + i, &v, 8);
    }
    return s;
}

inline constexpr std::chrono::seconds kStall{30};

inline std::unique_ptr<PipeAgentStream> open_session(DeltaTarget &target) {
    auto session = std::make_unique<PipeAgentStream>(target.agent_argv());
    liveupdate::agent_client::handshake(*session, PipeAgentStream::Clock::now() + kStall);
    return session;
}

// Writes `content` at root/name through a new session; returns the bytes the host sent.
inline std::uint64_t update(DeltaTarget &target, const std::string &name, const std::string &content) {
    auto session = open_session(target);
    const std::string path = target.root() + "/" + name;
    const auto tar = tar_of({{path.substr(1), content}});
    const auto read = reader_of(tar);
    liveupdate::agent_client::apply_files_through_agent(*session, {}, &read, kStall, {target.root()});
    BOOST_TEST((liveupdate::delta::strong_hash(target.read(path)) == liveupdate::delta::strong_hash(content)),
               path << " differs from the source");
    return session->bytes_sent();
}

inline bool has_temporary(DeltaTarget &target) {
    for (const auto &name : target.names_in(target.root()))
        if (name.starts_with(".lu-agent-")) return true;
    return false;
}

inline const std::string &old_content() {
    static const std::string old = random_bytes(std::size_t{4} << 20, 7);
    return old;
}

inline void a_file_that_grows(DeltaTarget &t) {
    update(t, "grows", old_content());
    const auto added = random_bytes(std::size_t{512} * 1024, 8);
    BOOST_TEST(update(t, "grows", old_content() + added) < added.size() + std::size_t{64} * 1024);
}

inline void a_file_that_shrinks(DeltaTarget &t) {
    update(t, "shrinks", old_content());
    const auto &old = old_content();
    BOOST_TEST(update(t, "shrinks", old.substr(0, 1 << 20) + old.substr(2 << 20)) < std::size_t{64} * 1024);
}

inline void a_file_rewritten_from_the_start(DeltaTarget &t) {
    update(t, "rewritten", old_content());
    const auto head = random_bytes(10'000, 9);
    BOOST_TEST(update(t, "rewritten", head + old_content().substr(4000)) < head.size() + std::size_t{64} * 1024);
}

inline void a_file_with_blocks_moved(DeltaTarget &t) {
    update(t, "moved", old_content());
    const auto &old = old_content();
    const std::size_t half = old.size() / 2 + 333;
    BOOST_TEST(update(t, "moved", old.substr(half) + old.substr(0, half)) < std::size_t{64} * 1024);
}

inline void a_file_replaced_by_another_of_the_same_size(DeltaTarget &t) {
    update(t, "replaced", old_content());
    const auto other = random_bytes(old_content().size(), 10);
    BOOST_TEST(update(t, "replaced", other) >= other.size());
    BOOST_TEST(!has_temporary(t));
}

// The agent is killed once it has begun the new file: the old one stays
// whole, the temporary file it left goes at the next transfer, which
// completes.
inline void a_transfer_broken_mid_way(DeltaTarget &t) {
    update(t, "broken", old_content());
    auto changed = old_content();
    const auto middle = random_bytes(std::size_t{2} << 20, 11);
    changed.replace(std::size_t{1} << 20, middle.size(), middle);
    const std::string path = t.root() + "/broken";
    {
        auto session = open_session(t);
        const auto tar = tar_of({{path.substr(1), changed}});
        bool killed = false;
        const auto read = reader_of(tar, [&](std::size_t offset) {
            if (killed || offset < (std::size_t{3} << 20)) return;
            // The begin is out; wait for the agent to act on it before killing it.
            const auto until = PipeAgentStream::Clock::now() + kStall;
            while (!has_temporary(t) && PipeAgentStream::Clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            BOOST_TEST_REQUIRE(has_temporary(t));
            t.kill_agent(*session);
            killed = true;
        });
        BOOST_CHECK_THROW(liveupdate::agent_client::apply_files_through_agent(*session, {}, &read, kStall, {t.root()}),
                          liveupdate::agent_client::AgentSessionBroken);
        BOOST_TEST_REQUIRE(killed);
    }
    BOOST_TEST((liveupdate::delta::strong_hash(t.read(path)) == liveupdate::delta::strong_hash(old_content())));
    BOOST_TEST(has_temporary(t));
    update(t, "broken", changed);
    BOOST_TEST(!has_temporary(t));
}

}  // namespace lu_agent_test
