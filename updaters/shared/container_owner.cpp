#include "updaters/shared/container_owner.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace liveupdate::updaters {
namespace {

std::optional<std::uint32_t> number(std::string_view text) {
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// The colon-separated fields of each line that is not blank or a comment.
std::vector<std::vector<std::string_view>> records(std::string_view text) {
    std::vector<std::vector<std::string_view>> out;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line.empty() || line.front() == '#') continue;
        std::vector<std::string_view> fields;
        for (std::size_t from = 0;;) {
            const std::size_t colon = line.find(':', from);
            fields.push_back(
                line.substr(from, colon == std::string_view::npos ? std::string_view::npos : colon - from));
            if (colon == std::string_view::npos) break;
            from = colon + 1;
        }
        out.push_back(std::move(fields));
    }
    return out;
}

}  // namespace

Owner resolve_owner(std::string_view user, std::string_view passwd, std::string_view group) {
    const std::size_t colon = user.find(':');
    const std::string_view user_part = user.substr(0, colon);
    const std::string_view group_part = colon == std::string_view::npos ? std::string_view() : user.substr(colon + 1);

    Owner owner;
    bool found = false;
    const std::optional<std::uint32_t> uid = number(user_part);
    // passwd: name:password:uid:gid:...; a numeric user may also have an entry, for its primary group.
    for (const auto &f : records(passwd)) {
        if (f.size() < 4) continue;
        const auto entry_uid = number(f[2]);
        const auto entry_gid = number(f[3]);
        if (!entry_uid || !entry_gid) continue;
        if (uid ? *entry_uid == *uid : f[0] == user_part) {
            owner = Owner{*entry_uid, *entry_gid};
            found = true;
            break;
        }
    }
    if (!found) {
        if (!uid)
            throw std::invalid_argument("user '" + std::string(user_part) +
                                        "' is not in the container's /etc/passwd (give it as uid:gid)");
        owner = Owner{*uid, 0};  // Docker's primary group for a uid without an entry
    }
    if (group_part.empty()) return owner;
    if (const auto gid = number(group_part)) {
        owner.gid = *gid;
        return owner;
    }
    // group: name:password:gid:members
    for (const auto &f : records(group)) {
        if (f.size() < 3 || f[0] != group_part) continue;
        if (const auto gid = number(f[2])) {
            owner.gid = *gid;
            return owner;
        }
    }
    throw std::invalid_argument("group '" + std::string(group_part) +
                                "' is not in the container's /etc/group (give it as uid:gid)");
}

}  // namespace liveupdate::updaters
