#include "up/object_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compose/project_files.hpp"
#include "core/ignore_patterns.hpp"
#include "core/yaml_json.hpp"

namespace liveupdate::up {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxObjectFileBytes = 16 * 1024 * 1024;

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

std::string absolute_of(const std::string &path) { return clean_path(fs::absolute(path).string()); }

void resolve_string(json::value &v, const std::string &dir) {
    if (!v.is_string()) return;  // admission reports wrong types
    const std::string_view text = v.as_string();
    if (!text.empty()) v = join_path(dir, text);
}

json::object *object_member(json::object &o, std::string_view key) {
    auto *v = o.if_contains(key);
    return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

std::string string_of(const json::object &o, std::string_view key) {
    const auto *v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

void resolve_relative_paths(json::object &object, const std::string &dir) {
    json::object *spec = object_member(object, "spec");
    if (spec == nullptr) return;
    const std::string kind = string_of(object, "kind");
    if (kind == "FileWatch") {
        if (auto *paths = spec->if_contains("watchedPaths"); paths != nullptr && paths->is_array())
            for (auto &p : paths->as_array()) resolve_string(p, dir);
        if (auto *ignores = spec->if_contains("ignores"); ignores != nullptr && ignores->is_array())
            for (auto &ig : ignores->as_array())
                if (ig.is_object())
                    if (auto *base = ig.as_object().if_contains("basePath")) resolve_string(*base, dir);
    } else if (kind == "LiveUpdate") {
        if (auto *base = spec->if_contains("basePath")) resolve_string(*base, dir);
    } else if (kind == "LocalContainer") {
        if (auto *root = spec->if_contains("root")) resolve_string(*root, dir);
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
            documents = yaml_documents(text);
        } catch (const YamlError &e) {
            load.errors.push_back(file + ":" + std::to_string(e.line()) + ":" + std::to_string(e.column()) +
                                  ": malformed YAML: " + std::string(e.what()).substr(std::string(e.what()).find(": ") + 2));
            return load;
        }
    } else {
        try {
            documents.push_back(json::parse(text));
        } catch (const std::exception &e) {
            load.errors.push_back(file + ": invalid JSON: " + e.what());
            return load;
        }
    }
    json::array items;
    bool is_list = false;
    for (const auto &doc : documents) {
        if (doc.is_object() && string_of(doc.as_object(), "kind") == "List") {
            is_list = true;
            const auto *list = doc.as_object().if_contains("items");
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
        const std::string kind = string_of(obj, "kind");
        const json::object *meta = object_member(obj, "metadata");
        const std::string name = meta != nullptr ? string_of(*meta, "name") : "";
        if (kind.empty() || name.empty()) {
            load.errors.push_back(where + ": an object needs \"kind\" and \"metadata.name\" strings");
            continue;
        }
        resolve_relative_paths(obj, dir);
        load.objects.push_back({file, kind, name, std::move(obj)});
    }
    return load;
}

FileLoad load_object_file(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        FileLoad load;
        load.file = file;
        load.errors.push_back(file + ": cannot read: " + std::strerror(errno));
        return load;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().size() > kMaxObjectFileBytes) {
        FileLoad load;
        load.file = file;
        load.errors.push_back(file + ": too large (over 16 MiB)");
        return load;
    }
    return parse_object_file(file, text.str());
}

}  // namespace liveupdate::up
