"""PostgreSQL killed under the server: games pause and come back by themselves (no lost turn).

Starts a PostgreSQL cluster of its own with scripts/pg-test-cluster.sh in a temporary folder (so
killing it disturbs no other test), the server on it (--store postgres), and crash_client
players. KILLS times, at a random moment while the games play, it SIGKILLs the postmaster
(`pg-test-cluster.sh kill`, a crash of the database), waits a few seconds and `restart`s it,
then waits for the store to recover before the next kill. The server is never killed. Checked:
  - each kill suspends games, /readyz says not ready while the database is down, and the store
    writes again with no game suspended within 60 s of the restart (by itself);
  - after an idle kill and restart (nobody playing), the next reads (the history API) and
    writes (one more game) succeed: the store must not fail them on connections that died
    while idle;
  - every setup and turn any client saw acknowledged is in the journal, as sent;
  - every game the clients played finished, no game of the store is left unfinished, none was
    quarantined, and every suspended game resumed;
  - the server never exited;
  - every finished game's record replays to the stored result.
The journal and replay checks are crash_test.py's own functions. Skipped (exit 77) without
PostgreSQL 15.

usage: pg_kill_test.py SERVER_BIN CLI_BIN CLIENT_BIN SCRIPTS_DIR [KILLS] [CLIENTS]
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

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


def status(http, path):
    """The HTTP status of GET path (the body ignored)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{http}{path}", timeout=10) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def metric(http, name):
    text = crash_test.get(f"http://127.0.0.1:{http}/metrics").decode()
    m = re.search(rf"(?m)^{re.escape(name)} (\d+)", text)
    if not m:
        raise SystemExit(f"/metrics has no {name}")
    return int(m.group(1))


def wait_recovered(http, limit):
    """Seconds until the store writes again and no game is suspended; None after `limit`."""
    t0 = time.time()
    while time.time() - t0 < limit:
        if status(http, "/readyz") == 200 and metric(http, "trunkfield_games_suspended") == 0:
            return time.time() - t0
        time.sleep(0.05)
    return None


def one_more_game(client_bin, tcp, folder, seed):
    """One crash_client game from a new player; the path of its log."""
    os.mkdir(folder)
    procs, logs, stop_file = crash_test.start_clients(client_bin, tcp, folder, 1, seed,
                                                      quiet=True)
    try:
        deadline = time.time() + 60
        while not (os.path.exists(logs[0]) and
                   '"over":true' in open(logs[0]).read().replace(" ", "")):
            crash_test.check_clients_running(procs)
            if time.time() > deadline:
                raise SystemExit("FAIL: the game after the idle restart did not finish in 60 s")
            time.sleep(0.05)
        crash_test.finish_clients(procs, stop_file)
    finally:
        crash_test.kill_clients(procs)
    return logs[0]


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
    passed = False  # set at the very end: any exception keeps the data
    try:
        store = crash_test.PgStore(conninfo)
        data = os.path.join(work, "data")
        http, tcp = crash_test.free_port(), crash_test.free_port()
        log_path = os.path.join(work, "server.log")
        server = crash_test.Server(server_bin, data, http, tcp, log_path, store.server_args())
        server.start()
        ok = True

        def server_up(when):
            if server.proc.poll() is not None:
                raise SystemExit(f"FAIL: the server exited ({server.proc.returncode}) {when}")

        def problem(text):
            nonlocal ok
            print("FAIL:", text)
            ok = False

        # Quiet: every store_failed makes a client say so on stderr, hundreds of lines a run.
        procs, logs, stop_file = crash_test.start_clients(client_bin, tcp, work, clients, seed,
                                                          quiet=True)
        # Each kill comes while the games play (after the previous one has recovered).
        for k in range(kills):
            time.sleep(rnd.uniform(0.5, 3.0))
            crash_test.check_clients_running(procs)
            server_up(f"before kill {k + 1}")
            episodes = metric(http, "trunkfield_store_failure_episodes_total")
            mark = os.path.getsize(log_path)
            cluster.run("kill")
            pause = rnd.uniform(2.0, 5.0)
            time.sleep(pause)
            crash_test.check_clients_running(procs)
            server_up(f"while PostgreSQL was down ({k + 1})")
            ready_down = status(http, "/readyz")
            cluster.run("restart")
            recovered = wait_recovered(http, 60)
            with open(log_path) as f:
                f.seek(mark)
                suspended = count(r"room \S+: suspended at version", f.read())
            episodes = metric(http, "trunkfield_store_failure_episodes_total") - episodes
            print(f"kill {k + 1}: PostgreSQL down {pause:.1f} s; /readyz {ready_down} meanwhile; "
                  f"{suspended} games suspended; {episodes} store failure episodes; "
                  + (f"recovered {recovered:.1f} s after the restart" if recovered is not None
                     else "not recovered 60 s after the restart"))
            if recovered is None:
                raise SystemExit("FAIL: the store did not recover within 60 s of the restart")
            if ready_down != 503:
                problem(f"/readyz answered {ready_down} while PostgreSQL was down")
            if suspended < 1 or episodes < 1:
                problem("the kill suspended no game (or the store saw no failure)")
        time.sleep(rnd.uniform(1.0, 3.0))  # some play after the last restart, then the end
        crash_test.finish_clients(procs, stop_file)
        server_up("before the checks")

        # An idle restart: PostgreSQL crashes and comes back while nobody plays. The next
        # reads (the history API below) and writes (one more game) must not fail for it.
        failures = metric(http, "trunkfield_store_failures_total")
        cluster.run("kill")
        time.sleep(1)
        cluster.run("restart")
        print("idle kill and restart of PostgreSQL (no game playing)")

        good, acks, over = crash_test.check_journal(store, logs)
        ok = crash_test.check_replays(http, cli_bin, over) and good and ok
        after = one_more_game(client_bin, tcp, os.path.join(work, "after"), seed + clients)
        good, after_acks, after_over = crash_test.check_journal(store, [after])
        ok = crash_test.check_replays(http, cli_bin, after_over) and good and ok
        failures = metric(http, "trunkfield_store_failures_total") - failures
        if failures:
            problem(f"{failures} store operations failed after the idle restart")
        # No game is left unfinished in the store either (one whose creation was reported as
        # failed but did commit, say).
        unfinished = store.rows("SELECT code, status FROM games "
                                "WHERE status IN ('open', 'playing')")
        if unfinished:
            problem(f"unfinished games in the store: {unfinished}")
        server_up("after the checks")
        server.stop()
        log = open(log_path).read()
        suspended = count(r"room \S+: suspended at version", log)
        resumed = count(r"room \S+: resumed at version", log)
        print(f"{kills} PostgreSQL kills under load and 1 idle; {acks} + {after_acks} "
              f"acknowledged setups/turns all in the journal; {len(over)} + {len(after_over)} "
              f"games finished and replayed; {suspended} suspensions, {resumed} resumptions")
        if len(over) < clients:
            problem("too few games finished")
        if resumed != suspended:
            problem(f"{suspended} suspensions but {resumed} resumptions")
        passed = ok
    finally:
        if procs:
            crash_test.kill_clients(procs)
        if server:
            server.stop()
        if passed:
            cluster.run("destroy")
            subprocess.run(["rm", "-rf", work])
        else:
            subprocess.run(["bash", cluster.script, "stop", cluster.folder],
                           capture_output=True, timeout=120)
            print(f"data kept in {work} (cluster stopped: pg-test-cluster.sh start "
                  f"{cluster.folder} to look)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
