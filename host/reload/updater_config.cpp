#include "host/reload/updater_config.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "common/json_fields.hpp"

namespace liveupdate::host::reload {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string kind_of(const json::value &v) {
    switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "a number";
    case json::kind::string: return "a string";
    case json::kind::array: return "an array";
    case json::kind::object: return "an object";
    }
    return "a value";
}

// "line L, column C" of byte offset in text.
std::string position_of(std::string_view text, std::size_t offset) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

json::value parse_document(std::string_view text, const fs::path &file) {
    json::stream_parser parser;
    boost::system::error_code ec;
    const std::size_t used = parser.write_some(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (ec) {
        throw UpdaterConfigError(file.string(), "not valid JSON at " + position_of(text, used) + ": " + ec.message());
    }
    return parser.release();
}

bool valid_class_name(std::string_view name) {
    if (name.empty()) return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '_' || c == '.';
        if (!ok) return false;
    }
    return true;
}

bool is_plugin_name(std::string_view spec) {
    return spec.find('/') == std::string_view::npos && !spec.ends_with(".so");
}

class UpdaterConfigReader {
public:
    UpdaterConfigReader(const fs::path &file, const PluginNameResolver &resolve_name)
        : file_(file), folder_(fs::absolute(file).parent_path()), resolve_name_(resolve_name) {}

    UpdaterChoices read(const json::value &document) const {
        const json::object &top = object_field(document, {""});
        for (const auto &[key, value] : top) {
            if (key != "updaters") fail(std::string(key), "unknown key (expected \"updaters\")");
        }
        const json::value *updaters = common::member_as_written(top, "updaters");
        if (updaters == nullptr) fail("updaters", "missing");
        UpdaterChoices choices;
        for (const auto &[via, entry] : object_field(*updaters, {"updaters"})) {
            const std::string field = "updaters." + std::string(via);
            if (!valid_class_name(via)) {
                fail(field, "an updater class is made of letters, digits, '-', '_' and '.'");
            }
            choices.emplace(std::string(via), choice(entry, field));
        }
        return choices;
    }

private:
    [[noreturn]] void fail(const std::string &field, const std::string &why) const {
        throw UpdaterConfigError(field.empty() ? file_.string() : file_.string() + ": " + field, why);
    }

    const json::object &object_field(const json::value &value, const std::string &field) const {
        if (!value.is_object()) fail(field, "must be an object, not " + kind_of(value));
        return value.as_object();
    }

    UpdaterChoice choice(const json::value &entry, const std::string &field) const {
        const json::object &object = object_field(entry, field);
        for (const auto &[key, value] : object) {
            if (key != "plugin" && key != "settings") {
                fail(field + "." + std::string(key), "unknown key (expected \"plugin\" or \"settings\")");
            }
        }
        const json::value *plugin = common::member_as_written(object, "plugin");
        if (plugin == nullptr) fail(field + ".plugin", "missing");
        if (!plugin->is_string() || plugin->as_string().empty()) {
            fail(field + ".plugin", "must be a plugin name or a file path, not " +
                                        (plugin->is_string() ? std::string("empty") : kind_of(*plugin)));
        }
        UpdaterChoice out;
        out.plugin = plugin_file(std::string_view(plugin->as_string()), field + ".plugin");
        if (const json::value *settings = common::member_as_written(object, "settings")) {
            out.settings = json::serialize(object_field(*settings, field + ".settings"));
        }
        return out;
    }

    fs::path plugin_file(std::string_view spec, const std::string &field) const {
        if (!is_plugin_name(spec)) return (folder_ / fs::path(spec)).lexically_normal();
        if (!resolve_name_) fail(field, "plugin names need a plugin folder; give a path");
        return fs::absolute(resolve_name_(spec)).lexically_normal();
    }

    const fs::path &file_;
    fs::path folder_;
    const PluginNameResolver &resolve_name_;
};

}  // namespace

UpdaterChoices parse_updater_config(std::string_view text, const fs::path &file,
                                    const PluginNameResolver &resolve_name) {
    return UpdaterConfigReader(file, resolve_name).read(parse_document(text, file));
}

UpdaterChoices load_updater_config(const fs::path &file, const PluginNameResolver &resolve_name) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw UpdaterConfigError(file.string(), std::string("cannot read: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw UpdaterConfigError(file.string(), std::string("cannot read: ") + std::strerror(errno));
    return parse_updater_config(text.str(), file, resolve_name);
}

}  // namespace liveupdate::host::reload
