// Tilt objects for the in-process host tests (reload, plugin instance):
// LiveUpdates over Docker Compose services (served by the record updater as
// class "docker") and one FileWatch whose events the test appends.
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::test {

inline const liveupdate::common::MicroTime kStart =
    *liveupdate::common::MicroTime::parse("2026-01-01T00:00:00.000000Z");

inline liveupdate::common::MicroTime at_micros(std::int64_t us) {
    return liveupdate::common::MicroTime(kStart.micros() + us);
}

struct FileEvent {
    liveupdate::common::MicroTime time;
    std::vector<std::string> files;
};

inline std::string file_watch(const std::string &root, const std::vector<FileEvent> &events) {
    boost::json::array list;
    for (const auto &e : events) {
        boost::json::array files;
        for (const auto &f : e.files) files.emplace_back(f);
        list.push_back(boost::json::object{{"time", e.time.format()}, {"seenFiles", std::move(files)}});
    }
    return boost::json::serialize(
        boost::json::object{{"apiVersion", "tilt.dev/v1alpha1"},
                            {"kind", "FileWatch"},
                            {"metadata", {{"name", "fw"}}},
                            {"spec", {{"watchedPaths", boost::json::array{boost::json::value(root)}}}},
                            {"status", {{"fileEvents", std::move(list)}}}});
}

// Its container's id: "id-" + name unless given.
inline std::string compose_service(const std::string &name, const std::string &id = "") {
    return R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": ")" + name +
           R"("}, "status": {"containerID": ")" + (id.empty() ? "id-" + name : id) + R"(", "containerName": ")" + name +
           R"(", "containerState": {"status": "running", "startedAt": "2026-01-01T00:00:00.000000Z"}}})";
}

// Syncs root to container_path; with exec_args, runs them after each sync.
inline std::string live_update(const std::string &name, const std::string &service, const std::string &root,
                               const std::string &container_path = "/app",
                               const std::vector<std::string> &exec_args = {}) {
    boost::json::array args;
    for (const auto &a : exec_args) args.emplace_back(a);
    const std::string execs = exec_args.empty() ? "" : R"(, "execs": [{"args": )" + boost::json::serialize(args) + "}]";
    return R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
               "metadata": {"name": ")" +
           name + R"(", "annotations": {"tilt.dev/resource": ")" + name + R"("}},
               "spec": {"basePath": ")" +
           root + R"(", "sources": [{"fileWatch": "fw"}],
                        "selector": {"dockerCompose": {"service": ")" +
           service + R"("}},
                        "syncs": [{"localPath": ".", "containerPath": ")" +
           container_path + R"("}])" + execs + "}}";
}

}  // namespace liveupdate::test
