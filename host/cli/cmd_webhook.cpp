// `lu-host webhook`: the validating admission webhook for tilt.dev objects
// (serve), and `webhook install` / `webhook uninstall` in a cluster.
#include <signal.h>

#include <iostream>
#include <string_view>

#include "common/kube/api_client.hpp"
#include "common/kube/kubeconfig.hpp"
#include "common/log_level.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/core/host_error.hpp"
#include "host/core/install_paths.hpp"
#include "host/core/log.hpp"
#include "host/webhook/webhook_install.hpp"
#include "host/webhook/webhook_service.hpp"

namespace liveupdate::host::cli {

namespace {

constexpr const char *kWebhookHelp =
    "usage: lu-host webhook [--listen ADDR:PORT] --tls-cert FILE --tls-key FILE [--plugin PATH]\n"
    "                       [--agent-image IMAGE | --agent-configmap NAME]\n"
    "       lu-host webhook install (--url https://HOST:PORT/validate | --service NS/NAME[:PORT])\n"
    "                               [--secret NS/NAME | --cert-dir DIR] [--days N]\n"
    "                               [--mutate [--agent-configmap NAME [--agent PATH]]]\n"
    "       lu-host webhook uninstall [--secret NS/NAME]\n"
    "\n"
    "Serves an admission webhook over HTTPS: POST /validate answers\n"
    "admission.k8s.io/v1 AdmissionReviews, GET /healthz answers probes. CREATE\n"
    "and UPDATE of the tilt.dev/v1alpha1 kinds of `lu-host crds` are judged as\n"
    "the operator judges them: local paths relative to the project folder only\n"
    "(no absolute path, no \"..\" leaving it), then the plugin's admission. A\n"
    "refusal names each field; admission warnings reach kubectl as \"Warning:\".\n"
    "A rebuilt plugin file is hot-reloaded (a broken one is refused, the old one\n"
    "keeps answering); changed certificate files are used for new connections.\n"
    "\n"
    "POST /mutate injects lu-agent into the pods it is sent (install --mutate):\n"
    "an emptyDir volume, an init container from --agent-image copying /lu-agent\n"
    "into it, and a read-only mount at /.lu-agent/injected in the containers\n"
    "named by the annotation liveupdate.dev/containers (default: all). With\n"
    "liveupdate.dev/restart: process a container's command is wrapped by\n"
    "`lu-agent supervise --` (a container without a command gets a warning).\n"
    "With --agent-configmap the volume is that ConfigMap of the pod's namespace\n"
    "(key lu-agent, mode 0555) and there is no init container, so pods are Ready\n"
    "as soon as without injection; it is optional (a namespace without it starts\n"
    "its pods uninjected: live update copies the agent) except for a wrapped\n"
    "command, which waits for it.\n"
    "Pods annotated or labelled liveupdate.dev/inject: \"false\", pods of\n"
    "kube-system and the webhook's own pods are left alone; nothing is refused.\n"
    "\n"
    "  --listen ADDR:PORT     where to listen (default 0.0.0.0:9443)\n"
    "  --tls-cert FILE        the serving certificate (PEM, chain first)\n"
    "  --tls-key FILE         its key (PEM)\n"
    "  --plugin PATH          liveupdate plugin (default libliveupdate.so in the plugin folder, see --version)\n"
    "  --request-timeout MS   TLS handshake and each request must arrive within\n"
    "                         this (default 10000)\n"
    "  --max-body BYTES       larger request bodies get 413 (default 4194304)\n"
    "  --agent-image IMAGE    the image /mutate's init container runs (it holds\n"
    "                         /lu-agent and cp; deploy/agent/build-image.sh);\n"
    "                         without it pods are not injected, with a warning\n"
    "  --agent-configmap NAME the ConfigMap /mutate mounts lu-agent from instead\n"
    "                         (install --mutate --agent-configmap NAME makes it)\n"
    "  --log-level L          debug, info (default), warn, error\n"
    "  --log-format F         text (default) or json: one JSON object a line\n"
    "                         (time, level, message)\n"
    "\n"
    "install makes a new CA and serving certificate (for the URL's host, or\n"
    "the Service's DNS names), stores them (--secret: a kubernetes.io/tls\n"
    "Secret, the default for --service being NS/NAME-tls; --cert-dir: tls.crt,\n"
    "tls.key, ca.crt) and creates or replaces the ValidatingWebhookConfiguration\n"
    "lu-host-webhook (failurePolicy Fail, timeoutSeconds 5). --mutate also\n"
    "creates or replaces the MutatingWebhookConfiguration lu-host-webhook-inject\n"
    "(path /mutate beside /validate; pod CREATE in namespaces labelled\n"
    "liveupdate.dev/inject=enabled, or pods labelled liveupdate.dev/inject=true,\n"
    "never kube-system; failurePolicy Ignore: a webhook that is down never stops\n"
    "pods from starting; timeoutSeconds 3; reinvocationPolicy IfNeeded).\n"
    "--agent-configmap NAME also creates or replaces the ConfigMap NAME holding\n"
    "lu-agent (--agent PATH, else the one beside lu-host; at most 1 MiB) in each\n"
    "namespace labelled liveupdate.dev/inject=enabled, naming each; install\n"
    "again after labelling another namespace or rebuilding lu-agent.\n"
    "Installing again rotates the certificates without a restart of the webhook\n"
    "(and keeps an installed mutating configuration trusting them). uninstall\n"
    "removes both configurations (and the Secret given).\n"
    "  --kubeconfig FILE, --context NAME   as kubectl's\n"
    "exit: 0 ok, 1 failure, 2 usage error, 3 the plugin could not be loaded\n";

long number_of(const ParsedArgs &args, const std::string &name, long fallback, long min, long max) {
    const auto text = args.value(name);
    if (!text) return fallback;
    std::size_t used = 0;
    long value = 0;
    try {
        value = std::stol(*text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != text->size() || value < min || value > max)
        throw UsageError(name + " " + *text + ": expected a number from " + std::to_string(min) + " to " +
                         std::to_string(max));
    return value;
}

// --agent-configmap's NAME, checked as the API server checks it (RFC 1123
// subdomain): a bad one would make every patched pod invalid.
std::string configmap_name(const ParsedArgs &args) {
    const auto given = args.value("--agent-configmap");
    if (!given) return {};
    const std::string &name = *given;
    const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    bool valid = !name.empty() && name.size() <= 253 && alnum(name.front()) && alnum(name.back());
    for (const char c : name) valid = valid && (alnum(c) || c == '-' || c == '.');
    if (!valid)
        throw UsageError("--agent-configmap " + name +
                         ": expected a ConfigMap name (lower-case letters, digits, '-' and '.', at most 253)");
    return name;
}

void parse_listen(const std::string &text, webhook::ServerOptions &server) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) throw UsageError("--listen " + text + ": expected ADDR:PORT");
    std::string address = text.substr(0, colon);
    if (address.size() >= 2 && address.front() == '[' && address.back() == ']')
        address = address.substr(1, address.size() - 2);
    const std::string port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stol(port) > 65535)
        throw UsageError("--listen " + text + ": the port must be a number up to 65535");
    server.address = address.empty() ? "0.0.0.0" : address;
    server.port = static_cast<unsigned short>(std::stol(port));
}

void wait_for_stop_signal() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    int received = 0;
    sigwait(&signals, &received);
    log::info(std::string("webhook: ") + (received == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
}

int serve(const ParsedArgs &args) {
    webhook::ServiceOptions options;
    try {
        if (!args.positional.empty()) throw UsageError("unexpected argument \"" + args.positional[0] + "\"");
        parse_listen(args.value("--listen").value_or("0.0.0.0:9443"), options.server);
        const auto cert = args.value("--tls-cert");
        const auto key = args.value("--tls-key");
        if (!cert || !key)
            throw UsageError("--tls-cert and --tls-key are required (lu-host webhook install makes them)");
        options.cert = *cert;
        options.key = *key;
        options.plugin = args.value("--plugin").value_or(default_liveupdate_plugin().string());
        options.inject.agent_image = args.value("--agent-image").value_or("");
        options.inject.agent_configmap = configmap_name(args);
        if (!options.inject.agent_image.empty() && !options.inject.agent_configmap.empty())
            throw UsageError("give --agent-image or --agent-configmap, not both");
        options.server.request_deadline =
            std::chrono::milliseconds(number_of(args, "--request-timeout", 10000, 1, 3600000));
        options.server.body_limit = static_cast<std::size_t>(number_of(args, "--max-body", 4 << 20, 1024, 1L << 30));
        if (const auto format = args.value("--log-format")) {
            const std::optional<LogFormat> parsed = parse_log_format(*format);
            if (!parsed) throw UsageError("--log-format must be text or json");
            log::set_format(*parsed);
        }
        if (const auto level = args.value("--log-level")) {
            const auto parsed = common::parse_log_level(*level);
            if (!parsed) throw UsageError("--log-level must be debug, info, warn or error");
            log::set_threshold(*parsed);
        }
    } catch (const UsageError &e) {
        std::cerr << "lu-host webhook: " << e.what() << "\n\n" << kWebhookHelp;
        return kExitUsage;
    }
    // Blocked before any thread starts, so that every thread leaves them to sigwait.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    try {
        webhook::WebhookService service(options);
        wait_for_stop_signal();
    } catch (const PluginLoadError &e) {
        log::failure(std::string("webhook: ") + e.what());
        return kExitPluginLoad;
    } catch (const std::exception &e) {
        log::failure(std::string("webhook: ") + e.what());
        return kExitFailure;
    }
    return kExitOk;
}

kube::ApiClient api_client(const ParsedArgs &args) {
    kube::LoadOptions load;
    load.kubeconfig = args.value("--kubeconfig").value_or("");
    load.context = args.value("--context").value_or("");
    return kube::ApiClient(kube::load_client_config(load));
}

int install(const ParsedArgs &args) {
    webhook::InstallOptions options;
    try {
        if (args.positional.size() > 1) throw UsageError("unexpected argument \"" + args.positional[1] + "\"");
        const auto url = args.value("--url");
        const auto service = args.value("--service");
        if (url.has_value() == service.has_value()) throw UsageError("install needs one of --url or --service");
        options.target = url ? webhook::url_target(*url) : webhook::service_target(*service);
        if (const auto secret = args.value("--secret")) options.secret = webhook::secret_ref(*secret);
        if (const auto dir = args.value("--cert-dir")) options.cert_dir = *dir;
        if (options.secret && !options.cert_dir.empty()) throw UsageError("give --secret or --cert-dir, not both");
        if (!options.secret && options.cert_dir.empty()) {
            if (!options.target.service) throw UsageError("with --url, give --cert-dir DIR or --secret NS/NAME");
            options.secret =
                webhook::SecretRef{options.target.service->namespace_name, options.target.service->name + "-tls"};
        }
        options.days = static_cast<int>(number_of(args, "--days", 365, 1, 3650));
        options.mutate = args.has("--mutate");
        options.agent_configmap = configmap_name(args);
        options.agent = args.value("--agent").value_or("");
        if (!options.mutate && (!options.agent_configmap.empty() || args.value("--agent")))
            throw UsageError("--agent-configmap and --agent go with --mutate");
        if (options.agent_configmap.empty() && args.value("--agent"))
            throw UsageError("--agent goes with --agent-configmap");
        if (options.mutate) webhook::mutate_target(options.target);  // a --url without /mutate beside it
    } catch (const UsageError &e) {
        std::cerr << "lu-host webhook install: " << e.what() << "\n\n" << kWebhookHelp;
        return kExitUsage;
    } catch (const webhook::TargetError &e) {
        std::cerr << "lu-host webhook install: " << e.what() << '\n';
        return kExitUsage;
    }
    try {
        kube::ApiClient api = api_client(args);
        webhook::install_webhook(api, options, std::cout);
    } catch (const std::exception &e) {
        std::cerr << "lu-host webhook install: " << e.what() << '\n';
        return kExitFailure;
    }
    return kExitOk;
}

int uninstall(const ParsedArgs &args) {
    std::optional<webhook::SecretRef> secret;
    try {
        if (args.positional.size() > 1) throw UsageError("unexpected argument \"" + args.positional[1] + "\"");
        if (const auto text = args.value("--secret")) secret = webhook::secret_ref(*text);
    } catch (const std::exception &e) {
        std::cerr << "lu-host webhook uninstall: " << e.what() << "\n\n" << kWebhookHelp;
        return kExitUsage;
    }
    try {
        kube::ApiClient api = api_client(args);
        webhook::uninstall_webhook(api, secret, std::cout);
    } catch (const std::exception &e) {
        std::cerr << "lu-host webhook uninstall: " << e.what() << '\n';
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace

const OptionTable kWebhookOptions{
    {"--listen", "--tls-cert", "--tls-key", "--plugin", "--request-timeout", "--max-body", "--log-level",
     "--log-format", "--url", "--service", "--secret", "--cert-dir", "--days", "--kubeconfig", "--context",
     "--agent-image", "--agent-configmap", "--agent"},
    {"--help", "-h", "--mutate"}};

int run_webhook_command(int argc, char **argv) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kWebhookOptions);
    } catch (const UsageError &e) {
        std::cerr << "lu-host webhook: " << e.what() << "\n\n" << kWebhookHelp;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kWebhookHelp;
        return kExitOk;
    }
    const std::string_view action = args.positional.empty() ? "" : std::string_view(args.positional[0]);
    if (action == "install") return install(args);
    if (action == "uninstall") return uninstall(args);
    return serve(args);
}

}  // namespace liveupdate::host::cli
