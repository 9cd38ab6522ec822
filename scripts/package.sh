#!/usr/bin/env bash
# Builds the Debian package of the server into build/packages/trunkfield-server_VERSION_ARCH.deb
# (CPack DEB, cmake/packaging.cmake): install what building needs, build the server and the web
# client, pack. Install it with: apt install ./build/packages/trunkfield-server_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh run
bash scripts/build.sh server_bundle
(cd build && cpack -G DEB)
ls -l build/packages/trunkfield-server_*.deb
