#include "host/web/assets.hpp"

namespace liveupdate::host::web {

const Asset *find_asset(std::string_view target) {
    std::string_view path = target.substr(0, target.find('?'));
    if (path == "/") path = "/index.html";
    for (const Asset &asset : embedded_assets())
        if (asset.path == path) return &asset;
    return nullptr;
}

}  // namespace liveupdate::host::web
