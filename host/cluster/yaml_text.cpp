#include "host/cluster/yaml_text.hpp"

#include <yaml-cpp/yaml.h>

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

void emit(YAML::Emitter &out, const json::value &v) {
    switch (v.kind()) {
    case json::kind::object:
        out << YAML::BeginMap;
        for (const auto &member : v.get_object()) {
            out << YAML::Key << std::string(member.key());
            out << YAML::Value;
            emit(out, member.value());
        }
        out << YAML::EndMap;
        break;
    case json::kind::array:
        out << YAML::BeginSeq;
        for (const auto &item : v.get_array()) emit(out, item);
        out << YAML::EndSeq;
        break;
    // Quoted: "true", "1" or "" stay strings when read back.
    case json::kind::string: out << YAML::DoubleQuoted << std::string(v.get_string()); break;
    case json::kind::bool_: out << v.get_bool(); break;
    case json::kind::int64: out << v.get_int64(); break;
    case json::kind::uint64: out << v.get_uint64(); break;
    case json::kind::double_: out << v.get_double(); break;
    case json::kind::null: out << YAML::Null; break;
    }
}

}  // namespace

std::string yaml_documents(const std::vector<json::value> &documents) {
    std::string text;
    for (const auto &doc : documents) {
        YAML::Emitter out;
        emit(out, doc);
        text += "---\n";
        text += out.c_str();
        text += "\n";
    }
    return text;
}

}  // namespace liveupdate::host::cluster
