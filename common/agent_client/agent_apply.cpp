#include "common/agent_client/agent_apply.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <memory>
#include <optional>

#include "common/agent_client/large_file.hpp"
#include "common/agent_client/request_pipeline.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/archive_errors.hpp"
#include "common/tar_reader.hpp"

namespace liveupdate::agent_client {
namespace {

constexpr std::size_t kChunk = std::size_t{64} * 1024;

std::string container_path(const char *entry_path) {
    std::string path = "/" + common::tar_entry_name(entry_path);
    if (const auto problem = agent_protocol::path_problem(path); !problem.empty())
        throw std::runtime_error("the update's archive holds an unsafe entry: " + problem);
    return path;
}

// The ExpectContent to send before a write or delete of path; none for `any` (or no guard).
std::optional<agent_protocol::ExpectContent> expectation_for(const updater::ForwardGuard &guard,
                                                             const std::string &path) {
    if (!guard) return std::nullopt;
    const updater::ExpectedContent expected = guard.expected(path);
    switch (expected.kind) {
    case updater::ExpectedContent::Kind::absent:
        return agent_protocol::ExpectContent{path, static_cast<std::uint8_t>(agent_protocol::ExpectedKind::absent), 0};
    case updater::ExpectedContent::Kind::digest:
        return agent_protocol::ExpectContent{path, static_cast<std::uint8_t>(agent_protocol::ExpectedKind::digest),
                                             expected.digest};
    case updater::ExpectedContent::Kind::any: break;
    }
    return std::nullopt;
}

// A guarded request: its ExpectContent right before it, its answer owed under its path.
void send_guarded(RequestPipeline &pipeline, const std::string &frame, const std::string &path,
                  const std::optional<agent_protocol::ExpectContent> &expected) {
    if (!expected) return pipeline.send(frame);
    pipeline.send_unanswered(agent_protocol::encode(*expected));
    pipeline.send(frame, path);
}

void send_small_file(RequestPipeline &pipeline, archive *reader, const std::string &path, const std::string &root,
                     std::uint32_t mode, std::uint64_t size,
                     const std::optional<agent_protocol::ExpectContent> &expected) {
    agent_protocol::WriteFile write{path, root, mode, agent_protocol::kKeepOwner, agent_protocol::kKeepOwner, {}};
    write.content.reserve(static_cast<std::size_t>(size));
    char chunk[kChunk];
    for (;;) {
        const auto got = archive_read_data(reader, chunk, sizeof chunk);
        if (got == 0) break;
        if (got < 0)
            throw std::runtime_error("reading " + path +
                                     " from the update's archive: " + common::archive_error_text(reader));
        write.content.append(chunk, static_cast<std::size_t>(got));
    }
    send_guarded(pipeline, agent_protocol::encode(write), path, expected);
}

void send_entries(RequestPipeline &pipeline, const common::ArchiveReadFn &in, const std::vector<std::string> &roots,
                  const updater::ForwardGuard &guard) {
    common::TarReader reader(in);
    while (archive_entry *entry = reader.next()) {
        const std::string path = container_path(archive_entry_pathname(entry));
        if (path == "/") continue;
        const std::string root = agent_protocol::root_for(path, roots);
        const auto mode = static_cast<std::uint32_t>(archive_entry_perm(entry));
        if (archive_entry_hardlink(entry) != nullptr)
            throw std::runtime_error("the update's archive holds a hard link (" + path +
                                     "): not supported by lu-agent");
        switch (archive_entry_filetype(entry)) {
        case AE_IFDIR:
            pipeline.send(agent_protocol::encode(
                agent_protocol::MakeDir{path, root, mode, agent_protocol::kKeepOwner, agent_protocol::kKeepOwner}));
            break;
        case AE_IFLNK: {
            const char *target = archive_entry_symlink(entry);
            pipeline.send(agent_protocol::encode(agent_protocol::Symlink{
                path, root, target == nullptr ? "" : target, agent_protocol::kKeepOwner, agent_protocol::kKeepOwner}));
            break;
        }
        case AE_IFREG: {
            const bool sized = archive_entry_size_is_set(entry) != 0;
            const auto size = sized ? static_cast<std::uint64_t>(archive_entry_size(entry)) : 0;
            auto expected = expectation_for(guard, path);
            if (sized && size <= kWholeFrameLimit) {
                send_small_file(pipeline, reader.get(), path, root, mode, size, expected);
            } else {
                LargeFile file;
                file.path = path;
                file.root = root;
                file.mode = mode;
                file.size = size;
                file.expected = std::move(expected);
                send_large_file(pipeline, reader.get(), file);
            }
            break;
        }
        default:
            throw std::runtime_error("the update's archive holds " + path +
                                     ", neither a file, a folder nor a symlink: not supported by lu-agent");
        }
    }
}

void send_archive(RequestPipeline &pipeline, const common::ArchiveReadFn &in, const std::vector<std::string> &roots,
                  const updater::ForwardGuard &guard) {
    try {
        send_entries(pipeline, in, roots, guard);
    } catch (const common::TarReadError &e) {
        throw std::runtime_error(std::string("reading the update's archive: ") + e.what());
    }
}

// The next frame by deadline; nullopt once keep_going, asked whenever the
// agent stays silent for kAskEvery, says to stop.
std::optional<agent_protocol::Frame> next_frame(AgentStream &session, AgentStream::Clock::time_point deadline,
                                                const std::function<bool()> &keep_going) {
    constexpr std::chrono::milliseconds kAskEvery{100};
    if (!keep_going) return session.receive(deadline);
    for (;;) {
        const auto slice = std::min(deadline, AgentStream::Clock::now() + kAskEvery);
        try {
            return session.receive(slice);
        } catch (const AgentAnswerLate &) {
            if (slice >= deadline) throw;  // late past the stall allowance: as without keep_going
        }
        if (!keep_going()) return std::nullopt;
    }
}

}  // namespace

void apply_files_through_agent(AgentStream &session, const std::vector<std::string> &deletes,
                               const common::ArchiveReadFn *archive, std::chrono::milliseconds stall,
                               const std::vector<std::string> &sync_roots, const GuardedWrites &guarded) {
    RequestPipeline pipeline(session, stall, [&guarded](const std::string &path, const std::string &found) {
        guarded.guard.kept(path, found);
        guarded.log(LU_LOG_WARN, "kept the container's " + path + ": it changed since both sides last agreed (" +
                                     found + "); sync back judges it");
    });
    for (const auto &path : deletes) {
        if (const auto problem = agent_protocol::path_problem(path); !problem.empty())
            throw std::runtime_error("cannot delete through lu-agent: " + problem);
        send_guarded(pipeline,
                     agent_protocol::encode(agent_protocol::Remove{path, agent_protocol::root_for(path, sync_roots)}),
                     path, expectation_for(guarded.guard, path));
    }
    // Deletes finish before the copies start, as with rm then tar.
    pipeline.finish();
    if (archive != nullptr && *archive) {
        try {
            send_archive(pipeline, *archive, sync_roots, guarded.guard);
        } catch (const AgentSessionBroken &) {
            throw;
        } catch (const std::exception &) {
            // What was sent is answered first, so the session stays in step for the next update.
            pipeline.collect();
            throw;
        }
    }
    pipeline.finish();
}

AgentRunResult run_through_agent(AgentStream &session, const std::vector<std::string> &argv,
                                 std::chrono::milliseconds limit, std::chrono::milliseconds stall,
                                 const std::function<void(int, std::string_view)> &on_output) {
    agent_protocol::Run run{argv, "", {}, static_cast<std::uint32_t>(limit.count())};
    session.send(agent_protocol::encode(run), AgentStream::Clock::now() + stall);
    // The agent enforces the limit; beyond it plus the stall allowance the stream is taken for dead.
    const auto deadline = AgentStream::Clock::now() + limit + stall;
    for (;;) {
        const auto frame = session.receive(deadline);
        if (frame.type == agent_protocol::MessageType::output) {
            const auto output = expect<agent_protocol::Output>(frame);
            on_output(output.stream, output.data);
            continue;
        }
        const auto status = expect<agent_protocol::ExitStatus>(frame);
        return {status.code, status.timed_out != 0, status.message};
    }
}

agent_protocol::Result restart_through_agent(AgentStream &session, std::chrono::milliseconds grace,
                                             std::chrono::milliseconds stall) {
    session.send(agent_protocol::encode(agent_protocol::RestartProcess{static_cast<std::uint32_t>(grace.count())}),
                 AgentStream::Clock::now() + stall);
    // The answer comes once the process started again: after the grace at most, and the start.
    return expect<agent_protocol::Result>(session.receive(AgentStream::Clock::now() + grace + stall));
}

AgentDigestResult digest_through_agent(AgentStream &session, const agent_protocol::Digest &request,
                                       std::chrono::milliseconds stall,
                                       const std::function<bool(const agent_protocol::DigestEntry &)> &each,
                                       const std::function<bool()> &keep_going) {
    if (const auto problem = agent_protocol::path_problem(request.path); !problem.empty())
        throw std::invalid_argument("cannot digest through lu-agent: " + problem);
    session.send(agent_protocol::encode(request), AgentStream::Clock::now() + stall);
    AgentDigestResult result;
    for (;;) {
        // The stall allowance is per frame; the request's budget bounds the whole.
        const auto frame = next_frame(session, AgentStream::Clock::now() + stall, keep_going);
        if (!frame) {
            result.stopped = true;
            return result;
        }
        if (frame->type == agent_protocol::MessageType::digest_entry) {
            const auto entry = expect<agent_protocol::DigestEntry>(*frame);
            ++result.entries;
            if (!each(entry)) {
                result.stopped = true;
                return result;
            }
            continue;
        }
        const auto done = expect<agent_protocol::Result>(*frame);
        result.error = done.error;
        result.message = done.message;
        return result;
    }
}

}  // namespace liveupdate::agent_client
