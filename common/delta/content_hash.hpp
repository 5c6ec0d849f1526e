// The XXH3-128 of a whole file's content, fed in pieces: what the agent
// checks a delta-built or chunked file against before renaming it into place.
#pragma once

#include <memory>
#include <string_view>

#include "common/delta/signature.hpp"

namespace liveupdate::delta {

class ContentHash {
public:
    ContentHash();
    ~ContentHash();
    ContentHash(ContentHash &&) noexcept;
    ContentHash &operator=(ContentHash &&) noexcept;
    void update(std::string_view bytes) noexcept;
    StrongHash digest() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace liveupdate::delta
