#!/usr/bin/env python3
"""Smoke run of the load generator (issue 7) so that it cannot rot.

Starts the real server on ephemeral ports, runs tf-loadgen for about three seconds at a tiny
load over WebSocket and then over TCP (two games, one spectator each, two idle connections) and
checks its JSON result: moves were delivered, nothing was lost, undelivered or out of order, and
there were no errors; the WebSocket run also writes every move to --moves-csv, which must hold
one row per measured move. Also checks the server's store threads by name (tf-store,
tf-checkpoint) and that the checkpointer runs at SCHED_IDLE. No timing is asserted.

usage: loadgen_smoke.py SERVER_BIN LOADGEN_BIN
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def start_server(binary, data, log_path):
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--http-port", "0", "--tcp-port", "0", "--threads", "1",
         "--data", data, "--rate", "1000", "--burst", "1000"],
        stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log_path) as f:
            m = re.search(r"listening http=[^ ]*:(\d+) tcp=[^ ]*:(\d+)", f.read())
        if m:
            return proc, int(m.group(1)), int(m.group(2))
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.kill()
    with open(log_path) as f:
        raise SystemExit("server did not start:\n" + f.read())


def run_loadgen(binary, transport, port, pid, moves_csv=None):
    args = [binary, "--transport", transport, "--port", str(port), "--games", "2",
            "--rate", "100", "--duration", "2", "--warmup", "0.5", "--drain", "10",
            "--spectators", "1", "--idle", "2", "--server-pid", str(pid)]
    if moves_csv:
        args += ["--moves-csv", moves_csv]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    sys.stderr.write(out.stderr)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{transport}: no JSON result (exit {out.returncode})")
    r = json.loads(lines[-1])
    problems = []
    for key in ("lost", "undelivered", "out_of_order", "errors"):
        if r[key] != 0:
            problems.append(f"{key} = {r[key]}")
    if r["turns_delivered"] <= 0:
        problems.append("no move was delivered")
    if r["latency_ms"]["spectator"]["count"] <= 0:
        problems.append("no spectator received a move")
    if r["latency_ms"]["ack"]["count"] <= 0:
        problems.append("no move was acknowledged")
    if r["idle_conns"]["open"] != 2:
        problems.append(f"idle connections open: {r['idle_conns']['open']} of 2")
    if "server" not in r:
        problems.append("no server figures from /proc")
    if not r["ok"] or out.returncode != 0:
        problems.append(f"ok = {r['ok']}, exit {out.returncode}")
    if moves_csv:
        with open(moves_csv) as f:
            rows = f.read().splitlines()
        moves = [tuple(map(float, row.split(","))) for row in rows[1:]]
        if rows[:1] != ["due_s,opponent_ms"]:
            problems.append(f"moves csv header: {rows[:1]}")
        if len(moves) != r["latency_ms"]["opponent"]["count"]:
            problems.append(f"moves csv: {len(moves)} rows for "
                            f"{r['latency_ms']['opponent']['count']} measured moves")
        if moves != sorted(moves) or any(ms < 0 for _, ms in moves):
            problems.append("moves csv: not in order, or a negative latency")
    if problems:
        raise SystemExit(f"{transport}: " + "; ".join(problems) + "\n" + json.dumps(r))
    print(f"{transport}: {r['turns_delivered']} moves delivered, "
          f"{r['games_started']} games, no loss, no errors")


def check_threads(pid):
    """The store's threads carry their names; the checkpointer runs at SCHED_IDLE (policy 5)."""
    deadline = time.time() + 10  # the threads name themselves once started
    while True:
        try:
            return check_threads_once(pid)
        except SystemExit:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def check_threads_once(pid):
    policy = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            name = f.read().strip()
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        policy[name] = int(fields[38])  # stat field 41, counted after "pid (comm)"
    for name in ("tf-store", "tf-checkpoint"):
        if name not in policy:
            raise SystemExit(f"no thread named {name}: {sorted(policy)}")
    if policy["tf-checkpoint"] != 5:
        raise SystemExit(f"tf-checkpoint runs at policy {policy['tf-checkpoint']}, not SCHED_IDLE")
    if policy["tf-store"] != 0:
        raise SystemExit(f"tf-store runs at policy {policy['tf-store']}, not SCHED_OTHER")
    print("threads: tf-store at SCHED_OTHER, tf-checkpoint at SCHED_IDLE")


def main():
    server_bin, loadgen_bin = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        proc, http, tcp = start_server(server_bin, tmp + "/data", tmp + "/server.log")
        try:
            check_threads(proc.pid)
            run_loadgen(loadgen_bin, "ws", http, proc.pid, tmp + "/moves.csv")
            run_loadgen(loadgen_bin, "tcp", tcp, proc.pid)
            if proc.poll() is not None:
                raise SystemExit("the server exited during the run")
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
