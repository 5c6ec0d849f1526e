// Thin C++ conveniences over the C ABI, header-only. Nothing here crosses the
// boundary: it only converts between lu_str/lu_message and std types.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "liveupdate/liveupdate_plugin.h"
#include "liveupdate/updater_plugin.h"

namespace liveupdate::abi {

inline lu_str to_lu_str(std::string_view s) noexcept { return lu_str{s.data(), s.size()}; }

inline std::string_view to_view(lu_str s) noexcept {
    return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.size};
}

inline std::string_view to_view(const lu_message &m) noexcept {
    return m.data == nullptr ? std::string_view{} : std::string_view{m.data, m.size};
}

// For plugin authors: a malloc'd, NUL-terminated copy that the plugin's
// free_message releases with release_message.
inline lu_message make_message(std::string_view text) noexcept {
    lu_message m{static_cast<char *>(std::malloc(text.size() + 1)), 0};
    if (m.data != nullptr) {
        if (!text.empty()) std::memcpy(m.data, text.data(), text.size());
        m.data[text.size()] = '\0';
        m.size = text.size();
    }
    return m;
}

inline void release_message(lu_message *m) noexcept {
    if (m == nullptr) return;
    std::free(m->data);
    m->data = nullptr;
    m->size = 0;
}

}  // namespace liveupdate::abi
