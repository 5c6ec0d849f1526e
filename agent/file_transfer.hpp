// lu-agent's large files: FileBegin, FileParts, FileCommit. The parts build
// a temporary file beside the path, from data and from copies of the file
// there (the base, for a delta); the commit checks the size and XXH3-128 the
// host sent (and, for a guarded file, that the path holds what its
// ExpectContent says: content_guard.hpp) and renames it into place. Nothing is answered before the commit,
// so the parts stream; a failure on the way is kept for the commit's answer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/fs_place.hpp"
#include "agent/signature_cache.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/delta/content_hash.hpp"
#include "common/delta/signature.hpp"

namespace liveupdate::agent {

// A file between its begin and its commit.
struct FileInProgress {
    agent_protocol::FileBegin request;
    std::optional<agent_protocol::ExpectContent> expected;  // what the commit may replace; none: anything
    std::optional<Place> place;
    std::string temporary;  // "" until created
    UniqueFd file;
    UniqueFd base;
    std::uint64_t base_size = 0;
    std::uint64_t written = 0;
    delta::ContentHash hash;
    std::optional<agent_protocol::Result> failed;
    std::optional<delta::SignatureBuilder> signer;  // of the new content, for the next delta
};

class FileTransfer {
public:
    // A file of at least kDeltaMinSize put in place leaves its signatures in `signatures`.
    explicit FileTransfer(SignatureCache &signatures) : signatures_(signatures) {}
    FileTransfer(const FileTransfer &) = delete;
    FileTransfer &operator=(const FileTransfer &) = delete;
    // A file still open (the session ended before its commit) leaves no trace.
    ~FileTransfer();

    // Throw agent_protocol::ProtocolError when out of order (a begin while a
    // file is open, a part or commit without one) or on malformed instructions.
    void begin(const agent_protocol::FileBegin &request, const agent_protocol::ExpectContent *expected = nullptr);
    void part(const agent_protocol::FilePart &request);
    agent_protocol::Result commit(const agent_protocol::FileCommit &request);

private:
    void open(FileInProgress &file);
    void copy_from_base(FileInProgress &file, std::uint64_t offset, std::uint64_t length);
    void append(FileInProgress &file, std::string_view bytes);
    void abandon();
    void remember_signatures(FileInProgress &file);

    SignatureCache &signatures_;
    std::optional<FileInProgress> open_;
    std::vector<char> buffer_;
};

}  // namespace liveupdate::agent
