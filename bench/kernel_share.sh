#!/usr/bin/env bash
# bench/kernel_share.sh: where a server's CPU per move goes at 2,000 moves/s over WebSocket
# (the floor under issue 21's CPU goals; docs/BENCHMARKS.md "Issue 21 goals, measured").
# Runs ours with --store memory (or durable: --sync full) and the bench relay alone on CPU 0,
# tf-loadgen on CPU 1 (200 games, 2 s warm-up, 8 s measured), and samples the server with
# `perf record` (cpu-clock, call graphs) for 6 s in the middle; prints the CPU per delivered
# move (tf-loadgen --server-pid) and the shares of the server's samples in the kernel, in the
# sends (sendmsg for ours, writev for the relay, with the loopback delivery to the generator's
# socket they carry), in epoll waits and in reads. /proc's user/system split is not used: it
# is sampled by the tick and misattributes processes that sleep between messages.
#
# usage: bench/kernel_share.sh [memory|durable|relay ...]   (default: memory relay)
# Environment: BUILD (default ./build), SERVER_BIN (default BUILD/bin/trunkfield-server).
# Needs perf (Debian: linux-perf) and root or kernel.perf_event_paranoid <= 1.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SERVER_BIN=${SERVER_BIN:-$BUILD/bin/trunkfield-server}
LOADGEN=$BUILD/bin/tf-loadgen
command -v perf >/dev/null || { echo "bench/kernel_share.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/tf-kshare-XXXXXX)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
[ $# -gt 0 ] || set -- memory relay
for kind in "$@"; do
    log=$TMP/$kind.log
    case $kind in
        relay) taskset -c 0 node "$ROOT/bench/relay/relay.mjs" --port 0 >"$log" 2>&1 & ;;
        memory | durable)
            args=(--store memory)
            [ "$kind" = durable ] && args=(--sync full)
            taskset -c 0 "$SERVER_BIN" --bind 127.0.0.1 --http-port 0 --tcp-port 0 --threads 1 \
                --data "$TMP/data-$kind" --max-connections-per-ip 0 "${args[@]}" >"$log" 2>&1 & ;;
        *) echo "bench/kernel_share.sh: unknown kind $kind" >&2; exit 2 ;;
    esac
    PID=$!
    for _ in $(seq 500); do grep -q listening "$log" && break; sleep 0.02; done
    if [ "$kind" = relay ]; then
        port=$(sed -n 's/.*listening relay=[^ ]*:\([0-9]*\).*/\1/p' "$log"); proto=relay
    else
        port=$(sed -n 's/.*listening http=[^ ]*:\([0-9]*\) tcp=.*/\1/p' "$log"); proto=trunkfield
    fi
    (sleep 3; timeout -s INT 6 perf record -q -g -o "$TMP/$kind.data" -p "$PID" >/dev/null 2>&1 || true) &
    taskset -c 1 "$LOADGEN" --proto "$proto" --port "$port" --rate 2000 --games 200 --warmup 2 \
        --duration 8 --server-pid "$PID" >"$TMP/$kind.json" 2>/dev/null
    wait %2 2>/dev/null || true
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
    perf report -i "$TMP/$kind.data" --no-children --sort dso --stdio 2>/dev/null >"$TMP/$kind.dso"
    perf report -i "$TMP/$kind.data" --children --sort sym --stdio -g none 2>/dev/null >"$TMP/$kind.sym"
    python3 - "$kind" "$TMP" <<'PY'
import json, re, sys
kind, tmp = sys.argv[1], sys.argv[2]
r = json.load(open(f"{tmp}/{kind}.json"))
per = 1000 * r["server"]["cpu_s"] / r["turns_delivered"]
def share(path, pattern):
    for line in open(path):
        m = re.match(r"\s+([0-9.]+)%\s+(?:[0-9.]+%\s+)?(.*)", line)
        if m and re.search(pattern, m.group(2)):
            return float(m.group(1))
    return 0.0
kernel = share(f"{tmp}/{kind}.dso", r"\[kernel")
send = share(f"{tmp}/{kind}.sym", r"\] (__libc_sendmsg|__GI___writev|__libc_writev)$")
wait = share(f"{tmp}/{kind}.sym", r"\] (epoll_wait|epoll_pwait)$")
recv = share(f"{tmp}/{kind}.sym", r"\] (__libc_recv|__libc_read|read)$")
print(json.dumps({"kind": kind, "cpu_ms_per_move": round(per, 4), "kernel_pct": kernel,
                  "send_pct": send, "epoll_pct": wait, "recv_pct": recv,
                  "send_ms_per_move": round(per * send / 100, 4),
                  "kernel_ms_per_move": round(per * kernel / 100, 4)}))
PY
done
