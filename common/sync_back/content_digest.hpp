// The content digest sync back compares and agrees on (docs/sync-back.md):
// XXH3-64 of a file's bytes, written as 16 lowercase hex digits. One
// definition for every side that computes one: the forward archive, the
// local writes and reads, so that equal bytes always give equal text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::sync_back {

class ContentDigest {
public:
    ContentDigest();
    ~ContentDigest();
    ContentDigest(const ContentDigest &) = delete;
    ContentDigest &operator=(const ContentDigest &) = delete;

    void update(const void *data, std::size_t size);
    // The digest of every byte given so far.
    std::string text() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The text of an XXH3-64 computed elsewhere (lu-agent's), and back:
// nullopt for a text that is not one.
std::string digest_text(std::uint64_t xxh3);
std::optional<std::uint64_t> digest_value(std::string_view text);

}  // namespace liveupdate::sync_back
