// Tilt's MicroTime: RFC 3339 in UTC with exactly six fractional digits.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::common {

class MicroTime {
public:
    constexpr MicroTime() = default;
    constexpr explicit MicroTime(std::int64_t micros_since_epoch) : micros_(micros_since_epoch) {}

    // Accepts RFC 3339 with 0-9 fractional digits and a Z or ±hh:mm offset;
    // nullopt when the text is not such a time or falls outside [earliest, latest].
    static std::optional<MicroTime> parse(std::string_view text);
    static MicroTime from_system(std::chrono::system_clock::time_point tp);
    // The range format() can write and parse() reads back: years 0000 to 9999.
    static MicroTime earliest();
    static MicroTime latest();

    // "2026-01-01T00:00:01.000000Z"; the zero time formats as "" (Tilt omits it).
    std::string format() const;

    constexpr bool is_zero() const { return micros_ == 0; }
    constexpr std::int64_t micros() const { return micros_; }
    constexpr auto operator<=>(const MicroTime &) const = default;

private:
    std::int64_t micros_ = 0;
};

}  // namespace liveupdate::common
