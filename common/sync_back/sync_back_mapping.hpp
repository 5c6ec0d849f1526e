// Which container files come back, and where: a sync rule's containerPath and
// localPath with its syncBack patterns (the ignore syntax, relative to
// containerPath: a pattern that names a folder brings everything beneath it,
// "!" excepts, the last match wins).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ignore_patterns.hpp"

namespace liveupdate::sync_back {

class SyncBackMapping {
public:
    // local_path and container_path absolute and clean; throws
    // std::invalid_argument naming a malformed pattern.
    SyncBackMapping(std::string local_path, std::string container_path, const std::vector<std::string> &patterns);

    // The name of container_file relative to containerPath when it lies
    // beneath it and a pattern asks for it; nullopt otherwise (containerPath
    // itself included: the rule's root never comes back as a file). A
    // temporary of liveupdate's own (agent_protocol::is_temporary_name: a
    // forward write on its way into place) is never wanted.
    std::optional<std::string> wanted(std::string_view container_file) const;
    // Where a wanted name lands: localPath joined with it (the name checked first).
    std::string local_file(std::string_view name) const;

    const std::string &local_path() const { return local_path_; }
    const std::string &container_path() const { return container_path_; }

private:
    std::string local_path_;
    std::string container_path_;
    common::IgnorePatterns patterns_;
};

}  // namespace liveupdate::sync_back
