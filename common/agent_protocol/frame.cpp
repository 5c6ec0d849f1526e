#include "common/agent_protocol/frame.hpp"

namespace liveupdate::agent_protocol {

bool is_known(MessageType type) noexcept {
    switch (type) {
    case MessageType::hello:
    case MessageType::write_file:
    case MessageType::make_dir:
    case MessageType::symlink:
    case MessageType::remove:
    case MessageType::run:
    case MessageType::digest:
    case MessageType::file_begin:
    case MessageType::file_part:
    case MessageType::file_commit:
    case MessageType::block_signatures:
    case MessageType::open_socket:
    case MessageType::socket_hello:
    case MessageType::restart_process:
    case MessageType::watch_changes:
    case MessageType::expect_content:
    case MessageType::container_change:
    case MessageType::container_change_part:
    case MessageType::block_signatures_reply:
    case MessageType::socket_reply:
    case MessageType::socket_welcome:
    case MessageType::hello_reply:
    case MessageType::result:
    case MessageType::output:
    case MessageType::exit_status:
    case MessageType::digest_entry:
    case MessageType::fatal: return true;
    }
    return false;
}

const char *type_name(MessageType type) noexcept {
    switch (type) {
    case MessageType::hello: return "hello";
    case MessageType::write_file: return "write";
    case MessageType::make_dir: return "mkdir";
    case MessageType::symlink: return "symlink";
    case MessageType::remove: return "delete";
    case MessageType::run: return "run";
    case MessageType::digest: return "digest";
    case MessageType::file_begin: return "file begin";
    case MessageType::file_part: return "file part";
    case MessageType::file_commit: return "file commit";
    case MessageType::block_signatures: return "block signatures";
    case MessageType::block_signatures_reply: return "block signatures reply";
    case MessageType::open_socket: return "open socket";
    case MessageType::socket_hello: return "socket hello";
    case MessageType::restart_process: return "restart process";
    case MessageType::watch_changes: return "watch changes";
    case MessageType::expect_content: return "expect content";
    case MessageType::container_change: return "container change";
    case MessageType::container_change_part: return "container change part";
    case MessageType::socket_reply: return "socket reply";
    case MessageType::socket_welcome: return "socket welcome";
    case MessageType::hello_reply: return "hello reply";
    case MessageType::result: return "result";
    case MessageType::output: return "output";
    case MessageType::exit_status: return "exit status";
    case MessageType::digest_entry: return "digest entry";
    case MessageType::fatal: return "fatal";
    }
    return "unknown";
}

std::optional<Frame> FrameDecoder::next() {
    const std::size_t available = buffer_.size() - offset_;
    if (available < kHeaderSize) return std::nullopt;
    const auto *head = reinterpret_cast<const unsigned char *>(buffer_.data() + offset_);
    const std::uint32_t size = head[0] | (head[1] << 8) | (head[2] << 16) | (static_cast<std::uint32_t>(head[3]) << 24);
    const auto type = static_cast<MessageType>(head[4]);
    if (!is_known(type)) throw ProtocolError("frame of unknown type " + std::to_string(head[4]));
    if (size > kMaxPayload)
        throw ProtocolError(std::string(type_name(type)) + " frame of " + std::to_string(size) +
                            " bytes exceeds the limit of " + std::to_string(kMaxPayload));
    if (available - kHeaderSize < size) return std::nullopt;
    Frame frame{type, buffer_.substr(offset_ + kHeaderSize, size)};
    offset_ += kHeaderSize + size;
    // Compact once the consumed part dominates, so a long session stays small.
    if (offset_ == buffer_.size()) {
        buffer_.clear();
        offset_ = 0;
    } else if (offset_ > std::size_t{64} * 1024 && offset_ * 2 > buffer_.size()) {
        buffer_.erase(0, offset_);
        offset_ = 0;
    }
    return frame;
}

void FieldWriter::put_le(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void FieldWriter::put(std::string_view v) {
    if (v.size() > kMaxPayload) throw ProtocolError("field of " + std::to_string(v.size()) + " bytes is too large");
    put(static_cast<std::uint32_t>(v.size()));
    out_.append(v);
}

void FieldWriter::put(const std::vector<std::string> &v) {
    put(static_cast<std::uint32_t>(v.size()));
    for (const auto &s : v) put(s);
}

void FieldWriter::put(const std::vector<std::uint64_t> &v) {
    put(static_cast<std::uint32_t>(v.size()));
    for (const std::uint64_t n : v) put(n);
}

std::string frame_header(MessageType type, std::size_t payload_size) {
    if (payload_size > kMaxPayload)
        throw ProtocolError(std::string(type_name(type)) + " frame of " + std::to_string(payload_size) +
                            " bytes exceeds the limit of " + std::to_string(kMaxPayload));
    const auto size = static_cast<std::uint32_t>(payload_size);
    std::string header(kHeaderSize, '\0');
    for (int i = 0; i < 4; ++i) header[static_cast<std::size_t>(i)] = static_cast<char>((size >> (8 * i)) & 0xFF);
    header[4] = static_cast<char>(type);
    return header;
}

std::string FieldWriter::frame(MessageType type) {
    const std::string header = frame_header(type, out_.size() - kHeaderSize);
    out_.replace(0, kHeaderSize, header);
    return std::move(out_);
}

std::uint64_t FieldReader::get_le(int bytes) {
    if (in_.size() < static_cast<std::size_t>(bytes))
        throw ProtocolError("payload ends inside a " + std::to_string(bytes * 8) + "-bit integer");
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[i])) << (8 * i);
    in_.remove_prefix(static_cast<std::size_t>(bytes));
    return v;
}

void FieldReader::get(std::uint8_t &v) { v = static_cast<std::uint8_t>(get_le(1)); }

void FieldReader::get(std::string &v) {
    std::string_view view;
    get(view);
    v.assign(view);
}

void FieldReader::get(std::string_view &v) {
    std::uint32_t size = 0;
    get(size);
    if (in_.size() < size)
        throw ProtocolError("string of " + std::to_string(size) + " bytes but only " + std::to_string(in_.size()) +
                            " left in the payload");
    v = in_.substr(0, size);
    in_.remove_prefix(size);
}

void FieldReader::get(std::vector<std::string> &v) {
    std::uint32_t count = 0;
    get(count);
    // Each string takes at least its 4-byte size: a count beyond that is a lie.
    if (count > in_.size() / 4)
        throw ProtocolError("list of " + std::to_string(count) + " strings in " + std::to_string(in_.size()) +
                            " bytes");
    v.clear();
    v.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) get(v.emplace_back());
}

void FieldReader::get(std::vector<std::uint64_t> &v) {
    std::uint32_t count = 0;
    get(count);
    if (count > in_.size() / 8)
        throw ProtocolError("list of " + std::to_string(count) + " numbers in " + std::to_string(in_.size()) +
                            " bytes");
    v.clear();
    v.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) get(v.emplace_back());
}

void FieldReader::expect_end() const {
    if (!in_.empty()) throw ProtocolError(std::to_string(in_.size()) + " unexpected byte(s) after the last field");
}

}  // namespace liveupdate::agent_protocol
