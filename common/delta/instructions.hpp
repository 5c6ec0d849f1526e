// How a new file is built from an old one: copy(offset, length) of the old
// file's bytes, and literal data. Encoded as [1][offset u64][length u64] and
// [2][length u32][bytes], little-endian, in the order the new file needs them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace liveupdate::delta {

// Collects instructions; adjacent copies become one.
class InstructionWriter {
public:
    void copy(std::uint64_t offset, std::uint64_t length);
    void literal(std::string_view bytes);
    // Bytes encoded so far (a copy still open for merging not counted).
    std::size_t size() const noexcept { return encoded_.size(); }
    bool empty() const noexcept { return encoded_.empty() && copy_length_ == 0; }
    // The length of the copy still open for merging.
    std::uint64_t open_copy_length() const noexcept { return copy_length_; }
    // What was collected, encoded; the writer starts afresh.
    std::string take();

private:
    void close_copy();
    std::string encoded_;
    std::uint64_t copy_offset_ = 0;
    std::uint64_t copy_length_ = 0;
};

// A data instruction without its bytes: what precedes `size` bytes of data
// sent apart (uncopied). Throws DeltaError above the u32 length.
std::string literal_head(std::size_t size);

struct InstructionHandlers {
    std::function<void(std::uint64_t offset, std::uint64_t length)> copy;
    std::function<void(std::string_view bytes)> literal;
};

// Calls the handlers in order; throws DeltaError on malformed bytes (before
// any handler for the malformed instruction).
void read_instructions(std::string_view encoded, const InstructionHandlers &handlers);

}  // namespace liveupdate::delta
