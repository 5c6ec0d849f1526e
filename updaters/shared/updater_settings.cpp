#include "updaters/shared/updater_settings.hpp"

#include <stdexcept>

#include "common/json_fields.hpp"

namespace liveupdate::updaters {

UpdaterSettings::UpdaterSettings(std::string_view text, std::string who, std::initializer_list<std::string_view> known)
    : who_(std::move(who)) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
    boost::json::value value;
    try {
        value = common::parse_limited(text);
    } catch (const common::DecodeError &e) {
        refuse(std::string("not JSON: ") + e.what());
    }
    if (!value.is_object()) refuse("must be a JSON object");
    object_ = std::move(value.as_object());
    for (const auto &field : object_) {
        bool found = false;
        for (const auto key : known) found = found || key == field.key();
        if (!found) refuse("unknown field '" + std::string(field.key()) + "'");
    }
}

void UpdaterSettings::refuse(std::string_view why) const {
    throw std::invalid_argument(who_ + " updater config: " + std::string(why));
}

std::string UpdaterSettings::text(std::string_view key) const {
    try {
        return common::string_field(object_, {key});
    } catch (const common::DecodeError &e) {
        refuse(e.what());
    }
}

bool UpdaterSettings::flag(std::string_view key, bool fallback) const {
    try {
        return common::bool_field(object_, {key}, fallback);
    } catch (const common::DecodeError &e) {
        refuse(e.what());
    }
}

std::chrono::seconds UpdaterSettings::seconds(std::string_view key, std::chrono::seconds fallback) const {
    std::int64_t n = 0;
    try {
        n = common::int_field(object_, {key}, fallback.count());
    } catch (const common::DecodeError &) {
        n = 0;  // refused below, with the range
    }
    if (n <= 0 || n > 24 * 3600)
        refuse("'" + std::string(key) + "' must be a whole number of seconds between 1 and 86400");
    return std::chrono::seconds(n);
}

}  // namespace liveupdate::updaters
