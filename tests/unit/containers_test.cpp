#include <boost/test/unit_test.hpp>

#include "plugin/core/containers.hpp"

using namespace liveupdate;

BOOST_AUTO_TEST_SUITE(containers)

BOOST_AUTO_TEST_CASE(docker_states_map_to_waiting_running_terminated) {
    for (const char *s : {"created", "paused", "restarting"}) {
        const auto st = container_state_from_docker({s, {}, {}, 0});
        BOOST_TEST((st.waiting && st.waiting->reason == s && !st.running && !st.terminated), s);
    }
    BOOST_TEST(container_state_from_docker({"running", common::MicroTime(5), {}, 0}).running->started_at.micros() == 5);
    for (const char *s : {"removing", "exited", "dead"}) {
        const auto st = container_state_from_docker({s, {}, {}, 3});
        BOOST_TEST((st.terminated && st.terminated->exit_code == 3 && !st.running), s);
    }
    const auto unknown = container_state_from_docker({"weird", {}, {}, 0});
    BOOST_TEST((!unknown.waiting && !unknown.running && !unknown.terminated));
}

BOOST_AUTO_TEST_CASE(compose_service_without_id_selects_nothing) {
    api::DockerComposeService dcs;
    dcs.status.container_state = api::DockerContainerState{"running", {}, {}, 0};
    BOOST_TEST(select_docker_compose(dcs).containers.empty());
    dcs.status.container_id = "abc";
    const auto r = select_docker_compose(dcs);
    BOOST_REQUIRE_EQUAL(r.containers.size(), 1u);
    BOOST_TEST(r.via == "docker");
    BOOST_TEST(r.containers[0].ref.pod.empty());
}

// L01: the one container of a LocalContainer is named with its root, the
// folder standing for its "/"; a Compose container has none.
BOOST_AUTO_TEST_CASE(a_local_container_is_named_with_its_root) {
    api::LocalContainer local;
    local.spec.root = "/srv/box";
    local.status.container_id = "local-1";
    local.status.container_name = "box";
    local.status.container_state = api::DockerContainerState{"running", {}, {}, 0};
    const auto r = select_local(local);
    BOOST_REQUIRE_EQUAL(r.containers.size(), 1u);
    BOOST_TEST(r.via == "local");
    BOOST_TEST((r.containers[0].ref == updater::ContainerRef{"local-1", "box", "", "", "/srv/box"}));
    BOOST_TEST(r.containers[0].state.running.has_value());
}

BOOST_AUTO_TEST_CASE(image_names_ignore_tags_and_default_registry) {
    BOOST_TEST(image_names_equal("nginx:1", "docker.io/library/nginx:2"));
    BOOST_TEST(image_names_equal("reg.example.com:5000/app:abc", "reg.example.com:5000/app@sha256:00"));
    BOOST_TEST(!image_names_equal("app", "other/app"));
    BOOST_TEST(!image_names_equal("", ""));
}

BOOST_AUTO_TEST_CASE(kubernetes_selection_filters_and_skips_unnamed) {
    api::KubernetesDiscovery kd;
    api::Pod pod;
    pod.name = "p";
    pod.namespace_name = "ns";
    pod.created_at = common::MicroTime(10);
    pod.phase = "Running";
    pod.containers = {
        {"", "id0", "img", false, {}}, {"main", "id1", "img:1", true, {}}, {"side", "id2", "other", true, {}}};
    kd.pods = {pod};
    api::LiveUpdateKubernetesSelector by_image{"kd", "", "img", "", ""};
    auto r = select_kubernetes(kd, nullptr, by_image, nullptr);
    BOOST_REQUIRE_EQUAL(r.containers.size(), 1u);
    BOOST_TEST((r.containers[0].ref == updater::ContainerRef{"id1", "main", "p", "ns", ""}));
    BOOST_TEST(r.best_start_time.micros() == 10);

    api::LiveUpdateKubernetesSelector by_map{"kd", "", "", "", "im"};
    api::ImageMap im;
    im.status.image_from_cluster = "other:tilt-123";
    r = select_kubernetes(kd, nullptr, by_map, &im);
    BOOST_REQUIRE_EQUAL(r.containers.size(), 1u);
    BOOST_TEST(r.containers[0].ref.name == "side");

    api::KubernetesApply ka;
    ka.status.last_apply_start_time = common::MicroTime(99);
    BOOST_TEST(select_kubernetes(kd, &ka, by_image, nullptr).best_start_time.micros() == 99);
}

BOOST_AUTO_TEST_CASE(display_names_follow_tilt) {
    BOOST_TEST(container_display_name("pod", "main", "id") == "pod/main");
    BOOST_TEST(container_display_name("", "web", "id") == "web");
    BOOST_TEST(container_display_name("", "", "0123456789abcdef") == "0123456789");
}

BOOST_AUTO_TEST_SUITE_END()
