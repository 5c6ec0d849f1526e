#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the tests and the demos need.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev clang-format clang-tidy shellcheck
  libboost1.81-dev libboost-json1.81-dev libboost-test1.81-dev libboost-filesystem1.81-dev
  libcurl4-openssl-dev libarchive-dev libssl-dev
  libyaml-cpp-dev libxxhash-dev
  tar xz-utils busybox-static docker.io docker-compose curl
  chromium nodejs
  help2man lintian
  prometheus
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
