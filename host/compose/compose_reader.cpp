#include "host/compose/compose_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <set>

#include "common/utf8.hpp"
#include "common/yaml_load.hpp"
#include "host/compose/command_words.hpp"

namespace liveupdate::host::compose {
namespace {

// `unknown key "KEY" in AT` followed by rest (where and what is valid).
std::string unknown_key(const std::string &key, const std::string &at, std::string_view rest) {
    std::string message = "unknown key \"";
    message += key;
    message += "\" in ";
    message += at;
    message += rest;
    return message;
}

class ComposeFileReader {
public:
    ComposeFileReader(const std::string &file, const VariableLookup &variables, FileRead &out)
        : file_(file), variables_(variables), out_(out) {}

    Where where(const YAML::Node &node) const { return where(node.Mark()); }
    Where where(const YAML::Mark &mark) const { return Where{file_, mark.line + 1, mark.column + 1}; }

    void error(const YAML::Node &node, std::string message) {
        out_.errors.push_back({where(node), std::move(message)});
    }

    // Interpolates every scalar once, so that a variable without a value is
    // reported wherever it is, as Compose does; values are read afterwards.
    void check_interpolation(const YAML::Node &node) {
        if (common::yaml_reads_abandoned())
            throw common::YamlReadAbandoned(node.Mark(), "reading abandoned: the process is stopping");
        switch (node.Type()) {
        case YAML::NodeType::Scalar:
            // Compose refuses it too; the objects' JSON carries only UTF-8.
            if (!common::is_valid_utf8(node.Scalar())) {
                error(node, "invalid UTF-8");
                break;
            }
            try {
                for (const auto &name : interpolate(node.Scalar(), variables_).unset)
                    out_.warnings.push_back({where(node), "variable " + name + " is not set; read as a blank string"});
            } catch (const InterpolationError &e) {
                error(node, e.what());
            }
            break;
        case YAML::NodeType::Sequence:
            for (const auto &item : node) check_interpolation(item);
            break;
        case YAML::NodeType::Map:
            for (const auto &entry : node) {
                if (entry.first.IsScalar() && !common::is_valid_utf8(entry.first.Scalar()))
                    error(entry.first, "invalid UTF-8");
                check_interpolation(entry.second);
            }
            break;
        default: break;
        }
    }

    std::string text(const YAML::Node &node) { return interpolate(node.Scalar(), variables_).text; }

    std::optional<std::string> string_of(const YAML::Node &node, const std::string &what) {
        if (!node.IsScalar()) {
            error(node, what + " must be a string");
            return std::nullopt;
        }
        return text(node);
    }

    std::optional<bool> bool_of(const YAML::Node &node, const std::string &what) {
        if (node.IsScalar()) {
            const std::string v = text(node);
            if (v == "true" || v == "True" || v == "TRUE" || v == "yes") return true;
            if (v == "false" || v == "False" || v == "FALSE" || v == "no") return false;
        }
        error(node, what + " must be true or false");
        return std::nullopt;
    }

    std::vector<std::string> strings_of(const YAML::Node &node, const std::string &what) {
        std::vector<std::string> out;
        if (!node.IsSequence()) {
            error(node, what + " must be a list of strings");
            return out;
        }
        for (const auto &item : node)
            if (auto s = string_of(item, what + " entries")) out.push_back(*s);
        return out;
    }

    // The Compose spec allows one pattern as a plain string (`include: A.*`).
    std::vector<std::string> string_or_strings_of(const YAML::Node &node, const std::string &what) {
        if (node.IsScalar()) return {text(node)};
        if (node.IsSequence()) return strings_of(node, what);
        error(node, what + " must be a string or a list of strings");
        return {};
    }

    std::optional<WatchExec> exec_of(const YAML::Node &node, const std::string &at) {
        if (!node.IsMap()) {
            error(node, at + ".exec must be a mapping");
            return std::nullopt;
        }
        WatchExec exec;
        for (const auto &entry : node) {
            const std::string key = entry.first.Scalar();
            const YAML::Node &value = entry.second;
            if (key == "command") {
                if (value.IsSequence()) {
                    exec.command = strings_of(value, at + ".exec.command");
                } else if (auto s = string_of(value, at + ".exec.command")) {
                    try {
                        exec.command = split_command_words(*s);
                    } catch (const std::invalid_argument &e) {
                        error(value, at + ".exec.command: " + e.what());
                    }
                }
            } else if (key == "user") {
                exec.user = string_of(value, at + ".exec.user").value_or("");
            } else if (key == "working_dir") {
                exec.working_dir = string_of(value, at + ".exec.working_dir").value_or("");
            } else if (key == "privileged") {
                exec.privileged = bool_of(value, at + ".exec.privileged").value_or(false);
            } else if (key == "environment") {
                environment_of(value, at + ".exec.environment", exec.environment);
            } else {
                error(entry.first,
                      unknown_key(key, at, ".exec (valid: command, user, working_dir, environment, privileged)"));
            }
        }
        return exec;
    }

    // A mapping KEY: VALUE or a list of "KEY=VALUE" (a bare KEY takes the environment's value).
    void environment_of(const YAML::Node &node, const std::string &what, std::map<std::string, std::string> &env) {
        if (node.IsMap()) {
            for (const auto &entry : node)
                env[entry.first.Scalar()] =
                    entry.second.IsNull() ? std::string() : string_of(entry.second, what).value_or("");
            return;
        }
        for (const auto &item : strings_of(node, what)) {
            const auto eq = item.find('=');
            if (eq != std::string::npos)
                env[item.substr(0, eq)] = item.substr(eq + 1);
            else if (auto v = variables_(item))
                env[item] = *v;
        }
    }

    std::optional<WatchRule> rule_of(const YAML::Node &node, const std::string &at) {
        if (!node.IsMap()) {
            error(node, at + " must be a mapping with path and action");
            return std::nullopt;
        }
        WatchRule rule;
        rule.where = where(node);
        bool has_path = false;
        bool has_action = false;
        for (const auto &entry : node) {
            const std::string key = entry.first.Scalar();
            const YAML::Node &value = entry.second;
            if (key == "path") {
                rule.path = string_of(value, at + ".path").value_or("");
                rule.path_where = where(value);
                has_path = true;
            } else if (key == "action") {
                rule.action = string_of(value, at + ".action").value_or("");
                rule.action_where = where(value);
                has_action = true;
            } else if (key == "target") {
                rule.target = string_of(value, at + ".target");
            } else if (key == "ignore") {
                rule.ignore = strings_of(value, at + ".ignore");
            } else if (key == "include") {
                rule.include = string_or_strings_of(value, at + ".include");
            } else if (key == "initial_sync") {
                rule.initial_sync = bool_of(value, at + ".initial_sync").value_or(false);
            } else if (key == "exec") {
                rule.exec = exec_of(value, at);
            } else if (key == "x-sync-back") {
                rule.sync_back = strings_of(value, at + ".x-sync-back");
                rule.sync_back_where = where(value);
            } else {
                error(entry.first, unknown_key(key, at,
                                               " (valid: path, action, target, ignore, include, initial_sync, exec, "
                                               "x-sync-back)"));
            }
        }
        if (!has_path) error(node, at + " has no path");
        if (!has_action) error(node, at + " has no action");
        return rule;
    }

    void service_of(const std::string &name, const YAML::Node &node, ComposeFile &compose) {
        Service service;
        service.name = name;
        service.where = where(node);
        const std::string at = "services." + name;
        if (node.IsNull()) {
            compose.services[name] = std::move(service);
            return;
        }
        if (!node.IsMap()) {
            error(node, at + " must be a mapping");
            return;
        }
        if (const YAML::Node build = node["build"]) {
            if (build.IsScalar())
                service.build_context = text(build);
            else if (build.IsMap() && build["context"])
                service.build_context = string_of(build["context"], at + ".build.context");
            else if (build.IsMap())
                service.build_context = ".";
        }
        const YAML::Node develop = node["develop"];
        const YAML::Node x_develop = node["x-develop"];
        if (x_develop) {
            // Compose reads its earlier spelling still, with a deprecation warning;
            // placed at the key (an alias's value is where its anchor is).
            for (const auto &entry : node)
                if (entry.first.Scalar() == "x-develop")
                    out_.warnings.push_back(
                        {where(entry.first), at + (develop ? ".x-develop is deprecated and "
                                                             "ignored: develop is given"
                                                           : ".x-develop is deprecated: write develop")});
        }
        if (develop)
            watch_of(develop, at + ".develop", service);
        else if (x_develop)
            watch_of(x_develop, at + ".x-develop", service);
        compose.services[name] = std::move(service);
    }

    void watch_of(const YAML::Node &develop, const std::string &at, Service &service) {
        if (!develop.IsMap()) {
            error(develop, at + " must be a mapping");
        } else if (const YAML::Node watch = develop["watch"]) {
            if (!watch.IsSequence()) {
                error(watch, at + ".watch must be a list of rules");
            } else {
                std::vector<WatchRule> rules;
                for (std::size_t i = 0; i < watch.size(); ++i)
                    if (auto rule = rule_of(watch[i], at + ".watch[" + std::to_string(i) + "]"))
                        rules.push_back(std::move(*rule));
                service.watch = std::move(rules);
            }
        }
    }

    void read(const YAML::Node &root) {
        if (root.IsNull()) return;
        if (!root.IsMap()) {
            error(root, "a compose file must be a mapping (services:, name:, ...)");
            return;
        }
        check_interpolation(root);
        if (!out_.errors.empty()) return;
        ComposeFile compose;
        if (const YAML::Node name = root["name"]) compose.name = string_of(name, "name");
        if (const YAML::Node services = root["services"]) {
            if (!services.IsMap()) {
                error(services, "services must be a mapping of service names");
            } else {
                for (const auto &entry : services) service_of(entry.first.Scalar(), entry.second, compose);
            }
        }
        if (out_.errors.empty()) out_.compose = std::move(compose);
    }

private:
    const std::string &file_;
    const VariableLookup &variables_;
    FileRead &out_;
};

}  // namespace

FileRead read_compose_file(const std::string &file, std::string_view text, const VariableLookup &variables) {
    FileRead out;
    ComposeFileReader reader(file, variables, out);
    YAML::Node root;
    try {
        root = common::load_yaml(text);
    } catch (const common::YamlAliasError &e) {
        out.errors.push_back({reader.where(e.mark), e.msg});
        return out;
    } catch (const common::YamlDuplicateKeyError &e) {
        out.errors.push_back({reader.where(e.mark), e.msg});
        return out;
    } catch (const common::YamlParserLimitError &e) {
        out.errors.push_back({Where{file, 0, 0}, e.msg});
        return out;
    } catch (const common::YamlReadAbandoned &e) {
        out.errors.push_back({reader.where(e.mark), e.msg});
        return out;
    } catch (const YAML::ParserException &e) {
        out.errors.push_back({reader.where(e.mark), "malformed YAML: " + e.msg});
        return out;
    }
    try {
        reader.read(root);
    } catch (const YAML::Exception &e) {
        out.errors.push_back({reader.where(e.mark), e.msg});
        out.compose.reset();
    }
    return out;
}

ComposeFile merge_compose_files(const std::vector<ComposeFile> &files) {
    ComposeFile merged;
    for (const auto &file : files) {
        if (file.name) merged.name = file.name;
        for (const auto &[name, service] : file.services) {
            auto [it, added] = merged.services.try_emplace(name, service);
            if (added) continue;
            Service &into = it->second;
            if (service.build_context) into.build_context = service.build_context;
            if (service.watch) into.watch = service.watch;
        }
    }
    return merged;
}

}  // namespace liveupdate::host::compose
