#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run every test.
#   release tree (build/): the tests that need it (browser, WebAssembly, timing, chaos,
#     containers, package, proxies: every test not labelled `sanitize`), and only what they use
#     (target release_tests);
#   sanitizer tree (build-asan/): the unit and integration tests (label `sanitize`), run once,
#     there only: ASan+UBSan sees more than a second run of the same cases on the release binaries
#     would, and the suite had grown to 87 of CI's 90 minutes running them twice;
#   clang tree (build-fuzz/): the fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release_tests
(cd build && ctest --output-on-failure --no-tests=error -j"$(nproc)" -LE sanitize)

echo "== ASan+UBSan build"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTF_SANITIZE=ON -DTF_WASM=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
(cd build-asan && ctest --output-on-failure --no-tests=error -j"$(nproc)" -L sanitize)

# Third tree: the libFuzzer targets (tests/fuzz, docs/FUZZING.md) need clang; each runs
# TF_FUZZ_SECONDS (default 30) from its committed corpus, and any crash fails.
echo "== libFuzzer targets (clang, ASan+UBSan), ${TF_FUZZ_SECONDS:-30} s each"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
  -DTF_WASM=OFF -DTF_FUZZ=ON -DTF_FUZZ_SECONDS="${TF_FUZZ_SECONDS:-30}" >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz
(cd build-fuzz && ctest --output-on-failure -j"$(nproc)" -L fuzz)
