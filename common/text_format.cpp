#include "common/text_format.hpp"

#include <cstdio>

namespace liveupdate::common {

std::string go_quote(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

std::string go_list(const std::vector<std::string> &items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ' ';
        out += items[i];
    }
    out += ']';
    return out;
}

std::string format_file_change_list(const std::vector<std::string> &paths) {
    constexpr std::size_t kMaxPrinted = 5;
    if (paths.size() <= kMaxPrinted) return go_list(paths);
    std::vector<std::string> shown(paths.begin(), paths.begin() + kMaxPrinted);
    shown.emplace_back("...");
    return go_list(shown);
}

}  // namespace liveupdate::common
