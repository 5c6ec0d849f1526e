// `lu-host crds [-o yaml|json]`: the CustomResourceDefinitions of the
// tilt.dev/v1alpha1 kinds the plugin reads from a cluster.
#include <iostream>
#include <vector>

#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/cluster/cluster_kinds.hpp"
#include "host/cluster/yaml_text.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kCrdsHelp =
    "usage: lu-host crds [-o yaml|json]\n"
    "\n"
    "Prints the apiextensions.k8s.io/v1 CustomResourceDefinitions of the\n"
    "tilt.dev/v1alpha1 kinds the liveupdate plugin reads from a cluster\n"
    "(LiveUpdate, FileWatch, KubernetesDiscovery, ImageMap, KubernetesApply):\n"
    "structural schemas of Tilt's API types with the fields this project adds,\n"
    "the status subresource, short names (lu, fw, kd, im, ka) and the columns\n"
    "`kubectl get` shows (-o wide: more). Install them with\n"
    "  lu-host crds | kubectl apply -f -\n"
    "\n"
    "  -o, --output F   yaml (default: documents separated by ---) or json (a List)\n"
    "exit: 0 ok, 2 usage error\n";

}  // namespace

const OptionTable kCrdsOptions{{"-o", "--output"}, {"--help", "-h"}};

int run_crds_command(int argc, char **argv) {
    std::string output;
    try {
        const ParsedArgs args = parse_args(argc, argv, kCrdsOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kCrdsHelp;
            return kExitOk;
        }
        if (!args.positional.empty()) throw UsageError("unexpected argument \"" + args.positional[0] + "\"");
        output = args.value("-o").value_or(args.value("--output").value_or("yaml"));
        if (output != "yaml" && output != "json") throw UsageError("-o must be yaml or json");
    } catch (const UsageError &e) {
        std::cerr << "lu-host crds: " << e.what() << "\n\n" << kCrdsHelp;
        return kExitUsage;
    }
    std::vector<json::value> crds;
    for (const auto &kind : cluster::cluster_kinds()) crds.emplace_back(cluster::custom_resource_definition(kind));
    if (output == "json") {
        json::array items(crds.begin(), crds.end());
        std::cout << json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}})
                  << '\n';
    } else {
        std::cout << cluster::yaml_documents(crds);
    }
    return kExitOk;
}

}  // namespace liveupdate::host::cli
