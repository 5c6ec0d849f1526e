// Which ABI version a host and a plugin speak: the highest both serve.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "liveupdate/abi.h"

namespace liveupdate::host {

// The ABI versions one side serves, both ends included.
struct AbiRange {
    uint32_t min = 0;
    uint32_t max = 0;

    // "1" for one version, "1..3" for more.
    std::string text() const {
        return min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max);
    }
};

// What this host serves: every revision of ABI 1 only appends, so one version.
inline constexpr AbiRange kHostAbi{1, LU_ABI_VERSION};

// The highest version in both ranges; none when they do not meet (or one is
// empty, min above max).
constexpr std::optional<uint32_t> highest_common_abi(AbiRange host, AbiRange plugin) {
    const uint32_t low = std::max(host.min, plugin.min);
    const uint32_t high = std::min(host.max, plugin.max);
    if (low > high) return std::nullopt;
    return high;
}

}  // namespace liveupdate::host
