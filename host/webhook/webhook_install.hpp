// `lu-host webhook install` and `uninstall` against a cluster: a new CA and
// serving certificate, stored as files or in a Secret, and the
// ValidatingWebhookConfiguration (and with --mutate the
// MutatingWebhookConfiguration) created or replaced. Installing again
// rotates the certificates: the configuration first trusts the new CA and
// the one before it, then the new pair is stored, and the running webhook
// picks it up without a restart.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "common/kube/api_client.hpp"
#include "host/webhook/webhook_config.hpp"

namespace liveupdate::host::webhook {

struct SecretRef {
    std::string namespace_name;
    std::string name;
};

// NS/NAME; throws TargetError.
SecretRef secret_ref(const std::string &text);

struct InstallOptions {
    WebhookTarget target;
    std::optional<SecretRef> secret;  // store the certificates there
    std::filesystem::path cert_dir;   // else as tls.crt, tls.key, ca.crt in this folder
    int days = 365;
    // Also the MutatingWebhookConfiguration; one already installed is
    // replaced either way, so that it trusts the new certificate.
    bool mutate = false;
    // Set (with mutate): this ConfigMap, holding lu-agent (key lu-agent), is
    // created or replaced in each namespace labelled liveupdate.dev/inject=enabled,
    // for `lu-host webhook --agent-configmap`.
    std::string agent_configmap;
    std::filesystem::path agent;  // that lu-agent; empty: the one of this lu-host's layout
};

// Throws kube::ApiError, std::runtime_error (files, certificates).
void install_webhook(kube::ApiClient &api, const InstallOptions &options, std::ostream &out);

// Removes both configurations (and the Secret, when given); absent ones are not errors.
void uninstall_webhook(kube::ApiClient &api, const std::optional<SecretRef> &secret, std::ostream &out);

}  // namespace liveupdate::host::webhook
