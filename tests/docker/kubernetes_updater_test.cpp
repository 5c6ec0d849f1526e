// The kubernetes updater through a kubectl stand-in (kubectl-standin/kubectl)
// that maps `kubectl exec` onto `docker exec` into a real container. What this
// does not test: a real API server, pod/namespace resolution, SPDY/websocket
// streaming of real kubectl.
#define BOOST_TEST_MODULE kubernetes_updater
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/docker/docker_test_support.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"

using namespace lu_test;

namespace {

// The stand-in's pods are Docker containers no API server knows (see
// lu_test::no_cluster_kubeconfig).
const std::string &kNoCluster = lu_test::no_cluster_kubeconfig();

const std::string kConfig = std::string(R"({"exec": "kubectl", "kubectl": ")") + LU_KUBECTL_STANDIN +
                            R"(", "kubeconfig": ")" + kNoCluster + R"("})";

Outcome update(DockerUpdater &updater, const TestContainer &c, Update u) {
    u.pod = c.name();
    u.namespace_name = "dev";
    return updater.update("containerd://" + c.id(), "app", u);
}

// An UpdateLog's lines with their levels, as the host would receive them.
struct LoggedLines {
    std::vector<std::pair<std::int32_t, std::string>> lines;
    static void add(void *ctx, std::int32_t level, lu_str line) {
        static_cast<LoggedLines *>(ctx)->lines.emplace_back(level, std::string(line.data, line.size));
    }
    bool has(std::int32_t level, const std::string &text) const {
        return std::find(lines.begin(), lines.end(), std::make_pair(level, text)) != lines.end();
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(argv_and_exit_codes_as_kubectl_speaks_them) {
    using namespace liveupdate::kubernetes;
    KubectlConfig config;
    config.context = "kind";
    BOOST_TEST((kubectl_exec_argv(config, {"ns", "pod-1", "app"}, true, {"tar", "-x"}) ==
                std::vector<std::string>{"kubectl", "--context", "kind", "exec", "-i", "-n", "ns", "pod-1", "-c", "app",
                                         "--", "tar", "-x"}));
    BOOST_TEST(remote_exit_code("boom\ncommand terminated with exit code 3\n") == 3);
    BOOST_TEST(remote_exit_code("Error from server (NotFound): pods \"x\" not found") == -1);
    BOOST_CHECK_THROW(parse_kubectl_config(R"({"timeoutSeconds": -1})"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_kubectl_config(R"({"namespace": "x"})"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(deletes_copies_and_runs_through_kubectl_exec) {
    TestContainer c("lu-busybox:latest", "sleep 100000");
    c.exec("mkdir -p /app && echo old > /app/old.txt");
    const std::string log = "/tmp/lu-kubectl-standin-" + std::to_string(::getpid()) + ".log";
    ::setenv("KUBECTL_STANDIN_LOG", log.c_str(), 1);
    DockerUpdater updater(kConfig, LU_KUBERNETES_UPDATER_PATH);
    Update u;
    u.deletes = {"/app/old.txt"};
    u.archive =
        TarBuilder().dir("var").dir("var/run").file("var/run/k.txt", "k8s\n").file("app/new.txt", "new\n").finish();
    u.copies = {{"/l/k.txt", "/var/run/k.txt"}, {"/l/new.txt", "/app/new.txt"}};
    u.runs = {{{"sh", "-c", "echo ran-in-pod"}, false}};
    const auto outcome = update(updater, c, u);
    ::unsetenv("KUBECTL_STANDIN_LOG");
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.exec("ls /app").output == "new.txt\n");
    BOOST_TEST(c.exec("cat /run/k.txt").output == "k8s\n");
    BOOST_TEST(c.exec("readlink /var/run").output == "../run\n");
    BOOST_TEST(outcome.logged("[CMD 1/1] sh -c echo ran-in-pod"));
    BOOST_TEST(outcome.logged("ran-in-pod"));
    std::stringstream calls;
    calls << std::ifstream(log).rdbuf();
    std::remove(log.c_str());
    // The deletes and the copy in one gated command (exec_gate.hpp): it waited for the go-ahead.
    BOOST_TEST(calls.str().find("ns=dev pod=" + c.name() + " container=app cmd=sh -c echo 'lu-exec-gate: started'") !=
                   std::string::npos,
               calls.str());
    BOOST_TEST(calls.str().find("exec tar -C / -x -f -") != std::string::npos, calls.str());
}

// As the docker updater's exec path (docker_agent_test): kinds swap, a late
// delete beneath a former folder, and symlinks below the sync's path unfollowed.
BOOST_AUTO_TEST_CASE(kinds_swap_and_container_symlinks_stay_unfollowed_through_kubectl_exec) {
    TestContainer c("lu-busybox:latest", "sleep 100000");
    c.exec(
        "mkdir -p /app/y/sub /outside && echo o > /app/y/sub/old && echo f > /app/f && echo k > /outside/keep && "
        "ln -s /outside /app/link && ln -s /outside /app/link2");
    DockerUpdater updater(kConfig, LU_KUBERNETES_UPDATER_PATH);
    const auto apply = [&](const std::string &archive, const std::vector<std::string> &copies,
                           const std::vector<std::string> &deletes) {
        Update u;
        u.archive = archive;
        for (const auto &p : copies) u.copies.push_back({"/l" + p, p});
        u.deletes = deletes;
        u.sync_roots = {"/app"};
        const auto outcome = update(updater, c, u);
        BOOST_TEST(outcome.kind == LU_OUTCOME_OK, outcome.message);
    };
    apply(TarBuilder().file("app/y", "x").finish(), {"/app/y"}, {"/app/y/sub/old"});
    BOOST_TEST(c.exec("cat /app/y").output == "x");
    apply(TarBuilder().file("app/f/g", "g").finish(), {"/app/f/g"}, {});
    BOOST_TEST(c.exec("cat /app/f/g").output == "g");
    apply("", {}, {"/app/y/sub/old"});
    apply(TarBuilder().file("app/link/victim", "v").finish(), {"/app/link/victim"}, {"/app/link2/keep"});
    BOOST_TEST(c.exec("cat /app/link/victim").output == "v");
    BOOST_TEST(c.exec("ls /outside").output == "keep\n");
    BOOST_TEST(c.exec("readlink /app/link2").output == "/outside\n");
}

BOOST_AUTO_TEST_CASE(a_failing_command_is_a_run_failure_and_kubectl_errors_are_infra) {
    TestContainer c("lu-busybox:latest", "sleep 100000");
    DockerUpdater updater(kConfig, LU_KUBERNETES_UPDATER_PATH);
    Update failing;
    failing.runs = {{{"sh", "-c", "exit 4"}, false}, {{"touch", "/tmp/second"}, false}};
    const auto run = update(updater, c, failing);
    BOOST_TEST(run.kind == LU_OUTCOME_RUN_FAILURE);
    BOOST_TEST(run.exit_code == 4);
    BOOST_TEST(run.message.find("command \"exit 4\" failed with exit code: 4") != std::string::npos, run.message);
    BOOST_TEST(c.exec("test -e /tmp/second; echo $?").output == "1\n");

    Update restart;
    restart.restart = true;
    const auto refused = update(updater, c, restart);
    BOOST_TEST(refused.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(refused.message.find("liveupdate.dev/restart: process") != std::string::npos, refused.message);

    Update any;
    any.runs = {{{"true"}, false}};
    any.pod = "no-such-pod-" + std::to_string(::getpid());
    any.namespace_name = "dev";
    const auto missing = updater.update("x", "app", any);
    BOOST_TEST(missing.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(missing.message.find("pods \"" + any.pod + "\" not found") != std::string::npos, missing.message);

    DockerUpdater no_kubectl(
        R"({"exec": "kubectl", "kubectl": "/nonexistent/kubectl", "kubeconfig": ")" + kNoCluster + R"("})",
        LU_KUBERNETES_UPDATER_PATH);
    const auto absent = update(no_kubectl, c, any);
    BOOST_TEST(absent.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(absent.message.find("cannot run '/nonexistent/kubectl'") != std::string::npos, absent.message);
}

// The updater's core takes the SDK's request and returns its outcome, no C ABI in between.
BOOST_AUTO_TEST_CASE(the_core_updates_from_an_sdk_request) {
    using namespace liveupdate;
    TestContainer c("lu-busybox:latest", "sleep 100000");
    LoggedLines logged;
    updater::Request request;
    request.container = {"containerd://" + c.id(), "app", c.name(), "dev", ""};
    request.runs = {{{"sh", "-c", "echo from-core"}}, {{"sh", "-c", "exit 5"}, true}, {{"touch", "/tmp/third"}}};
    request.log = updater::UpdateLog(&LoggedLines::add, &logged);
    const kubernetes::KubectlConfig config = kubernetes::parse_kubectl_config(kConfig);
    const updater::Outcome outcome = kubernetes::update_pod_container(config, request);
    BOOST_TEST((outcome.kind == updater::Outcome::Kind::run_failure), outcome.message);
    BOOST_TEST(outcome.exit_code == 5);
    BOOST_TEST(logged.has(LU_LOG_INFO, "[CMD 1/3] sh -c echo from-core"));
    BOOST_TEST(logged.has(LU_LOG_INFO, "from-core"));
    BOOST_TEST(!logged.has(LU_LOG_INFO, "[CMD 2/3] sh -c exit 5"));  // echo off
    BOOST_TEST(c.exec("test -e /tmp/third").exit_code != 0);
}

BOOST_AUTO_TEST_CASE(an_image_without_tar_gets_the_advice) {
    TestContainer c("lu-notar:2", "/sleep 100000");
    DockerUpdater updater(kConfig, LU_KUBERNETES_UPDATER_PATH);
    Update u;
    u.archive = TarBuilder().file("app/a.txt", "a\n").finish();
    u.copies = {{"/l/a.txt", "/app/a.txt"}};
    const auto outcome = update(updater, c, u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("needs `tar` in $PATH") != std::string::npos, outcome.message);
}

// The real kubectl with no cluster behind it: kubectl's own failure, not a run
// failure. CTest runs this case on its own, reported skipped without kubectl.
BOOST_AUTO_TEST_CASE(real_kubectl_without_a_cluster_is_an_infra_failure) {
    const std::string kubeconfig = "/tmp/lu-empty-kubeconfig-" + std::to_string(::getpid());
    std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n";
    DockerUpdater updater(R"({"exec": "kubectl", "kubeconfig": ")" + kubeconfig + R"(", "timeoutSeconds": 60})",
                          LU_KUBERNETES_UPDATER_PATH);
    Update u;
    u.runs = {{{"true"}, false}};
    u.pod = "web-0";
    u.namespace_name = "default";
    const auto outcome = updater.update("x", "app", u);
    std::remove(kubeconfig.c_str());
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("kubectl exec failed (exit code 1)") != std::string::npos, outcome.message);
}
