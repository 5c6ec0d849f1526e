#include "common/micro_time.hpp"

#include <cstdio>

namespace liveupdate::common {
namespace {

// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
    std::int64_t year;
    unsigned month, day;
};

constexpr Civil civil_from_days(std::int64_t z) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return {y + (m <= 2 ? 1 : 0), m, d};
}

bool read_digits(std::string_view s, std::size_t &pos, std::size_t count, int &out) {
    if (pos + count > s.size()) return false;
    int v = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const char c = s[pos + i];
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    pos += count;
    out = v;
    return true;
}

bool expect(std::string_view s, std::size_t &pos, char c) {
    if (pos >= s.size() || (s[pos] != c && !(c == 'T' && s[pos] == 't'))) return false;
    ++pos;
    return true;
}

}  // namespace

std::optional<MicroTime> MicroTime::parse(std::string_view s) {
    std::size_t pos = 0;
    int year, month, day, hour, minute, second;
    if (!read_digits(s, pos, 4, year) || !expect(s, pos, '-') || !read_digits(s, pos, 2, month) ||
        !expect(s, pos, '-') || !read_digits(s, pos, 2, day) || !expect(s, pos, 'T') || !read_digits(s, pos, 2, hour) ||
        !expect(s, pos, ':') || !read_digits(s, pos, 2, minute) || !expect(s, pos, ':') ||
        !read_digits(s, pos, 2, second))
        return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
    std::int64_t micros = 0;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int digits = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
            if (digits < 6) micros = micros * 10 + (s[pos] - '0');
            ++digits;
            ++pos;
        }
        if (digits == 0 || digits > 9) return std::nullopt;
        for (int i = digits; i < 6; ++i) micros *= 10;
    }
    std::int64_t offset_seconds = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        const int sign = s[pos] == '-' ? -1 : 1;
        ++pos;
        int oh, om;
        if (!read_digits(s, pos, 2, oh) || !expect(s, pos, ':') || !read_digits(s, pos, 2, om)) return std::nullopt;
        offset_seconds = sign * (std::int64_t{oh} * 3600 + std::int64_t{om} * 60);
    } else {
        return std::nullopt;
    }
    if (pos != s.size()) return std::nullopt;
    const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const std::int64_t seconds =
        days * 86400 + std::int64_t{hour} * 3600 + std::int64_t{minute} * 60 + second - offset_seconds;
    const MicroTime t(seconds * 1'000'000 + micros);
    // An offset can push a time past year 9999, which format() could not write back.
    if (t < earliest() || latest() < t) return std::nullopt;
    return t;
}

MicroTime MicroTime::earliest() { return MicroTime(days_from_civil(0, 1, 1) * 86400 * 1'000'000); }

MicroTime MicroTime::latest() { return MicroTime((days_from_civil(9999, 12, 31) + 1) * 86400 * 1'000'000 - 1); }

MicroTime MicroTime::from_system(std::chrono::system_clock::time_point tp) {
    return MicroTime(std::chrono::duration_cast<std::chrono::microseconds>(tp.time_since_epoch()).count());
}

std::string MicroTime::format() const {
    if (is_zero()) return {};
    std::int64_t seconds = micros_ / 1'000'000;
    std::int64_t frac = micros_ % 1'000'000;
    if (frac < 0) {
        frac += 1'000'000;
        seconds -= 1;
    }
    std::int64_t days = seconds / 86400;
    std::int64_t rem = seconds % 86400;
    if (rem < 0) {
        rem += 86400;
        days -= 1;
    }
    const Civil c = civil_from_days(days);
    if (c.year < 0 || c.year > 9999) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ", static_cast<long long>(c.year),
                      c.month, c.day, static_cast<long long>(rem / 3600), static_cast<long long>(rem % 3600 / 60),
                      static_cast<long long>(rem % 60), static_cast<long long>(frac));
        return buf;
    }
    // Snapshots and statuses write thousands of times; printf was most of their cost.
    char text[] = "0000-00-00T00:00:00.000000Z";
    const auto digits = [&text](std::size_t at, std::size_t width, std::int64_t value) {
        for (std::size_t i = at + width; i-- > at; value /= 10) text[i] = static_cast<char>('0' + value % 10);
    };
    digits(0, 4, c.year);
    digits(5, 2, c.month);
    digits(8, 2, c.day);
    digits(11, 2, rem / 3600);
    digits(14, 2, rem % 3600 / 60);
    digits(17, 2, rem % 60);
    digits(20, 6, frac);
    return std::string(text, sizeof text - 1);
}

}  // namespace liveupdate::common
