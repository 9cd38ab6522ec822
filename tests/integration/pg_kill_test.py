#!/usr/bin/env python3
"""PostgreSQL killed under the server: games pause and come back by themselves (no lost turn).

Starts a PostgreSQL cluster of its own with scripts/pg-test-cluster.sh in a temporary folder (so
killing it disturbs no other test), the server on it (--store postgres), and crash_client
players. Mid-load, KILLS times at random moments, it SIGKILLs the postmaster
(`pg-test-cluster.sh kill`, a crash of the database), waits a few seconds (the games whose
writes fail are suspended, the store reconnects with backoff) and `restart`s it. The server is
never killed. Then the clients finish their games, and it checks that:
  - every setup and turn any client saw acknowledged is in the journal, as sent;
  - every game the clients played finished, and no game of the store is left unfinished;
  - no game was quarantined;
  - the server never exited;
  - every finished game's record replays to the stored result;
  - the kills did suspend games, and every suspended game resumed.
The checks are crash_test.py's own functions. Skipped (exit 77) without PostgreSQL 15.

usage: pg_kill_test.py SERVER_BIN CLI_BIN CLIENT_BIN SCRIPTS_DIR [KILLS] [CLIENTS]
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crash_test  # noqa: E402  (the store classes and the checks)

SKIP = 77
INITDB = "/usr/lib/postgresql/15/bin/initdb"


class Cluster:
    """scripts/pg-test-cluster.sh on one folder."""

    def __init__(self, scripts_dir, folder):
        self.script = os.path.join(scripts_dir, "pg-test-cluster.sh")
        self.folder = folder

    def run(self, verb):
        out = subprocess.run(["bash", self.script, verb, self.folder], capture_output=True,
                             text=True, timeout=120)
        if out.returncode != 0:
            raise SystemExit(f"pg-test-cluster.sh {verb} failed ({out.returncode}):\n"
                             f"{out.stdout}{out.stderr}")
        return out.stdout

    def start(self):
        """Starts it (initdb the first time); returns its conninfo."""
        lines = [l for l in self.run("start").splitlines() if l.strip()]
        if not lines:
            raise SystemExit("pg-test-cluster.sh start printed no conninfo")
        return lines[-1].strip()


def count(pattern, text):
    return len(re.findall(pattern, text))


def main():
    if len(sys.argv) < 5:
        print(__doc__.strip().splitlines()[-1])
        return 2
    server_bin, cli_bin, client_bin, scripts_dir = sys.argv[1:5]
    kills = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    clients = int(sys.argv[6]) if len(sys.argv) > 6 else 4
    if not os.path.exists(INITDB):
        print(f"SKIP: {INITDB} is missing (PostgreSQL 15 is not installed)")
        return SKIP
    seed = int(os.environ.get("TF_CRASH_SEED", str(random.randrange(1 << 30))))
    rnd = random.Random(seed)
    print(f"seed {seed} (set TF_CRASH_SEED to repeat), {kills} PostgreSQL kills, "
          f"{clients} clients")
    work = tempfile.mkdtemp(prefix="tf-pgkill-")
    os.chmod(work, 0o755)  # as root the script runs PostgreSQL as `postgres`, which must reach it
    cluster = Cluster(scripts_dir, os.path.join(work, "pg"))
    conninfo = cluster.start()
    server = procs = None
    ok = False
    try:
        store = crash_test.PgStore(conninfo)
        data = os.path.join(work, "data")
        http, tcp = crash_test.free_port(), crash_test.free_port()
        log_path = os.path.join(work, "server.log")
        server = crash_test.Server(server_bin, data, http, tcp, log_path, store.server_args())
        server.start()

        def server_up(when):
            if server.proc.poll() is not None:
                raise SystemExit(f"FAIL: the server exited ({server.proc.returncode}) {when}")

        procs, logs, stop_file = crash_test.start_clients(client_bin, tcp, work, clients, seed)
        down = 0.0
        for k in range(kills):
            time.sleep(rnd.uniform(0.5, 3.0))
            crash_test.check_clients_running(procs)
            server_up(f"before kill {k + 1}")
            cluster.run("kill")
            pause = rnd.uniform(2.0, 5.0)
            time.sleep(pause)
            down += pause
            crash_test.check_clients_running(procs)
            server_up(f"while PostgreSQL was down ({k + 1})")
            cluster.run("restart")
        time.sleep(rnd.uniform(1.0, 3.0))  # some play after the last restart, then the end
        crash_test.finish_clients(procs, stop_file)
        server_up("before the checks")

        ok, acks, over = crash_test.check_journal(store, logs)
        ok = crash_test.check_replays(http, cli_bin, over) and ok
        # No game is left unfinished in the store either (one whose creation was reported as
        # failed but did commit, say).
        unfinished = store.rows("SELECT code, status FROM games "
                                "WHERE status IN ('open', 'playing')")
        if unfinished:
            print(f"UNFINISHED: {unfinished}")
            ok = False
        server_up("after the checks")
        server.stop()
        log = open(log_path).read()
        suspended = count(r"room \S+: suspended at version", log)
        resumed = count(r"room \S+: resumed at version", log)
        print(f"{kills} PostgreSQL kills ({down:.1f} s down); {acks} acknowledged setups/turns "
              f"all in the journal; {len(over)} games finished and replayed; {suspended} "
              f"suspensions, {resumed} resumptions")
        if len(over) < clients:
            print("FAIL: too few games finished")
            ok = False
        if suspended < 1:
            print("FAIL: no kill caught a game writing (nothing was suspended)")
            ok = False
        if resumed != suspended:
            print(f"FAIL: {suspended} suspensions but {resumed} resumptions")
            ok = False
    finally:
        if procs:
            crash_test.kill_clients(procs)
        if server:
            server.stop()
        if ok:
            cluster.run("destroy")
            subprocess.run(["rm", "-rf", work])
        else:
            subprocess.run(["bash", cluster.script, "stop", cluster.folder],
                           capture_output=True, timeout=120)
            print(f"data kept in {work} (cluster stopped: pg-test-cluster.sh start "
                  f"{cluster.folder} to look)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
