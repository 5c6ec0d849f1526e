// The status page's files, compiled into lu-host (assets/ → a generated
// source, see CMakeLists.txt): the page works offline, from no folder on disk.
#pragma once

#include <span>
#include <string_view>

namespace liveupdate::host::web {

struct Asset {
    std::string_view path;  // "/index.html"
    std::string_view content_type;
    std::string_view body;
};

std::span<const Asset> embedded_assets();  // generated

// The asset a request target names ("/" is "/index.html"; a query is
// ignored), or nullptr. Names are compared whole, never mapped to files, so
// no target reaches anything else ("/../x", "%2e%2e" or otherwise).
const Asset *find_asset(std::string_view target);

}  // namespace liveupdate::host::web
