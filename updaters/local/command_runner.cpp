#include "updaters/local/command_runner.hpp"

#include "common/subprocess/run_process.hpp"

namespace liveupdate::local {

CommandResult run_command(const std::vector<std::string> &argv, const std::string &working_dir,
                          const subprocess::EnvVars &extra_env,
                          const std::function<void(std::string_view line)> &on_line) {
    CommandResult result;
    if (argv.empty()) {
        result.start_error = "empty command";
        return result;
    }
    // Every '\n' ends a line (empty ones too); the rest is a last line.
    std::string pending;
    const auto to_lines = [&pending, &on_line](bool, std::string_view data) {
        pending.append(data);
        std::size_t start = 0;
        for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
            on_line(std::string_view(pending).substr(start, nl - start));
        pending.erase(0, start);
    };
    try {
        result.exit_code =
            subprocess::run_process(
                {.argv = argv, .cwd = working_dir, .extra_env = extra_env, .on_output = to_lines, .merge_output = true})
                .exit_code;
    } catch (const subprocess::StartError &e) {
        result.start_error = e.what();
        return result;
    }
    result.started = true;
    if (!pending.empty()) on_line(pending);
    return result;
}

}  // namespace liveupdate::local
