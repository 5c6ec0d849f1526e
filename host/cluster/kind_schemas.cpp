#include "host/cluster/kind_schemas.hpp"

namespace liveupdate::host::cluster {
using namespace schema;

namespace {

Schema live_update_selector() {
    return object(
        "How the live-updater finds the containers to update (one of kubernetes, dockerCompose, local).",
        {{"kubernetes",
          object("Containers of the pods a KubernetesDiscovery found.",
                 {{"discoveryName", string("The name of a KubernetesDiscovery object for finding pods.")},
                  {"applyName", string("A KubernetesApply whose pods only are updated (old deployments are not).")},
                  {"image", string("The image of the containers to update (exactly one of image, imageMapName, "
                                   "containerName).")},
                  {"containerName", string("The name of the container to update.")},
                  {"imageMapName", string("An ImageMap whose image the containers run.")}},
                 {"discoveryName"})},
         {"dockerCompose", object("A Docker Compose service's containers.", {{"service", string("The service.")}})},
         {"local", object("A LocalContainer (liveupdate.dev).", {{"container", string("Its name.")}})}});
}

Schema live_update_exec() {
    return object(
        "A command run in the container after files are synced.",
        {{"args", string_array("Command-line arguments; at least one.")},
         {"triggerPaths", string_array("Relative paths (to basePath) whose changes run it; none: every change.")},
         {"echoOff", boolean("Do not echo the command in the log.")},
         {"user", string("The user it runs as (empty: the container's).")},
         {"workingDir", string("Its working folder (empty: the container's).")},
         {"env", string_array("KEY=VALUE entries added to its environment.")},
         {"privileged", boolean("Run it privileged.")}},
        {"args"});
}

Schema container_state() {
    return object("The container's state.", {{"waiting", object("", {{"reason", string("")}, {"message", string("")}})},
                                             {"running", object("", {{"startedAt", time("")}})},
                                             {"terminated", object("", {{"startedAt", time("")},
                                                                        {"finishedAt", time("")},
                                                                        {"reason", string("")},
                                                                        {"exitCode", integer("")}})}});
}

Schema discovered_pod() {
    return open_object(
        "A pod found.",
        {{"name", string("")},
         {"namespace", string("")},
         {"createdAt", time("")},
         {"phase", string("")},
         {"deleting", boolean("")},
         {"containers", array(object("", {{"name", string("")},
                                          {"id", string("")},
                                          {"image", string("")},
                                          {"ready", boolean("")},
                                          {"restarts", integer("")},
                                          {"state", container_state()}}),
                              "")},
         {"ancestorUID", string("The UID of the object the pod descends from.")},
         {"podTemplateSpecHash", string("")},
         {"owner", object("", {{"name", string("")}, {"kind", string("")}, {"creationTimestamp", time("")}})},
         {"errors", string_array("")}});
}

Schema label_selector() {
    return object("A label selector.",
                  {{"matchLabels", string_map("")},
                   {"matchExpressions", array(object("",
                                                     {{"key", string("")},
                                                      {"operator", string("In, NotIn, Exists, DoesNotExist")},
                                                      {"values", string_array("")}},
                                                     {"key", "operator"}),
                                              "")}});
}

}  // namespace

Schema live_update_spec() {
    return object(
        "What to copy into which containers, and what to run there, when files change.",
        {{"basePath", string("The folder every relative path of this object is relative to. In a cluster: relative "
                             "to the project folder (\".\": the folder itself), never leaving it.")},
         {"selector", live_update_selector()},
         {"sources", array(object("Where file changes come from.",
                                  {{"fileWatch", string("The name of a FileWatch.")},
                                   {"imageMap", string("The ImageMap whose builds already hold the changes.")}}),
                           "Sources of files to sync.")},
         {"stopPaths", string_array("Relative paths whose changes stop live update: the image needs a rebuild.")},
         {"syncs", array(object("A local path and where it goes in the container.",
                                {{"localPath", string("A path relative to basePath.")},
                                 {"containerPath", string("An absolute path in the container.")},
                                 {"syncBack", string_array("Container files that come back to localPath: patterns in "
                                                           "the ignore syntax, relative to containerPath. From a "
                                                           "cluster only with lu-host up --allow-sync-back.")}},
                                {"localPath", "containerPath"}),
                         "Paths that can be live-updated and their destinations.")},
         {"execs", array(live_update_exec(), "Commands run in the container after files are synced.")},
         {"restart", string("auto (default) or always: restart the container after an update.")},
         {"restartPaths", string_array("Relative paths whose changes restart the container after the update.")},
         {"initialSync", open_object("When present: sync every file once when a container is first seen.", {})}},
        {"basePath"});
}

Schema live_update_status() {
    return open_object(
        "What the live-updater observed.",
        {{"containers",
          array(object("One container the live-updater is connected to.",
                       {{"containerName", string("")},
                        {"containerID", string("")},
                        {"podName", string("")},
                        {"namespace", string("")},
                        {"lastFileTimeSynced", time("The time of the last file change synced.")},
                        {"lastExecError", string("The error of the last execs, empty when they succeeded.")},
                        {"waiting", object("Why changes wait.", {{"reason", string("")}, {"message", string("")}})},
                        // Ours: how the updater reached into the container, its process's last restart.
                        {"agent", string("How lu-agent got into the container: injected (at admission), copied, "
                                         "or none (the updater's exec path).")},
                        {"lastRestartTime", time("When an update last restarted the container's process.")}}),
                "")},
         {"failed", object("Why updates fail.",
                           {{"reason", string("")}, {"message", string("")}, {"lastTransitionTime", time("")}})},
         // Ours, beside Tilt's fields (docs/sync-back.md).
         {"syncBackConflicts",
          array(object("A file both sides changed: neither is overwritten until one is edited to agree.",
                       {{"container", string("")},
                        {"path", string("The file in the container.")},
                        {"kind", string("BothModified, LocalModifiedContainerDeleted, "
                                        "LocalDeletedContainerModified or NotARegularFile.")}}),
                "Open sync-back conflicts.")},
         {"syncBackConflictCount", integer("How many sync-back conflicts are open (absent: none).")}});
}

Schema file_watch_spec() {
    return open_object("Paths to watch for changes.",
                       {{"watchedPaths", string_array("Paths to watch, relative to the project folder in a cluster.")},
                        {"ignores", array(object("Patterns to ignore under a folder.",
                                                 {{"basePath", string("The folder the patterns are relative to.")},
                                                  {"patterns", string_array("dockerignore patterns.")}},
                                                 {"basePath"}),
                                          "")}});
}

Schema file_watch_status() {
    return open_object("", {{"monitorStartTime", time("")},
                            {"lastEventTime", time("")},
                            {"fileEvents", array(object("", {{"time", time("")}, {"seenFiles", string_array("")}}),
                                                 "Recent changes, oldest first.")},
                            {"error", string("")}});
}

Schema kubernetes_discovery_spec() {
    return open_object(
        "Where to look for pods.",
        {{"watches", array(object("", {{"uid", string("")}, {"namespace", string("")}, {"name", string("")}}),
                           "Objects whose descendant pods are found.")},
         {"extraSelectors", array(label_selector(), "Pods matching any of these are found too.")}});
}

Schema kubernetes_discovery_status() {
    return open_object("The pods found.", {{"monitorStartTime", time("")}, {"pods", array(discovered_pod(), "")}});
}

Schema image_map_spec() {
    return open_object("Which image references the map replaces.",
                       {{"selector", string("")}, {"matchExact", boolean("")}, {"matchInEnvVars", boolean("")}});
}

Schema image_map_status() {
    return open_object("The built image.",
                       {{"image", string("")}, {"imageFromCluster", string("")}, {"buildStartTime", time("")}});
}

Schema kubernetes_apply_spec() {
    return open_object("Objects to deploy.", {{"yaml", string("")}, {"imageMaps", string_array("")}});
}

Schema kubernetes_apply_status() {
    return open_object("The last apply.", {{"resultYAML", string("The objects deployed.")},
                                           {"error", string("")},
                                           {"lastApplyTime", time("")},
                                           {"lastApplyStartTime", time("")},
                                           {"appliedInputHash", string("")}});
}

}  // namespace liveupdate::host::cluster
