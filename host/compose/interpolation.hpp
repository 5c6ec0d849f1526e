// Compose's variable interpolation in a YAML scalar: $$, $VAR, ${VAR},
// ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error},
// ${VAR:+replacement} and ${VAR+replacement}; defaults, errors and
// replacements may hold further ${...}. The ":" forms treat an empty value as
// unset, as Compose does.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::compose {

// A variable's value, nullopt when it is not set.
using VariableLookup = std::function<std::optional<std::string>(std::string_view name)>;

struct Interpolated {
    std::string text;
    std::vector<std::string> unset;  // plain ${VAR} / $VAR without a value: blank, as Compose warns
};

// The text says what is wrong ("required variable API_KEY is missing a value: set it in .env",
// "invalid interpolation: \"${\" is not closed").
class InterpolationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws InterpolationError for ${VAR:?...} / ${VAR?...} without a value and
// for a malformed template.
Interpolated interpolate(std::string_view text, const VariableLookup &lookup);

}  // namespace liveupdate::host::compose
