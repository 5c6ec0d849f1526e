// The mutating webhook's rules: which pods get lu-agent injected, what the
// patch does to them once the API server applies it, and that nothing a pod
// says can make the webhook refuse it or patch it twice.
#include <boost/test/unit_test.hpp>

#include <string>

#include "common/kube/kubeconfig.hpp"
#include "host/webhook/mutation_review.hpp"
#include "host/webhook/pod_injection.hpp"
#include "host/webhook/webhook_routes.hpp"
#include "tests/webhook/json_patch_apply.hpp"

using namespace liveupdate::host::webhook;
using liveupdate::tests::apply_json_patch;
namespace json = boost::json;

namespace {

const InjectionOptions kOptions{"localhost/lu-agent:dev", "/.lu-agent/injected"};
const PodNamespace kLabelled{"apps", std::map<std::string, std::string>{{"liveupdate.dev/inject", "enabled"}}};
const PodNamespace kUnlabelled{"apps", std::map<std::string, std::string>{{"team", "web"}}};

json::value pod(const std::string &annotations = "{}", const std::string &extra_spec = "") {
    return json::parse(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","annotations":)" + annotations + R"(},"spec":{)" +
        extra_spec +
        R"("containers":[{"name":"app","image":"web:1","command":["/app/server"],"args":["--port","8080"]},
                          {"name":"sidecar","image":"proxy:1","volumeMounts":[{"name":"cfg","mountPath":"/cfg"}]}]}})");
}

json::value patched(const json::value &original, const PodNamespace &ns = kLabelled,
                    const InjectionOptions &options = kOptions) {
    return apply_json_patch(original, plan_injection(original, ns, options).patch);
}

const json::object &container(const json::value &p, std::size_t i) {
    return p.at("spec").at("containers").at(i).as_object();
}

bool mounts_agent(const json::object &c) {
    const json::value *mounts = c.if_contains("volumeMounts");
    if (mounts == nullptr) return false;
    for (const auto &m : mounts->as_array())
        if (m.at("name").as_string() == kAgentVolume) {
            BOOST_TEST(m.at("mountPath").as_string() == "/.lu-agent/injected");
            BOOST_TEST(m.at("readOnly").as_bool());
            return true;
        }
    return false;
}

// The container's LU_SUPERVISE_SOCKET, "" without one.
std::string supervise_socket(const json::object &c) {
    const json::value *env = c.if_contains("env");
    if (env == nullptr) return {};
    for (const auto &v : env->as_array())
        if (v.at("name").as_string() == "LU_SUPERVISE_SOCKET") return std::string(v.at("value").as_string());
    return {};
}

bool mentions(const std::vector<std::string> &warnings, const std::string &text) {
    for (const auto &w : warnings)
        if (w.find(text) != std::string::npos) return true;
    return false;
}

std::string pod_review(const std::string &object, const std::string &operation = "CREATE",
                       const std::string &ns = "apps") {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7",
        "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
        "namespace":")" +
           ns + R"(","operation":")" + operation + R"(","object":)" + object + "}}";
}

json::object response_of(const HttpAnswer &answer) {
    BOOST_REQUIRE_EQUAL(answer.status, 200u);
    BOOST_TEST(answer.content_type == "application/json");
    const json::value v = json::parse(answer.body);
    BOOST_TEST(v.at("kind").as_string() == "AdmissionReview");
    BOOST_TEST(v.at("response").at("uid").as_string() == "u-7");
    BOOST_TEST(v.at("response").at("allowed").as_bool());
    return v.at("response").as_object();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pod_injection)

BOOST_AUTO_TEST_CASE(a_pod_of_a_labelled_namespace_gets_the_volume_the_installer_and_mounts) {
    const json::value p = patched(pod());
    const json::array &volumes = p.at("spec").at("volumes").as_array();
    BOOST_REQUIRE_EQUAL(volumes.size(), 1u);
    BOOST_TEST(volumes[0].at("name").as_string() == kAgentVolume);
    BOOST_TEST(volumes[0].as_object().contains("emptyDir"));
    const json::array &init = p.at("spec").at("initContainers").as_array();
    BOOST_REQUIRE_EQUAL(init.size(), 1u);
    BOOST_TEST(init[0].at("image").as_string() == "localhost/lu-agent:dev");
    BOOST_TEST(json::serialize(init[0].at("command")) == R"(["cp","/lu-agent","/.lu-agent/injected/lu-agent"])");
    BOOST_TEST(init[0].at("volumeMounts").at(0).at("mountPath").as_string() == "/.lu-agent/injected");
    BOOST_TEST(mounts_agent(container(p, 0)));
    BOOST_TEST(mounts_agent(container(p, 1)));
    BOOST_TEST(container(p, 1).at("volumeMounts").as_array().size() == 2u);  // its own mount kept
    BOOST_TEST(p.at("metadata").at("annotations").at(kInjectedAnnotation).as_string() == "localhost/lu-agent:dev");
    // No restart asked: the command is the app's.
    BOOST_TEST(json::serialize(container(p, 0).at("command")) == R"(["/app/server"])");
}

BOOST_AUTO_TEST_CASE(existing_volumes_and_init_containers_are_kept) {
    const json::value p = patched(pod("{}", R"("volumes":[{"name":"cfg","emptyDir":{}}],
        "initContainers":[{"name":"migrate","image":"db:1"}],)"));
    BOOST_TEST(p.at("spec").at("volumes").as_array().size() == 2u);
    BOOST_TEST(p.at("spec").at("volumes").at(0).at("name").as_string() == "cfg");
    BOOST_TEST(p.at("spec").at("initContainers").as_array().size() == 2u);
    BOOST_TEST(p.at("spec").at("initContainers").at(0).at("name").as_string() == "migrate");
    BOOST_TEST(p.at("spec").at("initContainers").at(1).at("name").as_string() == kAgentInitContainer);
}

BOOST_AUTO_TEST_CASE(a_pod_without_annotations_or_metadata_gets_the_annotation) {
    json::value p = pod();
    p.at("metadata").as_object().erase("annotations");
    BOOST_TEST(patched(p).at("metadata").at("annotations").at(kInjectedAnnotation).as_string() ==
               "localhost/lu-agent:dev");
    p.as_object().erase("metadata");
    BOOST_TEST(patched(p).at("metadata").at("annotations").as_object().contains(kInjectedAnnotation));
}

BOOST_AUTO_TEST_CASE(only_opted_in_pods_are_changed) {
    BOOST_TEST(plan_injection(pod(), kUnlabelled, kOptions).patch.empty());
    BOOST_TEST(!plan_injection(pod(R"({"liveupdate.dev/inject":"true"})"), kUnlabelled, kOptions).patch.empty());
    BOOST_TEST(plan_injection(pod(R"({"liveupdate.dev/inject":"false"})"), kLabelled, kOptions).patch.empty());
    json::value labelled_out = pod();
    labelled_out.at("metadata").as_object()["labels"] = json::object{{"liveupdate.dev/inject", "false"}};
    BOOST_TEST(plan_injection(labelled_out, kLabelled, kOptions).patch.empty());
    // Unknown namespace labels: the configuration's namespaceSelector chose it.
    BOOST_TEST(!plan_injection(pod(), PodNamespace{"apps", std::nullopt}, kOptions).patch.empty());
}

BOOST_AUTO_TEST_CASE(never_kube_system) {
    const PodNamespace system{"kube-system", std::map<std::string, std::string>{{"liveupdate.dev/inject", "enabled"}}};
    BOOST_TEST(plan_injection(pod(R"({"liveupdate.dev/inject":"true"})"), system, kOptions).patch.empty());
    BOOST_TEST(plan_injection(pod(), PodNamespace{"kube-system", std::nullopt}, kOptions).patch.empty());
}

BOOST_AUTO_TEST_CASE(never_the_webhooks_own_pods) {
    const json::value webhook = json::parse(R"({"metadata":{"name":"lu-webhook"},"spec":{"containers":[
        {"name":"webhook","image":"localhost/lu-host-webhook:dev","command":["/opt/lu/bin/lu-host"],
         "args":["webhook","--listen","0.0.0.0:9443"]}]}})");
    BOOST_TEST(plan_injection(webhook, kLabelled, kOptions).patch.empty());
    const json::value in_command = json::parse(R"({"metadata":{"name":"w"},"spec":{"containers":[
        {"name":"webhook","image":"i","command":["lu-host","webhook"]}]}})");
    BOOST_TEST(plan_injection(in_command, kLabelled, kOptions).patch.empty());
}

BOOST_AUTO_TEST_CASE(patched_twice_equals_patched_once) {
    for (const std::string &annotations :
         {std::string("{}"),
          std::string(R"({"liveupdate.dev/restart":"process","liveupdate.dev/containers":"app"})")}) {
        const json::value once = patched(pod(annotations));
        const Injection again = plan_injection(once, kLabelled, kOptions);
        BOOST_TEST(again.patch.empty(), annotations);
        BOOST_TEST(again.warnings.empty(), annotations);
        BOOST_TEST(apply_json_patch(once, again.patch) == once);
    }
}

BOOST_AUTO_TEST_CASE(called_again_only_a_container_added_since_gets_the_agent) {
    json::value once = patched(pod(R"({"liveupdate.dev/restart":"process","liveupdate.dev/inject":"maybe"})"));
    // Another webhook adds a sidecar after ours; the API server calls us again.
    once.at("spec")
        .at("containers")
        .as_array()
        .push_back(json::object{{"name", "added"}, {"image", "log:1"}, {"command", json::array{"/log"}}});
    const Injection again = plan_injection(once, kLabelled, kOptions);
    BOOST_TEST(again.warnings.empty());  // said the first time
    const json::value p = apply_json_patch(once, again.patch);
    BOOST_TEST(p.at("spec").at("volumes").as_array().size() == 2u);  // the agent's and the run volume, once
    BOOST_TEST(p.at("spec").at("initContainers").as_array().size() == 1u);
    BOOST_TEST(mounts_agent(container(p, 2)));
    BOOST_TEST(supervise_socket(container(p, 2)) == "/.lu-agent/run/supervise.sock");
    BOOST_TEST(json::serialize(container(p, 2).at("command")) ==
               R"(["/.lu-agent/injected/lu-agent","supervise","--","/log"])");
    BOOST_TEST(container(p, 0).at("volumeMounts").as_array().size() == 2u);
    BOOST_TEST(container(p, 0).at("env").as_array().size() == 1u);
    BOOST_TEST(json::serialize(container(p, 0).at("command")) ==
               R"(["/.lu-agent/injected/lu-agent","supervise","--","/app/server"])");
    BOOST_TEST(plan_injection(p, kLabelled, kOptions).patch.empty());
}

BOOST_AUTO_TEST_CASE(the_containers_annotation_chooses_where_the_agent_is_mounted) {
    const json::value p = patched(pod(R"({"liveupdate.dev/containers":" sidecar "})"));
    BOOST_TEST(!mounts_agent(container(p, 0)));
    BOOST_TEST(mounts_agent(container(p, 1)));
    const Injection unknown = plan_injection(pod(R"({"liveupdate.dev/containers":"app,db"})"), kLabelled, kOptions);
    BOOST_TEST(mentions(unknown.warnings, "no container named \"db\""));
    const json::value partly = apply_json_patch(pod(), unknown.patch);
    BOOST_TEST(mounts_agent(container(partly, 0)));
    BOOST_TEST(!mounts_agent(container(partly, 1)));
}

BOOST_AUTO_TEST_CASE(restart_process_wraps_the_command_and_keeps_the_args) {
    const json::value p = patched(pod(R"({"liveupdate.dev/restart":"process"})"));
    BOOST_TEST(json::serialize(container(p, 0).at("command")) ==
               R"(["/.lu-agent/injected/lu-agent","supervise","--","/app/server"])");
    BOOST_TEST(json::serialize(container(p, 0).at("args")) == R"(["--port","8080"])");
}

// A read-only root filesystem has no place for supervise's socket: each
// wrapped container gets a writable folder of its own and the variable naming it.
BOOST_AUTO_TEST_CASE(a_wrapped_container_gets_a_writable_folder_for_the_supervisor_socket) {
    const json::value p = patched(pod(R"({"liveupdate.dev/restart":"process"})"));
    BOOST_TEST(supervise_socket(container(p, 0)) == "/.lu-agent/run/supervise.sock");
    BOOST_TEST(json::serialize(container(p, 0).at("volumeMounts").at(1)) ==
               R"({"name":"liveupdate-run","mountPath":"/.lu-agent/run","subPath":"app"})");
    BOOST_TEST(json::serialize(p.at("spec").at("volumes").at(1)) ==
               R"({"name":"liveupdate-run","emptyDir":{"sizeLimit":"1Mi"}})");
    BOOST_TEST(supervise_socket(container(p, 1)).empty());  // not wrapped: no supervisor
    const json::value unwrapped = patched(pod());
    BOOST_TEST(supervise_socket(container(unwrapped, 0)).empty());
    BOOST_TEST(unwrapped.at("spec").at("volumes").as_array().size() == 1u);

    // A container that names its socket itself keeps it, and gets no run folder.
    json::value own = pod(R"({"liveupdate.dev/restart":"process"})");
    own.at("spec").at("containers").at(0).as_object()["env"] =
        json::array{json::object{{"name", "LU_SUPERVISE_SOCKET"}, {"value", "/data/s.sock"}}};
    const json::value kept = patched(own);
    BOOST_TEST(supervise_socket(container(kept, 0)) == "/data/s.sock");
    BOOST_TEST(container(kept, 0).at("volumeMounts").as_array().size() == 1u);
}

BOOST_AUTO_TEST_CASE(restart_without_a_command_warns_naming_the_container) {
    const Injection i = plan_injection(pod(R"({"liveupdate.dev/restart":"process"})"), kLabelled, kOptions);
    BOOST_TEST(mentions(i.warnings, "container \"sidecar\" has no command"));
    BOOST_TEST(!mentions(i.warnings, "\"app\""));
    const json::value p = apply_json_patch(pod(), i.patch);
    BOOST_TEST(!container(p, 1).contains("command"));
    BOOST_TEST(mounts_agent(container(p, 1)));  // still live-updatable, only not restartable
}

BOOST_AUTO_TEST_CASE(malformed_annotations_are_warnings_never_refusals) {
    const Injection bad_inject = plan_injection(pod(R"({"liveupdate.dev/inject":"yes"})"), kLabelled, kOptions);
    BOOST_TEST(mentions(bad_inject.warnings, "liveupdate.dev/inject: \"yes\" is neither"));
    BOOST_TEST(!bad_inject.patch.empty());  // the namespace decides
    BOOST_TEST(plan_injection(pod(R"({"liveupdate.dev/inject":"yes"})"), kUnlabelled, kOptions).patch.empty());

    const Injection bad_restart = plan_injection(pod(R"({"liveupdate.dev/restart":"always"})"), kLabelled, kOptions);
    BOOST_TEST(mentions(bad_restart.warnings, "liveupdate.dev/restart: \"always\" is not \"process\""));
    BOOST_TEST(json::serialize(container(apply_json_patch(pod(), bad_restart.patch), 0).at("command")) ==
               R"(["/app/server"])");

    for (const std::string &names : {std::string(""), std::string(" , ,"), std::string("db")}) {
        const Injection none =
            plan_injection(pod(R"({"liveupdate.dev/containers":")" + names + R"("})"), kLabelled, kOptions);
        BOOST_TEST(none.patch.empty(), names);
        BOOST_TEST(mentions(none.warnings, "names none of this pod's containers"), names);
    }
}

BOOST_AUTO_TEST_CASE(a_pod_that_cannot_be_read_is_left_alone_with_a_warning) {
    for (const std::string &text :
         {std::string(R"({"spec":{"containers":{"name":"app"}}})"), std::string(R"({"spec":{"containers":[7]}})"),
          std::string(R"({"metadata":{"annotations":{"a":1}},"spec":{"containers":[]}})"),
          std::string(R"({"spec":{"containers":[{"name":"a","command":"run"}]}})"), std::string("[]")}) {
        const Injection i = plan_injection(json::parse(text), kLabelled, kOptions);
        BOOST_TEST(i.patch.empty(), text);
        BOOST_TEST(mentions(i.warnings, "not injected"), text);
    }
}

BOOST_AUTO_TEST_CASE(an_agent_configmap_is_the_volume_and_no_init_container_runs) {
    InjectionOptions options = kOptions;
    options.agent_image.clear();
    options.agent_configmap = "lu-agent";
    const json::value p = patched(pod(), kLabelled, options);
    const json::array &volumes = p.at("spec").at("volumes").as_array();
    BOOST_REQUIRE_EQUAL(volumes.size(), 1u);
    BOOST_TEST(volumes[0].at("name").as_string() == kAgentVolume);
    BOOST_TEST(
        json::serialize(volumes[0].at("configMap")) ==
        R"({"name":"lu-agent","items":[{"key":"lu-agent","path":"lu-agent"}],"defaultMode":365,"optional":true})");
    BOOST_TEST(!p.at("spec").as_object().contains("initContainers"));
    BOOST_TEST(mounts_agent(container(p, 0)));
    BOOST_TEST(mounts_agent(container(p, 1)));
    BOOST_TEST(p.at("metadata").at("annotations").at(kInjectedAnnotation).as_string() == "configmap/lu-agent");
}

BOOST_AUTO_TEST_CASE(a_wrapped_command_waits_for_the_agent_configmap) {
    InjectionOptions options = kOptions;
    options.agent_configmap = "lu-agent";
    const json::value p = patched(pod(R"({"liveupdate.dev/restart":"process"})"), kLabelled, options);
    BOOST_TEST(json::serialize(container(p, 0).at("command")) ==
               R"(["/.lu-agent/injected/lu-agent","supervise","--","/app/server"])");
    BOOST_TEST(!p.at("spec").at("volumes").at(0).at("configMap").at("optional").as_bool());
    // Only the sidecar chosen, which has no command to wrap: the pod never waits.
    const json::value sidecar = patched(
        pod(R"({"liveupdate.dev/restart":"process","liveupdate.dev/containers":"sidecar"})"), kLabelled, options);
    BOOST_TEST(sidecar.at("spec").at("volumes").at(0).at("configMap").at("optional").as_bool());
}

BOOST_AUTO_TEST_CASE(with_an_agent_configmap_patched_twice_equals_patched_once) {
    InjectionOptions options = kOptions;
    options.agent_configmap = "lu-agent";
    for (const std::string &annotations : {std::string("{}"), std::string(R"({"liveupdate.dev/restart":"process"})")}) {
        const json::value once = patched(pod(annotations), kLabelled, options);
        const Injection again = plan_injection(once, kLabelled, options);
        BOOST_TEST(again.patch.empty(), annotations);
        BOOST_TEST(apply_json_patch(once, again.patch) == once);
    }
}

BOOST_AUTO_TEST_CASE(without_an_agent_image_pods_pass_with_a_warning) {
    const Injection i = plan_injection(pod(), kLabelled, InjectionOptions{});
    BOOST_TEST(i.patch.empty());
    BOOST_TEST(mentions(i.warnings, "--agent-image"));
}

BOOST_AUTO_TEST_CASE(the_review_carries_the_patch_in_base64) {
    const json::object r = response_of(answer_mutation(pod_review(json::serialize(pod())), kOptions));
    BOOST_TEST(r.at("patchType").as_string() == "JSONPatch");
    const json::value patch = json::parse(liveupdate::kube::base64_decode(std::string(r.at("patch").as_string())));
    BOOST_TEST(patch == json::value(plan_injection(pod(), PodNamespace{"apps", std::nullopt}, kOptions).patch));
}

BOOST_AUTO_TEST_CASE(the_review_carries_warnings_and_never_refuses) {
    const json::object r = response_of(
        answer_mutation(pod_review(json::serialize(pod(R"({"liveupdate.dev/restart":"process"})"))), kOptions));
    BOOST_TEST(r.contains("patch"));
    BOOST_TEST(std::string(r.at("warnings").at(0).as_string()).find("\"sidecar\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(other_operations_kinds_and_kube_system_pass_untouched) {
    const std::string object = json::serialize(pod());
    for (
        const std::string &body : std::vector<std::string>{
            pod_review(object, "UPDATE"), pod_review(object, "CREATE", "kube-system"),
            R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7","operation":"CREATE",
              "kind":{"group":"apps","version":"v1","kind":"Deployment"},"object":{"spec":{}}}})"}) {
        const json::object r = response_of(answer_mutation(body, kOptions));
        BOOST_TEST(!r.contains("patch"), body);
        BOOST_TEST(!r.contains("patchType"), body);
    }
}

BOOST_AUTO_TEST_CASE(malformed_mutation_bodies_are_400_naming_what_is_wrong) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "not JSON"},
        {"{\"apiVersion\":", "not JSON"},
        {"[1,2]", "not a JSON object"},
        {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "request"},
        {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE"}})",
         "request.kind"},
        {pod_review("\"text\""), "request.object"},
        {pod_review("null"), "request.object"},
        {pod_review("{}").replace(pod_review("{}").find("\"namespace\":\"apps\""), 18, "\"namespace\":7"),
         "request.namespace"},
    };
    for (const auto &[body, names] : cases) {
        const HttpAnswer answer = route({"POST", "/mutate", body}, nullptr, kOptions);
        BOOST_TEST(answer.status == 400u, body);
        BOOST_TEST(answer.body.find(names) != std::string::npos, body + " -> " + answer.body);
    }
}

BOOST_AUTO_TEST_CASE(mutate_routes) {
    BOOST_TEST(route({"GET", "/mutate", ""}, nullptr, kOptions).status == 405u);
    BOOST_TEST(route({"POST", "/mutate?timeout=5s", pod_review(json::serialize(pod()))}, nullptr, kOptions).status ==
               200u);
}

BOOST_AUTO_TEST_SUITE_END()
