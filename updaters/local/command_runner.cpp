#include "updaters/local/command_runner.hpp"

#include "common/line_splitter.hpp"
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
    common::LineSplitter lines(on_line);
    const auto to_lines = [&lines](bool, std::string_view data) { lines.feed(data); };
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
    lines.flush();
    return result;
}

}  // namespace liveupdate::local
