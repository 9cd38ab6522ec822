#!/usr/bin/env python3
"""The Puzzle API's cost (docs/BENCHMARKS.md "Puzzle API"): the real server on loopback with
the fixture's puzzles imported, one client asking in turn (no concurrency: the judge is one
thread). Reports the median and 90th percentile of N requests each:

- GET /api/puzzles/next with a guest's token (the store's query only);
- POST answer with the solution's first turn (judged by position, no search);
- POST answer with a wrong turn (two searches of 140,000 positions to rule out "as good",
  then the refutation's search of 35,000);
and how long `trunkfield-server puzzles import` takes to verify them. PUZZLES: another file of
them (e.g. standard-board ones from `trunkfield puzzles generate --selfplay 40 --size 9`).

usage: puzzle_api_bench.py SERVER_BIN CLI_BIN [N [PUZZLES]]  (default: the test fixture)
"""
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SERVER, CLI = sys.argv[1:3]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 30
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = sys.argv[4] if len(sys.argv) > 4 else os.path.join(ROOT, "tests", "fixtures",
                                                             "puzzles.jsonl")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, token=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    t0 = time.perf_counter()
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = c.getresponse()
    data = r.read()
    ms = (time.perf_counter() - t0) * 1000
    c.close()
    return r.status, json.loads(data), ms


def guest_token(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b'{"type":"hello","version":1}\n')
        buf = b""
        while b"\n" not in buf:
            buf += s.recv(4096)
        return json.loads(buf.split(b"\n")[0])["token"]


def wrong_turn(p):
    size, el, burnt, quiet = (int(x) for x in p["position"].split()[0].split("."))
    rec = {"variant": {"size": size, "elephants": el, "burnt": burnt, "quiet": quiet},
           "position": p["position"], "turns": []}
    out = subprocess.run([CLI, "rules", "moves", "-"], input=json.dumps(rec), capture_output=True,
                         text=True, check=True)
    sol = p["line"][0]["elephant"]["from"]
    moves = [m for m in json.loads(out.stdout)["moves"] if m["from"] != sol]
    if not moves:
        return None
    return {"elephant": moves[len(moves) // 2], "burnt": None, "guardians": []}


def figures(name, ms):
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    print(f"{name:42s} median {statistics.median(ms):8.2f} ms   p90 {p90:8.2f} ms   (n={len(ms)})")


def main():
    tmp = tempfile.mkdtemp(prefix="tf-pzbench-")
    data = os.path.join(tmp, "data")
    proc = None
    try:
        t0 = time.perf_counter()
        r = subprocess.run([SERVER, "puzzles", "import", FIXTURE, "--data", data],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1) or "new" not in r.stdout:  # 1: some were refused
            raise SystemExit(f"import failed: {r.stdout}{r.stderr}")
        print(r.stdout.strip())
        count = sum(1 for l in open(FIXTURE) if l.strip())
        print(f"puzzles import ({count} puzzles, each verified): {time.perf_counter() - t0:.2f} s")
        http_port, tcp_port = free_port(), free_port()
        proc = subprocess.Popen([SERVER, "--data", data, "--http-port", str(http_port),
                                 "--tcp-port", str(tcp_port), "--rate", "100000", "--burst",
                                 "100000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", http_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        token = guest_token(tcp_port)
        puzzles = [json.loads(l) for l in open(FIXTURE) if l.strip()]
        one, wrong = next((p, w) for p in puzzles if len(p["line"]) == 1
                          for w in [wrong_turn(p)] if w)
        nxt, right, bad = [], [], []
        for _ in range(N):
            st, _, ms = call(http_port, "GET", "/api/puzzles/next", token=token)
            assert st == 200
            nxt.append(ms)
            st, a, ms = call(http_port, "POST", f"/api/puzzles/{one['id']}/answer",
                             {"turns": [one["line"][0]]}, token)
            assert st == 200 and a["solved"], a
            right.append(ms)
            st, a, ms = call(http_port, "POST", f"/api/puzzles/{one['id']}/answer",
                             {"turns": [wrong]}, token)
            assert st == 200 and a["verdict"] in ("wrong", "also"), a
            bad.append(ms)
        figures("GET next", nxt)
        figures("POST answer: the solution's turn", right)
        figures("POST answer: a wrong turn (searches)", bad)
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
