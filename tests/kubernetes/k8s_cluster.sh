#!/usr/bin/env bash
# CTest fixture for the tests labelled k8s: `k8s_cluster.sh DIR start|stop MARKER`.
# start: starts the cluster in DIR (../shared/k8s) unless it runs already;
# stop: stops it only when start started it (MARKER says so). Without DIR the
# tests cannot run: says so plainly and exits 77, which CTest reports as skipped.
set -uo pipefail
dir=$1 cmd=$2 marker=$3
if [ ! -x "$dir/cluster.sh" ]; then
  echo "SKIPPED: no cluster: $dir/cluster.sh not found (the Kubernetes tests need ../shared/k8s)"
  exit 77
fi
case $cmd in
  start)
    if "$dir/cluster.sh" status >/dev/null 2>&1; then
      echo "k8s: the cluster runs already; it is left running afterwards"
      rm -f "$marker"
    else
      "$dir/cluster.sh" start >/dev/null || { echo "k8s: $dir/cluster.sh start failed"; exit 1; }
      touch "$marker"
    fi ;;
  stop)
    if [ -e "$marker" ]; then
      rm -f "$marker"
      "$dir/cluster.sh" stop
    else
      echo "k8s: the cluster was running before the tests; left running"
    fi ;;
  *) echo "usage: $0 DIR start|stop MARKER" >&2; exit 2 ;;
esac
