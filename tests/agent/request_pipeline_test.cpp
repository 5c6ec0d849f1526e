// Requests to lu-agent pipelined (common/agent_client/request_pipeline):
// over a stream that answers at once, what the agent has queued whenever the
// host stops to read answers.
#define BOOST_TEST_MODULE request_pipeline
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

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
