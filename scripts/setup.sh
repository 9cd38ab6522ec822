#!/usr/bin/env bash
# Installs the Debian packages the project needs, when missing. Idempotent; run as root (or with
# sudo available).
#   bash scripts/setup.sh        everything: the build, every test (scripts/test.sh, CI)
#   bash scripts/setup.sh run    only what building and running the server with its web client
#                                needs (scripts/run.sh, scripts/package.sh, docker/Dockerfile)
set -euo pipefail
mode=${1:-all}
[[ $mode == all || $mode == run ]] || { echo "usage: setup.sh [run]" >&2; exit 2; }

# Building the server, the web client's WebAssembly rules (emscripten, which brings Node.js) and
# the Debian package (dpkg-dev, in build-essential; CPack finds the executables for
# dpkg-shlibdeps with `file`); libpq for the PostgreSQL store, hiredis (its RESP codec only) for
# the cluster's Redis bus, utf8proc for Unicode names, libcurl for the players' mails (SMTP).
packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libboost-dev libboost-system-dev nlohmann-json3-dev libspdlog-dev libcli11-dev
  libsqlite3-dev libsodium-dev libpq-dev libhiredis-dev libutf8proc-dev libcurl4-openssl-dev
  emscripten file
)
if [[ $mode == all ]]; then
  # The tests: doctest, the fuzzers' clang, the browser test's chromium, Python for the
  # integration scripts, debootstrap for the package test, systemd-analyze for the unit's check,
  # nginx and openssl for the reverse proxy test, PostgreSQL's server for the tests that start
  # their own (scripts/pg-test-cluster.sh; no system service is started), Redis for the cluster
  # tests, started by the tests themselves (scripts/redis-test-server.sh; no service is started),
  # haproxy to check the cluster profile's load balancer config (tests/docker/dockerfile_test.py
  # runs haproxy -c), podman with runc (crun, its default, cannot run containers here),
  # netavark and aardvark-dns (without them podman falls back to CNI, where containers cannot
  # find each other by name), iptables for netavark's port forwarding, and python3-yaml, to
  # build and run docker/ for real (tests/docker/compose_test.py); aiosmtpd, the SMTP server the
  # mail tests start on loopback (tests/integration/smtp_sink.py); curl, the HTTP API's client in
  # tests/integration/http_api_test.py.
  packages+=(
    doctest-dev
    clang libclang-rt-14-dev
    chromium
    python3 python3-jsonschema tmux procps
    debootstrap systemd nginx openssl
    postgresql-15
    redis-server haproxy
    podman runc netavark aardvark-dns iptables python3-yaml
    python3-aiosmtpd curl
  )
  # Node.js and npm: Debian's, unless a node is already there (e.g. from NodeSource).
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Installing starts no service: nginx's package would start a server on port 80, PostgreSQL's
  # and redis-server's theirs (in a chroot too, outliving it). A policy-rc.d already there
  # (containers have one) is left as it is.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    $SUDO sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
[[ $mode == all ]] || exit 0

# The browser test's npm packages (playwright-core drives the Debian chromium above; it never
# downloads a browser), from the committed lock file.
browser_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
# Without the registry (or behind a TLS-intercepting proxy whose CA npm does not trust) the
# browser test cannot run: say so loudly, and let every other test go on (CMake registers the
# browser test only when its packages are installed).
# Installed again when the lock file names a package that is not there (one added since).
browser_deps=$(node -e 'console.log(Object.keys(require(process.argv[1]).devDependencies).join(" "))' \
  "$browser_dir/package.json" 2>/dev/null || echo playwright-core)
browser_stale=0
for dep in $browser_deps; do [[ -d "$browser_dir/node_modules/$dep" ]] || browser_stale=1; done
if [[ $browser_stale == 1 ]]; then
  if ! (cd "$browser_dir" && npm ci --no-audit --no-fund); then
    rm -rf "$browser_dir/node_modules"
    echo "setup: WARNING: npm could not install tests/browser's packages; the browser test will be skipped" >&2
  fi
fi
