// The FileWatch kind: what the reconciler reads (ignores and file events).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/ignore_defs.hpp"
#include "common/micro_time.hpp"

namespace liveupdate::api {

struct FileEvent {
    common::MicroTime time;
    std::vector<std::string> seen_files;
    bool operator==(const FileEvent &) const = default;
};

struct FileWatch {
    std::vector<std::string> watched_paths;
    std::vector<common::IgnoreDef> ignores;
    std::vector<FileEvent> file_events;
};

FileWatch decode_file_watch(const boost::json::object &object);

}  // namespace liveupdate::api
