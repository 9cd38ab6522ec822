#!/usr/bin/env python3
"""Several nodes (issue 18, docs/BENCHMARKS.md "Several nodes"): p99 sent -> opponent and CPU
per move at 2,000 moves/s over WebSocket, three ways, RUNS times each, alternating:
  single   one node on PostgreSQL, no bus (the cluster's baseline);
  same     two nodes on PostgreSQL and Redis, both players of every game on node A;
  cross    the same two nodes, each game's second player on node B (every move crosses the
           bus: B forwards its player's moves to A, A's events come back through B).
The nodes run on SERVER_CPU (default 0) with --threads 1, the generator, PostgreSQL and Redis on
LOADGEN_CPU (default 1), as bench/run's step postgres. CPU per move: the nodes' CPU time over
the window divided by the moves delivered (node A from tf-loadgen --server-pid, node B with
--other-pid), and apart Redis's.

usage: [NODE_B_CPU=1] bench/cluster.py [--bin DIR] [--runs N] [--duration S] [--out FILE]
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER_CPU = os.environ.get("SERVER_CPU", "0")
# Node B's core: SERVER_CPU by default (both nodes share one core, as the figures in
# docs/BENCHMARKS.md were taken); NODE_B_CPU=1 puts it beside the generator instead, so that
# the two nodes do not take turns on one core (what separate machines would give).
NODE_B_CPU = os.environ.get("NODE_B_CPU", SERVER_CPU)
OPEN_LIMITS = ["--max-open-games-per-ip", "100000", "--max-open-games-per-player", "100000"]
LOADGEN_CPU = os.environ.get("LOADGEN_CPU", "1")
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
RATE, WARMUP = 2000, 3  # tf-loadgen's moves per second, and seconds before the window


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(conninfo, sql):
    subprocess.run([f"{PG_BIN}/psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", conninfo, "-c", sql],
                   check=True, capture_output=True)


class Node:
    def __init__(self, server, tmp, name, args, cpu=SERVER_CPU):
        # every generated player comes from 127.0.0.1: issue 31's open-game limits lifted
        self.log = os.path.join(tmp, f"{name}.log")
        data = tempfile.mkdtemp(prefix=f"{name}-", dir=tmp)
        self.proc = subprocess.Popen(
            ["taskset", "-c", cpu, server, "--bind", "127.0.0.1", "--http-port", "0",
             "--tcp-port", "0", "--threads", "1", "--data", data, "--max-connections-per-ip",
             "0", *OPEN_LIMITS, *args], stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        for _ in range(3000):
            text = open(self.log).read()
            if "listening http=" in text:
                self.port = int(text.split("listening http=127.0.0.1:")[1].split()[0])
                return
            if self.proc.poll() is not None:
                raise SystemExit(f"{name} exited:\n{text}")
            time.sleep(0.01)
        raise SystemExit(f"{name} did not start")

    def metrics(self):
        """{name: value} of the node's /metrics (counters and gauges without labels)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as r:
            out = {}
            for line in r.read().decode().splitlines():
                if line and not line.startswith("#") and "{" not in line:
                    name, _, value = line.partition(" ")
                    try:
                        out[name] = float(value)
                    except ValueError:
                        pass
            return out

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


def loadgen(bin_dir, port, server_pid, others, duration, port2=None):
    args = ["taskset", "-c", LOADGEN_CPU, os.path.join(bin_dir, "tf-loadgen"), "--port",
            str(port), "--rate", str(RATE), "--games", "200", "--duration", str(duration),
            "--warmup", str(WARMUP), "--drain", "3", "--server-pid", str(server_pid)]
    if port2:
        args += ["--port2", str(port2)]
    for p in others:
        args += ["--other-pid", str(p)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=600)
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
    return json.loads(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=8)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    server = os.path.join(a.bin, "trunkfield-server")
    tmp = tempfile.mkdtemp(prefix="tf-bench-cluster-")
    pg_dir = tempfile.mkdtemp(prefix="tf-bench-clpg-")
    redis = None
    results = []
    try:
        conninfo = subprocess.run(
            ["taskset", "-c", LOADGEN_CPU, "bash", os.path.join(ROOT, "scripts",
                                                              "pg-test-cluster.sh"),
             "start", pg_dir], check=True, capture_output=True, text=True,
            env={**os.environ, "PG_BIN": PG_BIN}).stdout.strip().splitlines()[-1]
        rport = free_port()
        redis = subprocess.Popen(["taskset", "-c", LOADGEN_CPU, "redis-server", "--bind",
                                  "127.0.0.1", "--port", str(rport), "--save", "",
                                  "--appendonly", "no"], stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        seq = 0
        for run in range(1, a.runs + 1):
            for kind in ("single", "same", "cross"):
                seq += 1
                db = f"bench_cl_{seq}"
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
                                              store + ["--bus", f"redis://127.0.0.1:{rport}",
                                                       "--node-id", n],
                                              NODE_B_CPU if n == "b" else SERVER_CPU))
                        time.sleep(1)  # the bus is up, leases taken
                    others = [n.proc.pid for n in nodes[1:]] + [redis.pid]
                    pub = "trunkfield_cluster_bus_published_total"
                    r = loadgen(a.bin, nodes[0].port, nodes[0].proc.pid, others, a.duration,
                                nodes[1].port if kind == "cross" else None)
                    # Publishes of both nodes over the whole run (warm-up and drain too) per
                    # move delivered: the bus's messages per move.
                    published = sum(n.metrics().get(pub, 0) for n in nodes)
                finally:
                    for n in nodes:
                        n.stop()
                    psql(conninfo, f"DROP DATABASE {db} WITH (FORCE)")
                moves = r.get("turns_delivered") or 0
                cpu = (r.get("server") or {}).get("cpu_s")
                each = r.get("others") or {}
                other = sum(v for p, v in each.items() if int(p) != redis.pid)
                redis_cpu = each.get(str(redis.pid))
                rec = {"kind": kind, "run": run, "ok": r.get("ok"),
                       "errors": r.get("error_kinds"),
                       "p50": ((r.get("latency_ms") or {}).get("opponent") or {}).get("p50"),
                       "p99": ((r.get("latency_ms") or {}).get("opponent") or {}).get("p99"),
                       "moves": moves,
                       "cpu_ms_per_move": 1000 * (cpu + other) / moves if cpu is not None
                       and moves else None,
                       "node_a_ms": 1000 * cpu / moves if cpu is not None and moves else None,
                       "node_b_ms": 1000 * other / moves if moves and kind != "single" else None,
                       "redis_ms": 1000 * redis_cpu / moves if moves and redis_cpu is not None
                       and kind != "single" else None,
                       # per move, over the whole run: RATE for warm-up + window
                       "bus_per_move": published / (RATE * (WARMUP + a.duration))
                       if kind != "single" else None}
                results.append(rec)
                print(json.dumps(rec), flush=True)
    finally:
        if redis:
            redis.terminate()
            redis.wait()
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "destroy",
                        pg_dir], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nmedian of %d runs (min-max), 2,000 moves/s, WebSocket, 200 games:" % a.runs)
    for kind in ("single", "same", "cross"):
        rs = [r for r in results if r["kind"] == kind and r["p99"] is not None]
        if not rs:
            continue

        def fmt(key):
            v = [r[key] for r in rs if r[key] is not None]
            return "%.3f (%.3f-%.3f)" % (statistics.median(v), min(v), max(v)) if v else "?"
        print(f"  {kind:6s} p99 sent->opponent {fmt('p99')} ms, p50 {fmt('p50')} ms, "
              f"CPU per move {fmt('cpu_ms_per_move')} ms (node A {fmt('node_a_ms')}, node B "
              f"{fmt('node_b_ms')}; Redis {fmt('redis_ms')}), bus publishes per move "
              f"{fmt('bus_per_move')}, ok {all(r['ok'] for r in rs)}")
    if a.out:
        with open(a.out, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    sys.exit(main())
