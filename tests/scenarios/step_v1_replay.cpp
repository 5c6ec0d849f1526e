// The replay scenarios again, with the host asking the plugin for stepVersion 1
// steps (one container update at a time): the protocol a host keeps for
// plugins older than stepVersion 2 must give the same results.
#include <iostream>
#include <string>
#include <vector>

#include "host/replay/replay_runner.hpp"

int main(int argc, char **argv) {
    if (argc < 4) {
        std::cerr << "usage: step_v1_replay PLUGIN RECORD_UPDATER SCENARIO.json...\n";
        return 2;
    }
    liveupdate::host::replay::ReplayOptions options;
    options.plugin = argv[1];
    options.record_updater = argv[2];
    options.max_step_version = 1;
    const std::vector<std::string> files(argv + 3, argv + argc);
    return liveupdate::host::replay::run_replay(options, files, std::cout);
}
