#include "host/up/object_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/ignore_patterns.hpp"
#include "common/json_fields.hpp"
#include "common/json_parse.hpp"
#include "common/paths.hpp"
#include "common/yaml_json.hpp"
#include "host/compose/project_files.hpp"

namespace liveupdate::host::up {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxObjectFileBytes = std::size_t{16} * 1024 * 1024;
// As deep as the YAML reader goes (common/yaml_json).
constexpr std::size_t kMaxObjectDepth = 64;

// .json, and .yaml/.yml that are not compose files (those are Compose projects).
bool is_object_file_name(const fs::path &path) {
    const auto ext = path.extension();
    if (ext == ".json") return true;
    return (ext == ".yaml" || ext == ".yml") && !compose::is_compose_file_name(path.filename().string());
}

bool is_yaml(const std::string &file) {
    const auto ext = fs::path(file).extension();
    return ext == ".yaml" || ext == ".yml";
}

std::string absolute_of(const std::string &path) { return common::clean_path(fs::absolute(path).string()); }

void resolve_string(json::value &v, const std::string &dir) {
    if (!v.is_string()) return;  // admission reports wrong types
    const std::string_view text = v.as_string();
    if (!text.empty()) v = common::join_path(dir, text);
}

struct JsonParse {
    json::value value;
    std::string error;  // "LINE:COLUMN: invalid JSON: [FIELD: ]<why>" (1-based): the place in the file
    bool incomplete = false;
};

JsonParse parse_json_at(std::string_view text) {
    try {
        return JsonParse{common::parse_json(text, kMaxObjectDepth), {}, false};
    } catch (const common::JsonParseError &e) {
        std::string error = std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": invalid JSON: ";
        if (!e.field().empty()) error += e.field() + ": ";
        return JsonParse{nullptr, error + e.why(), e.incomplete()};
    }
}

std::string file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

void resolve_relative_paths(json::object &object, const std::string &dir) {
    json::object *spec = common::object_field(object, "spec", "");
    if (spec == nullptr) return;
    const std::string kind = common::string_field(object, {"kind"});
    if (kind == "FileWatch") {
        if (json::value *paths = common::member_as_written(*spec, "watchedPaths");
            paths != nullptr && paths->is_array())
            for (auto &p : paths->as_array()) resolve_string(p, dir);
        if (json::value *ignores = common::member_as_written(*spec, "ignores");
            ignores != nullptr && ignores->is_array())
            for (auto &ig : ignores->as_array())
                if (ig.is_object())
                    if (json::value *base = common::member_as_written(ig.as_object(), "basePath"))
                        resolve_string(*base, dir);
    } else if (kind == "LiveUpdate") {
        if (json::value *base = common::member_as_written(*spec, "basePath")) resolve_string(*base, dir);
    } else if (kind == "LocalContainer") {
        if (json::value *root = common::member_as_written(*spec, "root")) resolve_string(*root, dir);
    }
}

std::vector<std::string> object_files_of(const std::string &path) {
    const std::string abs = absolute_of(path);
    std::error_code ec;
    if (!fs::is_directory(abs, ec)) return {abs};
    std::vector<std::string> files;
    for (const auto &entry : fs::directory_iterator(abs, ec))
        if (is_object_file_name(entry.path()) && !entry.is_directory(ec)) files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

bool is_object_file_of(const std::string &given, const std::string &path) {
    const std::string abs = absolute_of(given);
    if (path == abs) return true;
    std::error_code ec;
    return fs::is_directory(abs, ec) && fs::path(path).parent_path() == abs && is_object_file_name(fs::path(path));
}

FileLoad parse_object_file(const std::string &file, std::string_view text) {
    FileLoad load;
    load.file = file;
    std::vector<json::value> documents;
    if (is_yaml(file)) {
        try {
            documents = common::yaml_documents(text);
        } catch (const common::YamlError &e) {
            if (e.line() == 0) {
                load.errors.push_back(file + ": " + e.what());
                return load;
            }
            load.errors.push_back(
                file + ":" + std::to_string(e.line()) + ":" + std::to_string(e.column()) +
                ": malformed YAML: " + std::string(e.what()).substr(std::string(e.what()).find(": ") + 2));
            return load;
        }
    } else {
        JsonParse parsed = parse_json_at(text);
        if (!parsed.error.empty()) {
            load.errors.push_back(file + ":" + parsed.error);
            load.incomplete = parsed.incomplete;
            return load;
        }
        documents.push_back(std::move(parsed.value));
    }
    json::array items;
    bool is_list = false;
    for (const auto &doc : documents) {
        // A kind of another type is said below, for the object.
        const json::value *kind = doc.is_object() ? common::member(doc.as_object(), "kind") : nullptr;
        if (kind != nullptr && *kind == "List") {
            is_list = true;
            const json::value *list = common::member(doc.as_object(), "items");
            if (list == nullptr || !list->is_array()) {
                load.errors.push_back(file + ": List: \"items\" must be an array");
                continue;
            }
            for (const auto &item : list->as_array()) items.push_back(item);
        } else {
            items.push_back(doc);
        }
    }
    is_list = is_list || documents.size() > 1;
    const std::string dir = fs::path(file).parent_path().string();
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string where = is_list ? file + ": items[" + std::to_string(i) + "]" : file;
        if (!items[i].is_object()) {
            load.errors.push_back(where + ": not a JSON object");
            continue;
        }
        json::object obj = items[i].as_object();
        try {
            const std::string kind = common::string_field(obj, {"kind"});
            const std::string name = common::string_field(obj, {"metadata", "name"});
            if (kind.empty() || name.empty()) {
                load.errors.push_back(where + ": an object needs \"kind\" and \"metadata.name\" strings");
                continue;
            }
            resolve_relative_paths(obj, dir);
            load.objects.push_back({file, kind, name, std::move(obj)});
        } catch (const common::DecodeError &e) {
            load.errors.push_back(where + ": " + e.what());
        }
    }
    return load;
}

FileLoad load_object_file(const std::string &file) {
    FileLoad load;
    load.file = file;
    // Non-blocking: opening a FIFO must not wait for a writer. Only a regular
    // file is read (a device would never end), and never past the limit.
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        load.errors.push_back(file + ": cannot read: " + std::strerror(errno));
        return load;
    }
    struct stat st {};
    const bool stat_ok = ::fstat(fd, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode)) {
        const std::string why = stat_ok ? file_kind(st.st_mode) : std::strerror(errno);
        ::close(fd);
        load.errors.push_back(file + ": not read: " + why + ", only regular files hold objects");
        return load;
    }
    std::string text;
    char buf[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            load.errors.push_back(file + ": cannot read: " + std::strerror(errno));
            ::close(fd);
            return load;
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > kMaxObjectFileBytes) {
            ::close(fd);
            load.errors.push_back(file + ": too large (over 16 MiB)");
            return load;
        }
    }
    ::close(fd);
    return parse_object_file(file, text);
}

}  // namespace liveupdate::host::up
