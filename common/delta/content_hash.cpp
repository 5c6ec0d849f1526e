#include "common/delta/content_hash.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace liveupdate::delta {

struct ContentHash::State {
    XXH3_state_t xxh;
};

ContentHash::ContentHash() : state_(std::make_unique<State>()) { XXH3_128bits_reset(&state_->xxh); }
ContentHash::~ContentHash() = default;
ContentHash::ContentHash(ContentHash &&) noexcept = default;
ContentHash &ContentHash::operator=(ContentHash &&) noexcept = default;

void ContentHash::update(std::string_view bytes) noexcept {
    XXH3_128bits_update(&state_->xxh, bytes.data(), bytes.size());
}

StrongHash ContentHash::digest() const noexcept {
    const XXH128_hash_t h = XXH3_128bits_digest(&state_->xxh);
    return {h.low64, h.high64};
}

}  // namespace liveupdate::delta
