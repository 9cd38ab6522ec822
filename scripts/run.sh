#!/usr/bin/env bash
# Quick start, command 1: install what running needs, build the server and the web client (no
# tests), and start the game server with the web client on localhost (Ctrl-C stops it).
# Ports: HTTP_PORT (default 8080), TCP_PORT (8081).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh run
bash scripts/build.sh server_bundle
http_port=${HTTP_PORT:-8080}
tcp_port=${TCP_PORT:-8081}
echo
echo "Trunkfield is starting: open http://127.0.0.1:${http_port}/ in a browser"
echo "(terminal clients: TCP 127.0.0.1:${tcp_port}, newline-delimited JSON, see proto/PROTOCOL.md)"
echo
exec build/bin/trunkfield-server --bind 127.0.0.1 --http-port "$http_port" --tcp-port "$tcp_port" --data data \
  --mine-puzzles
