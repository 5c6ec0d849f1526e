#include "common/sync_back/sync_back_limits.hpp"

#include <algorithm>

#include "common/utf8.hpp"

namespace liveupdate::sync_back {

std::string name_refusal(std::string_view name, const Limits &limits) {
    if (name.empty()) return "an empty name";
    if (name.find('\0') != std::string_view::npos) return "a name with a NUL byte";
    if (!common::is_valid_utf8(name)) return "a name that is not UTF-8";
    if (name.front() == '/') return "an absolute name";
    if (name.size() > limits.max_name_bytes)
        return "a name of " + std::to_string(name.size()) + " bytes (at most " + std::to_string(limits.max_name_bytes) +
               ")";
    std::size_t begin = 0;
    while (begin <= name.size()) {
        std::size_t end = name.find('/', begin);
        if (end == std::string_view::npos) end = name.size();
        const std::string_view segment = name.substr(begin, end - begin);
        if (segment.empty()) return "a name with an empty segment";
        if (segment == "." || segment == "..") return "a name with a \"" + std::string(segment) + "\" segment";
        if (segment.size() > limits.max_segment_bytes)
            return "a name segment of " + std::to_string(segment.size()) + " bytes (at most " +
                   std::to_string(limits.max_segment_bytes) + ")";
        begin = end + 1;
    }
    return {};
}

std::string size_refusal(std::uint64_t bytes, const Limits &limits) {
    if (bytes <= limits.max_file_bytes) return {};
    return "a file of " + std::to_string(bytes) + " bytes (at most " + std::to_string(limits.max_file_bytes) + ")";
}

RateBudget::RateBudget(std::uint32_t per_second, std::uint32_t burst)
    : per_second_(per_second),
      capacity_milli_(std::int64_t{std::max(burst, std::uint32_t{1})} * 1000),
      level_milli_(capacity_milli_) {}

bool RateBudget::take(std::int64_t now_ms) {
    // A clock that goes back refills nothing.
    if (started_ && now_ms > last_ms_)
        level_milli_ = std::min(capacity_milli_, level_milli_ + (now_ms - last_ms_) * std::int64_t{per_second_});
    if (!started_ || now_ms > last_ms_) last_ms_ = now_ms;
    started_ = true;
    if (level_milli_ < 1000) return false;
    level_milli_ -= 1000;
    return true;
}

}  // namespace liveupdate::sync_back
