#!/usr/bin/env python3
"""One fan-out per node (issue 30, docs/BENCHMARKS.md "Spectators across nodes"): one game and
its SPECTATORS spectators (default 5,000), moves at RATE a second, three ways, RUNS times each:
  single   one node on PostgreSQL, no bus: everyone on it (the baseline);
  cross3   three nodes on PostgreSQL and Redis: the players on nodes A and B, the spectators
           spread over A, B and C (tf-loadgen --port2/--port3): every event crosses the bus to
           B and C;
  (--old BIN adds cross3 with another server binary, e.g. one that published an event once per
  watching connection, for the before/after.)
Reported per configuration: p99 and p50 from the move's sending to each spectator's receipt,
the nodes' CPU per move (all nodes, from tf-loadgen --server-pid/--other-pid, apart Redis's),
and the bus messages per event: node A's trunkfield_cluster_out_messages_total over the events it
made (setups and turns accepted, from its /metrics, inside the measured window), with the deliveries
they carried. Nodes on SERVER_CPU (0) with --threads 1; the generator, PostgreSQL and Redis on
LOADGEN_CPU (1).

usage: bench/fanout.py [--bin DIR] [--old BIN] [--runs N] [--spectators N] [--rate R]
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

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402  (Node, psql, free_port, the CPUs and PostgreSQL's programs)

ROOT = cluster.ROOT


def redis_publishes(port):
    """PUBLISH calls Redis has answered (INFO commandstats)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"INFO commandstats\r\n")
        data = b""
        while b"\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n")
        size = int(head[1:])  # a bulk string: $SIZE
        while len(body) < size:
            body += sock.recv(65536)
    for line in body.decode(errors="replace").splitlines():
        if line.startswith("cmdstat_publish:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


def run_once(a, server, kind, conninfo, rport, redis, tmp, seq):
    db = f"bench_fan_{seq}"
    cluster.psql(conninfo, f"CREATE DATABASE {db}")
    url = conninfo.replace("dbname=postgres", f"dbname={db}")
    store = ["--store", "postgres", "--database-url", url]
    nodes = []
    try:
        if kind == "single":
            nodes.append(cluster.Node(server, tmp, f"{kind}{seq}", store))
        else:
            for n in ("a", "b", "c"):
                nodes.append(cluster.Node(server, tmp, f"{kind}{seq}{n}",
                                          store + ["--bus", f"redis://127.0.0.1:{rport}",
                                                   "--node-id", n]))
            time.sleep(1)
        args = ["taskset", "-c", cluster.LOADGEN_CPU, os.path.join(a.bin, "tf-loadgen"),
                "--port", str(nodes[0].port), "--rate", str(a.rate), "--games", "1",
                "--spectators", str(a.spectators), "--duration", str(a.duration), "--warmup",
                "3", "--drain", "5", "--parallel", "200", "--server-pid", str(nodes[0].proc.pid)]
        if kind != "single":
            args += ["--port2", str(nodes[1].port), "--port3", str(nodes[2].port)]
        for n in nodes[1:]:
            args += ["--other-pid", str(n.proc.pid)]
        if kind != "single":
            args += ["--other-pid", str(redis.pid)]
        # The bus figures over the measured window only (the spectators' snapshots at the start
        # are one message each): read while the generator runs.
        gen = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def moves():
            m = nodes[0].metrics()
            return m.get("trunkfield_setups_accepted_total", 0) + \
                m.get("trunkfield_turns_accepted_total", 0)
        start, deadline = moves(), time.time() + 600
        while moves() == start and time.time() < deadline and gen.poll() is None:
            time.sleep(0.2)  # the connections are set up: the moves begin
        time.sleep(3 + 0.5)  # the warm-up
        before, pub0 = nodes[0].metrics(), redis_publishes(rport)
        fw0 = sum(n.metrics().get("trunkfield_cluster_forwarded_in_total", 0) for n in nodes)
        time.sleep(max(1.0, a.duration - 2))
        after, pub1 = nodes[0].metrics(), redis_publishes(rport)
        fw1 = sum(n.metrics().get("trunkfield_cluster_forwarded_in_total", 0) for n in nodes)
        stdout, _ = gen.communicate(timeout=900)
        out = subprocess.CompletedProcess(args, gen.returncode, stdout, "")
    finally:
        for n in nodes:
            n.stop()
        cluster.psql(conninfo, f"DROP DATABASE {db} WITH (FORCE)")
    # The bus lost under the load (Redis drops a subscriber that falls behind): every route of
    # the node is caught up again, one request each.
    bus_down = sum(open(n.log, errors="replace").read().count("the bus is down") for n in nodes)
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
    r = json.loads(line)

    def delta(name):
        return after.get(name, 0) - before.get(name, 0)
    events = delta("trunkfield_turns_accepted_total") + delta("trunkfield_setups_accepted_total")
    moves = r.get("turns_delivered") or 0
    cpu = (r.get("server") or {}).get("cpu_s")
    each = r.get("others") or {}
    other = sum(v for p, v in each.items() if int(p) != redis.pid)
    redis_cpu = each.get(str(redis.pid)) if kind != "single" else None
    spec = (r.get("latency_ms") or {}).get("spectator") or {}
    # The spectators on A (the owner: tf-loadgen's first port) and on B and C; in the single
    # configuration the same thirds of one node's.
    by = r.get("spectator_by_node_ms") or [{}, {}, {}]
    return {"kind": kind, "ok": r.get("ok"), "errors": r.get("error_kinds"), "bus_down": bus_down, "forwarded_in": fw1 - fw0,
            # a new game began in the window: its 5,000 snapshots (one message each) are in it
            "new_game": delta("trunkfield_setups_accepted_total") > 0,
            "p50": spec.get("p50"), "p99": spec.get("p99"), "moves": moves,
            "p99_a": by[0].get("p99"), "p99_bc": max((b.get("p99") or 0) for b in by[1:]) or None,
            "cpu_ms_per_move": 1000 * (cpu + other) / moves if cpu is not None and moves else None,
            "redis_ms_per_move": 1000 * redis_cpu / moves if redis_cpu is not None and moves
            else None,
            "bus_per_event": delta("trunkfield_cluster_out_messages_total") / events
            if events and kind != "single" else None,
            "publish_per_event": (pub1 - pub0) / events if events and kind != "single" else None,
            "deliveries_per_event": delta("trunkfield_cluster_out_deliveries_total") / events
            if events and kind != "single" else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--old", default="", help="another server binary, run as cross3-old")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--spectators", type=int, default=5000)
    ap.add_argument("--rate", type=float, default=4)
    ap.add_argument("--duration", type=float, default=15)
    a = ap.parse_args()
    kinds = [("single", os.path.join(a.bin, "trunkfield-server")),
             ("cross3", os.path.join(a.bin, "trunkfield-server"))]
    if a.old:
        kinds.append(("cross3-old", a.old))
    tmp = tempfile.mkdtemp(prefix="tf-bench-fanout-")
    pg_dir = tempfile.mkdtemp(prefix="tf-bench-fanpg-")
    redis, results, seq = None, [], 0
    try:
        conninfo = subprocess.run(
            ["taskset", "-c", cluster.LOADGEN_CPU, "bash",
             os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "start", pg_dir],
            check=True, capture_output=True, text=True,
            env={**os.environ, "PG_BIN": cluster.PG_BIN}).stdout.strip().splitlines()[-1]
        rport = cluster.free_port()
        redis = subprocess.Popen(["taskset", "-c", cluster.LOADGEN_CPU, "redis-server", "--bind",
                                  "127.0.0.1", "--port", str(rport), "--save", "",
                                  "--appendonly", "no"], stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        for run in range(1, a.runs + 1):
            for kind, server in kinds:
                seq += 1
                rec = run_once(a, server, kind.replace("-old", ""), conninfo, rport, redis, tmp,
                               seq)
                rec["kind"], rec["run"] = kind, run
                results.append(rec)
                print(json.dumps(rec), flush=True)
    finally:
        if redis:
            redis.terminate()
            redis.wait()
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "destroy",
                        pg_dir], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nmedian of {a.runs} runs (min-max): one game, {a.spectators} spectators, "
          f"{a.rate:g} moves/s")
    for kind, _ in kinds:
        rs = [r for r in results if r["kind"] == kind]
        clean = [r for r in rs if not r["new_game"]]

        def fmt(key, digits=2, runs=None):
            v = [r[key] for r in (rs if runs is None else runs) if r[key] is not None]
            return (f"%.{digits}f (%.{digits}f-%.{digits}f)" % (statistics.median(v), min(v),
                                                                max(v))) if v else "-"
        print(f"  {kind:10s} spectators p99 {fmt('p99')} ms (on A {fmt('p99_a')}, on B or C "
              f"{fmt('p99_bc')}), p50 {fmt('p50')} ms; CPU per move "
              f"{fmt('cpu_ms_per_move')} ms (Redis {fmt('redis_ms_per_move')}); node A's bus messages "
              f"per event {fmt('bus_per_event', runs=clean)}, deliveries "
              f"{fmt('deliveries_per_event', 0, runs=clean)}; Redis PUBLISH per event "
              f"{fmt('publish_per_event', runs=clean)} (over the {len(clean)} windows without a "
              f"new game); "
              f"ok {all(r['ok'] for r in rs)}")


if __name__ == "__main__":
    sys.exit(main())
