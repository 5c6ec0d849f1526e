#!/usr/bin/env bash
# Sync back on the real cluster, issue 35's cases through `lu-host up
# --from-cluster --allow-sync-back` and lu-agent over exec
# (docs/sync-back.md): no echo either way; conflicts (both modified, a
# modify against a delete either way) keep both sides, show in `get`,
# `describe` and the CR's status, and clear when resolved; an app change
# racing a local save or delete is such a conflict, never overwritten; two replicas
# writing different bytes are a conflict; a hostile pod (FIFO, a file over
# 64 MiB, symlinks to its parents, a name that is not UTF-8) writes nothing,
# and files the patterns leave out stay in the pod; lu-agent killed mid-file
# leaves no half file and the file comes back whole later; a pod whose sync
# root is emptied, or that is recreated from its image, deletes nothing
# locally, and the new pod gets the forward sync.
# Usage: k8s_sync_back_cases_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
# shellcheck source=k8s_sync_back_lib.sh
. "$repo/tests/kubernetes/k8s_sync_back_lib.sh"
use_cluster "$k8s_dir"
ns=lu-h2-sync-back-cases-$$
p=sbc$$

work=$(mktemp -d /tmp/h2-sbc-XXXXXX)
cleanup() {
  local status=$?
  stop_up || status=1
  delete_namespace "$ns"
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
in_pod() { in_pod_of web "$1"; }
cli() { "$lu_host" "$@" --control-socket "$work/control.sock"; }
# conflicts LU: the CONFLICTS column of `lu-host get liveupdates` for LU
# (NAMESPACE NAME STATE CONTAINERS LAST-SYNC CONFLICTS MESSAGE).
conflicts() { cli get liveupdates | awk -v lu="$1" '$2 == lu {print $6}'; }
conflicts_are() { [ "$(conflicts "$1")" = "$2" ]; }
cr_count_is() { [ "$(jpath liveupdate "$1" '{.status.syncBackConflictCount}')" = "$2" ]; }
holds() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
pod_holds() { [ "$(in_pod_of "$1" "cat $2" 2>/dev/null || true)" = "$3" ]; }
# wait_in_pod POD PATH CONTENT: each look is an exec, too slow for 300 looks in 30 s.
wait_in_pod() {
  local end=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$end" ]; do pod_holds "$@" && return 0; sleep 0.2; done
  fail "$2 in $1 never became: $3"
}
digest() { sha256sum "$1" | cut -d' ' -f1; }
# echoes: the daemon's lines saying the forward watcher saw a change to a
# file that came back (gen/back.txt, gen/witness.txt), or to a sync back
# temporary file.
echoes() { grep ' Changed: ' "$work/up.log" | grep -c -e 'gen/back' -e 'gen/witness' -e '\.lu-sync-back-' || true; }
no_temporaries() { [ -z "$(find "$project" -name '.lu-sync-back-*')" ]; }
logged() { grep -q -e "$1" "$work/up.log"; }

install_crds "$lu_host"
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true
# LiveUpdate $p: pod web, src → /www; lock.json and kept/ belong to the pod
# (ignored by the FileWatch, so a local edit of them is not sent forward and a
# conflict stays). LiveUpdate $p-pair: pods pair-1 and pair-2, pair → /www.
{
  busybox_pod web "$p"
  echo ---
  busybox_pod pair-1 "$p-pair"
  echo ---
  busybox_pod pair-2 "$p-pair"
  cat <<YAML
---
apiVersion: tilt.dev/v1alpha1
kind: FileWatch
metadata: {name: $p-src}
spec: {watchedPaths: [src], ignores: [{basePath: src, patterns: [lock.json, kept]}]}
---
apiVersion: tilt.dev/v1alpha1
kind: FileWatch
metadata: {name: $p-pair}
spec: {watchedPaths: [pair]}
---
apiVersion: tilt.dev/v1alpha1
kind: KubernetesDiscovery
metadata: {name: $p}
spec:
  watches: [{namespace: $ns}]
  extraSelectors: [{matchLabels: {app: $p}}]
---
apiVersion: tilt.dev/v1alpha1
kind: KubernetesDiscovery
metadata: {name: $p-pair}
spec:
  watches: [{namespace: $ns}]
  extraSelectors: [{matchLabels: {app: $p-pair}}]
---
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $p}
spec:
  basePath: "."
  sources: [{fileWatch: $p-src}]
  selector: {kubernetes: {discoveryName: $p, containerName: web}}
  syncs: [{localPath: src, containerPath: /www, syncBack: [gen, "!gen/cache", lock.json, kept]}]
  initialSync: {}
---
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $p-pair}
spec:
  basePath: "."
  sources: [{fileWatch: $p-pair}]
  selector: {kubernetes: {discoveryName: $p-pair, containerName: web}}
  syncs: [{localPath: pair, containerPath: /www, syncBack: [gen]}]
  initialSync: {}
YAML
} | kn apply -f - >/dev/null
project=$work/project
src=$project/src
mkdir -p "$src" "$project/pair"
echo "<h1>$$</h1>" >"$src/index.html"
echo "<h1>pair $$</h1>" >"$project/pair/index.html"
kn wait --for=condition=Ready pod/web pod/pair-1 pod/pair-2 --timeout=90s >/dev/null || fail "the pods are not Ready"

start_up "$lu_host" --from-cluster --allow-sync-back --namespace "$ns" --no-web --control-socket "$work/control.sock" \
  --debounce 20 "$project"
wait_in_pod web /www/index.html "<h1>$$</h1>"
wait_in_pod pair-1 /www/index.html "<h1>pair $$</h1>"
wait_in_pod pair-2 /www/index.html "<h1>pair $$</h1>"
started() { [ "$(sync_backs_started)" -ge "$1" ]; }
wait_for started 3

# --- No echo: what came back is not sent forward, a forward sync not sent back.
in_pod "mkdir -p /www/gen && echo one > /www/gen/back.txt"
wait_for holds "$src/gen/back.txt" one
# Written again at once: an echo of the first would overwrite it in the pod.
in_pod "echo two > /www/gen/back.txt"
wait_for holds "$src/gen/back.txt" two
# A burst of saves of a file that comes back: the pod's copy of each
# forward sync is not the app's change (else: a conflict with the next save).
for i in $(seq 1 20); do
  echo "fwd $i" >"$src/gen/fwd.txt"
  sleep 0.03
done
wait_in_pod web /www/gen/fwd.txt "fwd 20"
# A witness each way: a save after them reaches the pod, a pod write after them comes back.
echo witness >"$src/witness.txt"
wait_in_pod web /www/witness.txt witness
in_pod "echo witness > /www/gen/witness.txt"
wait_for holds "$src/gen/witness.txt" witness
[ "$(echoes)" = 0 ] || fail "files that came back were sent forward again: $(grep ' Changed: ' "$work/up.log")"
! logged 'gen/fwd.txt in container .* came back' || fail "a forward sync came back"
! logged 'gen/fwd.txt and .*: conflict' || fail "the pod's copy of a forward sync was taken for a change"
pod_holds web /www/gen/back.txt two || fail "the pod's gen/back.txt was overwritten"
holds "$src/gen/fwd.txt" "fwd 20" || fail "the local gen/fwd.txt was overwritten: $(cat "$src/gen/fwd.txt")"
conflicts_are "$p" 0 || fail "conflicts after round trips: $(conflicts "$p")"
echo "ok: no echo: what came back was not sent forward, a forward sync did not come back"

# --- Conflicts: both modified, a modify against a delete; both sides kept.
in_pod "echo 1 > /www/lock.json && mkdir -p /www/kept && echo agreed > /www/kept/a.txt && echo b > /www/kept/b.txt"
wait_for holds "$src/lock.json" 1
wait_for holds "$src/kept/a.txt" agreed
wait_for holds "$src/kept/b.txt" b
echo local >"$src/lock.json"
echo 'local a' >"$src/kept/a.txt"
rm "$src/kept/b.txt"
in_pod "echo container > /www/lock.json && rm /www/kept/a.txt && echo 'container b' > /www/kept/b.txt"
wait_for conflicts_are "$p" 3
wait_for cr_count_is "$p" 3
described=$(cli describe liveupdate "$p")
for want in "/www/lock.json .*BothModified" "/www/kept/a.txt .*LocalModifiedContainerDeleted" \
  "/www/kept/b.txt .*LocalDeletedContainerModified"; do
  grep -q "$want" <<<"$described" || fail "describe does not list $want: $described"
done
kinds=$(jpath liveupdate "$p" '{range .status.syncBackConflicts[*]}{.path}={.kind} {end}')
for want in /www/lock.json=BothModified /www/kept/a.txt=LocalModifiedContainerDeleted \
  /www/kept/b.txt=LocalDeletedContainerModified; do
  grep -q "$want" <<<"$kinds" || fail "the CR's status does not hold $want: $kinds"
done
holds "$src/lock.json" local || fail "the local lock.json was overwritten: $(cat "$src/lock.json")"
holds "$src/kept/a.txt" 'local a' || fail "the local kept/a.txt was touched"
[ ! -e "$src/kept/b.txt" ] || fail "kept/b.txt, deleted here, came back"
pod_holds web /www/lock.json container || fail "the pod's lock.json was overwritten"
[ "$(in_pod 'ls /www/kept')" = b.txt ] || fail "the pod's kept/ changed: $(in_pod 'ls /www/kept')"
pod_holds web /www/kept/b.txt 'container b' || fail "the pod's kept/b.txt was overwritten"
echo "ok: both modified and modified against deleted: both sides kept, shown in get, describe and the CR"
# Resolved from the pod's side: each edited to agree with the local copy.
in_pod "echo local > /www/lock.json && rm /www/kept/b.txt"
wait_for conflicts_are "$p" 1
wait_for cr_count_is "$p" 1
in_pod "echo 'local a' > /www/kept/a.txt"
wait_for conflicts_are "$p" 0
wait_for cr_count_is "$p" ""
holds "$src/lock.json" local && holds "$src/kept/a.txt" 'local a' || fail "resolving changed the local side"
echo "ok: editing one side to agree cleared each conflict, in get and the CR"

# --- The forward guard: the app rewrites agreed files and, before its watch
# reported it (the watching lu-agent held stopped: what its debounce and the
# way back make a moment long), the developer saves five of them and deletes
# five others. lu-agent compares before it replaces or deletes: the pod keeps
# the app's files, and once the watch reports them each is a conflict.
race=/www/gen/race
in_pod "mkdir -p $race && for i in 1 2 3 4 5; do echo agreed > $race/saved-\$i.txt; echo agreed > $race/deleted-\$i.txt; done"
race_agreed() {
  for i in 1 2 3 4 5; do
    holds "$src/gen/race/saved-$i.txt" agreed && holds "$src/gen/race/deleted-$i.txt" agreed || return 1
  done
}
wait_for race_agreed
watchers=$(in_pod "$(watching_agents_script)" | tr '\n' ' ')
[ -n "${watchers// /}" ] || fail "no watching lu-agent in the pod"
in_pod "kill -STOP $watchers && for i in 1 2 3 4 5; do echo app > $race/saved-\$i.txt; echo app > $race/deleted-\$i.txt; done"
for i in 1 2 3 4 5; do
  echo dev >"$src/gen/race/saved-$i.txt"
  rm "$src/gen/race/deleted-$i.txt"
done
echo "race $$" >"$src/race.txt" # saved last: once it is in the pod, the saves before it are too
wait_in_pod web /www/race.txt "race $$"
sleep 0.3
in_pod "kill -CONT $watchers"
wait_for conflicts_are "$p" 10
wait_for cr_count_is "$p" 10
kinds=$(jpath liveupdate "$p" '{range .status.syncBackConflicts[*]}{.path}={.kind} {end}')
for i in 1 2 3 4 5; do
  pod_holds web "$race/saved-$i.txt" app || fail "the pod's gen/race/saved-$i.txt was overwritten"
  pod_holds web "$race/deleted-$i.txt" app || fail "the pod's gen/race/deleted-$i.txt was deleted"
  holds "$src/gen/race/saved-$i.txt" dev || fail "the local gen/race/saved-$i.txt was overwritten"
  [ ! -e "$src/gen/race/deleted-$i.txt" ] || fail "gen/race/deleted-$i.txt, deleted here, came back"
  for want in "$race/saved-$i.txt=BothModified" "$race/deleted-$i.txt=LocalDeletedContainerModified"; do
    grep -q "$want" <<<"$kinds" || fail "the CR's status does not hold $want: $kinds"
  done
done
echo "ok: app changes racing local saves and deletes: both sides kept, each a conflict"
in_pod "for i in 1 2 3 4 5; do echo dev > $race/saved-\$i.txt; rm $race/deleted-\$i.txt; done"
wait_for conflicts_are "$p" 0

# --- Replicas: two pods of one LiveUpdate write different bytes to one file.
in_pod_of pair-1 "mkdir -p /www/gen && echo one > /www/gen/one.txt && echo 'from one' > /www/gen/r.txt"
in_pod_of pair-2 "mkdir -p /www/gen && echo two > /www/gen/two.txt"
wait_for holds "$project/pair/gen/one.txt" one
wait_for holds "$project/pair/gen/two.txt" two
wait_for holds "$project/pair/gen/r.txt" 'from one'
in_pod_of pair-2 "echo 'from two' > /www/gen/r.txt"
wait_for conflicts_are "$p-pair" 1
wait_for cr_count_is "$p-pair" 1
container=$(jpath liveupdate "$p-pair" '{.status.syncBackConflicts[0].container}')
grep -q pair-2 <<<"$container" || fail "the conflict is not pair-2's: $container"
holds "$project/pair/gen/r.txt" 'from one' || fail "pair-2 overwrote the local gen/r.txt"
pod_holds pair-2 /www/gen/r.txt 'from two' || fail "pair-2's gen/r.txt was overwritten"
pod_holds pair-1 /www/gen/r.txt 'from one' || fail "pair-1's gen/r.txt was overwritten"
echo "ok: two replicas writing different bytes: a conflict, neither side overwritten"

# --- Hostile: a FIFO, a file over the 64 MiB limit, a symlink to the folder
# above, a name that is not UTF-8; and what the patterns leave out stays.
in_pod "mkfifo /www/gen/fifo; ln -s .. /www/gen/up; ln -s ../../.. /www/gen/root; touch /www/gen/\$(printf 'bad\\377')
  dd if=/dev/zero of=/huge bs=1M count=65 2>/dev/null && mv /huge /www/gen/huge
  mkdir -p /www/gen/cache && echo cached > /www/gen/cache/c.txt && echo other > /www/other.txt"
wait_for logged "gen/huge: not brought back"
echo saved >"$src/saved.txt"
wait_in_pod web /www/saved.txt saved
in_pod "echo after > /www/gen/after.txt"
wait_for holds "$src/gen/after.txt" after
for left in gen/fifo gen/up gen/root gen/huge gen/cache other.txt; do
  [ ! -e "$src/$left" ] && [ ! -L "$src/$left" ] || fail "$left came back"
done
[ -z "$(find "$src/gen" -name 'bad*')" ] || fail "a name that is not UTF-8 came back"
outside=$(find "$work" -mindepth 1 -maxdepth 1 ! -name project ! -name state ! -name up.log ! -name control.sock)
[ -z "$outside" ] || fail "something was written beside the project: $outside"
pod_holds web /www/gen/cache/c.txt cached || fail "gen/cache/c.txt left the pod"
echo "ok: hostile names, a FIFO and a file past the limit came not back; forward saves went on"

# --- lu-agent killed while a big file comes back: no half file, whole later.
before=$(sync_backs_started)
killed=$(in_pod "dd if=/dev/urandom of=/big bs=1M count=24 2>/dev/null && mv /big /www/gen/big && $(kill_agents_script)")
grep -q killed <<<"$killed" || fail "no lu-agent to kill in the pod"
in_pod_digest=$(in_pod "sha256sum /www/gen/big" | cut -d' ' -f1)
wait_for logged "Sync back from container .*; tried again in"
[ ! -e "$src/gen/big" ] || [ "$(digest "$src/gen/big")" = "$in_pod_digest" ] || fail "a half gen/big came back"
no_temporaries || fail "a sync back temporary file was left: $(find "$project" -name '.lu-sync-back-*')"
wait_for started $((before + 1))
big_back() { [ -f "$src/gen/big" ] && [ "$(digest "$src/gen/big")" = "$in_pod_digest" ]; }
wait_for big_back
no_temporaries || fail "a sync back temporary file was left after the big file came back"
echo "ok: lu-agent killed mid-file: no half file locally, the whole file came back after the watch started again"

# --- Never a mass deletion: the pod's sync root emptied (its first file a
# moment before the rest, so in a batch of its own), then the pod recreated
# from its image (/www is the image's: none): nothing here is deleted, and the
# new pod gets the forward sync.
local_files() { (cd "$src" && find . -type f ! -name fresh.txt ! -name again.txt | sort | xargs sha256sum); }
files_before=$(local_files)
in_pod "rm /www/gen/after.txt; sleep 0.05; rm -rf /www/* /www/.[!.]* 2>/dev/null; true"
wait_for logged "gen/after.txt is not deleted although"
[ "$(local_files)" = "$files_before" ] || fail "the pod's emptied sync root changed local files"
echo "ok: a pod whose sync root was emptied deleted nothing locally"
before=$(sync_backs_started)
kn delete pod web --grace-period=0 --force >/dev/null 2>&1
busybox_pod web "$p" | kn apply -f - >/dev/null
kn wait --for=condition=Ready pod/web --timeout=90s >/dev/null || fail "the recreated pod is not Ready"
wait_in_pod web /www/index.html "<h1>$$</h1>"
wait_in_pod web /www/gen/back.txt two
wait_for started $((before + 1))
echo fresh >"$src/fresh.txt"
wait_in_pod web /www/fresh.txt fresh
in_pod "echo again > /www/gen/again.txt"
wait_for holds "$src/gen/again.txt" again
[ "$(local_files)" = "$files_before" ] || fail "the recreated pod changed local files"
echo "ok: a pod recreated from its image deleted nothing locally and got the forward sync"
stop_up
echo "k8s sync back cases e2e: all checks passed"
