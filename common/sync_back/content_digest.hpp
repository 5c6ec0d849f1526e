// The content digest sync back compares and agrees on (docs/sync-back.md):
// XXH3-64 of a file's bytes, written as 16 lowercase hex digits. One
// definition for every side that computes one: the forward archive, the
// local writes and reads, so that equal bytes always give equal text.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

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

}  // namespace liveupdate::sync_back
