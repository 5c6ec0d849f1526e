#include "common/agent_client/change_watch.hpp"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <stdexcept>

#include "common/agent_client/agent_apply.hpp"

namespace liveupdate::agent_client {

using Clock = std::chrono::steady_clock;

namespace {

bool has_delete(const std::vector<agent_protocol::ContainerChange> &changes) {
    for (const auto &change : changes)
        if (change.kind == static_cast<std::uint8_t>(agent_protocol::ChangeKind::deleted)) return true;
    return false;
}

}  // namespace

ChangeWatch::ChangeWatch(std::unique_ptr<AgentSession> session, const agent_protocol::WatchChanges &request,
                         std::chrono::milliseconds timeout, BatchFn batch, EndFn end, const AgentSession::LineFn &log)
    : session_(std::move(session)),
      root_(request.root),
      timeout_(timeout),
      batch_(std::move(batch)),
      end_(std::move(end)) {
    if (std::string refused = session_->watch_changes(request, Clock::now() + timeout_, log); !refused.empty())
        throw std::runtime_error(refused);
    thread_ = std::thread([this] { run(); });
}

ChangeWatch::~ChangeWatch() {
    stopping_ = true;
    session_->interrupt();
    if (thread_.joinable()) thread_.join();
}

// Only the listing of the root, no content read, within a budget (a digest
// stopped early would leave the session out of step).
WatchedRoot ChangeWatch::root_now() {
    agent_protocol::Digest request;
    request.path = root_;
    request.hash_all = 0;
    request.max_ms = kRootListingMs;
    std::size_t entries = 0;
    const AgentDigestResult result = digest_through_agent(*session_, request, timeout_, [&](const auto &) {
        ++entries;  // the root itself first
        return true;
    });
    if (result.error == ENOENT) return WatchedRoot::missing;
    if (entries >= 2) return WatchedRoot::holds;
    if (result.error != 0) return WatchedRoot::unknown;
    return WatchedRoot::empty;
}

void ChangeWatch::settle(std::vector<agent_protocol::ContainerChange> &changes) {
    const auto held_until = Clock::now() + kDeleteHold;
    while (!stopping_ && Clock::now() < held_until) {
        session_->wait_for_changes(std::min(Clock::now() + kDeleteQuiet, held_until));
        std::vector<agent_protocol::ContainerChange> more = session_->take_changes();
        if (more.empty()) return;
        changes.insert(changes.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
}

void ChangeWatch::run() {
    const auto step = session_->interruptible() ? kQuietWait : kPoll;
    try {
        while (!stopping_) {
            session_->wait_for_changes(Clock::now() + step);
            std::vector<agent_protocol::ContainerChange> changes = session_->take_changes();
            if (changes.empty()) continue;
            WatchedRoot root = WatchedRoot::unknown;
            if (has_delete(changes)) {
                settle(changes);
                root = root_now();
            }
            batch_(changes, root);
        }
    } catch (const std::exception &e) {
        if (!stopping_) end_(e.what());
    }
}

}  // namespace liveupdate::agent_client
