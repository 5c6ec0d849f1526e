#include "common/kube/kubeconfig.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/yaml_load.hpp"

namespace liveupdate::kube {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string &file, const std::string &field, const std::string &why) {
    throw KubeconfigError("kubeconfig " + file + ": " + field + ": " + why);
}

std::string line_of(const YAML::Node &n) {
    const auto m = n.Mark();
    return m.line >= 0 ? " (line " + std::to_string(m.line + 1) + ")" : "";
}

std::string scalar(const YAML::Node &map, const char *key, const std::string &file, const std::string &path) {
    const YAML::Node v = map[key];
    if (!v || v.IsNull()) return {};
    if (!v.IsScalar()) fail(file, path + "." + key, "must be a string" + line_of(v));
    return v.Scalar();
}

bool boolean(const YAML::Node &map, const char *key, const std::string &file, const std::string &path) {
    const YAML::Node v = map[key];
    if (!v || v.IsNull()) return false;
    bool b = false;
    if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b))
        fail(file, path + "." + key, "must be true or false" + line_of(v));
    return b;
}

// A path in a kubeconfig is relative to the file that holds it.
std::string resolve_path(const std::string &path, const std::string &file) {
    if (path.empty() || fs::path(path).is_absolute()) return path;
    return (fs::path(file).parent_path() / path).lexically_normal().string();
}

// The named entries of a list such as `clusters:`: [{name, <inner>: {...}}].
template <class Fn>
void each_named(const YAML::Node &root, const char *list, const char *inner, const std::string &file, Fn &&fn) {
    const YAML::Node items = root[list];
    if (!items || items.IsNull()) return;
    if (!items.IsSequence()) fail(file, list, "must be a list" + line_of(items));
    for (std::size_t i = 0; i < items.size(); ++i) {
        const YAML::Node item = items[i];
        const std::string at = std::string(list) + "[" + std::to_string(i) + "]";
        if (!item.IsMap()) fail(file, at, "must be a mapping" + line_of(item));
        const std::string name = scalar(item, "name", file, at);
        if (name.empty()) fail(file, at + ".name", "missing" + line_of(item));
        const YAML::Node body = item[inner];
        const std::string path = std::string(list) + "[" + name + "]." + inner;
        if (body && !body.IsNull() && !body.IsMap()) fail(file, path, "must be a mapping" + line_of(body));
        fn(name, body && body.IsMap() ? body : YAML::Node(YAML::NodeType::Map), path);
    }
}

ExecPlugin parse_exec(const YAML::Node &e, const std::string &file, const std::string &path) {
    ExecPlugin x;
    x.defined_in = file + ": " + path;
    x.api_version = scalar(e, "apiVersion", file, path);
    x.command = scalar(e, "command", file, path);
    x.install_hint = scalar(e, "installHint", file, path);
    if (x.command.empty()) fail(file, path + ".command", "missing");
    if (x.api_version.empty()) fail(file, path + ".apiVersion", "missing (client.authentication.k8s.io/v1 or v1beta1)");
    // A command with a slash but no leading one is relative to the kubeconfig, as kubectl takes it.
    if (x.command.find('/') != std::string::npos) x.command = resolve_path(x.command, file);
    if (const YAML::Node args = e["args"]; args && !args.IsNull()) {
        if (!args.IsSequence()) fail(file, path + ".args", "must be a list of strings" + line_of(args));
        for (const auto &a : args) {
            if (!a.IsScalar()) fail(file, path + ".args", "must be a list of strings" + line_of(a));
            x.args.push_back(a.Scalar());
        }
    }
    if (const YAML::Node env = e["env"]; env && !env.IsNull()) {
        if (!env.IsSequence()) fail(file, path + ".env", "must be a list of {name, value}" + line_of(env));
        for (std::size_t i = 0; i < env.size(); ++i) {
            const std::string at = path + ".env[" + std::to_string(i) + "]";
            if (!env[i].IsMap()) fail(file, at, "must be a {name, value} mapping" + line_of(env[i]));
            const std::string name = scalar(env[i], "name", file, at);
            if (name.empty()) fail(file, at + ".name", "missing");
            x.env.push_back(name + "=" + scalar(env[i], "value", file, at));
        }
    }
    return x;
}

std::string read_file(const std::string &path, const std::string &what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw KubeconfigError(what + ": cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Data inline (base64) or from a file, as the field pair says.
std::string data_or_file(const std::string &data, const std::string &path, const std::string &file,
                         const std::string &field) {
    if (!data.empty()) {
        try {
            return base64_decode(data);
        } catch (const std::invalid_argument &e) {
            fail(file, field + "-data", e.what());
        }
    }
    if (path.empty()) return {};
    return read_file(path, "kubeconfig " + file + ": " + field);
}

}  // namespace

std::string base64_decode(const std::string &text) {
    std::string out;
    unsigned value = 0;
    int bits = 0;
    for (const char c : text) {
        int v;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+')
            v = 62;
        else if (c == '/')
            v = 63;
        else if (c == '=' || c == '\n' || c == '\r' || c == ' ')
            continue;
        else
            throw std::invalid_argument(std::string("not base64 (character '") + c + "')");
        value = (value << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((value >> bits) & 0xFF));
        }
    }
    return out;
}

Kubeconfig parse_kubeconfig(const std::string &text, const std::string &file) {
    Kubeconfig k;
    k.files.push_back(file);
    YAML::Node root;
    try {
        root = common::load_yaml(text);
    } catch (const common::YamlParserLimitError &e) {
        throw KubeconfigError("kubeconfig " + file + ": " + e.msg);
    } catch (const YAML::ParserException &e) {
        throw KubeconfigError("kubeconfig " + file + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                              std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
    if (!root || root.IsNull()) return k;  // an empty file is an empty config, as for kubectl
    if (!root.IsMap()) fail(file, "(top level)", "must be a mapping");
    each_named(root, "clusters", "cluster", file,
               [&](const std::string &name, const YAML::Node &c, const std::string &p) {
                   if (k.clusters.contains(name)) return;
                   ClusterEntry e;
                   e.file = file;
                   e.server = scalar(c, "server", file, p);
                   e.certificate_authority = resolve_path(scalar(c, "certificate-authority", file, p), file);
                   e.certificate_authority_data = scalar(c, "certificate-authority-data", file, p);
                   e.insecure_skip_tls_verify = boolean(c, "insecure-skip-tls-verify", file, p);
                   e.tls_server_name = scalar(c, "tls-server-name", file, p);
                   k.clusters.emplace(name, std::move(e));
               });
    each_named(root, "users", "user", file, [&](const std::string &name, const YAML::Node &u, const std::string &p) {
        if (k.users.contains(name)) return;
        UserEntry e;
        e.file = file;
        e.client_certificate = resolve_path(scalar(u, "client-certificate", file, p), file);
        e.client_certificate_data = scalar(u, "client-certificate-data", file, p);
        e.client_key = resolve_path(scalar(u, "client-key", file, p), file);
        e.client_key_data = scalar(u, "client-key-data", file, p);
        e.token = scalar(u, "token", file, p);
        e.token_file = resolve_path(scalar(u, "tokenFile", file, p), file);
        if (const YAML::Node x = u["exec"]; x && !x.IsNull()) {
            if (!x.IsMap()) fail(file, p + ".exec", "must be a mapping" + line_of(x));
            e.exec = parse_exec(x, file, p + ".exec");
        }
        if (const YAML::Node ap = u["auth-provider"]; ap && !ap.IsNull())
            fail(file, p + ".auth-provider", "auth providers are not supported; use an exec credential plugin");
        k.users.emplace(name, std::move(e));
    });
    each_named(root, "contexts", "context", file,
               [&](const std::string &name, const YAML::Node &c, const std::string &p) {
                   if (k.contexts.contains(name)) return;
                   k.contexts.emplace(name, ContextEntry{scalar(c, "cluster", file, p), scalar(c, "user", file, p),
                                                         scalar(c, "namespace", file, p), file});
               });
    k.current_context = scalar(root, "current-context", file, "");
    if (!k.current_context.empty()) k.current_context_file = file;
    return k;
}

void merge_kubeconfig(Kubeconfig &earlier, const Kubeconfig &later) {
    for (const auto &[n, c] : later.clusters) earlier.clusters.emplace(n, c);
    for (const auto &[n, u] : later.users) earlier.users.emplace(n, u);
    for (const auto &[n, c] : later.contexts) earlier.contexts.emplace(n, c);
    if (earlier.current_context.empty()) {
        earlier.current_context = later.current_context;
        earlier.current_context_file = later.current_context_file;
    }
    earlier.files.insert(earlier.files.end(), later.files.begin(), later.files.end());
}

std::vector<std::string> kubeconfig_files(const LoadOptions &options) {
    if (!options.kubeconfig.empty()) {
        std::error_code ec;
        if (!fs::exists(options.kubeconfig, ec))
            throw KubeconfigError("kubeconfig " + options.kubeconfig + ": no such file (given with --kubeconfig)");
        return {options.kubeconfig};
    }
    std::optional<std::string> env = options.kubeconfig_env;
    if (!env)
        if (const char *v = std::getenv("KUBECONFIG")) env = v;
    if (env && !env->empty()) {
        std::vector<std::string> files, missing;
        std::stringstream list(*env);
        for (std::string f; std::getline(list, f, ':');) {
            if (f.empty()) continue;
            std::error_code ec;
            if (fs::exists(f, ec)) {
                if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
            } else {
                missing.push_back(f);
            }
        }
        if (files.empty()) {
            std::string names;
            for (const auto &m : missing) names += (names.empty() ? "" : ", ") + m;
            throw KubeconfigError("kubeconfig " + names + ": no such file (KUBECONFIG=" + *env + ")");
        }
        return files;
    }
    std::string home = options.home.value_or(std::getenv("HOME") != nullptr ? std::getenv("HOME") : "");
    const std::string file = (fs::path(home) / ".kube" / "config").string();
    std::error_code ec;
    if (home.empty() || !fs::exists(file, ec))
        throw KubeconfigError("kubeconfig " + file +
                              ": no such file (KUBECONFIG is not set; set it or pass --kubeconfig)");
    return {file};
}

ClientConfig resolve_client_config(const Kubeconfig &k, const LoadOptions &options) {
    std::string files;
    for (const auto &f : k.files) files += (files.empty() ? "" : ":") + f;
    ClientConfig c;
    c.context = !options.context.empty() ? options.context : k.current_context;
    if (c.context.empty()) throw KubeconfigError("kubeconfig " + files + ": current-context: not set (pass --context)");
    const auto ctx = k.contexts.find(c.context);
    if (ctx == k.contexts.end()) {
        std::string known;
        for (const auto &[n, _] : k.contexts) known += (known.empty() ? "" : ", ") + n;
        const std::string field = !options.context.empty() ? "--context" : k.current_context_file + ": current-context";
        throw KubeconfigError("kubeconfig " + files + ": " + field + ": context \"" + c.context +
                              "\" not found (contexts: " + (known.empty() ? "none" : known) + ")");
    }
    const ContextEntry &context = ctx->second;
    const std::string cpath = "contexts[" + c.context + "].context";
    c.where = "context " + c.context + " from " + context.file;
    c.cluster_name = context.cluster;
    c.user_name = context.user;
    c.namespace_name = !options.namespace_name.empty()   ? options.namespace_name
                       : !context.namespace_name.empty() ? context.namespace_name
                                                         : "default";
    if (c.cluster_name.empty()) fail(context.file, cpath + ".cluster", "missing");
    const auto cl = k.clusters.find(c.cluster_name);
    if (cl == k.clusters.end())
        fail(context.file, cpath + ".cluster", "cluster \"" + c.cluster_name + "\" not found in " + files);
    const ClusterEntry &cluster = cl->second;
    const std::string clpath = "clusters[" + c.cluster_name + "].cluster";
    c.server = cluster.server;
    if (c.server.empty()) fail(cluster.file, clpath + ".server", "missing");
    if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0)
        fail(cluster.file, clpath + ".server", "\"" + c.server + "\" is not an http(s) URL");
    while (c.server.size() > 8 && c.server.back() == '/') c.server.pop_back();
    c.tls.insecure = cluster.insecure_skip_tls_verify;
    c.tls.server_name = cluster.tls_server_name;
    c.tls.ca_pem = data_or_file(cluster.certificate_authority_data, cluster.certificate_authority, cluster.file,
                                clpath + ".certificate-authority");
    if (c.user_name.empty()) return c;  // anonymous, as kubectl allows
    const auto us = k.users.find(c.user_name);
    if (us == k.users.end()) fail(context.file, cpath + ".user", "user \"" + c.user_name + "\" not found in " + files);
    const UserEntry &user = us->second;
    const std::string upath = "users[" + c.user_name + "].user";
    c.tls.cert_pem =
        data_or_file(user.client_certificate_data, user.client_certificate, user.file, upath + ".client-certificate");
    c.tls.key_pem = data_or_file(user.client_key_data, user.client_key, user.file, upath + ".client-key");
    if (c.tls.cert_pem.empty() != c.tls.key_pem.empty())
        fail(user.file, upath + (c.tls.cert_pem.empty() ? ".client-certificate" : ".client-key"),
             "missing (a client certificate needs its key and the key its certificate)");
    c.user.token = user.token;
    c.user.token_file = user.token_file;
    if (!user.token_file.empty() && user.token.empty()) {
        std::error_code ec;
        if (!fs::exists(user.token_file, ec)) fail(user.file, upath + ".tokenFile", "cannot read " + user.token_file);
    }
    c.user.exec = user.exec;
    return c;
}

ClientConfig load_client_config(const LoadOptions &options) {
    Kubeconfig merged;
    bool first = true;
    for (const auto &file : kubeconfig_files(options)) {
        const std::string text = read_file(file, "kubeconfig " + file);
        Kubeconfig one = parse_kubeconfig(text, file);
        if (first)
            merged = std::move(one);
        else
            merge_kubeconfig(merged, one);
        first = false;
    }
    return resolve_client_config(merged, options);
}

}  // namespace liveupdate::kube
