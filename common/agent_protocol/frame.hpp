// The lu-agent protocol: frames exchanged on the agent's stdin and stdout
// (or on the unix socket the session moved to: OpenSocket).
// A frame is [payload size: u32 little-endian][type: u8][payload]. Payload
// fields are u8/u32/i32/u64/i64 (little-endian), strings (u32 size + bytes)
// and string lists (u32 count + strings). The host speaks first (Hello); the
// agent answers HelloReply or Fatal, then one answer per request, in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::agent_protocol {

// Bumped on any change of a message's fields; an agent of another version is replaced.
// 3: large files in parts (FileBegin, FilePart, FileCommit) and by delta (BlockSignatures).
// 4: the session moves to a unix socket in the container (OpenSocket, SocketHello).
// 5: a digest hashes only the files it names, within a byte and time budget.
// 6: the process `lu-agent supervise` runs is restarted in place (RestartProcess).
// 7: container files come back (WatchChanges, ContainerChange: docs/sync-back.md);
//    a file past one frame comes in ContainerChangeParts first, and a watch
//    starts from the files the host agreed on (both added within 7: no
//    released agent or host spoke 7 without them).
// 8: a forward write or delete may say what it may replace (ExpectContent):
//    the agent compares before it replaces (docs/sync-back.md).
inline constexpr std::uint32_t kProtocolVersion = 8;
// The oldest version either side still speaks: an agent answers a host of
// this version in it, and a host drives such an agent without what came after
// (sync back: the session stays one-way).
inline constexpr std::uint32_t kOldestProtocolVersion = 6;
inline constexpr std::uint32_t kSyncBackVersion = 7;
inline constexpr std::uint32_t kForwardGuardVersion = 8;
// A small file travels in one frame (at most 1 MiB), a large one in parts of
// about 1 MiB; the largest frame is a large file's block signatures (20 bytes
// a block of up to 128 KiB: 16 MiB holds a 100 GiB file's; beyond, files go
// whole). Larger frames end the session, so neither side buffers more.
inline constexpr std::uint32_t kMaxPayload = 16u * 1024 * 1024;
inline constexpr std::size_t kHeaderSize = 5;

enum class MessageType : std::uint8_t {
    // host -> agent
    hello = 1,
    write_file = 2,
    make_dir = 3,
    symlink = 4,
    remove = 5,
    run = 6,
    digest = 7,
    file_begin = 8,
    file_part = 9,
    file_commit = 10,
    block_signatures = 11,
    open_socket = 12,
    socket_hello = 13,
    restart_process = 14,
    watch_changes = 15,
    expect_content = 16,  // unanswered: it guards the next write or delete
    // agent -> host
    hello_reply = 64,
    result = 65,
    output = 66,
    exit_status = 67,
    digest_entry = 68,
    fatal = 69,
    block_signatures_reply = 70,
    socket_reply = 71,
    socket_welcome = 72,
    container_change = 73,       // unasked: may come between any two answers once a watch began
    container_change_part = 74,  // unasked too: the start of a large file's content
};

bool is_known(MessageType type) noexcept;
const char *type_name(MessageType type) noexcept;

// A malformed frame or field: the session ends with this message.
class ProtocolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Frame {
    MessageType type{};
    std::string payload;
};

// Cuts a byte stream into frames; throws ProtocolError on an unknown type or
// an oversized frame. Memory grows only with the bytes actually received.
class FrameDecoder {
public:
    void feed(std::string_view bytes) { buffer_.append(bytes); }
    std::optional<Frame> next();
    // Bytes of an unfinished frame are waiting.
    bool pending() const noexcept { return buffer_.size() > offset_; }
    // What next() has not taken: after a ProtocolError, the bytes that were not a frame.
    std::string_view unread() const noexcept { return std::string_view(buffer_).substr(offset_); }

private:
    std::string buffer_;
    std::size_t offset_ = 0;
};

// The header of a frame whose payload of payload_size bytes follows it
// (sent apart, uncopied). Throws ProtocolError above kMaxPayload.
std::string frame_header(MessageType type, std::size_t payload_size);

// Appends fields to a payload, after room for the header (so a frame of a
// large file part is not copied again).
class FieldWriter {
public:
    FieldWriter() : out_(kHeaderSize, '\0') {}
    void put(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void put(std::uint32_t v) { put_le(v, 4); }
    void put(std::int32_t v) { put_le(static_cast<std::uint32_t>(v), 4); }
    void put(std::uint64_t v) { put_le(v, 8); }
    void put(std::int64_t v) { put_le(static_cast<std::uint64_t>(v), 8); }
    void put(std::string_view v);
    void put(const std::string &v) { put(std::string_view(v)); }
    void put(const std::vector<std::string> &v);
    void put(const std::vector<std::uint64_t> &v);
    // The whole frame: header and payload; the writer is spent.
    std::string frame(MessageType type);

private:
    void put_le(std::uint64_t v, int bytes);
    std::string out_;
};

// Reads fields from a payload; throws ProtocolError naming the field's type
// when the payload ends early.
class FieldReader {
public:
    explicit FieldReader(std::string_view payload) : in_(payload) {}
    void get(std::uint8_t &v);
    void get(std::uint32_t &v) { v = static_cast<std::uint32_t>(get_le(4)); }
    void get(std::int32_t &v) { v = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_le(4))); }
    void get(std::uint64_t &v) { v = get_le(8); }
    void get(std::int64_t &v) { v = static_cast<std::int64_t>(get_le(8)); }
    void get(std::string &v);
    // A view of the payload's bytes (valid while the payload is).
    void get(std::string_view &v);
    void get(std::vector<std::string> &v);
    void get(std::vector<std::uint64_t> &v);
    void expect_end() const;

private:
    std::uint64_t get_le(int bytes);
    std::string_view in_;
};

}  // namespace liveupdate::agent_protocol
