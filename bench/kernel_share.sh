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
# With SPECTATORS=1 the load is bench/run's spectator step instead (one game at 2 moves/s
# watched by 5,000 spectators, 16 s measured, perf for 12 s) and the figures are per delivery
# to one spectator, in microseconds: the floor under the goal "p99 to 5,000 spectators <= 0.8x
# the relay", where both servers make one send per spectator; with the generator's own CPU per
# message received, which paces the measured p99 once the server is as fast as it.
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
# shellcheck source=bench/cpu0_server.sh
. "$ROOT/bench/cpu0_server.sh"
TMP=$(mktemp -d /tmp/tf-kshare-XXXXXX)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
[ $# -gt 0 ] || set -- memory relay
for kind in "$@"; do
    log=$TMP/$kind.log
    case $kind in
        relay) start_cpu0 relay "$log" ;;
        memory) start_cpu0 ours "$log" "$TMP/data-$kind" --store memory ;;
        durable) start_cpu0 ours "$log" "$TMP/data-$kind" --sync full ;;
        *) echo "bench/kernel_share.sh: unknown kind $kind" >&2; exit 2 ;;
    esac
    if [ "${SPECTATORS:-0}" = 1 ]; then
        load=(--rate 2 --games 1 --spectators 5000 --duration 16); window=12
    else
        load=(--rate 2000 --games 200 --duration 8); window=6
    fi
    (sleep 3; timeout -s INT "$window" perf record -q -g -o "$TMP/$kind.data" -p "$PID" >/dev/null 2>&1 || true) &
    taskset -c 1 "$LOADGEN" --proto "$PROTO" --port "$PORT" --warmup 2 "${load[@]}" \
        --server-pid "$PID" >"$TMP/$kind.json" 2>/dev/null
    wait %2 2>/dev/null || true
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
    perf report -i "$TMP/$kind.data" --no-children --sort dso --stdio 2>/dev/null >"$TMP/$kind.dso"
    perf report -i "$TMP/$kind.data" --children --sort sym --stdio -g none 2>/dev/null >"$TMP/$kind.sym"
    python3 - "$kind" "$TMP" "${SPECTATORS:-0}" <<'PY'
import json, re, sys
kind, tmp, spectators = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
r = json.load(open(f"{tmp}/{kind}.json"))
per = 1000 * r["server"]["cpu_s"] / r["turns_delivered"]
if spectators:  # microseconds per delivery to one spectator
    per = 1e6 * r["server"]["cpu_s"] / r["latency_ms"]["spectator"]["count"]
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
if spectators:
    print(json.dumps({"kind": kind, "load": "spectators", "cpu_us_per_delivery": round(per, 3),
                      "kernel_pct": kernel, "send_pct": send, "epoll_pct": wait,
                      "send_us_per_delivery": round(per * send / 100, 3),
                      "kernel_us_per_delivery": round(per * kernel / 100, 3),
                      "spectator_p99_ms": r["latency_ms"]["spectator"]["p99"],
                      # the generator's own CPU per spectator message received (its one core):
                      # when it is near the server's, the measured p99 is the generator's pace
                      "generator_us_per_delivery": round(
                          1e4 * r["loadgen_cpu_pct"] * r["options"]["duration_s"]
                          / r["latency_ms"]["spectator"]["count"], 3)}))
else:
    print(json.dumps({"kind": kind, "cpu_ms_per_move": round(per, 4), "kernel_pct": kernel,
                      "send_pct": send, "epoll_pct": wait, "recv_pct": recv,
                      "send_ms_per_move": round(per * send / 100, 4),
                      "kernel_ms_per_move": round(per * kernel / 100, 4)}))
PY
done
