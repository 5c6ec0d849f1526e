// Memory for the nodes of one parsed JSON document (an object as received, a
// snapshot being restored): bump allocation while it is parsed, released in
// one go with the last value that uses it. Thousands of small heap blocks per
// snapshot made restoring and dropping state cost more than decoding it.
//
// Copying a Boost.JSON value keeps the source's memory resource, so a copy of
// a document's part made later, on any thread, would allocate here. Sealing
// after the parse sends such allocations to the heap: the arena never grows
// again and is never written by two threads.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate {

class DocumentArena final : public boost::json::memory_resource {
public:
    // self receives the arena's address: make_shared_resource wraps the arena
    // in a resource of its own, so the storage_ptr does not point at it.
    DocumentArena(std::size_t first_block, DocumentArena *&self) : next_block_(first_block) { self = this; }
    DocumentArena(const DocumentArena &) = delete;
    DocumentArena &operator=(const DocumentArena &) = delete;
    ~DocumentArena() override;

    // Before: one thread allocates from the arena. After: the heap serves, any thread.
    void seal() noexcept { sealed_ = true; }
    // The size of the blocks taken so far: grows only before sealing.
    std::size_t bytes_reserved() const noexcept;

private:
    void *do_allocate(std::size_t bytes, std::size_t alignment) override;
    void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override;
    bool do_is_equal(const boost::json::memory_resource &other) const noexcept override { return this == &other; }
    bool owns(const void *p) const noexcept;

    std::vector<std::pair<char *, char *>> blocks_;  // [begin, end)
    char *cursor_ = nullptr;
    char *end_ = nullptr;
    std::size_t next_block_;
    bool sealed_ = false;
};

// Parses text (limits as common::parse_limited) into a value whose nodes
// live in a sealed DocumentArena of its own.
boost::json::value parse_document(std::string_view text, std::size_t max_bytes = 64u << 20, std::size_t max_depth = 64);

// The same, by the same rules (no key twice, no infinity), for a document
// given as consecutive pieces of text; nullopt when they do not make one
// valid document within max_depth (the caller knows why it split the text,
// and parses it whole for the error).
std::optional<boost::json::value> parse_document_pieces(std::initializer_list<std::string_view> pieces,
                                                        std::size_t max_depth);

}  // namespace liveupdate
