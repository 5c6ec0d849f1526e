// libFuzzer target over Compose's variable interpolation (every scalar of a
// compose file goes through it): any text must end in a result or an
// InterpolationError, never a crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/compose/interpolation.hpp"

using namespace liveupdate::host::compose;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    // Set, set but empty, and unset variables: each ${VAR...} form has all three to take.
    const VariableLookup lookup = [](std::string_view name) -> std::optional<std::string> {
        if (name == "A") return std::string("a");
        if (name == "EMPTY") return std::string();
        if (name == "NESTED") return std::string("${A}");
        return std::nullopt;
    };
    try {
        (void)interpolate(text, lookup);
    } catch (const InterpolationError &) {
        // A malformed template or a required variable without a value.
    }
    return 0;
}
