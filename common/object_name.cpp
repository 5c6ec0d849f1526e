#include "common/object_name.hpp"

namespace liveupdate::common {

std::optional<std::string> object_name_problem(std::string_view name) {
    if (name.empty()) return std::string("name is required");
    if (name == "." || name == "..") return "may not be '" + std::string(name) + "'";
    for (const char c : {'/', '%'})
        if (name.find(c) != std::string_view::npos) return std::string("may not contain '") + c + "'";
    if (name.size() > kMaxObjectNameLength)
        return "must be no more than " + std::to_string(kMaxObjectNameLength) + " characters";
    return std::nullopt;
}

}  // namespace liveupdate::common
