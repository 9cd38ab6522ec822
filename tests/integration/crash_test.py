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

The store is SQLite in the data directory by default. With --database-url CONNINFO (or the
environment's TF_TEST_DATABASE_URL), a libpq conninfo (URI or "key=value"), the server runs on
PostgreSQL instead: a fresh database is created with psql on that server at the start and
dropped at the end (kept, like the data directory, when the test fails), and the journal is
read through psql. pg_kill_test.py imports the store classes and the checks from here.

usage: crash_test.py SERVER_BIN CLI_BIN CLIENT_BIN [KILLS] [CLIENTS] [--database-url CONNINFO]
"""
import argparse
import csv
import io
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
import urllib.error
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, data, http, tcp, log_path, store_args=()):
        self.args = [binary, "--bind", "127.0.0.1", "--http-port", str(http), "--tcp-port",
                     str(tcp), "--data", data, "--rate", "1000000", "--burst", "1000000",
                     "--grace-seconds", "600", "--start-timeout-seconds", "600", *store_args]
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


class SqliteStore:
    """The server's default store, trunkfield.db in its data directory."""

    def __init__(self, data):
        self.data = data
        self.db = None

    def server_args(self):
        return []

    def open(self):
        self.db = sqlite3.connect(f"file:{self.data}/trunkfield.db?mode=ro", uri=True)

    def journal_row(self, code, version):
        """(kind, event) of the journal row, or None."""
        return self.db.execute("SELECT kind, event FROM journal WHERE code = ? AND version = ?",
                               (code, version)).fetchone()

    def rows(self, sql):
        return self.db.execute(sql).fetchall()

    def drop(self):
        pass

    def where(self):
        return ""


def psql(conninfo, sql):
    """The rows (tuples of strings; NULL reads as '') of one SQL command run by psql."""
    out = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "--csv", "-d", conninfo,
                          "-c", sql], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"psql failed ({sql}): {out.stderr.strip()}")
    return [tuple(r) for r in list(csv.reader(io.StringIO(out.stdout)))[1:]]


def with_dbname(conninfo, dbname):
    """The conninfo with its database replaced (URI or key=value form)."""
    if re.match(r"postgres(ql)?://", conninfo):
        u = urllib.parse.urlsplit(conninfo)
        query = [(k, v) for k, v in urllib.parse.parse_qsl(u.query) if k != "dbname"]
        query = urllib.parse.urlencode(query, safe="/")
        return f"{u.scheme}://{u.netloc}/{dbname}" + (f"?{query}" if query else "")
    return f"{conninfo} dbname={dbname}"  # libpq: the last of a repeated keyword wins


class PgStore:
    """A fresh database on the PostgreSQL server of `conninfo`, created here, for one run."""

    def __init__(self, conninfo):
        self.admin = conninfo
        self.name = f"tf_crash_{os.getpid()}_{random.randrange(1 << 30)}"
        self.url = with_dbname(conninfo, self.name)
        psql(self.admin, f"CREATE DATABASE {self.name}")
        self.journal = None

    def server_args(self):
        return ["--store", "postgres", "--database-url", self.url]

    def open(self):
        # One read of the whole journal: a psql process per acknowledged turn would be slow.
        self.journal = {(code, int(version)): (kind, event) for code, version, kind, event in
                        psql(self.url, "SELECT code, version, kind, event FROM journal")}

    def journal_row(self, code, version):
        return self.journal.get((code, version))

    def rows(self, sql):
        return psql(self.url, sql)

    def drop(self):
        psql(self.admin, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")

    def where(self):
        return f" and database {self.name} (PostgreSQL)"


def check_journal(store, logs):
    """Every setup and turn acknowledged in the clients' logs is in the journal exactly as sent,
    no client saw a gap in a game's versions, and no game is quarantined. Returns (ok,
    acknowledgements, codes of the finished games)."""
    store.open()
    ok, acks, over = True, 0, []
    for path in logs:
        for line in open(path):
            entry = json.loads(line)
            if "gap" in entry:
                print(f"GAP: a client missed events: {entry['gap']}")
                ok = False
                continue
            if entry.get("over"):
                over.append(entry["code"])
                continue
            row = store.journal_row(entry["code"], entry["version"])
            if row is None:
                print(f"LOST: acknowledged {entry['kind']} v{entry['version']} of "
                      f"{entry['code']} is not in the journal")
                ok = False
                continue
            payload = json.loads(row[1])["payload"]
            if row[0] != entry["kind"] or payload[entry["kind"]] != entry["data"]:
                print(f"CHANGED: v{entry['version']} of {entry['code']}: journal has {row}, "
                      f"client saw {entry}")
                ok = False
            acks += 1
    quarantined = store.rows("SELECT code, quarantine FROM games WHERE status = 'quarantined'")
    if quarantined:
        print(f"QUARANTINED: {quarantined}")
        ok = False
    return ok, acks, over


def check_replays(http, cli_bin, over):
    """Each finished game is over on the history API, and its record replays with
    `trunkfield rules replay` to the result the server stored. Returns ok."""
    def api(path):
        try:
            return get(f"http://127.0.0.1:{http}/api/games/{path}")
        except urllib.error.HTTPError as e:
            print(f"game {code}: GET /api/games/{path} answered {e.code}: {e.read()[:300]!r}")
            return None

    ok = True
    for code in over:
        meta = api(code)
        if meta is None:
            ok = False
            continue
        meta = json.loads(meta)
        if meta["status"] != "over":
            print(f"game {code}: status {meta['status']}, expected over")
            ok = False
            continue
        record = api(f"{code}/record")
        if record is None:
            ok = False
            continue
        replay = subprocess.run([cli_bin, "rules", "replay", "-"], input=record,
                                capture_output=True)
        result = json.loads(replay.stdout)
        want = meta["result"]
        for k in ("over", "winner", "reason", "score"):
            if result.get(k) != want.get(k):
                print(f"game {code}: replay gives {k}={result.get(k)}, stored {want.get(k)}")
                ok = False
        if replay.returncode != 0:
            print(f"game {code}: replay exit {replay.returncode}: {replay.stdout!r}")
            ok = False
    return ok


def start_clients(client_bin, tcp, work, clients, seed, quiet=False):
    """crash_client processes, client i logging to work/client<i>.log (and, when quiet, its
    messages about resynchronizations to work/client<i>.err); (procs, logs, stop). `tcp` is a
    port or a list of them (the nodes of a cluster: each client spreads its seats over them)."""
    ports = ",".join(map(str, tcp)) if isinstance(tcp, (list, tuple)) else str(tcp)
    stop_file = os.path.join(work, "stop")
    logs = [os.path.join(work, f"client{i}.log") for i in range(clients)]
    procs = []
    for i in range(clients):
        err = open(os.path.join(work, f"client{i}.err"), "w") if quiet else None
        procs.append(subprocess.Popen([client_bin, ports, logs[i], stop_file, str(seed + i)],
                                      stderr=err))
        if err:
            err.close()
    return procs, logs, stop_file


def check_clients_running(procs):
    for p in procs:
        if p.poll() is not None:
            raise SystemExit(f"a client exited early with {p.returncode}")


def finish_clients(procs, stop_file):
    """Tells the clients to stop after their current game and waits for them."""
    open(stop_file, "w").close()
    for p in procs:
        if p.wait(timeout=300) != 0:
            raise SystemExit(f"a client failed with exit code {p.returncode}")


def kill_clients(procs):
    for p in procs:
        if p.poll() is None:
            p.kill()


def main():
    ap = argparse.ArgumentParser(description="kill -9 the server while clients play")
    ap.add_argument("server_bin")
    ap.add_argument("cli_bin")
    ap.add_argument("client_bin")
    ap.add_argument("kills", nargs="?", type=int, default=20)
    ap.add_argument("clients", nargs="?", type=int, default=4)
    ap.add_argument("--database-url", default=os.environ.get("TF_TEST_DATABASE_URL"),
                    help="run on PostgreSQL: libpq conninfo of a server to create a database on")
    args = ap.parse_args()
    server_bin, cli_bin, client_bin = args.server_bin, args.cli_bin, args.client_bin
    kills, clients = args.kills, args.clients
    seed = int(os.environ.get("TF_CRASH_SEED", str(random.randrange(1 << 30))))
    rnd = random.Random(seed)
    print(f"seed {seed} (set TF_CRASH_SEED to repeat), {kills} kills, {clients} clients")
    work = tempfile.mkdtemp(prefix="tf-crash-")
    data = os.path.join(work, "data")
    store = PgStore(args.database_url) if args.database_url else SqliteStore(data)
    if args.database_url:
        print(f"store: PostgreSQL database {store.name}")
    http, tcp = free_port(), free_port()
    server = Server(server_bin, data, http, tcp, os.path.join(work, "server.log"),
                    store.server_args())
    server.start()
    procs, logs, stop_file = start_clients(client_bin, tcp, work, clients, seed)
    try:
        for k in range(kills):
            time.sleep(rnd.uniform(0.2, 1.0))
            check_clients_running(procs)
            server.kill9()
            server.start()
        finish_clients(procs, stop_file)
    finally:
        kill_clients(procs)

    # Every acknowledged setup and turn is in the journal, exactly as sent; finished games
    # replay to the stored result.
    ok, acks, over = check_journal(store, logs)
    failed = not ok
    failed = not check_replays(http, cli_bin, over) or failed
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
        print(f"data kept in {work}{store.where()}")
        sys.exit(1)
    store.drop()
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
