// The update a step asks of one container (liveupdate_plugin.h's UPDATE
// object): the plugin encodes it, the host decodes it, both from the one
// field list below, so the two cannot drift. Decoding is strict: a missing
// or mistyped field is a common::DecodeError naming its path; members it does
// not know are skipped (a newer plugin may add optional ones).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/ignore_defs.hpp"
#include "common/update_step/field_walk.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::update_step {

struct ContainerUpdate {
    std::string live_update;  // the LiveUpdate's name
    std::string via;          // the updater serving the container; never empty
    updater::ContainerRef container;
    std::vector<updater::CopyMapping> copy;  // sorted by container path
    std::vector<std::string> delete_paths;   // sorted
    std::vector<updater::RunStep> runs;
    bool restart = false;
    bool initial_sync = false;
    std::vector<common::IgnoreDef> filter;
    std::vector<std::string> sync_roots;  // the syncs' container paths, cleaned (lu_update_request.sync_roots)

    // The document's members in the order they are written. `f` is the
    // encoder or the decoder; f.object and f.objects walk into nested ones.
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f("liveUpdate", s.live_update);
        f("via", s.via);
        f.object("container", [&s](auto &g) {
            g("containerID", s.container.id);
            g("containerName", s.container.name);
            g("podName", s.container.pod);
            g("namespace", s.container.namespace_name);
            g("root", s.container.root, optional_field(s.via == "local"));  // LocalContainer spec.root
        });
        f.objects("copy", s.copy, [](auto &copy, auto &g) {
            g("local", copy.local_path);
            g("container", copy.container_path);
        });
        f("delete", s.delete_paths);
        // Run options only when set: Tilt-shaped steps stay as they were.
        f.objects("runs", s.runs, [](auto &run, auto &g) {
            g("args", run.argv);
            g("echoOff", run.echo_off);
            g("user", run.user, optional_field(!run.user.empty()));
            g("workingDir", run.working_dir, optional_field(!run.working_dir.empty()));
            g("env", run.env, optional_field(!run.env.empty()));
            g("privileged", run.privileged, optional_field(run.privileged));
        });
        f("restart", s.restart);
        f("initialSync", s.initial_sync);
        f("filter", s.filter);
        f("syncRoots", s.sync_roots, optional_field(true));  // absent from plugins older than the field
    }
};

boost::json::object encode(const ContainerUpdate &update);

// path: where the object stands, for error texts ("update" gives
// "update.container.containerID: missing"). Throws common::DecodeError.
ContainerUpdate decode_update(const boost::json::value &value, const std::string &path);

}  // namespace liveupdate::update_step
