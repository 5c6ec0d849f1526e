#include "common/delta/instructions.hpp"

#include "common/delta/byte_order.hpp"
#include "common/delta/signature.hpp"

namespace liveupdate::delta {
namespace {

constexpr char kCopy = 1;
constexpr char kLiteral = 2;

}  // namespace

void InstructionWriter::copy(std::uint64_t offset, std::uint64_t length) {
    if (length == 0) return;
    if (copy_length_ != 0 && copy_offset_ + copy_length_ == offset) {
        copy_length_ += length;
        return;
    }
    close_copy();
    copy_offset_ = offset;
    copy_length_ = length;
}

std::string literal_head(std::size_t size) {
    if (size > 0xFFFFFFFFu) throw DeltaError("a data instruction of " + std::to_string(size) + " bytes");
    std::string head(1, kLiteral);
    byte_order::put(head, size, 4);
    return head;
}

void InstructionWriter::literal(std::string_view bytes) {
    if (bytes.empty()) return;
    close_copy();
    encoded_.append(literal_head(bytes.size()));
    encoded_.append(bytes);
}

void InstructionWriter::close_copy() {
    if (copy_length_ == 0) return;
    encoded_.push_back(kCopy);
    byte_order::put(encoded_, copy_offset_, 8);
    byte_order::put(encoded_, copy_length_, 8);
    copy_length_ = 0;
}

std::string InstructionWriter::take() {
    close_copy();
    std::string out;
    out.swap(encoded_);
    return out;
}

void read_instructions(std::string_view in, const InstructionHandlers &handlers) {
    while (!in.empty()) {
        const char tag = in.front();
        in.remove_prefix(1);
        if (tag == kCopy) {
            const auto offset = byte_order::take(in, 8, "a copy instruction");
            const auto length = byte_order::take(in, 8, "a copy instruction");
            handlers.copy(offset, length);
        } else if (tag == kLiteral) {
            const auto length = byte_order::take(in, 4, "a data instruction");
            if (in.size() < length)
                throw DeltaError("a data instruction of " + std::to_string(length) + " bytes has only " +
                                 std::to_string(in.size()));
            handlers.literal(in.substr(0, length));
            in.remove_prefix(length);
        } else {
            throw DeltaError("unknown instruction " + std::to_string(static_cast<unsigned char>(tag)));
        }
    }
}

}  // namespace liveupdate::delta
