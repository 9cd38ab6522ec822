#!/usr/bin/env bash
# bench/tail.sh: where the durable p99 comes from (issue 21; docs/BENCHMARKS.md "The durable
# tail, move by move"). Each run times the disk's fdatasync (bench/fsync_probe.py), then runs
# ours durable (--sync full) and the bench relay alone on CPU 0, tf-loadgen on CPU 1 (200 games,
# 2,000 moves/s over WebSocket, 2 s warm-up, 8 s measured), with the scheduler traced on both
# CPUs (perf record -e sched:sched_switch) and every move's latency written out
# (tf-loadgen --moves-csv). bench/tail_attribution.py then takes the run's bound (the relay's
# p99 + 2 x the probe's fdatasync p99, issue 21's goal) and puts each move over it down to
# another process holding CPU 0, the block layer's I/O workers, our checkpointer, or the server
# itself. Prints one line per server and run, then the medians.
#
# usage: bench/tail.sh [RUNS]   (default 3)
# Environment: BUILD (default ./build), SERVER_BIN (default BUILD/bin/trunkfield-server).
# Needs perf (Debian: linux-perf) and root or kernel.perf_event_paranoid <= 1.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SERVER_BIN=${SERVER_BIN:-$BUILD/bin/trunkfield-server}
LOADGEN=$BUILD/bin/tf-loadgen
RUNS=${1:-3}
command -v perf >/dev/null || { echo "bench/tail.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
# shellcheck source=bench/cpu0_server.sh
. "$ROOT/bench/cpu0_server.sh"
TMP=$(mktemp -d /tmp/tf-tail-XXXXXX)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# one KIND RUN: a server, the load, the trace; leaves TMP/KIND-RUN.{csv,sched,tids,json}
one() {
    local kind=$1 run=$2 log=$TMP/$1-$2.log
    if [ "$kind" = relay ]; then
        start_cpu0 relay "$log"
    else
        start_cpu0 ours "$log" "$TMP/data-$run" --sync full
    fi
    # the trace covers most of the measured window (2.5 s .. 9.5 s after the start)
    (sleep 2.5; perf record -q -k CLOCK_MONOTONIC -e sched:sched_switch -a -m 32M \
        -o "$TMP/$kind-$run.data" -- sleep 7 >/dev/null 2>&1 || true) &
    local tracer=$!
    taskset -c 1 "$LOADGEN" --proto "$PROTO" --port "$PORT" --rate 2000 --games 200 --warmup 2 \
        --duration 8 --server-pid "$PID" --moves-csv "$TMP/$kind-$run.csv" >"$TMP/$kind-$run.json" 2>/dev/null
    wait "$tracer" || true
    for t in /proc/"$PID"/task/*; do echo "$(basename "$t") $(cat "$t/comm")"; done >"$TMP/$kind-$run.tids"
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
    perf script -i "$TMP/$kind-$run.data" -F comm,tid,cpu,time,event,trace 2>/dev/null >"$TMP/$kind-$run.sched"
    rm -f "$TMP/$kind-$run.data"
}

mkdir -p "$TMP/probe"
for run in $(seq "$RUNS"); do
    probe=$(taskset -c 0 python3 "$ROOT/bench/fsync_probe.py" "$TMP/probe" --count 1000 --block 4096)
    one ours "$run"
    one relay "$run"
    relay_p99=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency_ms"]["opponent"]["p99"])' "$TMP/relay-$run.json")
    bound=$(python3 -c 'import json,sys; print(float(sys.argv[1]) + 2 * json.loads(sys.argv[2])["p99_ms"])' "$relay_p99" "$probe")
    for kind in ours relay; do
        python3 "$ROOT/bench/tail_attribution.py" --moves "$TMP/$kind-$run.csv" \
            --sched "$TMP/$kind-$run.sched" --own-tids "$TMP/$kind-$run.tids" \
            --threshold "$bound" --label "$kind $run" >>"$TMP/results.jsonl"
    done
done
python3 - "$TMP/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
K = ["other_process", "other_process_generator_cpu", "io_worker", "checkpointer", "slow_sync", "server"]
print("moves over the bound, in % of all moves, put down to: another process on the server's CPU /")
print("on the generator's CPU / I/O workers / our checkpointer / a store sync over 0.5 ms / the server")
print("%-12s %6s %6s %6s %7s | %s | %s" % ("run", "p50", "p99", "bound", "> bound", "  causes (%)", "p99 w/o others; sync p99; others on CPU 0"))
for r in rows:
    c = r["causes_pct_of_moves"]
    sw = r["store_sync_waits"]
    print("%-12s %6.3f %6.3f %6.3f %6.2f%% | %s | %.3f; %s; %.1f ms, longest %s" % (
        r["label"], r["p50_ms"], r["p99_ms"], r["threshold_ms"], r["over_threshold_pct"],
        " ".join("%.2f" % c[k] for k in K), r["p99_without_other_processes_ms"],
        "%.3f" % sw["p99_ms"] if sw["p99_ms"] is not None else "-", r["other_process_ms"],
        r["other_process_longest_ms"][:3]))
for kind in ("ours", "relay"):
    rs = [r for r in rows if r["label"].startswith(kind + " ")]
    med = lambda f: statistics.median(f(r) for r in rs)
    print("median %-5s p99 %.3f ms, bound %.3f ms, over it %.2f%% of moves (%s); p99 without other processes %.3f ms" % (
        kind, med(lambda r: r["p99_ms"]), med(lambda r: r["threshold_ms"]), med(lambda r: r["over_threshold_pct"]),
        ", ".join("%s %.2f" % (k, med(lambda r, k=k: r["causes_pct_of_moves"][k])) for k in K),
        med(lambda r: r["p99_without_other_processes_ms"])))
PY
