// `lu-host replay`: runs scenario files through the real host machinery (the
// liveupdate plugin, the object store, the reconcile driver, the executor and
// its archive builder) with a fake clock and the record updater.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "liveupdate/liveupdate_plugin.h"

namespace liveupdate::host::replay {

struct ReplayOptions {
    std::filesystem::path plugin;          // the liveupdate plugin
    std::filesystem::path record_updater;  // libupdater_record.so
    bool dump = false;                     // print the checked state after each step
    // The newest step version asked of the plugin; 1 drives it as a host of
    // stepVersion 1 does (the updates of one change one at a time).
    int max_step_version = LU_STEP_VERSION;
};

// Runs one scenario; prints "PASS <file>" or one "FAIL <file>: ..." line per
// failure to out. Returns true when it passed. Never throws.
bool run_scenario_file(const ReplayOptions &options, const std::string &file, std::ostream &out);

// Runs every file, then prints "N passed, M failed". Returns the exit code:
// 0 when all passed, 1 otherwise.
int run_replay(const ReplayOptions &options, const std::vector<std::string> &files, std::ostream &out);

}  // namespace liveupdate::host::replay
