#include <boost/test/unit_test.hpp>

#include "plugin/core/apply_filter.hpp"

using namespace liveupdate;

namespace {

api::Pod pod(std::string name, std::string ancestor, std::string owner, std::int64_t owner_created,
             std::string hash = "") {
    api::Pod p;
    p.name = std::move(name);
    p.ancestor_uid = std::move(ancestor);
    p.pod_template_spec_hash = std::move(hash);
    if (!owner.empty()) p.owner = api::PodOwner{std::move(owner), "ReplicaSet", common::MicroTime(owner_created)};
    return p;
}

std::vector<std::string> names(const std::vector<api::Pod> &pods) {
    std::vector<std::string> out;
    for (const auto &p : pods) out.push_back(p.name);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(apply_filter)

BOOST_AUTO_TEST_CASE(reads_uids_and_hashes_from_yaml) {
    const auto f = apply_filter_from_result(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  uid: \"u-1\"\n  labels:\n    uid: nested\n"
        "spec:\n  template:\n    metadata:\n      labels:\n        tilt.dev/pod-template-hash: h1\n---\n"
        "kind: Service\nmetadata:\n  uid: u-2\n");
    BOOST_TEST((f.deployed_uids == std::vector<std::string>{"u-1", "u-2"}));
    BOOST_TEST((f.pod_template_hashes == std::vector<std::string>{"h1"}));
    BOOST_CHECK_THROW(apply_filter_from_result("kind: Service\nmetadata:\n  name: nouid\n"), std::runtime_error);
    BOOST_TEST(apply_filter_from_result("").deployed_uids.empty());
}

BOOST_AUTO_TEST_CASE(reads_json_results_too) {
    const auto f = apply_filter_from_result(
        R"({"kind":"List","items":[{"metadata":{"uid":"u-1"},"spec":{"template":{"metadata":{"labels":{"tilt.dev/pod-template-hash":"h1"}}}}}]})");
    BOOST_TEST((f.deployed_uids == std::vector<std::string>{"u-1"}));
    BOOST_TEST((f.pod_template_hashes == std::vector<std::string>{"h1"}));
}

BOOST_AUTO_TEST_CASE(pods_of_an_older_replica_set_are_dropped) {
    const std::vector<api::Pod> pods{pod("old", "deploy", "rs-1", 10), pod("new", "deploy", "rs-2", 20),
                                     pod("loose", "", "", 0)};
    BOOST_TEST((names(filter_pods(nullptr, pods)) == std::vector<std::string>{"new", "loose"}));
}

BOOST_AUTO_TEST_CASE(apply_keeps_only_its_own_pods) {
    ApplyFilter f{{"deploy"}, {"h1"}};
    const std::vector<api::Pod> pods{pod("mine", "deploy", "", 0, "h1"), pod("stale-hash", "deploy", "", 0, "h0"),
                                     pod("foreign", "other", "", 0), pod("untracked", "", "", 0)};
    BOOST_TEST((names(filter_pods(&f, pods)) == std::vector<std::string>{"mine", "untracked"}));
}

BOOST_AUTO_TEST_SUITE_END()
