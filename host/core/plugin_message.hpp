// An lu_message owned by a plugin, released by that plugin's free function.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace liveupdate::host
