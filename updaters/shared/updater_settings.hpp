// An updater's settings (the JSON object its config gives), read alike by the
// docker and kubernetes updaters: known fields only, each of its type, and
// every error std::invalid_argument("<who> updater config: <field>: why").
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>

namespace liveupdate::updaters {

class UpdaterSettings {
public:
    // Blank text reads as {}.
    UpdaterSettings(std::string_view text, std::string who, std::initializer_list<std::string_view> known);

    // Absent or null: "" or the fallback.
    std::string text(std::string_view key) const;
    bool flag(std::string_view key, bool fallback) const;
    // A whole number of seconds from 1 to 86400.
    std::chrono::seconds seconds(std::string_view key, std::chrono::seconds fallback) const;

private:
    [[noreturn]] void refuse(std::string_view why) const;

    boost::json::object object_;
    std::string who_;
};

}  // namespace liveupdate::updaters
