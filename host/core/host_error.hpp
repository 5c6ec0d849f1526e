// Errors of the host carry what failed, where (a file, an object, a plugin)
// and why, so that one line tells the user what to fix.
#pragma once

#include <stdexcept>
#include <string>

namespace liveupdate::host {

class HostError : public std::runtime_error {
public:
    HostError(std::string what, std::string where, std::string why)
        : std::runtime_error(what + ": " + where + ": " + why),
          what_(std::move(what)),
          where_(std::move(where)),
          why_(std::move(why)) {}

    const std::string &operation() const { return what_; }
    const std::string &location() const { return where_; }
    const std::string &reason() const { return why_; }

private:
    std::string what_;
    std::string where_;
    std::string why_;
};

// A plugin file could not be loaded or refused the host's ABI version.
class PluginLoadError : public HostError {
public:
    using HostError::HostError;
};

// A plugin call failed (non-OK result code, or an answer that is not what the ABI promises).
class PluginCallError : public HostError {
public:
    using HostError::HostError;
};

}  // namespace liveupdate::host
