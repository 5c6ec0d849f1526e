// Kubeconfig reading and merging, exec credentials, and the pure rules of
// Kubernetes discovery (no cluster needed).
#define BOOST_TEST_MODULE kubeconfig
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "common/json_fields.hpp"
#include "common/kube/credentials.hpp"
#include "common/kube/kubeconfig.hpp"
#include "common/kube/pod_exec.hpp"
#include "host/kubernetes/discovery_rules.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::kube;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;
namespace json = boost::json;
namespace k8s = liveupdate::host::kubernetes;

namespace {

// A scratch folder for kubeconfig files, removed at the end.
const char *kFirst = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EgUEVN
    tls-server-name: kubernetes.local
users:
- name: dev-user
  user:
    token: abc
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: team}
)";

const char *kSecond = R"(apiVersion: v1
kind: Config
current-context: other
clusters:
- name: dev-cluster
  cluster: {server: https://shadowed:1}
- name: prod-cluster
  cluster:
    server: https://prod.example:443
    certificate-authority: certs/ca.pem
    insecure-skip-tls-verify: false
users:
- name: prod-user
  user:
    client-certificate: certs/user.crt
    client-key-data: S0VZ
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
      args: [--cluster, prod]
      env: [{name: REGION, value: eu}]
contexts:
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
- name: dev
  context: {cluster: prod-cluster, user: prod-user}
)";

}  // namespace

BOOST_AUTO_TEST_CASE(files_merge_as_kubectl_merges_them) {
    TempDir s{"lu-kubeconfig-test"};
    const auto first = s.write("first", kFirst);
    const auto second = s.write("second", kSecond);
    fs::create_directories(s.path() / "certs");
    s.write("certs/ca.pem", "CA FILE");
    s.write("certs/user.crt", "CERT FILE");
    LoadOptions o;
    o.kubeconfig_env = first + ":" + (s.path() / "missing").string() + "::" + second;
    BOOST_TEST((kubeconfig_files(o) == std::vector<std::string>{first, second}));

    // current-context and the entry `dev` come from the first file that sets them.
    const ClientConfig dev = load_client_config(o);
    BOOST_TEST(dev.context == "dev");
    BOOST_TEST(dev.server == "https://127.0.0.1:6443");
    BOOST_TEST(dev.namespace_name == "team");
    BOOST_TEST(dev.tls.ca_pem == "CA PEM");
    BOOST_TEST(dev.tls.server_name == "kubernetes.local");
    BOOST_TEST(dev.user.token == "abc");

    o.context = "prod";
    o.namespace_name = "given";
    const ClientConfig prod = load_client_config(o);
    BOOST_TEST(prod.server == "https://prod.example:443");
    BOOST_TEST(prod.namespace_name == "given");
    BOOST_TEST(prod.tls.ca_pem == "CA FILE");  // relative to the second file
    BOOST_TEST(prod.tls.cert_pem == "CERT FILE");
    BOOST_TEST(prod.tls.key_pem == "KEY");
}

BOOST_AUTO_TEST_CASE(exec_plugin_is_parsed_with_paths_resolved) {
    TempDir s{"lu-kubeconfig-test"};
    const auto file = s.write("config", kSecond);
    const Kubeconfig k = parse_kubeconfig(kSecond, file);
    const auto &x = k.users.at("exec-user").exec;
    BOOST_REQUIRE(x.has_value());
    BOOST_TEST(x->command == (s.path() / "bin/get-token").string());
    BOOST_TEST((x->args == std::vector<std::string>{"--cluster", "prod"}));
    BOOST_TEST((x->env == std::vector<std::string>{"REGION=eu"}));
}

BOOST_AUTO_TEST_CASE(exec_plugin_runs_and_its_expiry_is_honoured) {
    TempDir s{"lu-kubeconfig-test"};
    const auto counter = (s.path() / "runs").string();
    const auto plugin =
        s.write("plugin.sh", "#!/bin/sh\necho x >> " + counter +
                                 "\necho \"{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\","
                                 "\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{\\\"token\\\":\\\"t-$REGION\\\","
                                 "\\\"expirationTimestamp\\\":\\\"$EXPIRES\\\"}}\"\n");
    fs::permissions(plugin, fs::perms::owner_all);
    const auto runs = [&] {
        std::ifstream in(counter);
        int n = 0;
        for (std::string line; std::getline(in, line);) ++n;
        return n;
    };
    const auto config_with = [&](const std::string &expires) {
        ClientConfig c;
        c.user_name = "u";
        c.user.exec = ExecPlugin{"client.authentication.k8s.io/v1",   plugin, {},
                                 {"REGION=eu", "EXPIRES=" + expires}, "",     "kubeconfig: users[u].user.exec"};
        return c;
    };
    CredentialSource lasting(config_with("2999-01-01T00:00:00Z"));
    BOOST_TEST(lasting.current().token == "t-eu");
    BOOST_TEST(lasting.current().token == "t-eu");
    BOOST_TEST(runs() == 1);  // cached until it expires
    lasting.invalidate();
    BOOST_TEST(lasting.current().token == "t-eu");
    BOOST_TEST(runs() == 2);  // a 401 makes it run again

    CredentialSource expired(config_with("2000-01-01T00:00:00+01:00"));
    expired.current();
    expired.current();
    BOOST_TEST(runs() == 4);  // already expired: every use runs it

    BOOST_CHECK_EXCEPTION(parse_exec_credential("{\"status\":{}}", "users[u].user.exec"), std::runtime_error,
                          [](const std::runtime_error &e) {
                              return std::string(e.what()).find("users[u].user.exec") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(errors_name_file_and_field) {
    TempDir s{"lu-kubeconfig-test"};
    const auto message = [](const LoadOptions &o) {
        try {
            load_client_config(o);
        } catch (const KubeconfigError &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    LoadOptions missing;
    missing.kubeconfig_env = (s.path() / "nope").string();
    BOOST_TEST(message(missing).find((s.path() / "nope").string() + ": no such file") != std::string::npos,
               message(missing));

    LoadOptions explicit_missing;
    explicit_missing.kubeconfig = (s.path() / "gone").string();
    BOOST_TEST(message(explicit_missing).find("gone: no such file") != std::string::npos);

    LoadOptions unknown;
    unknown.kubeconfig = s.write("k1", kFirst);
    unknown.context = "staging";
    const auto u = message(unknown);
    BOOST_TEST(u.find(unknown.kubeconfig) != std::string::npos, u);
    BOOST_TEST(u.find("--context: context \"staging\" not found (contexts: dev)") != std::string::npos, u);

    LoadOptions unreadable;
    unreadable.kubeconfig = s.write("k2", kSecond);  // certs/ca.pem does not exist here
    unreadable.context = "prod";
    const auto r = message(unreadable);
    BOOST_TEST(r.find("kubeconfig " + unreadable.kubeconfig +
                      ": clusters[prod-cluster].cluster.certificate-authority: cannot read " +
                      (s.path() / "certs/ca.pem").string()) != std::string::npos,
               r);

    LoadOptions bad_yaml;
    bad_yaml.kubeconfig = s.write("k3", "clusters: [\n  - name: a\n   bad");
    BOOST_TEST(message(bad_yaml).find("k3: line ") != std::string::npos, message(bad_yaml));

    LoadOptions bomb;
    std::string laughs = "x0: &x0 [a, a, a, a, a, a, a, a, a]\n";
    for (int level = 1; level < 9; ++level) {
        const std::string prev = "*x" + std::to_string(level - 1);
        laughs += "x" + std::to_string(level) + ": &x" + std::to_string(level) + " [" + prev;
        for (int i = 1; i < 9; ++i) laughs += ", " + prev;
        laughs += "]\n";
    }
    bomb.kubeconfig = s.write("k6", laughs + "clusters: *x8\n");
    BOOST_TEST(message(bomb).find("kubeconfig " + bomb.kubeconfig + ": line 7, column ") == 0, message(bomb));
    BOOST_TEST(message(bomb).find(": too many aliases (") != std::string::npos, message(bomb));

    LoadOptions bad_field;
    bad_field.kubeconfig = s.write("k4", "users:\n- name: x\n  user:\n    token: [1, 2]\n");
    BOOST_TEST(message(bad_field).find("k4: users[x].user.token: must be a string (line 4)") != std::string::npos,
               message(bad_field));

    LoadOptions bad_data;
    bad_data.kubeconfig =
        s.write("k5",
                "current-context: c\ncontexts: [{name: c, context: {cluster: a}}]\n"
                "clusters: [{name: a, cluster: {server: 'https://x', certificate-authority-data: '!!'}}]\n");
    BOOST_TEST(
        message(bad_data).find("k5: clusters[a].cluster.certificate-authority-data: not base64") != std::string::npos,
        message(bad_data));
}

BOOST_AUTO_TEST_CASE(exec_status_gives_the_exit_code) {
    std::string failure;
    BOOST_TEST(exit_code_of_status(R"({"metadata":{},"status":"Success"})", failure) == 0);
    BOOST_TEST(
        exit_code_of_status(
            R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"7"}]}})",
            failure) == 7);
    BOOST_TEST(
        exit_code_of_status(
            R"({"status":"Failure","reason":"InternalError","code":500,"message":"exec: \"tar\": executable file not found in $PATH"})",
            failure) == 127);
    BOOST_TEST(failure.find("tar") != std::string::npos);
    BOOST_TEST(exit_code_of_status(R"({"status":"Failure","message":"boom"})", failure) == -1);
    BOOST_TEST(failure == "boom");
    BOOST_TEST(exec_path({"ns", "web-1", "app"}, {"sh", "-c", "echo a b"}, true) ==
               "/api/v1/namespaces/ns/pods/web-1/exec?stdout=true&stderr=true&stdin=true&container=app"
               "&command=sh&command=-c&command=echo%20a%20b");
}

BOOST_AUTO_TEST_CASE(selectors_match_as_kubernetes_matches) {
    const auto spec = k8s::discovery_spec_of(json::parse(R"({"spec":{"watches":[{"namespace":"ns","uid":"dep-1"}],
        "extraSelectors":[{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},
        {"key":"canary","operator":"DoesNotExist"}]}]}})")
                                                 .as_object());
    const auto &sel = spec.extra_selectors.at(0);
    BOOST_TEST(k8s::selector_query(sel) == "app=web,tier in (a,b),!canary");
    BOOST_TEST(k8s::selector_matches(sel, {{"app", "web"}, {"tier", "a"}}));
    BOOST_TEST(!k8s::selector_matches(sel, {{"app", "web"}, {"tier", "c"}}));
    BOOST_TEST(!k8s::selector_matches(sel, {{"app", "web"}, {"tier", "a"}, {"canary", "1"}}));
    BOOST_TEST(!k8s::selector_matches(k8s::LabelSelector{}, {{"app", "web"}}));
    BOOST_CHECK_THROW(
        k8s::discovery_spec_of(
            json::parse(R"({"spec":{"extraSelectors":[{"matchExpressions":[{"key":"a","operator":"In"}]}]}})")
                .as_object()),
        std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(pods_match_through_owners_and_give_tilts_status) {
    const auto spec = k8s::discovery_spec_of(
        json::parse(
            R"({"spec":{"watches":[{"namespace":"ns","uid":"dep-1"}],"extraSelectors":[{"matchLabels":{"app":"x"}}]}})")
            .as_object());
    const auto pod =
        json::parse(
            R"({"metadata":{"name":"web-abc","namespace":"ns","uid":"pod-1","creationTimestamp":"2026-11-30T20:00:00Z",
        "labels":{"app":"web","pod-template-hash":"5d8"},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5d8","uid":"rs-1","controller":true}]},
      "spec":{"containers":[{"name":"main","image":"busybox"}]},
      "status":{"phase":"Running","containerStatuses":[{"name":"main","containerID":"containerd://c0ffee","image":"localhost/busybox:local",
        "ready":true,"restartCount":2,"state":{"running":{"startedAt":"2026-11-30T20:00:01Z"}}}]}})")
            .as_object();
    const auto rs = k8s::controller_owner(pod);
    BOOST_REQUIRE(rs.has_value());
    BOOST_TEST(rs->kind == "ReplicaSet");
    const std::vector<k8s::Ancestor> chain{{*rs, "2026-11-30T19:59:00Z"},
                                           {{"Deployment", "web", "dep-1", "apps/v1"}, "2026-11-30T19:58:00Z"}};
    const auto m = k8s::match_pod(spec, pod, chain);
    BOOST_TEST(m.matches);
    BOOST_TEST(m.ancestor_uid == "dep-1");
    BOOST_TEST(!k8s::match_pod(spec, pod, {chain[0]}).matches);  // neither the owner nor the labels

    const auto entry = k8s::pod_status_entry(pod, m.ancestor_uid, chain);
    const auto expected =
        json::parse(R"({"name":"web-abc","namespace":"ns","createdAt":"2026-11-30T20:00:00Z","phase":"Running",
      "deleting":false,"status":"Running","containers":[{"name":"main","id":"c0ffee","image":"localhost/busybox:local","ready":true,
      "restarts":2,"state":{"running":{"startedAt":"2026-11-30T20:00:01Z"}}}],"podTemplateSpecHash":"5d8","ancestorUID":"dep-1",
      "owner":{"creationTimestamp":"2026-11-30T19:58:00Z","name":"web","apiVersion":"apps/v1","kind":"Deployment"}})");
    BOOST_TEST(json::value(entry) == expected, json::serialize(entry));
}

// A pod field of another type is refused naming its path, never read as
// "not ready" (the discovery then says so and tries again; kubernetes_discovery.cpp).
BOOST_AUTO_TEST_CASE(a_mistyped_pod_field_names_its_path) {
    const auto error_of = [](std::string_view pod) {
        try {
            k8s::pod_status_entry(json::parse(pod).as_object(), "", {});
        } catch (const liveupdate::common::DecodeError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    BOOST_TEST(error_of(R"({"spec":{"containers":[{"name":"main"}]},
      "status":{"containerStatuses":[{"name":"main","ready":"true"}]}})") ==
               "status.containerStatuses[0].ready: expected boolean");
    BOOST_TEST(error_of(R"({"spec":{"containers":[{"name":"main"}]},
      "status":{"containerStatuses":[{"name":"main","state":{"terminated":{"exitCode":"1"}}}]}})") ==
               "status.containerStatuses[0].state.terminated.exitCode: expected integer");
    BOOST_TEST(error_of(R"({"metadata":{"name":7}})") == "metadata.name: expected string");
    BOOST_TEST(error_of(R"({"metadata":{"name":"p"},"status":{"phase":null}})") == "");
    BOOST_CHECK_EXCEPTION(k8s::discovery_spec_of(json::parse(R"({"spec":{"watches":[{"namespace":1}]}})").as_object()),
                          std::invalid_argument, [](const std::invalid_argument &e) {
                              return std::string(e.what()) == "spec.watches[0].namespace: expected string";
                          });
}
