// Requests to lu-agent pipelined (common/agent_client/request_pipeline):
// over a stream that answers at once, what the agent has queued whenever the
// host stops to read answers.
#define BOOST_TEST_MODULE request_pipeline
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/agent_client/agent_apply.hpp"
#include "common/agent_client/request_pipeline.hpp"
#include "common/agent_protocol/messages.hpp"

namespace ac = liveupdate::agent_client;
namespace ap = liveupdate::agent_protocol;

namespace {

// Counts the requests that reach it and, at each answer read, how many of
// them were still unanswered: what the agent had queued at that moment.
class CountingStream final : public ac::AgentStream {
public:
    void send(std::string_view frames, Clock::time_point) override {
        decoder_.feed(frames);
        while (decoder_.next()) ++sent_;
    }
    ap::Frame receive(Clock::time_point) override {
        queued_at_reads.push_back(sent_ - answered_);
        ++answered_;
        ap::FrameDecoder answer;
        answer.feed(ap::encode(ap::Result{}));
        return *answer.next();
    }
    std::vector<long> queued_at_reads;

private:
    ap::FrameDecoder decoder_;
    long sent_ = 0;
    long answered_ = 0;
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_agent_keeps_work_queued_while_answers_are_read) {
    CountingStream stream;
    ac::RequestPipeline pipeline(stream, std::chrono::seconds(5));
    for (int i = 0; i < 10000; ++i) pipeline.send(ap::encode(ap::MakeDir{"/app/d" + std::to_string(i), "/app", 0755}));
    const std::vector<long> while_sending = stream.queued_at_reads;
    pipeline.finish();
    BOOST_TEST(stream.queued_at_reads.size() == 10000u);
    // Answers were read on the way (memory stays bounded), never down to an idle agent.
    BOOST_TEST_REQUIRE(!while_sending.empty());
    BOOST_TEST(*std::min_element(while_sending.begin(), while_sending.end()) > 1000);
    BOOST_TEST(*std::max_element(while_sending.begin(), while_sending.end()) <= 4096);
}

namespace {

// Answers each request with the next of its scripted Results.
class ScriptedStream final : public ac::AgentStream {
public:
    explicit ScriptedStream(std::vector<ap::Result> answers) : answers_(std::move(answers)) {}
    void send(std::string_view, Clock::time_point) override {}
    ap::Frame receive(Clock::time_point) override {
        ap::FrameDecoder answer;
        answer.feed(ap::encode(answers_.at(next_++)));
        return *answer.next();
    }

private:
    std::vector<ap::Result> answers_;
    std::size_t next_ = 0;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_guarded_refusal_is_told_for_its_own_path_not_failed) {
    ScriptedStream stream({{0, ""}, {ap::kNotAsExpected, "holds a symlink"}, {ap::kNotAsExpected, "stale handle"}});
    std::vector<std::string> kept;
    ac::RequestPipeline pipeline(
        stream, std::chrono::seconds(5),
        [&kept](const std::string &path, const std::string &found) { kept.push_back(path + ": " + found); });
    pipeline.send(ap::encode(ap::WriteFile{"/app/a", "/app", 0644, ap::kKeepOwner, ap::kKeepOwner, "x"}), "/app/a");
    pipeline.send(ap::encode(ap::WriteFile{"/app/b", "/app", 0644, ap::kKeepOwner, ap::kKeepOwner, "x"}), "/app/b");
    // Unguarded: the same code is a failure, whatever it says.
    pipeline.send(ap::encode(ap::WriteFile{"/app/c", "/app", 0644, ap::kKeepOwner, ap::kKeepOwner, "x"}));
    BOOST_CHECK_EXCEPTION(pipeline.finish(), ac::AgentRequestFailed,
                          [](const ac::AgentRequestFailed &e) { return std::string(e.what()) == "stale handle"; });
    BOOST_TEST(kept == std::vector<std::string>{"/app/b: holds a symlink"}, boost::test_tools::per_element());
}
