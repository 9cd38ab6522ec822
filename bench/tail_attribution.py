#!/usr/bin/env python3
"""Which moves of a load run were slow, and what held the server's core meanwhile.

usage: tail_attribution.py --moves MOVES.csv --sched SCHED.txt --own-tids TIDS.txt
                           [--cpu 0] [--threshold MS] [--label NAME]

MOVES.csv  tf-loadgen --moves-csv: each measured move's scheduled instant (CLOCK_MONOTONIC s)
           and its latency to the opponent (ms).
SCHED.txt  `perf script -F comm,tid,cpu,time,event,trace` of
           `perf record -k CLOCK_MONOTONIC -e sched:sched_switch -a` over the same window.
TIDS.txt   the server's threads, "TID NAME" per line (from /proc/PID/task/*/comm).

A move is slow when its latency is over --threshold (default: the run's own p99). Each slow move
is put down to the first of these that held up its flight (from its scheduled instant to its
delivery): another process on the server's CPU for at least --hold ms (default 0.25; anything
but the server, the idle task and the block layer's I/O workers kworker/N:MH), another process
on the generator's CPU as long, the I/O workers on the server's CPU, the server's checkpointer
thread (tf-checkpoint), the store thread (tf-store) in uninterruptible sleep (its fdatasync
calls) for at least --slow-sync ms (default 0.5); otherwise to the server itself (its
queueing and its own work). Prints one JSON object (bench/tail.sh prints the table).
"""
import argparse
import bisect
import json
import re
import sys

SWITCH = re.compile(
    r"^\s*(?P<comm>.*?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<t>[0-9.]+):\s+sched:sched_switch:"
    r".*?prev_pid=(?P<ppid>\d+) .*?prev_state=(?P<state>\S+) ==> next_comm=(?P<next>.*?) "
    r"next_pid=(?P<npid>\d+)")


def quantile(sorted_values, q):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", required=True)
    ap.add_argument("--sched", required=True)
    ap.add_argument("--own-tids", required=True)
    ap.add_argument("--cpu", type=int, default=0, help="the server's CPU")
    ap.add_argument("--gen-cpu", type=int, default=1, help="the generator's CPU")
    ap.add_argument("--slow-sync", type=float, default=0.5,
                    help="a store sync wait this long (ms) in a move's flight makes it slow_sync")
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--hold", type=float, default=0.25)
    ap.add_argument("--label", default="")
    a = ap.parse_args()

    own = {}
    for line in open(a.own_tids):
        parts = line.split(None, 1)
        if parts:
            own[int(parts[0])] = parts[1].strip() if len(parts) > 1 else ""
    moves = []
    with open(a.moves) as f:
        next(f)
        for line in f:
            due, ms = line.split(",")
            moves.append((float(due), float(ms)))
    moves.sort()

    # Each CPU's timeline: (start, end, tid, comm) for every task that ran on it; and the
    # store thread's waits in uninterruptible sleep (its fdatasync calls): (start, end).
    slices = {a.cpu: [], a.gen_cpu: []}
    cur = {}
    d_since = {}
    sync_waits = []
    store = {tid for tid, name in own.items() if name == "tf-store"}
    for line in open(a.sched):
        m = SWITCH.match(line)
        if not m:
            continue
        cpu, t = int(m["cpu"]), float(m["t"])
        prev, nxt = int(m["ppid"]), int(m["npid"])
        if prev in store and m["state"].startswith("D"):
            d_since[prev] = t
        if nxt in store and nxt in d_since:
            sync_waits.append((d_since.pop(nxt), t))
        if cpu not in slices:
            continue
        if cpu in cur:
            slices[cpu].append((cur[cpu][0], t, cur[cpu][1], cur[cpu][2]))
        cur[cpu] = (t, nxt, m["next"])
    if not slices[a.cpu]:
        sys.exit("tail_attribution.py: no sched_switch on CPU %d in %s" % (a.cpu, a.sched))
    t_lo = max(sl[0][0] for sl in slices.values() if sl)
    t_hi = min(sl[-1][1] for sl in slices.values() if sl)
    moves = [mv for mv in moves if t_lo <= mv[0] and mv[0] + mv[1] / 1000 <= t_hi]
    if not moves:
        sys.exit("tail_attribution.py: no move inside the trace's span")
    starts = {cpu: [x[0] for x in sl] for cpu, sl in slices.items()}
    sync_waits.sort()
    sync_starts = [w[0] for w in sync_waits]

    def kind(tid, comm, cpu):
        if tid == 0:
            return "idle"
        if tid in own:
            return "checkpointer" if own[tid] == "tf-checkpoint" else "server"
        if re.match(r"kworker/\d+:\d+H", comm):
            return "io_worker"
        if cpu == a.gen_cpu and comm.startswith("tf-loadgen"):
            return "generator"
        return "other_process"

    def held(cpu, t0, t1):
        """ms per kind on the CPU between t0 and t1."""
        out = {}
        sl = slices[cpu]
        i = max(0, bisect.bisect_right(starts[cpu], t0) - 1)
        while i < len(sl) and sl[i][0] < t1:
            s0, e0, tid, comm = sl[i]
            d = min(e0, t1) - max(s0, t0)
            if d > 0:
                k = kind(tid, comm, cpu)
                out[k] = out.get(k, 0.0) + d * 1000
            i += 1
        return out

    def sync_ms(t0, t1):
        """ms the store thread spent in uninterruptible sleep between t0 and t1."""
        i = max(0, bisect.bisect_right(sync_starts, t0) - 8)
        total = 0.0
        while i < len(sync_waits) and sync_waits[i][0] < t1:
            w0, w1 = sync_waits[i]
            total += max(0.0, min(w1, t1) - max(w0, t0)) * 1000
            i += 1
        return total

    def cause(due, ms):
        t1 = due + ms / 1000
        h, g = held(a.cpu, due, t1), held(a.gen_cpu, due, t1)
        if h.get("other_process", 0) >= a.hold:
            return "other_process"
        if g.get("other_process", 0) >= a.hold:
            return "other_process_generator_cpu"
        if h.get("io_worker", 0) >= a.hold:
            return "io_worker"
        if h.get("checkpointer", 0) >= a.hold:
            return "checkpointer"
        if sync_ms(due, t1) >= a.slow_sync:
            return "slow_sync"
        return "server"

    lat = sorted(ms for _, ms in moves)
    p99 = quantile(lat, 0.99)
    threshold = a.threshold if a.threshold is not None else p99
    causes = dict.fromkeys(["other_process", "other_process_generator_cpu", "io_worker",
                            "checkpointer", "slow_sync", "server"], 0)
    slow_total = 0
    clean = []  # the moves no other process held up, on either CPU
    for due, ms in moves:
        c = cause(due, ms) if ms > threshold else None
        if c:
            slow_total += 1
            causes[c] += 1
        if not c or not c.startswith("other_process"):
            clean.append(ms)
    clean.sort()

    # The whole span: what else took the server's core, and the longest single holds.
    span_ms = (t_hi - t_lo) * 1000
    per_comm = {}
    longest = []
    other_ms = 0.0
    for s0, e0, tid, comm in slices[a.cpu]:
        k = kind(tid, comm, a.cpu)
        if k in ("other_process", "io_worker", "checkpointer"):
            d = (e0 - s0) * 1000
            c = per_comm.setdefault(comm, [0.0, 0])
            c[0] += d
            c[1] += 1
            if k == "other_process":
                longest.append(d)
                other_ms += d
    longest.sort(reverse=True)
    waits = sorted((w1 - w0) * 1000 for w0, w1 in sync_waits if t_lo <= w0 <= t_hi)
    n = len(moves)
    print(json.dumps({
        "label": a.label,
        "moves": n,
        "p50_ms": quantile(lat, 0.5),
        "p99_ms": p99,
        "threshold_ms": threshold,
        "over_threshold": slow_total,
        "over_threshold_pct": 100.0 * slow_total / n,
        "causes": causes,
        "causes_pct_of_moves": {k: 100.0 * v / n for k, v in causes.items()},
        "span_ms": span_ms,
        "held_by": {c: {"ms": round(v[0], 2), "slices": v[1]} for c, v in
                    sorted(per_comm.items(), key=lambda kv: -kv[1][0])[:8]},
        "other_process_ms": round(other_ms, 2),
        "other_process_longest_ms": [round(d, 2) for d in longest[:5]],
        "store_sync_waits": {"count": len(waits), "p50_ms": quantile(waits, 0.5),
                             "p99_ms": quantile(waits, 0.99), "max_ms": waits[-1] if waits else None},
        # The p99 of the moves that no other process held up (on either CPU) past the bound:
        # the server's own tail on cores of its own; a counterfactual for the floor.
        "p99_without_other_processes_ms": quantile(clean, 0.99),
    }))


if __name__ == "__main__":
    main()
