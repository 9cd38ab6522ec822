#!/usr/bin/env bash
# Configures and builds the release tree in build/ (every executable lands in build/bin/).
#   bash scripts/build.sh                  everything: tests and benchmarks included
#   bash scripts/build.sh server_bundle    only the given targets (server_bundle: the server,
#                                          the web client and its WebAssembly rules)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
