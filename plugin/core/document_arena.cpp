#include "plugin/core/document_arena.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <new>

#include "common/json_fields.hpp"
#include "common/json_parse.hpp"

namespace liveupdate {

DocumentArena::~DocumentArena() {
    for (const auto &[begin, end] : blocks_) ::operator delete(begin);
}

void *DocumentArena::do_allocate(std::size_t bytes, std::size_t alignment) {
    if (sealed_) return ::operator new(bytes, std::align_val_t(alignment));
    void *at = cursor_;
    std::size_t room = static_cast<std::size_t>(end_ - cursor_);
    if (cursor_ == nullptr || std::align(alignment, bytes, at, room) == nullptr) {
        const std::size_t size = std::max(next_block_, bytes + alignment);
        char *block = static_cast<char *>(::operator new(size));
        blocks_.emplace_back(block, block + size);
        next_block_ = size * 2;
        cursor_ = block;
        end_ = block + size;
        at = cursor_;
        room = size;
        std::align(alignment, bytes, at, room);
    }
    cursor_ = static_cast<char *>(at) + bytes;
    return at;
}

void DocumentArena::do_deallocate(void *p, std::size_t, std::size_t alignment) {
    if (!owns(p)) ::operator delete(p, std::align_val_t(alignment));
}

std::size_t DocumentArena::bytes_reserved() const noexcept {
    std::size_t total = 0;
    for (const auto &[begin, end] : blocks_) total += static_cast<std::size_t>(end - begin);
    return total;
}

bool DocumentArena::owns(const void *p) const noexcept {
    const std::less_equal<const void *> at_or_before;
    const std::less<const void *> before;
    return std::any_of(blocks_.begin(), blocks_.end(),
                       [&](const auto &block) { return at_or_before(block.first, p) && before(p, block.second); });
}

boost::json::value parse_document(std::string_view text, std::size_t max_bytes, std::size_t max_depth) {
    // Boost.JSON's nodes take 2.7 to 3.2 times the text (measured on API objects
    // and snapshots): a first block of that size is usually the only one.
    DocumentArena *arena = nullptr;
    boost::json::storage_ptr storage = boost::json::make_shared_resource<DocumentArena>(3 * text.size() + 512, arena);
    boost::json::value document = common::parse_limited(text, max_bytes, max_depth, std::move(storage));
    arena->seal();
    return document;
}

std::optional<boost::json::value> parse_document_pieces(std::initializer_list<std::string_view> pieces,
                                                        std::size_t max_depth) {
    std::size_t size = 0;
    for (const std::string_view piece : pieces) size += piece.size();
    DocumentArena *arena = nullptr;
    std::optional<boost::json::value> document = common::parse_json_pieces(
        pieces, max_depth, boost::json::make_shared_resource<DocumentArena>(3 * size + 512, arena));
    if (document) arena->seal();
    return document;
}

}  // namespace liveupdate
