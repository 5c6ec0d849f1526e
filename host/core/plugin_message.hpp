// An lu_message owned by a plugin, released by that plugin's free function,
// and the reading of the JSON a plugin answers with.
#pragma once

#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "common/json_fields.hpp"
#include "host/core/host_error.hpp"
#include "liveupdate/abi.h"

namespace liveupdate::host {

class PluginMessage {
public:
    using FreeFn = void (*)(lu_message *);
    explicit PluginMessage(FreeFn free_fn) : free_(free_fn) {}
    PluginMessage(const PluginMessage &) = delete;
    PluginMessage &operator=(const PluginMessage &) = delete;
    ~PluginMessage() {
        if (message_.data != nullptr) free_(&message_);
    }

    lu_message *out() { return &message_; }
    std::string_view view() const {
        return message_.data == nullptr ? std::string_view{} : std::string_view{message_.data, message_.size};
    }
    std::string str() const { return std::string(view()); }

private:
    FreeFn free_;
    lu_message message_{nullptr, 0};
};

// A plugin's JSON answer; HostError(what, where, "invalid JSON: <reason>") when text is not one JSON value.
inline boost::json::value parse_plugin_json(std::string_view text, const std::string &what, const std::string &where) {
    try {
        return common::parse_limited(text);
    } catch (const common::DecodeError &e) {
        throw HostError(what, where, "invalid JSON: " + std::string(e.what()));
    }
}

}  // namespace liveupdate::host
