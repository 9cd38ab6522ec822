#!/usr/bin/env python3
"""Crash test of the durable store (issue 4).

Runs several games from separate client processes (crash_client) against the real server,
kill -9s the server at random moments (KILLS times), restarts it on the same data directory
and ports, and then checks that:
  - every setup and turn any client saw acknowledged is in the store's journal, as sent;
  - the games went on to completion (the clients finish their games after the last kill);
  - every finished game's record, downloaded from the history API, replays with
    `trunkfield rules replay` to the result the server stored;
  - no game was quarantined.

usage: crash_test.py SERVER_BIN CLI_BIN CLIENT_BIN [KILLS] [CLIENTS]
"""
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, data, http, tcp, log_path):
        self.args = [binary, "--bind", "127.0.0.1", "--http-port", str(http), "--tcp-port",
                     str(tcp), "--data", data, "--rate", "1000000", "--burst", "1000000",
                     "--grace-seconds", "600", "--start-timeout-seconds", "600"]
        self.log_path = log_path
        self.proc = None

    def start(self):
        for _ in range(100):
            log = open(self.log_path, "a")
            start = log.tell()
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            deadline = time.time() + 30
            while time.time() < deadline:
                with open(self.log_path) as f:
                    f.seek(start)
                    text = f.read()
                if "listening http=" in text:
                    return
                if self.proc.poll() is not None:
                    break
                time.sleep(0.01)
            if self.proc.poll() is None:
                raise SystemExit("server did not start in 30 s")
            if "cannot listen" not in text:
                raise SystemExit("server failed to start:\n" + text)
            time.sleep(0.1)  # the port is still being released: try again
        raise SystemExit("server could not listen again")

    def kill9(self):
        assert self.proc.poll() is None, "server died on its own"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def main():
    server_bin, cli_bin, client_bin = sys.argv[1:4]
    kills = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    clients = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    seed = int(os.environ.get("TF_CRASH_SEED", str(random.randrange(1 << 30))))
    rnd = random.Random(seed)
    print(f"seed {seed} (set TF_CRASH_SEED to repeat), {kills} kills, {clients} clients")
    work = tempfile.mkdtemp(prefix="tf-crash-")
    data = os.path.join(work, "data")
    http, tcp = free_port(), free_port()
    server = Server(server_bin, data, http, tcp, os.path.join(work, "server.log"))
    server.start()
    stop_file = os.path.join(work, "stop")
    logs = [os.path.join(work, f"client{i}.log") for i in range(clients)]
    procs = [subprocess.Popen([client_bin, str(tcp), logs[i], stop_file, str(seed + i)])
             for i in range(clients)]
    try:
        for k in range(kills):
            time.sleep(rnd.uniform(0.2, 1.0))
            for p in procs:
                if p.poll() is not None:
                    raise SystemExit(f"a client exited early with {p.returncode}")
            server.kill9()
            server.start()
        open(stop_file, "w").close()
        for p in procs:
            if p.wait(timeout=300) != 0:
                raise SystemExit(f"a client failed with exit code {p.returncode}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    failed = False

    # Every acknowledged setup and turn is in the journal, exactly as sent.
    db = sqlite3.connect(f"file:{data}/trunkfield.db?mode=ro", uri=True)
    acks, over = 0, []
    for path in logs:
        for line in open(path):
            entry = json.loads(line)
            if entry.get("over"):
                over.append(entry["code"])
                continue
            row = db.execute("SELECT kind, event FROM journal WHERE code = ? AND version = ?",
                             (entry["code"], entry["version"])).fetchone()
            if row is None:
                print(f"LOST: acknowledged {entry['kind']} v{entry['version']} of "
                      f"{entry['code']} is not in the journal")
                failed = True
                continue
            payload = json.loads(row[1])["payload"]
            if row[0] != entry["kind"] or payload[entry["kind"]] != entry["data"]:
                print(f"CHANGED: v{entry['version']} of {entry['code']}: journal has {row}, "
                      f"client saw {entry}")
                failed = True
            acks += 1
    quarantined = db.execute("SELECT code, quarantine FROM games WHERE status = 'quarantined'"
                             ).fetchall()
    if quarantined:
        print(f"QUARANTINED: {quarantined}")
        failed = True

    # Finished games replay to the stored result.
    for code in over:
        meta = json.loads(get(f"http://127.0.0.1:{http}/api/games/{code}"))
        if meta["status"] != "over":
            print(f"game {code}: status {meta['status']}, expected over")
            failed = True
            continue
        record = get(f"http://127.0.0.1:{http}/api/games/{code}/record")
        replay = subprocess.run([cli_bin, "rules", "replay", "-"], input=record,
                                capture_output=True)
        result = json.loads(replay.stdout)
        want = meta["result"]
        for k in ("over", "winner", "reason", "score"):
            if result.get(k) != want.get(k):
                print(f"game {code}: replay gives {k}={result.get(k)}, stored {want.get(k)}")
                failed = True
        if replay.returncode != 0:
            print(f"game {code}: replay exit {replay.returncode}: {replay.stdout!r}")
            failed = True
    server.stop()
    log = open(os.path.join(work, "server.log")).read()
    restored = sum(int(n) for n in re.findall(r"(\d+) unfinished games restored", log))
    print(f"{kills} kills; {acks} acknowledged setups/turns all in the journal; "
          f"{len(over)} games finished and replayed; {restored} game restorations")
    if len(over) < clients:
        print("FAIL: too few games finished")
        failed = True
    if restored < kills // 2:
        print("FAIL: the kills hardly ever caught a game in progress")
        failed = True
    if failed:
        print(f"data kept in {work}")
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
