#!/usr/bin/env python3
"""Durability on vs. off (issue 4): accepted turns per second through the real server with
--sync full (every commit fsynced), --sync off (SQLite without fsync) and --store memory (no
store at all), alternating in one run, and the store's commit latency (queue to durable)
reported by the server at shutdown.

Load: CLIENTS client processes (tests/integration/crash_client), each playing both seats of
games back to back as fast as the server acknowledges (closed loop, TCP, random legal turns).

usage: bench/durability.py [--build build] [--clients 16] [--seconds 10] [--runs 3]
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_once(build, mode, clients, seconds):
    work = tempfile.mkdtemp(prefix="tf-dur-")
    http, tcp = free_port(), free_port()
    log_path = os.path.join(work, "server.log")
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [f"{build}/bin/trunkfield-server", "--bind", "127.0.0.1", "--http-port", str(http),
             "--tcp-port", str(tcp), "--data", os.path.join(work, "data")] +
            (["--store", "memory"] if mode == "memory" else ["--sync", mode]) + [
             "--rate", "1000000", "--burst", "1000000", "--threads", "1"],
            stdout=log, stderr=subprocess.STDOUT)
    while "listening" not in open(log_path).read():
        time.sleep(0.01)
    stop = os.path.join(work, "stop")
    logs = [os.path.join(work, f"c{i}.log") for i in range(clients)]
    procs = [subprocess.Popen([f"{build}/bin/crash_client", str(tcp), logs[i], stop, str(i + 1)],
                              stdout=subprocess.DEVNULL) for i in range(clients)]
    time.sleep(1)  # warm-up: games created, setups played
    count = lambda: sum(sum(1 for _ in open(p)) for p in logs)
    start_n, start_t = count(), time.time()
    time.sleep(seconds)
    n, t = count(), time.time()
    open(stop, "w").close()
    for p in procs:
        p.kill()
        p.wait()
    server.terminate()
    server.wait()
    text = open(log_path).read()
    m = re.search(r"commit latency median ([\d.]+) ms, p99 ([\d.]+) ms", text)
    shutil.rmtree(work)
    lat = (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)
    return (n - start_n) / (t - start_t), *lat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    modes = ("full", "off", "memory")
    res = {m: [] for m in modes}
    for r in range(a.runs):
        for mode in modes:
            tps, med, p99 = run_once(a.build, mode, a.clients, a.seconds)
            res[mode].append((tps, med, p99))
            print(f"run {r + 1} {mode}: {tps:8.0f} turns/s, commit median {med:.2f} ms, "
                  f"p99 {p99:.2f} ms", flush=True)
    med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in res.items()}
    names = {"full": "--sync full", "off": "--sync off", "memory": "--store memory"}
    print(f"\n| store | turns/s (median of {a.runs}) | runs | commit median | commit p99 |")
    print("|---|---:|---|---:|---:|")
    for k in modes:
        runs = " / ".join(f"{x[0]:.0f}" for x in res[k])
        lat = f"{med[k][1]:.2f} ms | {med[k][2]:.2f} ms" if k != "memory" else "– | –"
        print(f"| {names[k]} | {med[k][0]:.0f} | {runs} | {lat} |")
    print(f"\nfull/off throughput ratio: {med['full'][0] / med['off'][0]:.2f}, full/memory: "
          f"{med['full'][0] / med['memory'][0]:.2f} ({a.clients} clients, {a.seconds:.0f} s per run)")


if __name__ == "__main__":
    main()
