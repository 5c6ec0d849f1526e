# shellcheck shell=bash
# The objects the e2e scripts on the real cluster create, as YAML on stdout
# (for `kn apply -f -`): a busybox pod and the Tilt objects of a LiveUpdate
# on it.

# busybox_pod NAME LABEL: the YAML of a Pod NAME labelled app=LABEL whose
# container web sleeps (on the node of the cluster's --full or minimal mode).
busybox_pod() {
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $2}}
spec:
  nodeName: "127.0.0.1"
  hostNetwork: true
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  containers:
  - {name: web, image: localhost/busybox:local, imagePullPolicy: Never,
     command: ["/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]}
YAML
}

# live_update_objects NAME NAMESPACE SYNC [SPEC_MEMBER]: the YAML of
# FileWatch NAME-src (watching src), KubernetesDiscovery NAME (the pods
# labelled app=NAME in NAMESPACE) and LiveUpdate NAME syncing SYNC (a flow
# mapping, as "{localPath: src, containerPath: /www}") into their container
# web, with an initial sync; SPEC_MEMBER (one line, as "execs: [...]") is
# added to its spec after the syncs.
live_update_objects() {
  local extra=""
  [ -z "${4:-}" ] || extra=$'\n'"  $4"
  cat <<YAML
apiVersion: tilt.dev/v1alpha1
kind: FileWatch
metadata: {name: $1-src}
spec: {watchedPaths: [src]}
---
apiVersion: tilt.dev/v1alpha1
kind: KubernetesDiscovery
metadata: {name: $1}
spec:
  watches: [{namespace: $2}]
  extraSelectors: [{matchLabels: {app: $1}}]
---
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $1}
spec:
  basePath: "."
  sources: [{fileWatch: $1-src}]
  selector: {kubernetes: {discoveryName: $1, containerName: web}}
  syncs: [$3]$extra
  initialSync: {}
YAML
}

# web_and_live_update NAME NAMESPACE SYNC: pod web labelled app=NAME and the
# objects of live_update_objects.
web_and_live_update() {
  busybox_pod web "$1"
  echo ---
  live_update_objects "$@"
}
