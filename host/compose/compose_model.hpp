// What lu-host reads of a Compose project: its name, folder and, per
// service, the build context and the develop.watch rules (Compose Develop
// Specification). Values only; every rule remembers where it was written.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace liveupdate::host::compose {

// A place in a compose file; line and column count from 1.
struct Where {
    std::string file;
    int line = 0;
    int column = 0;
    // Line 0: the whole file (its YAML parse did not finish).
    std::string text() const {
        return line == 0 ? file : file + ":" + std::to_string(line) + ":" + std::to_string(column);
    }
};

// "file:line:column: message".
struct ComposeIssue {
    Where where;
    std::string message;
    std::string text() const { return where.text() + ": " + message; }
};

struct WatchExec {
    std::vector<std::string> command;  // argv; a string command is split as a shell would, without one
    std::string user;
    std::string working_dir;
    std::map<std::string, std::string> environment;
    bool privileged = false;
};

struct WatchRule {
    std::string path;  // as written (interpolated), relative to the project folder or absolute
    std::string action;
    std::optional<std::string> target;
    std::vector<std::string> ignore;   // relative to path
    std::vector<std::string> include;  // relative to path
    bool initial_sync = false;
    std::optional<WatchExec> exec;
    // x-sync-back: container files that come back (ignore syntax, relative to target; docs/sync-back.md).
    std::vector<std::string> sync_back;
    Where sync_back_where;
    Where where;  // the rule
    Where action_where;
    Where path_where;
};

struct Service {
    std::string name;
    std::optional<std::string> build_context;     // as written, relative to the project folder or absolute
    std::optional<std::vector<WatchRule>> watch;  // set when the service has develop.watch
    Where where;
};

struct ComposeFile {
    std::optional<std::string> name;  // top-level name:
    std::map<std::string, Service> services;
};

struct Project {
    std::string name;
    std::string directory;           // absolute: the folder of the first compose file
    std::vector<std::string> files;  // absolute, in merge order
    std::map<std::string, Service> services;
};

}  // namespace liveupdate::host::compose
