// The soak's invariant on the trees: every path of the source is in the
// container with the same kind and content (a symlink: the same target),
// nothing deleted from the source is left there, every file the app wrote is
// there as it wrote it, what it wrote or deleted in the sync-back folder is
// so locally too, a file the app rewrote as the developer saved it keeps the
// app's bytes in the container, and nothing was written outside the sync
// target.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tests/soak/soak_container.hpp"

namespace lu_soak {

struct Divergence {
    std::string path;       // in the container
    std::string invariant;  // which one broke
    std::string detail;     // what is there, what should be
};

std::vector<Divergence> check_trees(const std::filesystem::path &src, const SoakContainer &container);

std::string describe(const std::vector<Divergence> &divergences);

}  // namespace lu_soak
