#include "host/compose/project_files.hpp"

#include <array>
#include <filesystem>

namespace liveupdate::host::compose {
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 4> kDefaultNames = {"compose.yaml", "compose.yml", "docker-compose.yml",
                                                           "docker-compose.yaml"};
constexpr std::array<std::string_view, 4> kOverrideNames = {
    "compose.override.yaml", "compose.override.yml", "docker-compose.override.yml", "docker-compose.override.yaml"};

}  // namespace

bool is_compose_file_name(std::string_view file_name) {
    for (const auto n : kDefaultNames)
        if (file_name == n) return true;
    for (const auto n : kOverrideNames)
        if (file_name == n) return true;
    return false;
}

std::vector<std::string> compose_files_of(const std::string &path) {
    const fs::path abs = fs::absolute(path).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(abs, ec)) {
        if (is_compose_file_name(abs.filename().string())) return {abs.string()};
        return {};
    }
    std::vector<std::string> files;
    for (const auto n : kDefaultNames)
        if (fs::is_regular_file(abs / n, ec)) {
            files.push_back((abs / n).string());
            break;
        }
    if (files.empty()) return files;
    for (const auto n : kOverrideNames)
        if (fs::is_regular_file(abs / n, ec)) {
            files.push_back((abs / n).string());
            break;
        }
    return files;
}

}  // namespace liveupdate::host::compose
