// A plugin is first loaded in a short-lived child process (load, check the
// ABI, unload) before the daemon maps it: a plugin whose load crashes (a
// constructor that aborts or faults) or hangs takes down that child, and the
// daemon refuses it with the reason instead of dying.
#pragma once

#include <filesystem>
#include <string_view>

namespace liveupdate::host {

// The hidden subcommand of lu-host that does the child's side.
inline constexpr std::string_view kProbeCommand = "__probe-plugin";

// Runs `prober __probe-plugin KIND FILE` (KIND "liveupdate" or "updater");
// returns when FILE loads there. Throws PluginLoadError naming shown_as and why
// (its load error, the signal it died of, or a time-out) otherwise.
void probe_plugin_in_child(const std::filesystem::path &prober, std::string_view kind,
                           const std::filesystem::path &file, const std::filesystem::path &shown_as);

// The child's side: argv = {"__probe-plugin", KIND, FILE}. Exit 0 when it
// loads and serves the host's ABI; else the reason on stderr and exit 3.
int run_plugin_probe(int argc, char **argv);

}  // namespace liveupdate::host
