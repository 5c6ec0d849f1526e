#!/usr/bin/env bash
# The README's demo: installs the dependencies, builds into build/, then runs
# `lu-host up samples/hello` in the foreground (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build
cmake --build build -j2

cat <<'MSG'

demo: open http://127.0.0.1:8088/ in a browser, then edit
      samples/hello/src/index.html and reload: the change is served within a second.
      The status page: open the address lu-host logs below ("up: status page
      http://127.0.0.1:10351/?token=..."): each LiveUpdate's state and log, live;
      hello-manual (http://127.0.0.1:8088/manual/) waits for its Trigger button.
      In another terminal: build/bin/lu-host get liveupdates
                           build/bin/lu-host describe liveupdate hello
                           build/bin/lu-host trigger hello-manual
      Ctrl-C stops the web server and the daemon.

MSG
exec build/bin/lu-host up samples/hello
