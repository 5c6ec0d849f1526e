#include "updaters/shared/update_messages.hpp"

#include <cctype>

namespace liveupdate::updaters {
namespace {

bool needs_quotes(std::string_view arg) {
    if (arg.empty()) return true;
    for (const unsigned char c : arg)
        if (std::isspace(c) || c == '"' || c == '\'') return true;
    return false;
}

std::string shell_quoted(std::string_view arg) {
    std::string out = "'";
    for (const char c : arg) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

bool mentions_permission(std::string_view output) {
    return output.find("Permission denied") != std::string_view::npos ||
           output.find("permission denied") != std::string_view::npos ||
           output.find("Read-only file system") != std::string_view::npos;
}

}  // namespace

std::string run_step_line(std::size_t i, std::size_t count, const std::vector<std::string> &argv) {
    std::string line = "[CMD " + std::to_string(i + 1) + "/" + std::to_string(count) + "]";
    for (const auto &arg : argv) {
        line += ' ';
        line += arg;
    }
    return line;
}

std::string command_text(const std::vector<std::string> &argv) {
    if (argv.size() == 3 && (argv[0] == "sh" || argv[0] == "/bin/sh") && argv[1] == "-c") return argv[2];
    std::string out;
    for (const auto &arg : argv) {
        if (!out.empty()) out += ' ';
        out += needs_quotes(arg) ? shell_quoted(arg) : arg;
    }
    return out;
}

std::string exec_failure(const std::vector<std::string> &argv, int exit_code) {
    std::string message = "command \"" + command_text(argv) + "\" failed with exit code: " + std::to_string(exit_code);
    if (exit_code == kExitKilled) message += " (killed by container runtime)";
    if (exit_code == kExitCannotExec || exit_code == kExitNotFound) message += " (not found in PATH or not executable)";
    return message;
}

std::string output_tail(std::string_view output, std::size_t limit) {
    if (output.size() > limit) output = output.substr(output.size() - limit);
    while (!output.empty() && std::isspace(static_cast<unsigned char>(output.back()))) output.remove_suffix(1);
    while (!output.empty() && std::isspace(static_cast<unsigned char>(output.front()))) output.remove_prefix(1);
    return std::string(output);
}

std::string tar_failure(int exit_code, std::string_view output, std::string_view user, Runtime runtime) {
    static const std::vector<std::string> kTar{"tar", "-C", "/", "-x", "-f", "-"};
    std::string message = "copying changed files: " + exec_failure(kTar, exit_code);
    const auto said = output_tail(output);
    if (!said.empty()) message += "\ntar said: " + said;
    if (exit_code == kExitCannotExec || exit_code == kExitNotFound) {
        message +=
            "\nThe container could not run `tar`: live update unpacks the changed files with the image's own "
            "tar, so the image needs `tar` in $PATH. Images built FROM scratch or distroless lack it "
            "(see tilt-dev/tilt#4303).";
    } else if (exit_code == kTarExitFatal || mentions_permission(output)) {
        const std::string who = user.empty() ? "the image's default user" : "user '" + std::string(user) + "'";
        message +=
            "\nThe container's filesystem refused the write. Check that:\n"
            "  1) the files and directories to replace are writable in the image,\n";
        if (runtime == Runtime::docker)
            message += "  2) " + who +
                       " may write them (the docker updater's \"user\" setting picks another),\n"
                       "  3) the container is not read-only (--read-only) and the paths are not on a read-only volume.";
        else
            message +=
                "  2) the container's user may write them,\n"
                "  3) the Pod's securityContext (readOnlyRootFilesystem, runAsUser) does not forbid the writes.";
    }
    return message;
}

std::string preparation_failure(int exit_code, std::string_view output) {
    std::string message = "Error deleting files from container, or making room for the copied ones: " +
                          exec_failure({"sh", "-c", "..."}, exit_code);
    const auto said = output_tail(output);
    if (!said.empty()) message += "\nrm said: " + said;
    return message;
}

std::string delete_failure(int exit_code, std::string_view output) {
    std::string message = "Error deleting files from container: " + exec_failure({"rm", "-rf", "..."}, exit_code);
    const auto said = output_tail(output);
    if (!said.empty()) message += "\nrm said: " + said;
    if (exit_code == kExitCannotExec || exit_code == kExitNotFound)
        message +=
            "\nThe image has no `rm` (e.g. FROM scratch or distroless), so deleted files cannot be removed "
            "from the container; rebuild the image instead.";
    return message;
}

}  // namespace liveupdate::updaters
