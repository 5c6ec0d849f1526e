#include "common/sync_back/content_digest.hpp"

#include <cstdio>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace liveupdate::sync_back {

struct ContentDigest::State {
    XXH3_state_t xxh;
};

ContentDigest::ContentDigest() : state_(std::make_unique<State>()) { XXH3_64bits_reset(&state_->xxh); }

ContentDigest::~ContentDigest() = default;

void ContentDigest::update(const void *data, std::size_t size) { XXH3_64bits_update(&state_->xxh, data, size); }

std::string ContentDigest::text() const {
    char text[24];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(XXH3_64bits_digest(&state_->xxh)));
    return text;
}

}  // namespace liveupdate::sync_back
