#!/usr/bin/env bash
# bench/callgrind_loads.sh: instructions the server executes (user space, callgrind) for fixed,
# seeded tf-loadgen loads: repeatable to < 0.5 % for the same binary whatever else the machine
# does, so a change to the hot path can be judged on a busy 2-core machine (docs/BENCHMARKS.md).
#
# usage: bench/callgrind_loads.sh [SERVER_BIN [LOADGEN_BIN]]   (defaults: build/bin/...)
#   loads: ws (20 public games, 1,600 WebSocket moves at 200/s), tcp (the same over TCP),
#          crowd (one game at 2 moves/s with 500 spectators, 8 s), durable (the ws load on the
#          SQLite store, --sync full). Prints "load instructions moves" per line.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVER=${1:-$ROOT/build/bin/trunkfield-server}
LOADGEN=${2:-$ROOT/build/bin/tf-loadgen}
LOADS=${LOADS:-ws tcp crowd durable}
command -v valgrind >/dev/null || { echo "callgrind_loads: valgrind is required" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
for load in $LOADS; do
    store=(--store memory)
    args=(--transport ws --games 20 --rate 200 --duration 8)
    case $load in
        tcp) args=(--transport tcp --games 20 --rate 200 --duration 8) ;;
        crowd) args=(--transport ws --games 1 --rate 2 --duration 8 --spectators 500) ;;
        durable) store=(--store sqlite --sync full --data "$work/data-$load") ;;
    esac
    http=$port tcp=$((port + 1)); port=$((port + 2))
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$load" -q \
        "$SERVER" --threads 1 "${store[@]}" --http-port $http --tcp-port $tcp --web-root "" \
        --max-connections-per-ip 0 --log-level warn &
    pid=$!
    for _ in $(seq 100); do
        (exec 3<>/dev/tcp/127.0.0.1/$http) 2>/dev/null && break
        sleep 0.2
    done
    p=$http; [ "${args[1]}" = tcp ] && p=$tcp
    "$LOADGEN" --port $p --seed 7 --warmup 0 --drain 3 "${args[@]}" --json "$work/lg.$load" >/dev/null 2>&1
    kill -INT $pid; wait $pid || true
    ir=$(callgrind_annotate "$work/cg.$load" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n {gsub(",","",$1); print $1; n=1}')
    moves=$(python3 -c "import json,sys; d=json.loads(open('$work/lg.$load').readline()); print(d['turns_delivered'], 'ok' if d['ok'] else 'NOT-OK')" 2>/dev/null || echo "?")
    echo "$load $ir $moves"
done
