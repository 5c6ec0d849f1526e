// The CPU a process (all its threads) or a container (its cgroup: every
// process in it, an exec'd `tar -x` as well as lu-agent) has used so far, in
// milliseconds: a bench's CPU split is the difference across what it times.
// Header-only: each bench is one translation unit.
#pragma once

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace lu_bench {

// utime + stime of /proc/PID/stat (10 ms ticks); -1 when it cannot be read.
inline double process_cpu_ms(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The command name (field 2) may hold spaces: fields are counted after its ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14) utime = std::stoll(field);
        if (i == 15) stime = std::stoll(field);
    }
    return static_cast<double>(utime + stime) * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The CPU of the cgroup that process PID is in: cpuacct.usage (cgroup v1)
// or usage_usec of cpu.stat (v2); -1 when it cannot be read.
inline double cgroup_cpu_ms(long pid) {
    std::ifstream groups("/proc/" + std::to_string(pid) + "/cgroup");
    std::string line, v1, v2;
    while (std::getline(groups, line)) {
        const auto colon = line.find(':');
        const auto second = line.find(':', colon + 1);
        if (colon == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(colon + 1, second - colon - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty()) v2 = path;
        if (("," + controllers + ",").find(",cpuacct,") != std::string::npos) v1 = path;
    }
    if (!v1.empty()) {
        std::ifstream usage("/sys/fs/cgroup/cpuacct" + v1 + "/cpuacct.usage");
        long long ns = -1;
        if (usage >> ns) return static_cast<double>(ns) / 1e6;
    }
    std::ifstream stat("/sys/fs/cgroup" + v2 + "/cpu.stat");
    std::string key;
    long long value = 0;
    while (!v2.empty() && stat >> key >> value)
        if (key == "usage_usec") return static_cast<double>(value) / 1000.0;
    return -1;
}

}  // namespace lu_bench
