// `lu-host up`: command-line front of the daemon.
#include <algorithm>
#include <iostream>
#include <limits>

#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/compose/project_files.hpp"
#include "host/core/host_error.hpp"
#include "host/core/install_paths.hpp"
#include "host/core/log.hpp"
#include "host/up/control_socket.hpp"
#include "host/up/daemon.hpp"
#include "host/verify/verify_schedule.hpp"

namespace liveupdate::host::cli {

namespace {

// Each worker is a thread; past this, more only adds contention.
constexpr long kMaxWorkers = 64;

constexpr const char *kUpHelp =
    "usage: lu-host up [options] PATH...\n"
    "       lu-host up [options] [-f FILE]... [-p NAME] [PATH...]\n"
    "       lu-host up --from-cluster [--context C] [--namespace NS] [options] [PROJECT_DIR]\n"
    "\n"
    "--from-cluster: the operator of a namespace. Takes its Lease (one operator\n"
    "per namespace: a second one is refused, naming the holder; a clean stop\n"
    "releases it; a killed one's is taken over at once on its host), then lists\n"
    "and watches the tilt.dev/v1alpha1 objects\n"
    "(LiveUpdate, FileWatch, KubernetesDiscovery, ImageMap, KubernetesApply;\n"
    "`lu-host crds` installs their CRDs) and live-updates as for local files.\n"
    "Their paths are relative to PROJECT_DIR (default: the current folder;\n"
    "basePath: . is PROJECT_DIR itself); an absolute one, or one that leaves\n"
    "PROJECT_DIR (.., a symlink leading out) refuses the object with a status\n"
    "saying why. Kinds that run local processes (LocalContainer, Cmd,\n"
    "DockerComposeService) are never taken from a cluster. FileWatches watch\n"
    "PROJECT_DIR locally; the statuses of LiveUpdates and KubernetesDiscoveries\n"
    "are written back (/status), only when changed, the latest of a burst;\n"
    "one someone else changed (kubectl patch) is written over.\n"
    "The trigger queue is the namespace's ConfigMap tilt-trigger-queue: lu-host\n"
    "trigger writes it, and an edit of it with kubectl triggers too.\n"
    "`lu-host rbac` prints the Role the operator needs. A LiveUpdate asking for\n"
    "files to come back (spec.syncs[].syncBack) is refused unless\n"
    "--allow-sync-back is given: a cluster object alone cannot make the daemon\n"
    "write into PROJECT_DIR.\n"
    "\n"
    "A PATH that is a Compose file (compose.yaml, compose.yml, docker-compose.yml,\n"
    "docker-compose.yaml) or a folder holding one is read as a Compose project:\n"
    "every service's develop.watch rules (sync, sync+restart, restart, sync+exec)\n"
    "live-update its running containers, every replica of a scaled service. The\n"
    "compose files and the .env beside them are watched: edits apply at once.\n"
    "\n"
    "  -f, --file FILE        a Compose file; several merge, later ones override\n"
    "  -p, --project-name NAME  the Compose project (default: $COMPOSE_PROJECT_NAME,\n"
    "                         else the file's top-level name:, else its folder)\n"
    "\n"
    "Loads Tilt v1alpha1 objects (one object or a List per .json file; a folder\n"
    "stands for every .json file directly in it), keeps watching those files\n"
    "(edit: object updated, removal: object deleted), watches every FileWatch's\n"
    "paths, runs LocalContainers and live-updates them until Ctrl-C or SIGTERM.\n"
    "Relative paths in objects (FileWatch watchedPaths and ignores[].basePath,\n"
    "LiveUpdate basePath, LocalContainer root) are relative to the folder of the\n"
    "file that declares them.\n"
    "\n"
    "  --control-socket PATH  where `get` and `describe` reach the daemon\n"
    "                         (default: $LU_HOST_CONTROL_SOCKET, else\n"
    "                         $XDG_RUNTIME_DIR/lu-host/control.sock, else\n"
    "                         /tmp/lu-host-<uid>/control.sock)\n"
    "  --web-port PORT        the status page's port (default 10351, or a free\n"
    "                         one when 10351 is taken; 0: a free one); its address,\n"
    "                         with the secret that opens it, is logged at start\n"
    "  --web-address ADDR     the status page's address (default 127.0.0.1:\n"
    "                         loopback only; the page then answers only as ADDR)\n"
    "  --no-web               no status page\n"
    "  --debounce MS          quiet time before a batch of file changes is\n"
    "                         reported (default 50)\n"
    "  --max-wait MS          longest a batch waits while changes keep coming\n"
    "                         (default 10000)\n"
    "  --workers N            LiveUpdates reconciled at the same time (default 2,\n"
    "                         at most 64)\n"
    "  --verify-every D       also run `lu-host verify --fix` on every LiveUpdate\n"
    "                         every D (30s, 5m, 1h, 500ms; default off), logging\n"
    "                         what it repairs in the LiveUpdate's log\n"
    "  --no-verify-after-loss do not verify and repair after an event that may\n"
    "                         have lost changes (an inotify queue overflow, an\n"
    "                         updater reconnecting to a container); on by default\n"
    "  --state-dir DIR        where the synced journals (what was put in each\n"
    "                         container) are kept, locked by this daemon: one\n"
    "                         daemon per folder (default: $LIVEUPDATE_STATE_DIR,\n"
    "                         else the first writable of\n"
    "                         $XDG_STATE_HOME/liveupdate/synced,\n"
    "                         ~/.local/state/liveupdate/synced,\n"
    "                         $XDG_RUNTIME_DIR/liveupdate/synced,\n"
    "                         $TMPDIR/liveupdate-<uid>/synced)\n"
    "  --log-format F         text (default) or json: one JSON object a line\n"
    "                         (time, level, liveUpdate when about one, message)\n"
    "  --log-level L          debug, info (default), warn, error\n"
    "  --plugin PATH          liveupdate plugin (default libliveupdate.so in the plugin folder, see --version)\n"
    "  --local-updater PATH   updater of class local (default libupdater_local.so there)\n"
    "  --local-updater-config JSON  its settings, e.g. {\"workingDir\": \"/app\"}\n"
    "  --updater CLASS=PATH   also serve updater class CLASS with that plugin\n"
    "  --config FILE          updater configuration: which plugin serves each\n"
    "                         updater class, with its settings, e.g.\n"
    "                         {\"updaters\": {\"docker\": {\"plugin\": \"docker\",\n"
    "                         \"settings\": {}}}}; edits swap updaters at runtime\n"
    "  --kubeconfig FILE      Kubernetes: the kubeconfig (default: $KUBECONFIG's\n"
    "                         files merged as kubectl merges them, else\n"
    "                         ~/.kube/config)\n"
    "  --context NAME         Kubernetes: the kubeconfig context (default: its\n"
    "                         current-context)\n"
    "  --namespace NS         Kubernetes: where KubernetesDiscovery objects\n"
    "                         without spec.watches look, and with --from-cluster\n"
    "                         the namespace served (default: the context's)\n"
    "  --from-cluster         the objects of a namespace (above)\n"
    "  --allow-sync-back      with --from-cluster: LiveUpdates may bring container\n"
    "                         files back into PROJECT_DIR (spec.syncs[].syncBack)\n"
    "  --help                 this text\n"
    "\n"
    "The liveupdate plugin, the updater plugins and the configuration are watched:\n"
    "a rebuilt plugin is hot-reloaded (state kept); one that cannot load or take\n"
    "over the state is refused with its reason and the old one keeps serving.\n"
    "`lu-host plugins` lists what is loaded.\n"
    "\n"
    "exit: 0 stopped by a signal, 1 could not start, 2 usage error, 3 plugin load error\n";

long number(const ParsedArgs &args, const std::string &name, long fallback, long minimum,
            long maximum = std::numeric_limits<long>::max()) {
    const auto text = args.value(name);
    if (!text) return fallback;
    std::size_t used = 0;
    long value = minimum - 1;
    try {
        value = std::stol(*text, &used);
    } catch (const std::invalid_argument &) {
        used = 0;
    } catch (const std::out_of_range &) {
        used = 0;
    }
    if (used != text->size() || value < minimum || value > maximum)
        throw UsageError(name + " needs a whole number " +
                         (maximum == std::numeric_limits<long>::max()
                              ? "of at least " + std::to_string(minimum)
                              : "from " + std::to_string(minimum) + " to " + std::to_string(maximum)) +
                         ", got " + *text);
    return value;
}

// Takes -f/--file (repeatable) and -p/--project-name out of argv, as the
// shared parser keeps one value per option.
std::vector<char *> take_compose_options(int argc, char **argv, std::vector<std::string> &files,
                                         std::optional<std::string> &project) {
    std::vector<char *> rest;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i == 0 || arg == "--") {
            rest.push_back(argv[i]);
            if (arg == "--")
                for (++i; i < argc; ++i) rest.push_back(argv[i]);
            continue;
        }
        std::string *into = nullptr;
        std::string inline_value;
        bool has_inline = false;
        for (const char *name : {"-f", "--file", "-p", "--project-name"}) {
            const std::string n = name;
            if (arg == n || arg.rfind(n + "=", 0) == 0) {
                has_inline = arg.size() > n.size();
                if (has_inline) inline_value = arg.substr(n.size() + 1);
                if (n == "-f" || n == "--file") {
                    files.emplace_back();
                    into = &files.back();
                } else {
                    project.emplace();
                    into = &*project;
                }
                break;
            }
        }
        if (into == nullptr) {
            rest.push_back(argv[i]);
            continue;
        }
        if (has_inline) {
            *into = inline_value;
        } else if (i + 1 < argc) {
            *into = argv[++i];
        } else {
            throw UsageError(arg + " needs a value");
        }
    }
    return rest;
}

// Where the objects come from: a cluster, Compose projects, object files.
void read_sources(const ParsedArgs &args, const std::vector<std::string> &compose_files,
                  const std::optional<std::string> &project_name, up::UpOptions &options) {
    options.from_cluster = args.has("--from-cluster");
    if (options.from_cluster) {
        if (args.positional.size() > 1 || !compose_files.empty())
            throw UsageError("--from-cluster takes one PROJECT_DIR, not object or compose files");
        options.project_dir = args.positional.empty() ? "." : args.positional[0];
        options.allow_sync_back = args.has("--allow-sync-back");
        if (!std::filesystem::is_directory(options.project_dir))
            throw UsageError("PROJECT_DIR " + options.project_dir + " is not a folder");
    }
    if (args.has("--allow-sync-back") && !options.from_cluster)
        throw UsageError(
            "--allow-sync-back is for --from-cluster: local objects and compose files may ask for sync "
            "back themselves");
    if (!compose_files.empty()) options.compose_projects.push_back({compose_files, project_name});
    for (const auto &path : options.from_cluster ? std::vector<std::string>() : args.positional) {
        const auto files = compose::compose_files_of(path);
        if (!files.empty())
            options.compose_projects.push_back({files, project_name});
        else
            options.paths.push_back(path);
    }
    if (options.paths.empty() && options.compose_projects.empty() && !options.from_cluster)
        throw UsageError("no object file, folder or compose file given");
    if (project_name && options.compose_projects.empty())
        throw UsageError("-p names a Compose project, but no compose file is given");
}

// When batches are reported, how many reconcile at once, when verify runs.
void read_schedule(const ParsedArgs &args, up::UpOptions &options) {
    options.debounce = std::chrono::milliseconds(number(args, "--debounce", 50, 0));
    options.max_wait = std::chrono::milliseconds(number(args, "--max-wait", 10000, 0));
    options.workers = static_cast<unsigned>(number(args, "--workers", 2, 1, kMaxWorkers));
    if (auto every = args.value("--verify-every")) {
        const auto interval = verify::parse_interval(*every);
        if (!interval)
            throw UsageError("--verify-every needs a duration such as 30s, 5m or 500ms (or off), got " + *every);
        options.verify_every = *interval;
    }
    options.verify_after_loss = !args.has("--no-verify-after-loss");
}

// The state folder, the status page and the log.
void read_outputs(const ParsedArgs &args, up::UpOptions &options) {
    options.state_dir = args.value("--state-dir").value_or("");
    options.web = !args.has("--no-web");
    options.web_port = static_cast<unsigned short>(number(args, "--web-port", 10351, 0, 65535));
    options.web_port_given = args.value("--web-port").has_value();
    options.web_address = args.value("--web-address").value_or("127.0.0.1");
    const std::optional<LogFormat> format = parse_log_format(args.value("--log-format").value_or("text"));
    if (!format) throw UsageError("--log-format must be text or json");
    options.log_format = *format;
    options.log_level = log::threshold();
    if (auto level = args.value("--log-level")) {
        auto parsed = common::parse_log_level(*level);
        if (!parsed) throw UsageError("--log-level must be debug, info, warn or error");
        options.log_level = *parsed;
    }
}

// The plugins, the updater configuration, Kubernetes and the control socket.
void read_plugins(const ParsedArgs &args, up::UpOptions &options) {
    options.plugin = args.value("--plugin").value_or(default_liveupdate_plugin().string());
    options.local_updater = args.value("--local-updater").value_or(updater_plugin("local").string());
    options.local_updater_config = args.value("--local-updater-config").value_or("{}");
    if (auto extra = args.value("--updater")) {
        const auto eq = extra->find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("--updater needs CLASS=PATH");
        options.extra_updaters[extra->substr(0, eq)] = extra->substr(eq + 1);
    }
    for (const char *via : {"docker", "kubernetes"})
        if (!options.extra_updaters.contains(via) && std::filesystem::exists(updater_plugin(via)))
            options.extra_updaters[via] = updater_plugin(via);
    if (auto config = args.value("--config")) options.updater_config = *config;
    options.kubeconfig = args.value("--kubeconfig").value_or("");
    options.kube_context = args.value("--context").value_or("");
    options.kube_namespace = args.value("--namespace").value_or("");
    options.control_socket = args.value("--control-socket").value_or(up::default_control_socket_path());
}

}  // namespace

// -f/--file and -p/--project-name are taken aside first (take_compose_options): they repeat and keep their order.
const OptionTable kUpOptions{
    {"-f",
     "--file",
     "-p",
     "--project-name",
     "--control-socket",
     "--debounce",
     "--max-wait",
     "--workers",
     "--log-format",
     "--log-level",
     "--plugin",
     "--local-updater",
     "--local-updater-config",
     "--updater",
     "--config",
     "--web-port",
     "--web-address",
     "--kubeconfig",
     "--context",
     "--namespace",
     "--verify-every",
     "--state-dir"},
    {"--help", "-h", "--no-web", "--no-verify-after-loss", "--from-cluster", "--allow-sync-back"}};

int run_up_command(int argc, char **argv) {
    ParsedArgs args;
    up::UpOptions options;
    try {
        std::vector<std::string> compose_files;
        std::optional<std::string> project_name;
        std::vector<char *> rest = take_compose_options(argc, argv, compose_files, project_name);
        args = parse_args(static_cast<int>(rest.size()), rest.data(), kUpOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kUpHelp;
            return kExitOk;
        }
        read_sources(args, compose_files, project_name, options);
        read_schedule(args, options);
        read_outputs(args, options);
        read_plugins(args, options);
    } catch (const UsageError &e) {
        std::cerr << "lu-host up: " << e.what() << "\n\n" << kUpHelp;
        return kExitUsage;
    }
    log::set_format(options.log_format);  // what is written before and after the daemon's own log
    try {
        return up::run_up(options);
    } catch (const PluginLoadError &e) {
        log::failure(std::string("up: ") + e.what());
        return kExitPluginLoad;
    } catch (const std::exception &e) {
        log::failure(std::string("up: ") + e.what());
        return kExitFailure;
    }
}

}  // namespace liveupdate::host::cli
