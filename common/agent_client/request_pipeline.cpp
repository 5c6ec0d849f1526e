#include "common/agent_client/request_pipeline.hpp"

#include "common/agent_client/agent_apply.hpp"

namespace liveupdate::agent_client {

void RequestPipeline::send(const std::string &frame, std::string guarded_path) {
    send_unanswered(frame);
    owed_.push_back(std::move(guarded_path));
    // Answers pile up in memory while sending: collected now and then, but
    // only down to half, so that the agent has work while the next requests
    // are made (collecting them all left it idle that long, 4 times in a
    // 5,000-file update).
    if (owed_.size() >= kMostOwed) collect_down_to(kMostOwed / 2);
}

void RequestPipeline::send_unanswered(const std::string &frame) {
    // A large frame (a file's part) goes out as it is, not copied into the batch.
    if (frame.size() >= kBatchBytes) {
        push();
        session_.send(frame, AgentStream::Clock::now() + stall_);
        return;
    }
    // Small requests go out together: one write for many files.
    batch_ += frame;
    if (batch_.size() >= kBatchBytes) push();
}

void RequestPipeline::send_unanswered(std::string_view head, std::string_view rest) {
    batch_ += head;
    push();
    session_.send(rest, AgentStream::Clock::now() + stall_);
}

agent_protocol::Frame RequestPipeline::ask(const std::string &frame) {
    collect();
    batch_ = frame;
    push();
    return session_.receive(AgentStream::Clock::now() + stall_);
}

void RequestPipeline::collect() { collect_down_to(0); }

void RequestPipeline::collect_down_to(std::size_t owed) {
    push();
    while (owed_.size() > owed) {
        const auto result = expect<agent_protocol::Result>(session_.receive(AgentStream::Clock::now() + stall_));
        const std::string guarded_path = std::move(owed_.front());
        owed_.pop_front();
        if (result.error == agent_protocol::kNotAsExpected && !guarded_path.empty()) {
            if (on_kept_) on_kept_(guarded_path, result.message);
            continue;
        }
        if (result.error != 0 && first_failure_.empty()) first_failure_ = result.message;
    }
}

void RequestPipeline::finish() {
    collect();
    if (!first_failure_.empty()) throw AgentRequestFailed(first_failure_);
}

void RequestPipeline::push() {
    if (batch_.empty()) return;
    session_.send(batch_, AgentStream::Clock::now() + stall_);
    batch_.clear();
}

}  // namespace liveupdate::agent_client
