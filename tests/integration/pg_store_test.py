#!/usr/bin/env python3
"""The PostgreSQL store at the edges (issue 17), against the real server binary and a real
PostgreSQL (the suite's cluster: TF_TEST_DATABASE_URL, a libpq conninfo without dbname):
  - an unreachable database: the server waits for it, /readyz 503 (with --fail-fast: exit 1
    with the reason); a missing --database-url: exit 1 with the reason;
  - a database with a newer schema: refused, left untouched;
  - fsync / synchronous_commit off (here: synchronous_commit off for the database): refused,
    unless --accept-unsafe-database, which starts and warns;
  - three servers starting together on an empty database: all start, one migrates;
  - migrate-from-sqlite: games played on SQLite (and an account with a rating written into the
    file) are copied and verified; the history API of a server on PostgreSQL answers the game
    list, each game and the player page byte for byte as the SQLite server did; a second copy
    into the same database and a copy of a folder a server runs on are refused.

usage: pg_store_test.py SERVER_BIN LOADGEN_BIN
"""
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SERVER, LOADGEN = sys.argv[1], sys.argv[2]
BASE = os.environ.get("TF_TEST_DATABASE_URL", "")
if not BASE:
    print("TF_TEST_DATABASE_URL is not set (the postgres test fixture): skipped")
    sys.exit(77)

failures = []
SCHEMA = 11  # server/store/pg_store.h kPgSchemaVersion


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def psql(sql, db="postgres"):
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                          f"{BASE} dbname={db}", "-c", sql],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def fresh_db(name):
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(f"CREATE DATABASE {name}")
    return f"{BASE} dbname={name}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *args):
        self.http = free_port()
        self.data = tempfile.mkdtemp(prefix="tf-pgst-")
        self.log = tempfile.NamedTemporaryFile("w+", prefix="tf-pgst-log-", delete=False)
        self.args = [SERVER, "--bind", "127.0.0.1", "--http-port", str(self.http),
                     "--tcp-port", "0", "--rate", "100000", "--burst", "100000"]
        if "--data" not in args:
            self.args += ["--data", self.data]
        self.args += list(args)
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT)

    def text(self):
        with open(self.log.name) as f:
            return f.read()

    def wait_listening(self, seconds=30):
        end = time.time() + seconds
        while time.time() < end:
            if "listening http=" in self.text():
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def exit_code(self, seconds=30):
        try:
            return self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http}{path}", timeout=10) as r:
            return r.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.exit_code(20)
        shutil.rmtree(self.data, ignore_errors=True)
        os.unlink(self.log.name)


def refused(args, expect, what):
    s = Server(*args)
    code = s.exit_code()
    text = s.text()
    check(code == 1 and re.search(expect, text) is not None,
          f"{what}: exit {code}, log says /{expect}/" + ("" if code == 1 else "\n" + text[-800:]))
    s.stop()


# --- refusals at start -----------------------------------------------------------------------
UNREACHABLE = "host=/nonexistent-socket-dir user=postgres dbname=x"
refused(["--store", "postgres", "--database-url", UNREACHABLE, "--fail-fast"],
        r"cannot connect to the database: .*nonexistent-socket-dir", "unreachable database, --fail-fast")
# Without --fail-fast it waits for the database, /readyz 503 (docs/OPERATING.md).
s = Server("--store", "postgres", "--database-url", UNREACHABLE)
deadline = time.time() + 20
while time.time() < deadline and "trying again" not in s.text():
    time.sleep(0.1)
ready = None
try:
    s.get("/readyz")
except urllib.error.HTTPError as e:
    ready = (e.code, e.read().decode())
except OSError as e:
    ready = (None, str(e))
check(s.proc.poll() is None and re.search(r"cannot connect to the database: .*nonexistent-socket-dir",
                                          s.text()) is not None,
      "unreachable database: the server waits for it, saying why")
check(ready is not None and ready[0] == 503 and "waiting for PostgreSQL" in ready[1],
      f"unreachable database: /readyz says 503, waiting for PostgreSQL ({ready})")
s.stop()
refused(["--store", "postgres"], r"--store postgres needs --database-url", "no --database-url")

url = fresh_db("tf_pgst_newer")
s = Server("--store", "postgres", "--database-url", url)
check(s.wait_listening(), "a fresh database: the server starts and creates its schema")
s.stop()
check(psql("SELECT version FROM tf_schema", "tf_pgst_newer") == str(SCHEMA),
      f"schema version {SCHEMA} recorded")
psql("UPDATE tf_schema SET version = 99", "tf_pgst_newer")
refused(["--store", "postgres", "--database-url", url],
        rf"schema version 99, newer than this server's {SCHEMA}; refusing to start", "a newer schema")
check(psql("SELECT version FROM tf_schema", "tf_pgst_newer") == "99", "the newer schema untouched")

url = fresh_db("tf_pgst_unsafe")
psql("ALTER DATABASE tf_pgst_unsafe SET synchronous_commit = off")
refused(["--store", "postgres", "--database-url", url],
        r"synchronous_commit = off: an acknowledged turn could be lost.*refusing to start",
        "synchronous_commit off")
s = Server("--store", "postgres", "--database-url", url, "--accept-unsafe-database")
check(s.wait_listening() and "accepted by --accept-unsafe-database" in s.text(),
      "synchronous_commit off with --accept-unsafe-database: starts and warns")
s.stop()

# --- three nodes migrating together ----------------------------------------------------------
url = fresh_db("tf_pgst_together")
nodes = [Server("--store", "postgres", "--database-url", url) for _ in range(3)]
started = [n.wait_listening() for n in nodes]
# (the first step's line: "version 1" and its end, not "version 10")
migrated = sum(len(re.findall(r"migrated the database to schema version 1$", n.text(), re.M))
               for n in nodes)
check(all(started), f"three servers starting together all start ({started})")
check(migrated == 1, f"exactly one of them migrated ({migrated})")
for n in nodes:
    n.stop()

# --- migrate-from-sqlite ---------------------------------------------------------------------
folder = tempfile.mkdtemp(prefix="tf-pgst-sqlite-")
# No house bots: the copy below counts the accounts (Ann's alone).
lite = Server("--data", folder, "--no-house-bots")
check(lite.wait_listening(), "a SQLite server starts")
load = subprocess.run([LOADGEN, "--port", str(lite.http), "--games", "6", "--rate", "300",
                       "--duration", "3", "--warmup", "0.5"], capture_output=True, text=True)
check(load.returncode == 0, "tf-loadgen played on SQLite")
# A folder a server runs on is refused.
url = fresh_db("tf_pgst_copy")
busy = subprocess.run([SERVER, "migrate-from-sqlite", "--data", folder, "--database-url", url],
                      capture_output=True, text=True)
check(busy.returncode == 1 and "in use by another server" in busy.stderr,
      f"migrating a folder a server runs on is refused ({busy.returncode}: {busy.stderr.strip()})")
lite.proc.terminate()
lite.exit_code()

# An account with a rating and its history, written into the file as the server would.
db = sqlite3.connect(os.path.join(folder, "trunkfield.db"))
pid, code = db.execute("SELECT silver_id, code FROM games WHERE status = 'over' LIMIT 1").fetchone()
now = int(time.time() * 1000)
db.execute("UPDATE players SET name = 'Ann' WHERE id = ?", (pid,))
db.execute("INSERT INTO accounts VALUES (?, 'Ann', 'ann', '$argon2id$v=19$m=65536,t=2,p=1$x$y', ?)",
           (pid, now))
db.execute("INSERT INTO ratings VALUES (?, 'blitz', 1623.4567890123457, 87.12345678901234, "
           "0.0599912345678, 12, ?)", (pid, now))
db.execute("INSERT INTO rating_history VALUES (?, ?, 'blitz', 1600.5, 90.25, 0.06, 11, ?, "
           "1623.4567890123457, 87.12345678901234, 0.0599912345678, ?)", (code, pid, now - 1000, now))
db.commit()
db.close()

lite = Server("--data", folder, "--no-house-bots")
check(lite.wait_listening(), "the SQLite server starts again")
paths = ["/api/games?limit=100", "/api/players/Ann"]
codes = [g["code"] for g in __import__("json").loads(lite.get("/api/games?limit=100"))["games"]]
paths += [f"/api/games/{c}" for c in codes]
before = {p: lite.get(p) for p in paths}
lite.proc.terminate()
lite.exit_code()

copy = subprocess.run([SERVER, "migrate-from-sqlite", "--data", folder, "--database-url", url],
                      capture_output=True, text=True)
check(copy.returncode == 0 and re.search(r"copied \d+ players, .* 1 accounts, 1 ratings, "
                                         r"1 rating_history, \d+ games, \d+ journal(, \d+ [a-z_]+)*; "
                                         r"verified",
                                         copy.stdout) is not None,
      f"migrate-from-sqlite copies and verifies ({copy.returncode}: {copy.stdout.strip()} {copy.stderr.strip()})")
again = subprocess.run([SERVER, "migrate-from-sqlite", "--data", folder, "--database-url", url],
                       capture_output=True, text=True)
check(again.returncode == 1 and "not empty" in again.stderr,
      "a second copy into the same database is refused")

pgs = Server("--store", "postgres", "--database-url", url)
check(pgs.wait_listening(), "a server on the copy starts")
for p in paths:
    got = pgs.get(p)
    check(got == before[p], f"GET {p} answers the same from PostgreSQL" +
          ("" if got == before[p] else f"\n  sqlite: {before[p][:300]}\n  pg:     {got[:300]}"))
pgs.stop()
shutil.rmtree(folder, ignore_errors=True)

for name in ["tf_pgst_newer", "tf_pgst_unsafe", "tf_pgst_together", "tf_pgst_copy"]:
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
