#include "common/sync_back/content_digest.hpp"

#include <charconv>
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

std::string ContentDigest::text() const { return digest_text(XXH3_64bits_digest(&state_->xxh)); }

std::string digest_text(std::uint64_t xxh3) {
    char text[24];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(xxh3));
    return text;
}

std::optional<std::uint64_t> digest_value(std::string_view text) {
    if (text.size() != 16) return std::nullopt;
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace liveupdate::sync_back
