#include "common/agent_client/large_file.hpp"

#include <archive.h>

#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/archive_errors.hpp"
#include "common/delta/content_hash.hpp"
#include "common/delta/instructions.hpp"
#include "common/delta/matcher.hpp"
#include "common/delta/signature.hpp"

namespace liveupdate::agent_client {
namespace {

// A part's instructions: large enough to amortise a frame, small enough to stream.
constexpr std::size_t kPartBytes = std::size_t{1} << 20;
// An unchanged stretch goes out in copies of this much, so the agent builds
// while the rest is still being matched.
constexpr std::uint64_t kPartCopyBytes = std::uint64_t{16} << 20;
// Data from this size goes out uncopied, in a part of its own.
constexpr std::size_t kDirectData = std::size_t{64} * 1024;
// At most this much a part: the agent writes a part's data in one write(), and
// 1 MiB writes into the container's page cache cost it twice the CPU of 256 KiB
// ones (measured, a first copy of 200 MiB: 300-640 ms against 170-180 ms).
constexpr std::size_t kDirectPiece = std::size_t{256} * 1024;

// The container's version of the file, when it holds one as a regular file.
std::optional<delta::Signature> base_signature(RequestPipeline &pipeline, const LargeFile &file) {
    if (file.size < kDeltaThreshold) return std::nullopt;
    const auto reply = expect<agent_protocol::BlockSignaturesReply>(
        pipeline.ask(agent_protocol::encode(agent_protocol::BlockSignatures{file.path, file.root})));
    if (reply.error != 0) return std::nullopt;
    try {
        auto signature = delta::decode_signature(reply.signature);
        // Both sides follow one rule: another block size is not this protocol.
        if (signature.block_size != delta::block_size_for(signature.file_size))
            throw delta::DeltaError("blocks of " + std::to_string(signature.block_size) + " bytes for a file of " +
                                    std::to_string(signature.file_size));
        if (signature.blocks.empty()) return std::nullopt;
        return signature;
    } catch (const delta::DeltaError &e) {
        throw AgentSessionBroken("the agent's signatures of " + file.path + ": " + e.what());
    }
}

class PartSender {
public:
    explicit PartSender(RequestPipeline &pipeline) : pipeline_(pipeline) {}
    void copy(std::uint64_t offset, std::uint64_t length) {
        writer_.copy(offset, length);
        if (writer_.open_copy_length() >= kPartCopyBytes) flush();
        send_if_full();
    }
    void literal(std::string_view bytes) {
        writer_.literal(bytes);
        send_if_full();
    }
    // A file's data without a base: a large piece goes out in a part of its
    // own, straight from the archive reader's buffer.
    void data(std::string_view bytes) {
        if (bytes.size() < kDirectData) return literal(bytes);
        flush();
        for (std::size_t at = 0; at < bytes.size(); at += kDirectPiece) {
            const auto piece = bytes.substr(at, kDirectPiece);
            pipeline_.send_unanswered(agent_protocol::file_part_head(delta::literal_head(piece.size()), piece.size()),
                                      piece);
        }
    }
    void flush() {
        if (!writer_.empty())
            pipeline_.send_unanswered(agent_protocol::encode(agent_protocol::FilePart{writer_.take()}));
    }

private:
    void send_if_full() {
        if (writer_.size() >= kPartBytes) flush();
    }
    RequestPipeline &pipeline_;
    delta::InstructionWriter writer_;
};

// Reads the entry's data into the matcher (or straight into data parts); the content's size and hash.
std::pair<std::uint64_t, delta::StrongHash> stream_content(archive *reader, const LargeFile &file,
                                                           const std::optional<delta::Signature> &base,
                                                           PartSender &parts) {
    std::optional<delta::Matcher> matcher;
    if (base)
        matcher.emplace(*base, delta::DeltaSink{[&](std::uint64_t o, std::uint64_t l) { parts.copy(o, l); },
                                                [&](std::string_view bytes) { parts.literal(bytes); }});
    delta::ContentHash hash;
    std::uint64_t size = 0;
    for (;;) {
        // Straight from libarchive's buffer: a large file is not copied once more here.
        const void *block = nullptr;
        std::size_t length = 0;
        la_int64_t offset = 0;
        const int rc = archive_read_data_block(reader, &block, &length, &offset);
        if (rc == ARCHIVE_EOF) break;
        if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
            throw std::runtime_error("reading " + file.path +
                                     " from the update's archive: " + common::archive_error_text(reader));
        if (static_cast<std::uint64_t>(offset) != size)
            throw std::runtime_error("reading " + file.path + " from the update's archive: a sparse entry");
        const std::string_view bytes(static_cast<const char *>(block), length);
        hash.update(bytes);
        size += bytes.size();
        if (matcher)
            matcher->feed(bytes);
        else
            parts.data(bytes);
    }
    if (matcher) matcher->finish();
    parts.flush();
    return {size, hash.digest()};
}

}  // namespace

void send_large_file(RequestPipeline &pipeline, archive *reader, const LargeFile &file) {
    const auto base = base_signature(pipeline, file);
    // Right before its begin: the agent holds an expectation for the next write only.
    if (file.expected) pipeline.send_unanswered(agent_protocol::encode(*file.expected));
    const std::string guarded_path = file.expected ? file.path : std::string();
    pipeline.send_unanswered(agent_protocol::encode(
        agent_protocol::FileBegin{file.path, file.root, file.mode, agent_protocol::kKeepOwner,
                                  agent_protocol::kKeepOwner, static_cast<std::uint8_t>(base ? 1 : 0), file.size}));
    PartSender parts(pipeline);
    try {
        const auto [size, hash] = stream_content(reader, file, base, parts);
        pipeline.send(agent_protocol::encode(agent_protocol::FileCommit{size, hash.low, hash.high}), guarded_path);
    } catch (const AgentSessionBroken &) {
        throw;
    } catch (const std::exception &) {
        // A commit that cannot match: the agent drops the file begun and the session stays in step.
        pipeline.send(
            agent_protocol::encode(agent_protocol::FileCommit{std::numeric_limits<std::uint64_t>::max(), 0, 0}),
            guarded_path);
        throw;
    }
}

}  // namespace liveupdate::agent_client
