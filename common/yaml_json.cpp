#include "common/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <regex>

#include "common/yaml_load.hpp"

namespace liveupdate::common {
namespace {

namespace json = boost::json;

constexpr int kMaxDepth = 64;

json::value plain_scalar(const std::string &s) {
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
    if (std::regex_match(s, floating)) return std::strtod(s.c_str(), nullptr);
    return json::string(s);
}

json::value convert(const YAML::Node &node, int depth) {
    if (depth > kMaxDepth)
        throw YamlError(node.Mark().line + 1, node.Mark().column + 1,
                        "nested deeper than " + std::to_string(kMaxDepth));
    switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Scalar:
        // "!" is yaml-cpp's tag of a quoted scalar; "?" of a plain one.
        if (node.Tag() == "?") return plain_scalar(node.Scalar());
        return json::string(node.Scalar());
    case YAML::NodeType::Sequence: {
        json::array out;
        for (const auto &item : node) out.push_back(convert(item, depth + 1));
        return out;
    }
    case YAML::NodeType::Map: {
        json::object out;
        for (const auto &entry : node) {
            if (!entry.first.IsScalar())
                throw YamlError(entry.first.Mark().line + 1, entry.first.Mark().column + 1, "a key must be a string");
            out[entry.first.Scalar()] = convert(entry.second, depth + 1);
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
        out.push_back(convert(node, 0));
    }
    return out;
}

}  // namespace liveupdate::common
