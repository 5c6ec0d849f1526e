// Kubeconfig files as kubectl reads them: the files of $KUBECONFIG (or
// ~/.kube/config, or one explicit file) merged by kubectl's rules, then one
// context resolved into what a client needs to reach and authenticate to the
// API server. Every error names the file and the field.
//
//   const auto config = kube::load_client_config({.context = "dev"});
//   config.server, config.tls.ca_pem, config.user.token ...
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace liveupdate::kube {

// A kubeconfig that cannot be used: the message names the file and the field.
class KubeconfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ExecPlugin {
    std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
    std::string command;
    std::vector<std::string> args;
    std::vector<std::string> env;  // "NAME=value"
    std::string install_hint;
    std::string defined_in;  // "FILE: users[NAME].exec", for messages
};

struct ClusterEntry {
    std::string server;
    std::string certificate_authority;       // a path, resolved against its file
    std::string certificate_authority_data;  // base64
    bool insecure_skip_tls_verify = false;
    std::string tls_server_name;
    std::string file;  // where it was defined
};

struct UserEntry {
    std::string client_certificate, client_certificate_data;
    std::string client_key, client_key_data;
    std::string token, token_file;
    std::optional<ExecPlugin> exec;
    std::string file;
};

struct ContextEntry {
    std::string cluster;
    std::string user;
    std::string namespace_name;
    std::string file;
};

// Several kubeconfig files merged: the first file to name a cluster, user or
// context, or to set current-context, wins (kubectl's rule).
struct Kubeconfig {
    std::map<std::string, ClusterEntry> clusters;
    std::map<std::string, UserEntry> users;
    std::map<std::string, ContextEntry> contexts;
    std::string current_context;
    std::string current_context_file;
    std::vector<std::string> files;  // the files read, in order
};

// Parses one kubeconfig document; relative paths inside are resolved against
// the file's folder. Throws KubeconfigError naming `file` and the field.
Kubeconfig parse_kubeconfig(const std::string &text, const std::string &file);

// Merges `later` under `earlier` (earlier entries win).
void merge_kubeconfig(Kubeconfig &earlier, const Kubeconfig &later);

struct LoadOptions {
    std::string kubeconfig;      // an explicit file (kubectl --kubeconfig); must exist
    std::string context;         // kubectl --context; empty: current-context
    std::string namespace_name;  // kubectl --namespace; empty: the context's, else "default"
    // For tests; nullopt: the process environment.
    std::optional<std::string> kubeconfig_env;
    std::optional<std::string> home;
};

// The files to read: the explicit one, else $KUBECONFIG's list (missing files
// skipped, as kubectl does), else ~/.kube/config.
std::vector<std::string> kubeconfig_files(const LoadOptions &options);

// What a client needs, with files read and base64 decoded.
struct TlsMaterial {
    std::string ca_pem;    // empty: the system's CAs
    std::string cert_pem;  // client certificate, empty when none
    std::string key_pem;
    bool insecure = false;
    std::string server_name;  // tls-server-name, empty: the server's host
};

struct UserAuth {
    std::string token;
    std::string token_file;  // read again on each use (it may be rotated)
    std::optional<ExecPlugin> exec;
};

struct ClientConfig {
    std::string context;
    std::string cluster_name;
    std::string user_name;
    std::string server;  // https://host:port, no trailing slash
    std::string namespace_name;
    TlsMaterial tls;
    UserAuth user;
    std::string where;  // "context X from FILE", for messages
};

// Resolves the chosen context of a merged kubeconfig.
ClientConfig resolve_client_config(const Kubeconfig &config, const LoadOptions &options);

// kubeconfig_files + parse + merge + resolve.
ClientConfig load_client_config(const LoadOptions &options);

// Standard base64 (padding optional); throws std::invalid_argument on a bad character.
std::string base64_decode(const std::string &text);

}  // namespace liveupdate::kube
