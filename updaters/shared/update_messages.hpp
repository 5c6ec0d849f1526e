// How the updaters word their run steps and failures (in the spirit of Tilt's).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::updaters {

inline constexpr int kExitKilled = 137;
inline constexpr int kExitCannotExec = 126;
inline constexpr int kExitNotFound = 127;
inline constexpr int kTarExitFatal = 2;

// "[CMD i/n] argv...", as Tilt logs run step i (0-based) of count.
std::string run_step_line(std::size_t i, std::size_t count, const std::vector<std::string> &argv);

// A command line for humans: "sh -c X" shows X; arguments with blanks are quoted.
std::string command_text(const std::vector<std::string> &argv);

// `command "make" failed with exit code: 2`, plus the reason for 126/127/137.
std::string exec_failure(const std::vector<std::string> &argv, int exit_code);

enum class Runtime { docker, kubernetes };

// Unpacking with tar failed: names the likely cause (permissions, no tar) and
// includes what tar said.
std::string tar_failure(int exit_code, std::string_view output, std::string_view user,
                        Runtime runtime = Runtime::docker);

// Deleting with rm failed.
std::string delete_failure(int exit_code, std::string_view output);

// The `sh` that deletes paths and makes room for the archive's (path_preparation.hpp) failed.
std::string preparation_failure(int exit_code, std::string_view output);

// The last `limit` bytes of output, trimmed, for a message.
std::string output_tail(std::string_view output, std::size_t limit = 2000);

}  // namespace liveupdate::updaters
