#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
echo "== a random game of Trunkfield, replayed and checked by the rules library"
build/bin/trunkfield rules random 1 > build/example-game.json
build/bin/trunkfield rules notation build/example-game.json | paste -sd' ' | fmt -w 100
build/bin/trunkfield rules replay build/example-game.json
