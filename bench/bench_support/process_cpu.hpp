// CPU time of processes on this machine, read from /proc and the cgroup
// files: the run time of a process's threads (/proc/PID/task/*/schedstat,
// in nanoseconds: a few edits' worth is below /proc/PID/stat's clock tick;
// a thread that ended meanwhile is not counted), a whole process's utime +
// stime (ended threads included), and a container's cgroup (every process in
// it, an exec'd `tar -x` as well as lu-agent). Header-only: each bench is one
// translation unit.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace lu_bench {

// The fields of /proc/PID/stat after the command name ("S ppid ..."); empty when gone.
inline std::vector<std::string> stat_fields(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line((std::istreambuf_iterator<char>(in)), {});
    const auto end_of_name = line.rfind(')');
    if (end_of_name == std::string::npos) return {};
    std::istringstream rest(line.substr(end_of_name + 1));
    std::vector<std::string> fields;
    for (std::string field; rest >> field;) fields.push_back(field);
    return fields;
}

// The run time of a process's live threads, in microseconds (0 when gone).
inline double cpu_us(int pid) {
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    std::error_code error;
    double ns = 0;
    for (const auto &task : std::filesystem::directory_iterator(tasks, error)) {
        std::ifstream in(task.path() / "schedstat");
        double run = 0;
        if (in >> run) ns += run;
    }
    return ns / 1000;
}

inline int parent_of(int pid) {
    const auto fields = stat_fields(pid);
    return fields.size() > 1 ? std::atoi(fields[1].c_str()) : 0;
}

// Every process whose command name (/proc/PID/comm) is name (or, with prefix, starts with it) and, when parent
// is not 0, has that parent.
inline std::vector<int> processes_named(const std::string &name, int parent = 0, bool prefix = false) {
    std::vector<int> found;
    for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
        const std::string id = entry.path().filename().string();
        if (id.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream comm(entry.path() / "comm");
        std::string command;
        std::getline(comm, command);
        const int pid = std::atoi(id.c_str());
        const bool named = prefix ? command.starts_with(name) : command == name;
        if (named && (parent == 0 || parent_of(pid) == parent)) found.push_back(pid);
    }
    return found;
}

inline double cpu_us(const std::vector<int> &pids) {
    double total = 0;
    for (const int pid : pids) total += cpu_us(pid);
    return total;
}

// utime + stime of /proc/PID/stat (clock ticks) in milliseconds; -1 when it cannot be read.
inline double process_cpu_ms(long pid) {
    const auto fields = stat_fields(static_cast<int>(pid));
    // Fields 14 and 15 of the file; stat_fields starts at field 3.
    if (fields.size() < 13) return -1;
    const double ticks = std::stod(fields[11]) + std::stod(fields[12]);
    return ticks * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
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
