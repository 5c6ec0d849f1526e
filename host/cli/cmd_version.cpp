// `lu-host --version`: the host's version, the SDK ABI it speaks, where it
// looked for its plugins, the plugins found there and, when a `lu-host up`
// answers on the control socket, the plugins that daemon has loaded.
#include <algorithm>
#include <iostream>
#include <vector>

#include "common/json_fields.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/pretty_json.hpp"
#include "host/core/install_paths.hpp"
#include "host/core/plugin_loader.hpp"
#include "host/up/control_socket.hpp"

namespace liveupdate::host::cli {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string described(const PluginIdentity &identity) {
    return identity.name + " " + identity.version + " (ABI " + std::to_string(identity.abi_min) + ".." +
           std::to_string(identity.abi_max) + ")";
}

std::vector<fs::path> installed_updaters() {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(plugin_directory(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("libupdater_") && name.ends_with(".so")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// Loaded through a probe process first: a broken plugin is reported, not a crash of --version.
template <typename Plugin>
void print_installed(const char *kind, const fs::path &file) {
    std::cout << "  " << kind << std::string(12 - std::string_view(kind).size(), ' ');
    try {
        const auto plugin = Plugin::load(file, PluginLoadOptions{.prober = "/proc/self/exe"});
        std::cout << described(plugin->identity()) << "  " << file.string() << '\n';
    } catch (const std::exception &e) {
        std::cout << "cannot load: " << e.what() << '\n';
    }
}

}  // namespace

int run_version_command() {
    std::cout << "lu-host " << LU_HOST_VERSION << "\nSDK ABI " << LU_ABI_VERSION << '\n';
    std::string looked;
    for (const fs::path &folder : plugin_directories_looked_at())
        looked += (looked.empty() ? "" : ", ") + folder.string();
    std::cout << "plugins looked for in " << looked << "\n";
    std::cout << "installed plugins (" << plugin_directory().string() << "):\n";
    print_installed<LiveUpdatePlugin>("liveupdate", default_liveupdate_plugin());
    for (const fs::path &file : installed_updaters()) print_installed<UpdaterPlugin>("updater", file);

    const std::string socket = up::default_control_socket_path();
    json::value answer;
    try {
        answer = up::control_request(socket, json::object{{"op", "plugins"}});
    } catch (const std::exception &) {
        std::cout << "no lu-host up answers at " << socket << '\n';
        return kExitOk;
    }
    const json::value *plugins = answer.is_object() ? common::member(answer.as_object(), "plugins") : nullptr;
    if (plugins == nullptr || !plugins->is_array()) return kExitOk;
    std::cout << "loaded by the lu-host up at " << socket << ":\n";
    for (const auto &p : plugins->as_array()) {
        if (!p.is_object()) continue;
        const json::object &entry = p.as_object();
        const std::string kind = cell_text(entry, "kind");
        std::cout << "  " << kind << std::string(kind.size() < 12 ? 12 - kind.size() : 1, ' ')
                  << cell_text(entry, "name") << ' ' << cell_text(entry, "version") << " (ABI "
                  << cell_text(entry, "abi") << ")  " << cell_text(entry, "file") << '\n';
    }
    return kExitOk;
}

}  // namespace liveupdate::host::cli
