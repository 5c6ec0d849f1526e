// The FileWatch kind: what the reconciler reads (ignores and file events).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::api {

struct IgnoreDef {
    std::string base_path;
    std::vector<std::string> patterns;
    bool operator==(const IgnoreDef &) const = default;
};

struct FileEvent {
    MicroTime time;
    std::vector<std::string> seen_files;
    bool operator==(const FileEvent &) const = default;
};

struct FileWatch {
    std::vector<std::string> watched_paths;
    std::vector<IgnoreDef> ignores;
    std::vector<FileEvent> file_events;
};

FileWatch decode_file_watch(const boost::json::object &object);
IgnoreDef decode_ignore_def(const boost::json::object &o, const std::string &path);
boost::json::value encode_ignore_def(const IgnoreDef &def);

}  // namespace liveupdate::api
