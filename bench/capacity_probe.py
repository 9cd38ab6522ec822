#!/usr/bin/env python3
"""Capacity page (issue 30, docs/BENCHMARKS.md "Capacity: lichess's load, on paper"): what one
move costs the shared services of a cluster, PostgreSQL and Redis, which the other benchmarks do
not measure. Per configuration and run, under bench/cluster.py's load (tf-loadgen at RATE
moves/s over WebSocket, RATE/10 games: 200 at the default 2,000; games played to their end and
followed by new ones, so that game creations and ends are in the average at their real share),
over a window inside the generator's measured one (from warm-up + 1 s to 1 s before its end,
as bench/window_sample.py):
  - WAL bytes per move: pg_current_wal_lsn() before and after, divided by the moves delivered
    in the window (the generator's delivered rate times the window's length);
  - what the WAL holds, by record type (pg_waldump --stats over the window's LSN range): the
    share of full-page images, the COMMIT records per move (commit_records_per_move);
  - WAL flushes per move and transactions per move, read-only ones included (pg_stat_wal,
    pg_stat_database: flushed by PostgreSQL about once a second, so approximate);
  - the journal's and the games table's size on disk per row at the end (indexes included);
  - PostgreSQL's CPU per move: the postmaster and all its children from /proc (utime + stime,
    exited children included), and apart the client backends' (the nodes' connections);
  - with the bus: Redis's CPU per move (INFO cpu) and its PUBLISH calls per move (INFO
    commandstats), the nodes' bus messages per move (/metrics), the nodes' CPU per move.
Configurations (--kinds): single (one node on PostgreSQL, no bus), cross (two nodes on
PostgreSQL and Redis, each game's second player on node B: every move crosses the bus),
cross-spec (cross with SPEC spectators per game, every other one on node B).
The limits of issue 31 on open games per address and per player are lifted (the generator's
players all come from 127.0.0.1). Pinning as bench/cluster.py: nodes on SERVER_CPU (0) with
--threads 1, the generator, PostgreSQL and Redis on LOADGEN_CPU (1). A fresh database for every
configuration; the PostgreSQL cluster is scripts/pg-test-cluster.sh's (fsync and
synchronous_commit on, shared_buffers 64 MB, otherwise defaults) in --pg-dir, started if needed
and stopped at the end (--keep-pg: left running).

usage: bench/capacity_probe.py [--bin DIR] [--pg-dir DIR] [--runs N] [--duration S]
                               [--rate R] [--kinds single,cross,cross-spec] [--spec N]
                               [--out FILE] [--keep-pg] [--checkpoint]
One JSON line per configuration and run on stdout, then medians (min-max).
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402  (Node)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER_CPU = os.environ.get("SERVER_CPU", "0")
LOADGEN_CPU = os.environ.get("LOADGEN_CPU", "1")
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
CLK = os.sysconf("SC_CLK_TCK")
WARMUP = 3.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(conninfo, sql):
    out = subprocess.run([f"{PG_BIN}/psql", "-q", "-X", "-At", "-v", "ON_ERROR_STOP=1",
                          conninfo, "-c", sql], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def lsn_bytes(lsn):
    hi, lo = lsn.split("/")
    return (int(hi, 16) << 32) + int(lo, 16)


def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()  # from field 3 (state) on


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def pg_cpu(postmaster):
    """(all of the cluster, its client backends): CPU seconds. The postmaster's cutime/cstime
    hold its children that exited (a sampling psql's backend: a few ms)."""
    f = stat_fields(postmaster)
    total = sum(int(x) for x in f[11:15])
    backends = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == postmaster:
            continue
        try:
            c = stat_fields(name)
        except (OSError, ValueError):
            continue
        if int(c[1]) != postmaster:
            continue
        t = int(c[11]) + int(c[12])
        total += t
        # A client backend's title: "postgres: USER DB [local] STATE"
        if "[local]" in cmdline(name):
            backends += t
    return total / CLK, backends / CLK


def proc_cpu(pid):
    f = stat_fields(pid)
    return (int(f[11]) + int(f[12])) / CLK


def redis_info(port):
    out = subprocess.run(["redis-cli", "-p", str(port), "INFO", "all"], capture_output=True,
                         text=True, check=True).stdout
    cpu = 0.0
    publish = 0
    cmds = 0
    for line in out.splitlines():
        if line.startswith("used_cpu_sys:") or line.startswith("used_cpu_user:"):
            cpu += float(line.split(":")[1])
        elif line.startswith("cmdstat_publish:"):
            publish = int(line.split("calls=")[1].split(",")[0])
        elif line.startswith("total_commands_processed:"):
            cmds = int(line.split(":")[1])
    return {"cpu": cpu, "publish": publish, "cmds": cmds}


def metrics(node):
    try:
        return node.metrics()  # bench/cluster.py's
    except OSError:
        return {}


Node = cluster.Node  # bench/cluster.py's: the same flags, limits lifted


def sample(conninfo, postmaster, nodes, rport):
    s = {"t": time.monotonic()}
    s["pg_cpu"], s["pg_backends_cpu"] = pg_cpu(postmaster)
    s["nodes_cpu"] = sum(proc_cpu(n.proc.pid) for n in nodes)
    if rport:
        s["redis"] = redis_info(rport)
    s["bus"] = sum(metrics(n).get("trunkfield_cluster_bus_published_total", 0)
                   for n in nodes)
    row = psql(conninfo, "SELECT pg_current_wal_lsn(), w.wal_records, w.wal_fpi, w.wal_bytes, "
                         "w.wal_write, w.wal_sync, (SELECT sum(xact_commit) FROM "
                         "pg_stat_database) FROM pg_stat_wal w").split("|")
    s["lsn"] = row[0]
    s["wal_records"], s["wal_fpi"], s["wal_bytes_stat"] = int(row[1]), int(row[2]), int(row[3])
    s["wal_write"], s["wal_sync"], s["commits"] = int(row[4]), int(row[5]), int(row[6])
    return s


def waldump_stats(pg_dir, start, end):
    """Per record type: (count, bytes incl. FPI) from pg_waldump --stats=record."""
    out = subprocess.run([f"{PG_BIN}/pg_waldump", "--stats=record", "-p",
                          os.path.join(pg_dir, "data", "pg_wal"), "-s", start, "-e", end],
                         capture_output=True, text=True)
    rows = {}
    for line in out.stdout.splitlines():
        # "Heap/INSERT   123 ( 40.00)   4567 ( 30.00)   0 (  0.00)   4567 ( 30.00)"
        parts = line.split(None, 1)
        if len(parts) < 2 or "/" not in parts[0]:
            continue
        nums = re.findall(r"(\d+)\s*\(\s*[\d.]+\)", parts[1])
        if len(nums) == 4:
            rows[parts[0]] = {"count": int(nums[0]), "rec_bytes": int(nums[1]),
                              "fpi_bytes": int(nums[2]), "bytes": int(nums[3])}
    return rows


def run_one(a, server, tmp, conninfo, pg_dir, postmaster, rport, kind, run, seq):
    db = f"cap_{seq}"
    psql(conninfo, f"CREATE DATABASE {db}")
    url = conninfo.replace("dbname=postgres", f"dbname={db}")
    store = ["--store", "postgres", "--database-url", url]
    nodes = []
    try:
        if kind == "single":
            nodes.append(Node(server, tmp, f"{kind}{run}", store))
        else:
            for n in ("a", "b"):
                nodes.append(Node(server, tmp, f"{kind}{run}{n}",
                                  store + ["--bus", f"redis://127.0.0.1:{rport}", "--node-id",
                                           n]))
            time.sleep(1)  # the bus is up, leases taken
        args = ["taskset", "-c", LOADGEN_CPU, os.path.join(a.bin, "tf-loadgen"), "--port",
                str(nodes[0].port), "--rate", str(a.rate), "--games", str(a.games), "--duration",
                str(a.duration), "--warmup", str(WARMUP), "--drain", "3", "--server-pid",
                str(nodes[0].proc.pid)]
        if kind != "single":
            args += ["--port2", str(nodes[1].port)]
        if kind == "cross-spec":
            args += ["--spectators", str(a.spec)]
        result = {}

        def gen():
            out = subprocess.run(args, capture_output=True, text=True, timeout=600)
            lines = out.stdout.strip().splitlines()
            result.update(json.loads(lines[-1]) if lines else {})

        th = threading.Thread(target=gen)
        th.start()
        time.sleep(WARMUP + 1)
        if a.checkpoint:
            psql(conninfo, "CHECKPOINT")
        s0 = sample(conninfo, postmaster, nodes, rport if kind != "single" else None)
        time.sleep(a.duration - 2)
        s1 = sample(conninfo, postmaster, nodes, rport if kind != "single" else None)
        th.join()
        dump = waldump_stats(pg_dir, s0["lsn"], s1["lsn"])
        sizes = [int(x) for x in psql(url, "SELECT pg_total_relation_size('journal'), "
                                           "(SELECT count(*) FROM journal), "
                                           "pg_total_relation_size('games'), "
                                           "(SELECT count(*) FROM games)").split("|")]
    finally:
        for n in nodes:
            n.stop()
        psql(conninfo, f"DROP DATABASE {db} WITH (FORCE)")
    dt = s1["t"] - s0["t"]
    delivered = result.get("turns_delivered") or 0
    moves = delivered / a.duration * dt  # the delivered rate over the sampled window
    wal = lsn_bytes(s1["lsn"]) - lsn_bytes(s0["lsn"])
    d = lambda k: s1[k] - s0[k]  # noqa: E731
    rec = {"kind": kind, "run": run, "ok": result.get("ok"), "errors": result.get("error_kinds"),
           "delivered_per_s": delivered / a.duration, "window_s": round(dt, 3),
           "moves_in_window": round(moves),
           "p99": ((result.get("latency_ms") or {}).get("opponent") or {}).get("p99"),
           "wal_bytes_per_move": wal / moves,
           "wal_fpi_share": None,
           "commits_per_move": d("commits") / moves,
           "wal_syncs_per_move": d("wal_sync") / moves,
           "wal_records_per_move": d("wal_records") / moves,
           "fpi_per_move": d("wal_fpi") / moves,
           "pg_cpu_ms_per_move": 1000 * d("pg_cpu") / moves,
           "pg_backends_cpu_ms_per_move": 1000 * d("pg_backends_cpu") / moves,
           "pg_cpu_share_of_core": d("pg_cpu") / dt,
           "nodes_cpu_ms_per_move": 1000 * d("nodes_cpu") / moves,
           "bus_published_per_move": d("bus") / moves,
           # on disk at the end (tables, indexes, TOAST): per journal row (a move, or a game's
           # creation, join or end) and per game row
           "journal_bytes_per_row": sizes[0] / max(1, sizes[1]),
           "games_bytes_per_row": sizes[2] / max(1, sizes[3])}
    if dump:
        tot = sum(v["bytes"] for v in dump.values()) or 1
        rec["wal_fpi_share"] = sum(v["fpi_bytes"] for v in dump.values()) / tot
        rec["commit_records_per_move"] = dump.get("Transaction/COMMIT", {}).get("count", 0) / moves
        top = sorted(dump.items(), key=lambda kv: -kv[1]["bytes"])[:8]
        rec["wal_by_record_per_move"] = {k: {"n": round(v["count"] / moves, 3),
                                             "bytes": round(v["bytes"] / moves, 1),
                                             "fpi_bytes": round(v["fpi_bytes"] / moves, 1)}
                                         for k, v in top}
    if kind != "single":
        rec["redis_cpu_ms_per_move"] = 1000 * (s1["redis"]["cpu"] - s0["redis"]["cpu"]) / moves
        rec["redis_publish_per_move"] = (s1["redis"]["publish"] - s0["redis"]["publish"]) / moves
        rec["redis_cmds_per_move"] = (s1["redis"]["cmds"] - s0["redis"]["cmds"]) / moves
        pubs = s1["redis"]["publish"] - s0["redis"]["publish"]
        rec["redis_cpu_us_per_publish"] = (1e6 * (s1["redis"]["cpu"] - s0["redis"]["cpu"]) / pubs
                                           if pubs else None)
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--pg-dir", default="/tmp/cap-pg")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=12)
    ap.add_argument("--rate", type=float, default=2000)
    ap.add_argument("--games", type=int, default=0, help="default: rate / 10, as bench/run")
    ap.add_argument("--kinds", default="single,cross")
    ap.add_argument("--spec", type=int, default=2)
    ap.add_argument("--out", default="")
    ap.add_argument("--keep-pg", action="store_true")
    ap.add_argument("--checkpoint", action="store_true",
                    help="a CHECKPOINT right before the window: every page's first change in it "
                         "is a full-page image (the worst case after each checkpoint)")
    a = ap.parse_args()
    a.games = a.games or max(1, round(a.rate / 10))
    server = os.path.join(a.bin, "trunkfield-server")
    tmp = tempfile.mkdtemp(prefix="tf-capacity-")
    script = os.path.join(ROOT, "scripts", "pg-test-cluster.sh")
    conninfo = subprocess.run(["taskset", "-c", LOADGEN_CPU, "bash", script, "start", a.pg_dir],
                              check=True, capture_output=True, text=True,
                              env={**os.environ, "PG_BIN": PG_BIN}).stdout.strip().splitlines()[-1]
    with open(os.path.join(a.pg_dir, "data", "postmaster.pid")) as f:
        postmaster = int(f.readline())
    rport = free_port()
    redis = subprocess.Popen(["taskset", "-c", LOADGEN_CPU, "redis-server", "--bind", "127.0.0.1",
                              "--port", str(rport), "--save", "", "--appendonly", "no"],
                             stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    kinds = a.kinds.split(",")
    results = []
    seq = 0
    try:
        for run in range(1, a.runs + 1):
            for kind in kinds:
                seq += 1
                rec = run_one(a, server, tmp, conninfo, a.pg_dir, postmaster, rport, kind, run,
                              seq)
                rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
                results.append(rec)
                print(json.dumps(rec), flush=True)
    finally:
        redis.terminate()
        redis.wait()
        if not a.keep_pg:
            subprocess.run(["bash", script, "stop", a.pg_dir], capture_output=True)
    print(f"\nmedians of {a.runs} runs (min-max), {a.rate:.0f} moves/s, WebSocket, "
          f"{a.games} games:")
    keys = ["journal_bytes_per_row", "games_bytes_per_row", "wal_bytes_per_move",
            "wal_fpi_share", "commit_records_per_move", "commits_per_move", "wal_syncs_per_move",
            "pg_cpu_ms_per_move", "pg_backends_cpu_ms_per_move", "nodes_cpu_ms_per_move",
            "bus_published_per_move", "redis_publish_per_move", "redis_cpu_ms_per_move",
            "redis_cpu_us_per_publish", "p99"]
    for kind in kinds:
        rs = [r for r in results if r["kind"] == kind]
        print(f"  {kind} (ok {all(r['ok'] for r in rs)}):")
        for k in keys:
            v = [r[k] for r in rs if r.get(k) is not None]
            if v:
                print(f"    {k:30s} {statistics.median(v):10.4f} ({min(v):.4f}-{max(v):.4f})")
    if a.out:
        with open(a.out, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    sys.exit(main())
