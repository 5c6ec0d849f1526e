// The Compose command line found on the machine, for the rebuild action:
// `docker compose` (v2) when it answers, else `docker-compose` (v1). v1
// refuses `develop:` and `name:`, so it gets copies of the files without them
// (same project name and folder, so the same .env and relative paths).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::compose {

struct ComposeCli {
    std::vector<std::string> command;  // {"docker", "compose"} or {"docker-compose"}
    bool v1 = false;
};

// Runs `docker compose version`, then `docker-compose version`; nullopt when
// neither answers.
std::optional<ComposeCli> find_compose_cli();

// argv of `up -d --build --no-deps SERVICE` for the project, given the files
// that CLI is to read.
std::vector<std::string> rebuild_argv(const ComposeCli &cli, const std::string &project,
                                      const std::vector<std::string> &files, const std::string &directory,
                                      const std::string &service);

// The compose file's text without services.*.develop and the top-level name
// (for v1). Throws std::runtime_error for malformed YAML.
std::string without_develop(std::string_view compose_text);

// Runs argv (PATH searched), each output line (stdout and stderr) to on_line;
// returns the exit status (127: could not start it).
int run_streaming(const std::vector<std::string> &argv, const std::function<void(std::string_view)> &on_line);

}  // namespace liveupdate::host::compose
