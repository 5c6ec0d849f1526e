# shellcheck shell=bash
# What the sync-back scripts on the real cluster share, on top of
# ../integration/up_e2e_lib.sh (sourced first): waits, a CR's fields, the
# pods' side, and the objects of k8s_objects_lib.sh. The caller sets $ns (its
# namespace) and $work.
# shellcheck disable=SC2154  # $work is the caller's

# shellcheck source=k8s_objects_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/k8s_objects_lib.sh"

# wait_for CMD...: until CMD succeeds (30 s at most).
wait_for() {
  for _ in $(seq 1 300); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "never true: $*"
}

# jpath KIND NAME JSONPATH: a field of an object in $ns ("" when none).
jpath() { kn get "$1" "$2" -o "jsonpath=$3" 2>/dev/null || true; }

# in_pod_of POD SCRIPT: SCRIPT run by sh in container web of POD.
in_pod_of() { kn exec "$1" -c web -- sh -c "$2"; }

# sync_backs_started: how many sync backs the daemon's log says it started.
sync_backs_started() { grep -c "Sync back from container .*: started" "$work/up.log" || true; }

# kill_agents_script: a shell script that SIGKILLs every lu-agent of the pod's
# container (found by /proc/PID/exe: the script's own command line names it).
kill_agents_script() {
  # shellcheck disable=SC2016  # expanded by the pod's sh
  echo 'for d in /proc/[0-9]*; do case $(readlink $d/exe 2>/dev/null) in *lu-agent*) kill -9 ${d#/proc/} && echo killed;; esac; done'
}

# watching_agents_script: a shell script printing the pids of the pod's
# lu-agents that watch for sync back (those holding an inotify descriptor; an
# update's session holds none).
watching_agents_script() {
  # shellcheck disable=SC2016  # expanded by the pod's sh
  echo 'for d in /proc/[0-9]*; do case $(readlink $d/exe 2>/dev/null) in *lu-agent*) ls -l $d/fd 2>/dev/null | grep -q anon_inode:inotify && echo ${d#/proc/};; esac; done'
}
