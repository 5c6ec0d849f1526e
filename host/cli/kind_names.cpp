#include "host/cli/kind_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace liveupdate::host::cli {

namespace {

struct Alias {
    const char *kind;
    std::array<const char *, 3> names;  // singular, plural, short
};

constexpr std::array<Alias, 7> kAliases{{
    {"LiveUpdate", {"liveupdate", "liveupdates", "lu"}},
    {"FileWatch", {"filewatch", "filewatches", "fw"}},
    {"LocalContainer", {"localcontainer", "localcontainers", "lc"}},
    {"ImageMap", {"imagemap", "imagemaps", "im"}},
    {"ConfigMap", {"configmap", "configmaps", "cm"}},
    {"DockerComposeService", {"dockercomposeservice", "dockercomposeservices", "dc"}},
    {"KubernetesDiscovery", {"kubernetesdiscovery", "kubernetesdiscoveries", "kd"}},
}};

}  // namespace

std::optional<std::string> kind_from_cli(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto &alias : kAliases)
        for (const char *name : alias.names)
            if (lower == name) return std::string(alias.kind);
    return std::nullopt;
}

std::vector<std::string> kind_plurals() {
    std::vector<std::string> plurals;
    plurals.reserve(kAliases.size());
    for (const auto &alias : kAliases) plurals.emplace_back(alias.names[1]);
    return plurals;
}

}  // namespace liveupdate::host::cli
