#!/usr/bin/env bash
# A local Docker engine for the docker tests, the bench and the compose sample.
#
#   scripts/dockerd.sh start   install docker.io and busybox-static when missing,
#                              start dockerd unless one answers, import the test images
#   scripts/dockerd.sh stop    stop dockerd if this script started it and no other
#                              `start` is still using it
#   scripts/dockerd.sh status
#
# The daemon runs without networking (no bridge, no iptables) and with the vfs
# storage driver, so it works inside an unprivileged-looking CI container;
# containers need --network none. There is no registry: images are imported
# from local folders:
#   lu-busybox:latest  busybox-static with its applets, /var/run -> /run, a `nobody` user
#   lu-notar:2         one static binary (/sleep), /etc/passwd and /etc/group (user
#                      app 1500:1600, group web 1700) and nothing else: no tar, no
#                      rm, no shell (the tag changes when the content does)
set -euo pipefail

STATE_DIR=${LU_DOCKERD_STATE_DIR:-/tmp/lu-dockerd}
PIDFILE=$STATE_DIR/dockerd.pid
USERS=$STATE_DIR/users
LOG=$STATE_DIR/dockerd.log
SOCKET=/var/run/docker.sock
BUSYBOX_IMAGE=lu-busybox:latest
NOTAR_IMAGE=lu-notar:2

# Always the local default socket, whatever the caller's DOCKER_HOST says.
export DOCKER_HOST=unix://$SOCKET

log() { echo "dockerd.sh: $*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

ensure_packages() {
  local missing=()
  for p in docker.io busybox-static; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

answers() { timeout 5 docker version >/dev/null 2>&1; }

wait_until_answers() {
  for _ in $(seq 1 120); do
    answers && return 0
    if [ -f "$PIDFILE" ] && ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      log "dockerd exited during start-up; its log ($LOG) ends with:"
      tail -20 "$LOG" >&2
      return 1
    fi
    sleep 0.5
  done
  log "dockerd did not answer within 60s; its log ($LOG) ends with:"
  tail -20 "$LOG" >&2
  return 1
}

start_daemon() {
  if answers; then
    log "a Docker daemon already answers on $SOCKET"
    return 0
  fi
  log "starting dockerd (log: $LOG)"
  # fd 9 is the lock: the daemon must not keep holding it.
  setsid dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
    >"$LOG" 2>&1 </dev/null 9>&- &
  echo $! >"$PIDFILE"
  wait_until_answers
}

busybox_bin() {
  for b in /bin/busybox /usr/bin/busybox; do
    if [ -x "$b" ] && file -L "$b" 2>/dev/null | grep -q 'statically linked'; then echo "$b"; return 0; fi
  done
  # `file` may be absent: busybox-static installs /bin/busybox.
  [ -x /bin/busybox ] && { echo /bin/busybox; return 0; }
  log "no static busybox found (package busybox-static)"
  return 1
}

import_images() {
  local bb tmp
  bb=$(busybox_bin)
  tmp=$(mktemp -d)
  if ! docker image inspect "$BUSYBOX_IMAGE" >/dev/null 2>&1; then
    local root=$tmp/busybox
    mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/run" "$root/var" "$root/root" "$root/app"
    chmod 1777 "$root/tmp"
    cp "$bb" "$root/bin/busybox"
    for applet in $("$root/bin/busybox" --list); do
      [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
    done
    ln -s ../run "$root/var/run"
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
      docker import -c 'ENV PATH=/bin' -c 'CMD ["sh"]' - "$BUSYBOX_IMAGE" >/dev/null
    log "imported $BUSYBOX_IMAGE"
  fi
  if ! docker image inspect "$NOTAR_IMAGE" >/dev/null 2>&1; then
    local root=$tmp/notar
    mkdir -p "$root/app" "$root/etc"
    cp "$bb" "$root/sleep" # busybox picks the applet from its own name
    printf 'root:x:0:0:root:/root:/sleep\napp:x:1500:1600:app:/app:/sleep\n' >"$root/etc/passwd"
    printf 'root:x:0:\napp:x:1600:\nweb:x:1700:app\n' >"$root/etc/group"
    tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
      docker import -c 'ENV PATH=/usr/bin:/bin' -c 'CMD ["/sleep", "86400"]' - "$NOTAR_IMAGE" >/dev/null
    log "imported $NOTAR_IMAGE"
  fi
  rm -rf "$tmp"
}

with_lock() {
  mkdir -p "$STATE_DIR"
  exec 9>"$STATE_DIR/lock"
  flock 9
}

cmd_start() {
  with_lock
  ensure_packages
  start_daemon
  import_images
  echo $(( $(cat "$USERS" 2>/dev/null || echo 0) + 1 )) >"$USERS"
}

cmd_stop() {
  with_lock
  local users
  users=$(( $(cat "$USERS" 2>/dev/null || echo 1) - 1 ))
  [ "$users" -lt 0 ] && users=0
  echo "$users" >"$USERS"
  if [ ! -f "$PIDFILE" ]; then
    log "dockerd was not started by this script: leaving it alone"
    return 0
  fi
  if [ "$users" -gt 0 ]; then
    log "dockerd still has $users user(s): leaving it running"
    return 0
  fi
  local pid
  pid=$(cat "$PIDFILE")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping dockerd (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { log "dockerd did not stop: killing it"; kill -KILL "$pid"; }
  fi
  rm -f "$PIDFILE"
}

cmd_status() {
  if answers; then echo "running"; else echo "not running"; return 1; fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
