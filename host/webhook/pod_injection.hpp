// What the mutating webhook does to a pod at its creation, as a pure
// function: pod JSON in, JSONPatch operations and admission warnings out.
// An opted-in pod gets an emptyDir volume, an init container from the agent
// image that copies lu-agent into it (or, with an agent ConfigMap, that
// ConfigMap as the volume and no init container), and a read-only mount of it in the
// containers named by liveupdate.dev/containers (default: all); with
// liveupdate.dev/restart: process, each such container's command is wrapped
// by `lu-agent supervise --`, its socket in a writable run volume. In a pod that already has the volume (the API
// server calls again when a later webhook changed the pod: reinvocationPolicy
// IfNeeded) only chosen containers without the mount get it, so a pod
// patched twice is the pod patched once. Annotations that cannot be read give
// warnings, never a refusal.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "common/agent_client/agent_binary.hpp"

namespace liveupdate::host::webhook {

inline constexpr std::string_view kInjectKey = "liveupdate.dev/inject";  // namespace label, pod annotation or label
inline constexpr std::string_view kContainersAnnotation = "liveupdate.dev/containers";
inline constexpr std::string_view kRestartAnnotation = "liveupdate.dev/restart";
// Set on an injected pod: the agent image it got (what describe can show).
inline constexpr std::string_view kInjectedAnnotation = "liveupdate.dev/injected-agent";
inline constexpr std::string_view kAgentVolume = "liveupdate-agent";
inline constexpr std::string_view kAgentInitContainer = "liveupdate-agent-install";
// A folder of its own under lu-agent's folder (common/agent_client/agent_binary):
// updaters may still copy their own agent beside it where the root is writable.
inline constexpr std::string_view kDefaultAgentFolder = agent_client::kInjectedAgentFolder;
// lu-agent supervise's socket goes in a writable folder of each wrapped
// container (the run volume, subPath: the container's name), told by
// LU_SUPERVISE_SOCKET: the agent's folder is read-only, the root filesystem may be too.
inline constexpr std::string_view kRunVolume = "liveupdate-run";
inline constexpr std::string_view kDefaultRunFolder = "/.lu-agent/run";
// The key holding lu-agent in an agent ConfigMap (lu-host webhook install --agent-configmap).
inline constexpr std::string_view kAgentConfigMapKey = "lu-agent";
inline constexpr std::string_view kSuperviseSocketVariable = "LU_SUPERVISE_SOCKET";

struct InjectionOptions {
    // Holds lu-agent at /lu-agent and a `cp` (deploy/agent/build-image.sh).
    // Empty: pods are not injected, and each one sent says so in a warning.
    std::string agent_image;
    std::string agent_folder = std::string(kDefaultAgentFolder);  // mounted read-only in the containers
    std::string run_folder = std::string(kDefaultRunFolder);      // mounted writable in the wrapped ones
    // Set: the pod mounts lu-agent from this ConfigMap of its namespace
    // (key lu-agent) instead: no init container, so the pod is Ready as soon
    // as without injection. Optional, so that a namespace without it still
    // starts its pods (they live-update by copying the agent), except pods whose
    // command it wraps: they wait for it, as they cannot start without it.
    std::string agent_configmap = {};
};

// The agent's path in an injected container.
std::string injected_agent_path(const InjectionOptions &options);

struct PodNamespace {
    std::string name;
    // nullopt: not known to the caller; the API server sent the pod because
    // the configuration's selectors chose it (webhook_config: the namespace's
    // label or the pod's), which counts as the namespace's consent.
    std::optional<std::map<std::string, std::string>> labels;
};

struct Injection {
    boost::json::array patch;  // RFC 6902 operations; empty: the pod stays as it is
    std::vector<std::string> warnings;
};

// Never throws for any pod: a pod it cannot read is left alone with a warning.
Injection plan_injection(const boost::json::value &pod, const PodNamespace &ns, const InjectionOptions &options);

}  // namespace liveupdate::host::webhook
