// Object files given to `lu-host up`: Tilt v1alpha1 JSON, one object or a
// `List` of them per file, or YAML (.yaml/.yml), one or more documents each an
// object or a List; a folder stands for every such file directly in it
// (compose files aside: those are Compose projects).
//
// Relative paths in objects are resolved against the folder of the file that
// declares them, so that a checkout works wherever it lives:
//   FileWatch      spec.watchedPaths[], spec.ignores[].basePath
//   LiveUpdate     spec.basePath
//   LocalContainer spec.root
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::up {

struct DeclaredObject {
    std::string file;  // absolute path of the declaring file
    std::string kind;
    std::string name;
    boost::json::object object;  // relative paths already resolved
};

struct FileLoad {
    std::string file;
    std::vector<DeclaredObject> objects;
    std::vector<std::string> errors;  // "<file>: <where>: <why>", one per bad object or the whole file
    bool incomplete = false;          // the JSON ended early: maybe a write still in progress
};

// The object files a command-line PATH stands for (sorted); a file that is
// not there yet stands for itself.
std::vector<std::string> object_files_of(const std::string &path);
// True when path is one of the files `given` (a file or folder) stands for.
bool is_object_file_of(const std::string &given, const std::string &path);

// Reads a regular file of at most 16 MiB; anything else is an error.
FileLoad load_object_file(const std::string &file);
// Parses text as if read from file (exposed for tests).
FileLoad parse_object_file(const std::string &file, std::string_view text);

// Resolves the kind's relative path fields against dir (absolute).
void resolve_relative_paths(boost::json::object &object, const std::string &dir);

}  // namespace liveupdate::host::up
