#!/usr/bin/env bash
# The Debian packages of a build folder: `cpack -G DEB` makes liveupdate and
# liveupdate-dev, lintian finds no error in either, and their contents sit
# where Debian keeps them. With CI set or LU_TEST_INSTALL=1 (the machine is
# changed: a developer's is not, unless asked), it also installs them with
# apt-get, runs the installed lu-host from PATH (its --version must list the
# installed plugins) and the hello demo with it, builds samples/updater-plugin
# against /usr, then purges both and checks nothing is left.
#   package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for tool in cpack dpkg-deb lintian; do
  command -v "$tool" >/dev/null || { echo "FAIL: no $tool (scripts/install-deps.sh installs it)"; exit 1; }
done

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 \
  || { cat "$out/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
runtime=$(ls "$out"/liveupdate_*.deb)
dev=$(ls "$out"/liveupdate-dev_*.deb)
for deb in "$runtime" "$dev"; do echo "$(basename "$deb"): $(stat -c %s "$deb") bytes"; done

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
plugins="usr/lib/$multiarch/liveupdate"
contents=$(dpkg-deb -c "$runtime" | awk '{print $6}')
for path in usr/bin/lu-host "$plugins/libliveupdate.so" "$plugins/libupdater_local.so" "$plugins/libupdater_docker.so" \
  "$plugins/lu-agent" usr/share/bash-completion/completions/lu-host usr/share/zsh/vendor-completions/_lu-host \
  usr/share/man/man1/lu-host.1.gz usr/share/doc/liveupdate/copyright; do
  grep -qx "\./$path" <<<"$contents" || fail "liveupdate lacks /$path"
done
dev_contents=$(dpkg-deb -c "$dev" | awk '{print $6}')
for path in usr/include/liveupdate/updater_plugin.h "usr/lib/$multiarch/cmake/liveupdate/liveupdateConfig.cmake"; do
  grep -qx "\./$path" <<<"$dev_contents" || fail "liveupdate-dev lacks /$path"
done
depends=$(dpkg-deb -f "$runtime" Depends)
[[ "$depends" == *libc6* && "$depends" == *libcurl* ]] || fail "liveupdate's Depends come not from its libraries: $depends"

# Errors fail the test; warnings are shown. (lintian's own exit code is 0
# with --fail-on error unless an error was found.)
for deb in "$runtime" "$dev"; do
  lintian --fail-on error --tag-display-limit 0 "$deb" || fail "lintian finds errors in $(basename "$deb")"
done

# The hello demo (README, "The two commands") on a copy of samples/hello, by
# the lu-host on PATH with nothing from the build tree: the initial sync
# reaches the local container, its busybox httpd serves the page, and an edit
# is served within seconds.
hello_demo() {
  local port demo="$out/hello" up status=0
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cp -r "$source/samples/hello" "$demo"
  sed -i "s/127\.0\.0\.1:8088/127.0.0.1:$port/" "$demo/hello.json"
  (cd / && exec env PATH=/usr/bin:/bin lu-host up --web-port 0 --state-dir "$out/hello-state" "$demo") \
    >"$out/hello.log" 2>&1 &
  up=$!
  serves_source() {  # the page the demo serves is src/index.html as it is now (30 s at most)
    for _ in $(seq 300); do
      curl -sf --max-time 2 "http://127.0.0.1:$port/" 2>/dev/null | cmp -s - "$demo/src/index.html" && return 0
      sleep 0.1
    done
    return 1
  }
  serves_source || { echo "the page is not served"; status=1; }
  echo "<p>edited $$</p>" >>"$demo/src/index.html"
  [ "$status" = 1 ] || serves_source || { echo "the edit is not served"; status=1; }
  kill "$up" 2>/dev/null || true
  wait "$up" || { echo "lu-host up exited $? when stopped"; status=1; }
  [ "$status" = 0 ] && echo "ok: the hello demo syncs an edit with the installed lu-host" || cat "$out/hello.log"
  return "$status"
}

if [ -n "${CI:-}" ] || [ "${LU_TEST_INSTALL:-}" = 1 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq "$runtime" >"$out/apt.log" 2>&1 || { cat "$out/apt.log"; fail "apt-get install liveupdate"; }
  version=$(cd / && PATH=/usr/bin:/bin lu-host --version 2>&1) || fail "lu-host --version from PATH"
  echo "$version"
  [[ "$version" == *"installed plugins (/$plugins):"* ]] || fail "lu-host --version does not use /$plugins"
  [[ "$version" == *"liveupdate  liveupdate "* && "$version" == *"updater     local "* ]] \
    || fail "lu-host --version does not list the installed plugins"
  hello_demo || fail "the hello demo does not run from the installed paths"
  $SUDO apt-get install -y -qq "$dev" >>"$out/apt.log" 2>&1 || { cat "$out/apt.log"; fail "apt-get install liveupdate-dev"; }
  if cmake -S "$source/samples/updater-plugin" -B "$out/sample" -DCMAKE_BUILD_TYPE=Release >"$out/sample.log" 2>&1 \
     && cmake --build "$out/sample" >>"$out/sample.log" 2>&1; then
    grep -q "liveupdate_DIR:PATH=/usr/lib/$multiarch/cmake/liveupdate" "$out/sample/CMakeCache.txt" \
      || fail "the sample found the SDK elsewhere than in /usr"
  else
    cat "$out/sample.log"
    fail "samples/updater-plugin does not build against /usr"
  fi
  $SUDO apt-get purge -y -qq liveupdate liveupdate-dev >>"$out/apt.log" 2>&1 || fail "apt-get purge"
  for left in /usr/bin/lu-host "/$plugins" /usr/include/liveupdate "/usr/lib/$multiarch/cmake/liveupdate" \
    /usr/share/doc/liveupdate; do
    [ ! -e "$left" ] || fail "$left is left after apt-get purge"
  done
  # Every file either package held (folders end in /: shared ones stay).
  while IFS= read -r path; do
    [ ! -e "${path#.}" ] && [ ! -L "${path#.}" ] || fail "${path#.} is left after apt-get purge"
  done < <(printf '%s\n%s\n' "$contents" "$dev_contents" | grep -v '/$')
  if dpkg -s liveupdate >/dev/null 2>&1; then fail "dpkg still knows liveupdate after apt-get purge"; fi
else
  echo "not installed (set CI or LU_TEST_INSTALL=1 to install, run and purge the packages)"
fi

[ "$failures" -eq 0 ] || exit 1
echo "packaging: all checks passed"
