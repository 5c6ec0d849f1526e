// `lu-host rbac --namespace NS [--user U | --service-account NS/NAME] [-o yaml|json]`:
// the least Role (+ RoleBinding) the operator needs.
#include <iostream>

#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/cluster/operator_rbac.hpp"
#include "host/cluster/yaml_text.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kRbacHelp =
    "usage: lu-host rbac --namespace|-n NS [--user U | --service-account NS/NAME] [-o|--output yaml|json]\n"
    "\n"
    "Prints the least permissions `lu-host up --from-cluster --namespace NS` needs,\n"
    "bound to the user U (default: lu-host-operator) or the service account:\n"
    "one Role in NS: its Lease lu-host-operator; the ConfigMap tilt-trigger-queue\n"
    "(get, list, watch, update; create); pods: get, list, watch; pods/exec: get\n"
    "(an exec over WebSocket), create;\n"
    "the owners of pods: get; LiveUpdate, FileWatch, KubernetesDiscovery, ImageMap,\n"
    "KubernetesApply (Namespaced CRDs): get, list, watch; their /status: get, update;\n"
    "events (events.k8s.io): create, patch (a LiveUpdate's Events).\n"
    "No ClusterRole. A KubernetesDiscovery that watches pods in another namespace\n"
    "needs the pod rules there too (bind a Role of that namespace).\n"
    "Apply them with\n"
    "  lu-host rbac --namespace NS --user U | kubectl apply -f -\n"
    "\n"
    "exit: 0 ok, 2 usage error\n";

}  // namespace

const OptionTable kRbacOptions{{"--namespace", "-n", "--user", "--service-account", "-o", "--output"},
                               {"--help", "-h"}};

int run_rbac_command(int argc, char **argv) {
    std::string ns, output;
    cluster::RbacSubject subject{cluster::RbacSubject::Kind::user, "lu-host-operator", ""};
    try {
        const ParsedArgs args = parse_args(argc, argv, kRbacOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kRbacHelp;
            return kExitOk;
        }
        if (!args.positional.empty()) throw UsageError("unexpected argument \"" + args.positional[0] + "\"");
        ns = args.value("--namespace").value_or(args.value("-n").value_or(""));
        if (ns.empty()) throw UsageError("--namespace is required");
        const auto user = args.value("--user");
        const auto account = args.value("--service-account");
        if (user && account) throw UsageError("--user and --service-account exclude each other");
        if (user) subject.name = *user;
        if (account) {
            const auto slash = account->find('/');
            if (slash == std::string::npos || slash == 0 || slash + 1 == account->size())
                throw UsageError("--service-account needs NAMESPACE/NAME, got " + *account);
            subject = {cluster::RbacSubject::Kind::service_account, account->substr(slash + 1),
                       account->substr(0, slash)};
        }
        output = args.value("-o").value_or(args.value("--output").value_or("yaml"));
        if (output != "yaml" && output != "json") throw UsageError("-o must be yaml or json");
    } catch (const UsageError &e) {
        std::cerr << "lu-host rbac: " << e.what() << "\n\n" << kRbacHelp;
        return kExitUsage;
    }
    const std::vector<json::value> objects = cluster::operator_rbac(ns, subject);
    if (output == "json")
        std::cout << json::serialize(json::object{{"apiVersion", "v1"},
                                                  {"kind", "List"},
                                                  {"items", json::array(objects.begin(), objects.end())}})
                  << '\n';
    else
        std::cout << cluster::yaml_documents(objects);
    return kExitOk;
}

}  // namespace liveupdate::host::cli
