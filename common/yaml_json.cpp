#include "common/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "common/utf8.hpp"
#include "common/yaml_load.hpp"

namespace liveupdate::common {
namespace {

namespace json = boost::json;

constexpr int kMaxDepth = 64;

std::string at(const std::string &path, const std::string &why) { return path.empty() ? why : path + ": " + why; }

YamlError error_at(const YAML::Node &node, const std::string &path, const std::string &why) {
    return YamlError(node.Mark().line + 1, node.Mark().column + 1, at(path, why));
}

// The scalar's text, which JSON can carry only as UTF-8.
const std::string &text_of(const YAML::Node &node, const std::string &path) {
    if (!is_valid_utf8(node.Scalar())) throw error_at(node, path, "invalid UTF-8");
    return node.Scalar();
}

json::value plain_scalar(const YAML::Node &node, const std::string &path) {
    const std::string &s = text_of(node, path);
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    static const std::regex integer("[-+]?[0-9]+");
    static const std::regex floating(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    if (std::regex_match(s, integer)) {
        errno = 0;
        const long long v = std::strtoll(s.c_str(), nullptr, 10);
        if (errno == 0) return static_cast<std::int64_t>(v);
    }
    if (std::regex_match(s, floating)) {
        // JSON has no infinity: 1e99999 would be written back as no number at all.
        const double v = std::strtod(s.c_str(), nullptr);
        if (!std::isfinite(v)) throw error_at(node, path, "number out of range: " + s);
        return v;
    }
    return json::string(s);
}

json::value convert(const YAML::Node &node, const std::string &path, int depth) {
    if (depth > kMaxDepth) throw error_at(node, path, "nested deeper than " + std::to_string(kMaxDepth));
    switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Scalar:
        // "!" is yaml-cpp's tag of a quoted scalar; "?" of a plain one.
        if (node.Tag() == "?") return plain_scalar(node, path);
        return json::string(text_of(node, path));
    case YAML::NodeType::Sequence: {
        json::array out;
        std::size_t i = 0;
        for (const auto &item : node) out.push_back(convert(item, path + "[" + std::to_string(i++) + "]", depth + 1));
        return out;
    }
    case YAML::NodeType::Map: {
        json::object out;
        for (const auto &entry : node) {
            if (!entry.first.IsScalar()) throw error_at(entry.first, path, "a key must be a string");
            const std::string &key = text_of(entry.first, path);
            std::string key_path = path;
            if (!key_path.empty()) key_path += '.';
            key_path += key;
            out[key] = convert(entry.second, key_path, depth + 1);
        }
        return out;
    }
    }
    return nullptr;
}

}  // namespace

std::vector<json::value> yaml_documents(std::string_view text) {
    std::vector<YAML::Node> nodes;
    try {
        nodes = load_all_yaml(text);
    } catch (const YamlParserLimitError &e) {
        throw YamlError(e.msg);
    } catch (const YAML::Exception &e) {
        throw YamlError(e.mark.line + 1, e.mark.column + 1, e.msg);
    }
    std::vector<json::value> out;
    for (const auto &node : nodes) {
        if (node.IsNull()) continue;
        out.push_back(convert(node, "", 0));
    }
    return out;
}

}  // namespace liveupdate::common
