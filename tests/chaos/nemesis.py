#!/usr/bin/env python3
"""Nemesis test of several nodes (issue 30): does a client that follows proto/PROTOCOL.md to the
letter get what the document promises while a nemesis breaks the cluster, one fault at a time?

The environment, all of it the test's own, in a temporary folder:
  - PostgreSQL: a cluster of its own made with scripts/pg-test-cluster.sh (unix socket only, run
    as the `postgres` user when root), because restarting it is one of the faults and the suite's
    fixture is shared. TF_TEST_DATABASE_URL (the "postgres" fixture) must be set, as for
    cluster_test.py, or the test exits 77: it says PostgreSQL 15 runs here. A fresh database.
  - Redis: its own redis-server (cluster_test.Redis: loopback, no persistence).
  - Links: a TCP proxy of ours (a thread per direction per connection, in this process) between
    each node and PostgreSQL (the proxy's upstream is the cluster's unix socket, so the nodes
    reach PostgreSQL over TCP, through it) and between each node and Redis. A proxy can *cut*
    (close every connection, and accept-and-close new ones, for D seconds) or *stall* (forward no
    byte for D seconds; connections are held, new ones accepted and held too).
  - Three nodes `trunkfield-server --store postgres --database-url <its PG proxy> --bus
    redis://<its Redis proxy> --node-id nK --lease-ms 3000 --trusted-proxies 127.0.0.1` on ports
    of their own (crash_test.Server: --grace-seconds 600 and no rate limit).
  - HAProxy (Debian's haproxy) running docker/haproxy.cfg with only what ties it to compose
    changed, as tests/docker/haproxy_test.py does: no TLS (the https frontend binds a loopback
    port in plain HTTP, the port-80 redirect is dropped), loopback ports, no Docker resolvers, no
    user switch, and the three `server` lines pointing at the nodes. WebSocket /ws and the
    newline-JSON TCP port (PROXY protocol v2) both go through it, with its /readyz checks.

The nemesis (the main thread) injects one fault at a time, chosen at random from `--faults`
with the seed (`--seed`, printed at the start), with a quiet gap of `--gap` seconds between two
faults and, after every fifth fault, a quiet window of lease + 11 s (so that check 6 has windows
within the run), and a final quiet tail of lease + 15 s. The node a fault hits is one that owns
unfinished games (from the last reading of `games.owner`) when there is one. Each fault is
logged when it starts and when it heals, with wall clock and time since the start, to the
console and to events.jsonl:
  kill         kill -9 of a node, restarted with the same id after 0.3 .. 2 x lease s
  stop         SIGSTOP of a node for lease + 1 .. 3 s (past its lease), then SIGCONT
  term         SIGTERM of a node (it must exit 0), restarted after 0.3 .. 3 s
  redis        kill -9 of redis-server, restarted on its port after 0.5 .. 4 s
  pg           PostgreSQL crashed (pg-test-cluster.sh kill) or stopped (fast), started again
               after 1 .. 5 s
  pg-cut       one node's PostgreSQL link cut for 1 .. 6 s
  pg-stall     one node's PostgreSQL link stalled for 1 .. 6 s
  redis-cut    one node's Redis link cut for 1 .. 6 s
  redis-stall  one node's Redis link stalled for 1 .. 6 s

The clients (Python threads; every frame sent and received is recorded with its time, the
connection's number and its route: `lb/ws`, `lb/tcp` through HAProxy, `n2/tcp` to a node):
  - `--pairs` pairs of players (default 5, so 10 players). Pairs 0 and 1 play with both seats
    through HAProxy (one WebSocket, one TCP); the others are pinned at the start of each game to
    two different nodes directly (n1/n2, n2/n3, n3/n1, one seat TCP, one WebSocket), so their
    games cross nodes. Each game is a record of `trunkfield rules random SEED` (legal by
    construction; the seed from the run's): silver creates it (untimed, public), bronze joins,
    both play the record's setups and turns in order, each sent with `ref` and `version` (the
    last version seen) after a short think time, one request at a time. The last pinned pair
    (with 3 pairs or more) plays correspondence games (1 day per move) instead: their clocks
    are restored from the journal at every takeover and restart, and must neither fall nor
    stop the game. Every game uses fresh
    guests; when it ends both start the next one.
  - `--spectators` spectators (default 3), each watching a game being played from a node that
    does not own it (by the last reading of `games.owner`), the next one once it ends.
  What a client does is what PROTOCOL.md says, nothing more: it applies versioned events with a
  version above its last and ignores the others; after a dropped connection (or a `shutdown`,
  after its retry_after_ms) it reconnects through HAProxy with its token and sends
  `watch {code, since_version: last}`; an error whose `version` is above its last makes it
  `watch {code, since_version: last}` ("you missed events: resynchronise"); `store_failed` or
  `in_doubt` makes it wait, without moving, for the game's resume snapshot ("When the server
  cannot save"); a `store_failed` that answers its own `watch` makes it send the watch again a
  second later ("try again"); `store_unavailable`, `stale_version`, `not_your_turn` for a move
  make it choose its move again. It never re-watches on its own otherwise. Where a check below
  has found a violation, the client gets going again the cheapest way (a `watch` without
  `since_version`, a new game) and counts that recovery: one bug is counted once, not again by
  everything that follows it.

The checks, counted per run, each violation printed (up to `--examples` per check) with the
frames around it; all of them are in violations.jsonl of the run's folder:
  1 gap         every versioned event a connection sees is its last + 1 (duplicates at or below
                the last are ignored, as the document allows); a gap or an event out of order
                is a violation. A spectator whose view stays behind the players' for lease +
                10 s while the cluster is healthy counts under 6.
  2 ack_event   every `ack` {ref, version V} is followed by event V within lease + 5 s on that
                connection or, if it dropped, in the catch-up after the reconnection.
  3 answers     exactly one answer per `ref`: no second answer (ack + error, two errors), no
                answer to a ref never sent, and an answer within lease + 8 s on a connection that
                stays open (the client then takes a new connection: counted once).
  4 refused_applied  no error for a request that the journal shows applied: a setup/turn whose
                move is in the journal without any ack while the last request for that move
                sent before the row's time was answered not_your_turn, stale_version,
                store_failed, store_unavailable or game_over (in_doubt may be either).
  5 resume      after a suspension (`store_failed`, with or without ref, `in_doubt`, or a
                snapshot with status `suspended`) the connection gets the resume snapshot
                (status playing) before the game goes on, and gets it at all. A connection that
                dropped meanwhile, or whose `watch` was refused and sent again, re-reads the
                game with its `watch since_version`: the missed events it then gets are the
                resumption.
  6 stuck       while a game is unfinished, no fault is on and the last fault healed lease +
                10 s ago, a game where nobody got an ack (or a game_over) for lease + 10 s is
                stuck (its pair then starts a new game); so is a spectator left behind.
  journal       crash_test.check_journal: every acknowledged setup/turn is in the journal at
                its version, as sent; nothing quarantined.
  holes         every game's journal is versions 1..N.
  replay        crash_test.check_replays: the games that ended by the rules replay to the
                stored result (`trunkfield rules replay`).
  events        every versioned event any client saw equals the journal's row at its version
                (kind and payload): no fork, nothing shown that was not stored.
  epochs        each game's `epoch`, read every second, never decreases.
  node_exit     no node exits unless the nemesis killed it; a SIGTERM'd node, and every node at
                the end, exits 0.
  other         an error that a legal move in order should never get (illegal_turn, …), an
                event that is not the next move of the record, a snapshot older than what the
                connection saw, a reconnection's `welcome.games` without the game being played
                (not over by the journal's time).
  harness       an exception in the test itself (counted so that it cannot pass silently).
The summary table gives, per run, faults by kind, acks, finished games and violations by check.
Exit 1 if any check failed in any run, 77 when skipped.

usage: nemesis.py SERVER_BIN CLI_BIN [--seed S] [--runs N] [--duration SEC | --long]
                  [--faults kill,stop,...] [--pairs N] [--spectators N] [--haproxy PATH]
"""
import argparse
import collections
import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "package"))
import crash_test  # noqa: E402  (server processes, the store class and the data checks)
import cluster_test  # noqa: E402  (Redis, unversioned events)
import tfproto  # noqa: E402  (TCP and WebSocket connections)

SKIP = 77
LEASE_MS = 3000
LEASE = LEASE_MS / 1000
ACK_BOUND = LEASE + 5       # check 2: an ack's event follows within this
ANSWER_BOUND = LEASE + 8    # check 3: a request on an open connection is answered within this
STUCK_BOUND = LEASE + 10    # check 6
SHORT_DURATION = 150
LONG_DURATION = 900
FAULT_KINDS = ["kill", "stop", "term", "redis", "pg", "pg-cut", "pg-stall", "redis-cut",
               "redis-stall"]
CHECKS = [
    ("gap", "1 versioned events contiguous"),
    ("ack_event", "2 every ack followed by its event"),
    ("answers", "3 exactly one answer per ref"),
    ("refused_applied", "4 no refusal of an applied request"),
    ("resume", "5 resume snapshot after a suspension"),
    ("stuck", "6 never stuck once healthy"),
    ("journal", "acks in the journal, as sent"),
    ("holes", "journal versions 1..N"),
    ("replay", "finished games replay"),
    ("events", "events seen = journal"),
    ("epochs", "epochs only grow"),
    ("node_exit", "no node crashed"),
    ("other", "unexpected errors, diverged views"),
    ("harness", "errors of the test itself"),
]
# Events that change the game (PROTOCOL.md "Stale and future versions").
CHANGING = {"join", "setup", "turn", "resign", "draw_accept", "timeout", "abandon", "abort",
            "game_over", "cancel"}
# Refusals that say "nothing changed" (check 4); in_doubt says "maybe".
REFUSED = {"not_your_turn", "stale_version", "store_failed", "store_unavailable", "game_over"}
DROPS = (OSError, tfproto.ProtocolError, ValueError)


def stamp(t):
    return time.strftime("%H:%M:%S", time.localtime(t)) + f".{int(t * 1000) % 1000:03d}"


def compact(msg, limit=400):
    text = json.dumps(msg, separators=(",", ":"), sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "…"


class Stop(Exception):
    """The run is over: a client thread unwinds."""


# --- links: TCP proxies between the nodes and PostgreSQL / Redis -----------------------------

class LinkProxy:
    """A TCP proxy on a loopback port to `upstream` ((host, port) or a unix socket path) that
    can cut or stall everything going through it."""

    def __init__(self, name, upstream):
        self.name, self.upstream = name, upstream
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(128)
        self.port = self.lsock.getsockname()[1]
        self.lock = threading.Lock()
        self.pairs = set()
        self.cut_until = 0.0
        self.stall_until = 0.0
        self.closed = False
        threading.Thread(target=self._accept, name=f"proxy-{name}", daemon=True).start()

    def _connect_upstream(self):
        if isinstance(self.upstream, str):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(self.upstream)
        else:
            s = socket.create_connection(self.upstream, timeout=5)
        s.settimeout(None)
        return s

    def _accept(self):
        while not self.closed:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            if time.time() < self.cut_until:
                c.close()  # refused while cut
                continue
            try:
                u = self._connect_upstream()
            except OSError:
                c.close()
                continue
            pair = (c, u)
            with self.lock:
                self.pairs.add(pair)
            for src, dst in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(pair, src, dst), daemon=True).start()

    def _pump(self, pair, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                while time.time() < self.stall_until:  # held, not forwarded
                    if pair not in self.pairs:
                        return
                    time.sleep(0.02)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            self._close(pair)

    def _close(self, pair):
        with self.lock:
            self.pairs.discard(pair)
        for s in pair:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass

    def cut(self, seconds):
        self.cut_until = time.time() + seconds
        with self.lock:
            pairs = list(self.pairs)
        for p in pairs:
            self._close(p)

    def stall(self, seconds):
        self.stall_until = time.time() + seconds

    def close(self):
        self.closed = True
        try:
            self.lsock.close()
        except OSError:
            pass
        self.cut(0)


# --- processes ---------------------------------------------------------------------------------

class Postgres:
    """A PostgreSQL cluster of the run's own (scripts/pg-test-cluster.sh), reached on its unix
    socket: by psql directly, by the nodes through their proxies."""
    SCRIPT = os.path.join(ROOT, "scripts", "pg-test-cluster.sh")

    def __init__(self, folder):
        self.dir = folder
        self.socket = os.path.join(folder, "sock", ".s.PGSQL.5432")
        self.conninfo = None

    def _run(self, cmd):
        out = subprocess.run(["bash", self.SCRIPT, cmd, self.dir], capture_output=True,
                             text=True, timeout=240)
        if out.returncode != 0:
            raise RuntimeError(f"pg-test-cluster.sh {cmd}: {out.stderr.strip()[-2000:]}")
        return out.stdout.strip()

    def start(self):
        self.conninfo = self._run("start")

    def crash(self):
        self._run("kill")

    def stop(self):
        self._run("stop")

    def destroy(self):
        try:
            self._run("destroy")
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print(f"     PostgreSQL cluster {self.dir}: {e}", flush=True)


class Node(crash_test.Server):
    """One trunkfield-server, reaching PostgreSQL and Redis through its own proxies."""

    def __init__(self, run, name, pg_proxy, redis_proxy):
        self.name = name
        folder = os.path.join(run.work, name)
        os.mkdir(folder)
        self.http, self.tcp = crash_test.free_port(), crash_test.free_port()
        self.pg_proxy, self.redis_proxy = pg_proxy, redis_proxy
        url = f"host=127.0.0.1 port={pg_proxy.port} user=postgres dbname={run.store.name}"
        args = ["--store", "postgres", "--database-url", url,
                "--bus", f"redis://127.0.0.1:{redis_proxy.port}", "--node-id", name,
                "--lease-ms", str(LEASE_MS), "--trusted-proxies", "127.0.0.1",
                "--max-connections-per-ip", "0", "--max-open-games-per-ip", "100000",
                "--max-games", "100000"]
        super().__init__(run.server_bin, os.path.join(folder, "data"), self.http, self.tcp,
                         os.path.join(folder, "server.log"), args)
        self.expected_down = False  # the nemesis killed or stopped it
        self.stopped = False        # SIGSTOPped
        self.reported_exit = None

    def running(self):
        return self.proc is not None and self.proc.poll() is None


def haproxy_config(nodes, http_port, tcp_port):
    """docker/haproxy.cfg with what ties it to compose swapped for this machine's (as
    tests/docker/haproxy_test.py does) and plain HTTP instead of TLS."""
    out, skip = [], False
    for line in open(os.path.join(ROOT, "docker", "haproxy.cfg")).read().splitlines():
        s = line.strip()
        if s and not line[0].isspace() and not s.startswith("#"):
            # Docker's DNS and the port-80 redirect to https: sections of their own, dropped.
            skip = s.startswith("resolvers ") or s == "frontend http"
        if skip or s in ("user haproxy", "group haproxy"):
            continue
        if s.startswith("maxconn "):
            line = line.replace(s, "maxconn 2000")
        if s.startswith("default-server "):
            line = line.replace("init-addr last,libc,none resolvers docker ", "")
        if s.startswith("bind :443"):
            line = line.replace(s, f"bind 127.0.0.1:{http_port}")
        if s.startswith("bind :8081"):
            line = line.replace(s, f"bind 127.0.0.1:{tcp_port}")
        m = re.match(r"(\s*)server node(\d+) node\d+:(\d+)(.*)$", line)
        if m:
            node = nodes[int(m.group(2)) - 1]
            port = node.http if m.group(3) == "8080" else node.tcp
            rest = m.group(4).replace("port 8080", f"port {node.http}")
            line = f"{m.group(1)}server {node.name} 127.0.0.1:{port}{rest}"
        out.append(line)
    return "\n".join(out) + "\n"


# --- clients -------------------------------------------------------------------------------------

class Req:
    """One setup/turn request and what became of it."""

    def __init__(self, ref, code, kind, data, version, ply, conn):
        self.ref, self.code, self.kind, self.data = ref, code, kind, data
        self.version, self.ply, self.conn = version, ply, conn
        self.t = time.time()
        self.answers = []  # (message, frame index)
        self.outcome = None  # "ack", an error code, "lost" (connection dropped), "unanswered"
        self.idx = None


class Client(threading.Thread):
    """A connection at a time, every frame recorded; the view of one game (`code`): versions
    applied in order, suspensions, acks owed their events."""

    def __init__(self, run, name, seed):
        super().__init__(name=name, daemon=True)
        self.r, self.rnd = run, random.Random(seed)
        self.frames = []  # (t, conn no, route, ">" or "<", message)
        self.conn = None
        self.conn_no = 0
        self.route = None
        self.token = None
        self.code = None
        self.seen = {}  # (code, version) → (kind, payload, frame index)
        self.reconnects = 0
        self.welcome = None
        self.welcomes = []  # (code, time, frame index, games listed) of each reconnection
        self.reset_view(None)

    def reset_view(self, code):
        self.code = code
        self.last = 0
        self.suspended = None  # time the game was seen suspended, while it is
        self.desync = False    # waiting for the snapshot a recovery asked for
        self.finished = False
        self.owed = {}         # ack version → deadline for its event
        self.watch_at = None   # the last watch sent, while nothing answered it
        self.watch_retry_at = None
        self.resync_wanted = False

    # frames and connections

    def idx(self):
        return len(self.frames) - 1

    def violate(self, check, text):
        self.r.violate(check, f"{self.name}#{self.conn_no}@{self.route} {self.code}: {text}",
                       self, self.idx())

    def check_stop(self):
        if self.r.stopping.is_set():
            raise Stop()

    def close_link(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def send(self, msg):
        self.frames.append((time.time(), self.conn_no, self.route, ">", msg))
        self.conn.send(msg)

    def recv(self, timeout):
        c = self.conn
        msg = c._take()
        if msg is None and c._fill(timeout):
            msg = c._take()
        if msg is not None:
            self.frames.append((time.time(), self.conn_no, self.route, "<", msg))
        return msg

    def wait_msg(self, pred, timeout):
        """The next message satisfying pred (others go to handle()), or None."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.check_stop()
            m = self.recv(min(0.1, max(deadline - time.time(), 0)))
            if m is None:
                continue
            if pred(m):
                return m
            self.handle(m)
        return None

    def connect(self, node, transport, fresh=False):
        """A welcomed connection to `node` (a Node, or None for HAProxy), retried (through
        HAProxy after a few failures) until it works or the run stops."""
        backoff, tries = 0.1, 0
        while True:
            self.check_stop()
            target = node if (node is not None and tries < 4) else None
            if target is not None and (not target.running() or target.stopped):
                target = None
            if target is None:
                port = self.r.lb_http if transport == "ws" else self.r.lb_tcp
                route = f"lb/{transport}"
            else:
                port = target.http if transport == "ws" else target.tcp
                route = f"{target.name}/{transport}"
            tries += 1
            self.close_link()
            try:
                if transport == "ws":
                    self.conn = tfproto.WsConn.connect("127.0.0.1", port, timeout=5)
                else:
                    self.conn = tfproto.TcpConn.connect("127.0.0.1", port, timeout=5)
                self.conn_no += 1
                self.route = route
                hello = {"type": "hello", "version": 1}
                if self.token and not fresh:
                    hello["token"] = self.token
                else:
                    hello["name"] = self.name
                self.send(hello)
                m = self.wait_msg(lambda m: m.get("type") in ("welcome", "error"), 10)
                if m is not None and m["type"] == "welcome":
                    self.token = m["token"]
                    self.welcome = m
                    return
                if m is not None and m.get("code") == "bad_token":
                    self.violate("other", f"a valid token refused: {compact(m)}")
                    fresh = True
            except DROPS:
                pass
            self.close_link()
            time.sleep(backoff)
            backoff = min(backoff * 2, 1.0)

    def send_watch(self, since=True):
        msg = {"type": "watch", "code": self.code}
        if since:
            msg["since_version"] = self.last
        self.send(msg)
        self.watch_at = time.time()

    def reconnect(self, why):
        """PROTOCOL.md "Reconnecting": hello with the token through HAProxy, then watch the
        game since the last version seen."""
        self.reconnects += 1
        self.r.count("reconnects")
        self.lost_connection()
        # The watch re-reads the game: a suspended game answers it with a snapshot (status
        # suspended), a resumed one with the missed events, which then need no snapshot.
        self.suspended = None
        while True:
            self.close_link()
            self.connect(None, self.transport)
            try:
                self.send_watch()
                break
            except DROPS:
                continue
        self.welcomes.append((self.code, time.time(), self.idx() - 1, self.welcome.get("games")))
        now = time.time()
        for v in self.owed:
            self.owed[v] = now + ACK_BOUND  # the catch-up owes it now

    def lost_connection(self):
        pass

    def resync(self):
        """Recovery after a violation was counted: a fresh snapshot (watch without
        since_version)."""
        self.r.count("recoveries")
        self.desync = True
        self.send_watch(since=False)

    # the game's view

    def handle(self, m):
        t = m.get("type")
        if t == "event":
            if m.get("game") == self.code:
                self.on_event(m)
        elif t == "snapshot":
            if m.get("game") == self.code:
                self.on_snapshot(m)
        elif t in ("ack", "error") and m.get("ref") is not None:
            self.on_answer(m)
        elif t == "error":
            if m.get("code") == "store_failed" and m.get("game", self.code) == self.code:
                self.on_paused(m)
            elif m.get("code") == "no_such_game" and self.code and m.get("game") == self.code:
                self.violate("other", f"watch of a game being played: {compact(m)}")
                self.finished = True
            else:
                self.violate("other", f"unexpected error: {compact(m)}")
        elif t == "shutdown":
            self.close_link()
            time.sleep(min(m.get("retry_after_ms", 1000), 5000) / 1000)
            raise ConnectionResetError("shutdown")

    def on_answer(self, m):
        self.violate("answers", f"an answer to a ref this client never sent: {compact(m)}")

    def on_paused(self, m):
        now = time.time()
        if self.suspended is None:
            self.suspended = now
            self.r.count("suspensions")
        if self.watch_at is not None and now - self.watch_at < 3:
            self.watch_retry_at = now + 1.0  # the watch was refused: "try again"

    def on_event(self, m):
        if cluster_test.unversioned(m):
            return
        v, kind, payload = m["version"], m["kind"], m["payload"]
        key = (self.code, v)
        prev = self.seen.get(key)
        if prev is None:
            self.seen[key] = (kind, payload, self.idx())
        elif (prev[0], prev[1]) != (kind, payload):
            self.violate("events", f"v{v} seen twice, different: {prev[0]} {compact(prev[1])} "
                         f"then {kind} {compact(payload)}")
        self.watch_at = None
        if self.desync or v <= self.last:
            return
        if v != self.last + 1:
            self.violate("gap", f"expected v{self.last + 1}, got v{v} ({kind})")
            self.resync()
            return
        self.last = v
        self.owed.pop(v, None)
        if self.suspended is not None:
            self.violate("resume", f"the game went on (v{v} {kind}) after a suspension "
                         f"({stamp(self.suspended)}) without the resume snapshot")
            self.suspended = None
        self.applied(m)
        if kind == "game_over":
            self.finished = True

    def applied(self, m):
        pass

    def on_snapshot(self, m):
        v, status = m["version"], m.get("status")
        if v < self.last and not self.desync:
            self.violate("other", f"a snapshot at v{v}, older than v{self.last} already seen")
        self.last = v
        self.desync = False
        self.watch_at = None
        for w in [w for w in self.owed if w <= v]:
            del self.owed[w]
        if status == "suspended":
            if self.suspended is None:
                self.suspended = time.time()
                self.r.count("suspensions")
        elif status in ("playing", "open"):
            if self.suspended is not None:
                self.r.count("resumed")
            self.suspended = None
        elif status in ("over", "aborted", "cancelled"):
            self.suspended = None
            self.finished = True
        self.snapshot_taken(m)

    def snapshot_taken(self, m):
        pass

    def timers(self, now):
        for v, deadline in list(self.owed.items()):
            if now > deadline:
                self.violate("ack_event", f"ack of v{v} but no event v{v} within {ACK_BOUND:.0f} s "
                             f"(view at v{self.last})")
                del self.owed[v]
        if self.watch_retry_at is not None and now >= self.watch_retry_at:
            self.watch_retry_at = None
            self.suspended = None  # the watch re-reads the game, as after a reconnection
            self.send_watch()
        if self.resync_wanted:
            self.resync_wanted = False
            self.resync()

    def follow(self, until):
        """Reads and acts until until() is true: the loop of a connection watching a game."""
        while True:
            self.check_stop()
            if until():
                return
            try:
                now = time.time()
                self.timers(now)
                self.act(now)
                m = self.recv(0.05)
                if m is not None:
                    self.handle(m)
            except DROPS as e:
                if until():
                    return
                self.reconnect(e)

    def act(self, now):
        pass

    def run(self):
        try:
            self.main()
        except Stop:
            pass
        except Exception:
            self.r.violate("harness", f"{self.name}: {traceback.format_exc()}", self, self.idx())
        finally:
            self.close_link()


class Pair:
    """Two players playing game after game; the state check 6 reads."""

    def __init__(self, run, idx):
        self.r, self.idx = run, idx
        self.cv = threading.Condition()
        self.game_no = 0
        self.code = None
        self.record = None
        self.moves = []
        self.abandoned = 0
        self.state = "idle"  # creating, playing, over
        self.last_progress = time.time()
        self.max_version = 0
        self.finished_sides = set()
        self.players = []
        # The last pinned pair plays correspondence games (PROTOCOL.md "Correspondence games").
        self.correspondence = idx >= 2 and idx == run.args.pairs - 1

    def begin_game(self):
        with self.cv:
            self.game_no += 1
            seed = (self.r.seed * 7919 + self.idx * 100003 + self.game_no) % (1 << 31)
            out = subprocess.run([self.r.cli_bin, "rules", "random", str(seed)],
                                 capture_output=True, text=True, check=True)
            self.record = json.loads(out.stdout)
            r = self.record
            self.moves = [("setup", "silver", r["setup"]["silver"]),
                          ("setup", "bronze", r["setup"]["bronze"])]
            self.moves += [("turn", "silver" if i % 2 == 0 else "bronze", t)
                           for i, t in enumerate(r["turns"])]
            self.code = None
            self.state = "creating"
            self.max_version = 0
            self.finished_sides = set()
            self.last_progress = time.time()
            return self.game_no

    def set_code(self, game_no, code):
        with self.cv:
            if game_no == self.game_no:
                self.code = code
                self.state = "playing"
                self.last_progress = time.time()
            self.cv.notify_all()

    def wait_game(self, after, client):
        with self.cv:
            while not (self.game_no > after and self.code is not None):
                self.cv.wait(0.2)
                client.check_stop()
            return self.game_no, self.code

    def progress(self):
        self.last_progress = time.time()

    def side_finished(self, game_no, side):
        with self.cv:
            if game_no == self.game_no:
                self.finished_sides.add(side)
                self.last_progress = time.time()
                if len(self.finished_sides) == 2:
                    self.state = "over"
                    self.r.count("games_over")
                    if self.correspondence:
                        self.r.count("correspondence_games_over")
                    self.cv.notify_all()

    def abandon(self):
        with self.cv:
            self.abandoned = self.game_no
            self.code = None
            self.state = "over"
            self.cv.notify_all()

    def wait_over(self, game_no, client):
        """Until both players are done with game game_no (or it was abandoned)."""
        with self.cv:
            while self.game_no == game_no and self.state != "over":
                self.cv.wait(0.2)
                client.check_stop()


class Player(Client):
    def __init__(self, run, pair, side, node, transport, seed):
        super().__init__(run, f"p{pair.idx}{'a' if side == 'silver' else 'b'}", seed)
        self.pair, self.side, self.home, self.transport = pair, side, node, transport
        self.requests = {}  # ref → Req, every game
        self.create_refs = set()  # create_game refs (answered by game_created)
        self.n = 0
        self.pending = None
        self.moves = []
        self.ply = 0
        self.game_no = 0
        self.next_move_at = 0.0
        self.ack_log = open(os.path.join(run.work, "acks", f"{self.name}.log"), "w")

    def think(self):
        lo, hi = self.r.think
        return self.rnd.uniform(lo, hi)

    def next_ref(self):
        self.n += 1
        return f"{self.name}-{self.n}"

    def reset_view(self, code):
        super().reset_view(code)
        self.pending = None
        self.started = False  # both seats taken (join seen)
        self.ply = 0
        self.next_move_at = 0.0

    def main(self):
        while True:
            self.check_stop()
            if self.side == "silver":
                self.game_no = self.pair.begin_game()
                self.moves = self.pair.moves
                if not self.create():
                    continue
            else:
                self.game_no, code = self.pair.wait_game(self.game_no, self)
                self.moves = self.pair.moves
                if not self.join_game(code):
                    continue
            self.follow(lambda: self.finished or self.pair.abandoned >= self.game_no)
            if self.finished:
                self.pair.side_finished(self.game_no, self.side)
            self.close_link()
            if self.side == "silver":
                self.pair.wait_over(self.game_no, self)

    def create(self):
        variant = self.pair.record["variant"]
        while True:
            self.reset_view(None)
            self.connect(self.home, self.transport, fresh=True)
            ref = self.next_ref()
            self.create_refs.add(ref)
            try:
                tc = {"days_per_move": 1} if self.pair.correspondence else None
                self.send({"type": "create_game", "variant": variant, "time_control": tc,
                           "color": "silver", "public": True, "ref": ref})
                m = self.wait_msg(lambda m: m.get("type") == "game_created" or (
                    m.get("type") == "error" and m.get("ref") == ref), 15)
                if m is None or m["type"] == "error":
                    time.sleep(1)
                    continue
                code = m["code"]
                self.reset_view(code)
                snap = self.wait_msg(lambda m: m.get("type") == "snapshot" and
                                     m.get("game") == code, 15)
            except DROPS:
                continue
            if snap is None:
                continue
            self.on_snapshot(snap)
            self.pair.set_code(self.game_no, code)
            return True

    def join_game(self, code):
        deadline = time.time() + 60
        first = True
        while time.time() < deadline:
            self.reset_view(code)
            try:
                if self.conn is None:
                    self.connect(self.home if first else None, self.transport, fresh=first)
                first = False
                self.send({"type": "join_game", "code": code})
                m = self.wait_msg(lambda m: m.get("game") == code and (
                    m.get("type") == "snapshot" or m.get("type") == "error"), 15)
            except DROPS:
                self.close_link()
                continue
            if m is not None and m["type"] == "snapshot":
                self.on_snapshot(m)
                self.pair.progress()
                return True
            if m is not None and m.get("code") not in ("store_unavailable", "store_failed"):
                self.violate("other", f"join refused: {compact(m)}")
                break
            time.sleep(1)
        self.r.note(f"{self.name}: could not join {code}; the pair starts another game")
        self.pair.abandon()
        self.close_link()
        return False

    def lost_connection(self):
        if self.pending is not None:
            self.pending.outcome = "lost"
            self.pending = None

    def act(self, now):
        # One request at a time; after its ack, its event before the next move.
        if (self.pending is not None or self.owed or self.suspended is not None or self.desync
                or self.finished or not self.started or self.ply >= len(self.moves)):
            if self.pending is not None and now - self.pending.t > ANSWER_BOUND:
                self.violate("answers", f"no answer to {self.pending.ref} within "
                             f"{ANSWER_BOUND:.0f} s on an open connection")
                self.pending.outcome = "unanswered"
                self.pending = None
                self.r.count("recoveries")
                raise ConnectionResetError("no answer: a new connection")  # counted once
            return
        kind, side, data = self.moves[self.ply]
        if side != self.side or now < self.next_move_at:
            return
        ref = self.next_ref()
        req = Req(ref, self.code, kind, data, self.last, self.ply, self.conn_no)
        self.requests[ref] = req
        self.pending = req
        self.send({"type": kind, "game": self.code, kind: data, "version": self.last,
                   "ref": ref})
        req.idx = self.idx()

    def on_answer(self, m):
        ref = m["ref"]
        req = self.requests.get(ref)
        if req is None:
            if ref in self.create_refs:
                return None
            return super().on_answer(m)
        req.answers.append((m, self.idx()))
        if len(req.answers) > 1:
            first = req.answers[0][0]
            self.violate("answers", f"a second answer to {ref}: {compact(m)} after "
                         f"{compact(first)}")
            return
        if self.pending is req:
            self.pending = None
        now = time.time()
        if m["type"] == "ack":
            v = m["version"]
            req.outcome = "ack"
            self.r.count("acks")
            self.pair.progress()
            self.ack_log.write(json.dumps({"code": req.code, "version": v, "kind": req.kind,
                                           "data": req.data, "t": int(now * 1000)}) + "\n")
            self.ack_log.flush()
            if v > self.last:
                self.owed[v] = now + ACK_BOUND
            return
        code = m.get("code")
        req.outcome = code
        if code in ("store_failed", "in_doubt"):
            # "roll it back" / "keep the move pending": either way, wait for the resumption.
            if self.suspended is None:
                self.suspended = now
                self.r.count("suspensions")
            self.r.count(code)
        elif code in ("stale_version", "not_your_turn", "store_unavailable"):
            self.r.count(code)
            if (m.get("version") or 0) > self.last:
                self.send_watch()  # "you missed events: resynchronise with watch"
            self.next_move_at = now + 0.3
        elif code == "game_over":
            self.r.count(code)
            if (m.get("version") or 0) > self.last:
                self.send_watch()
        else:
            self.violate("other", f"{ref} refused: {compact(m)}")
            self.resync()

    def applied(self, m):
        kind, p, v = m["kind"], m["payload"], m["version"]
        self.pair.max_version = max(self.pair.max_version, v)
        if kind in ("setup", "turn"):
            exp = self.moves[self.ply] if self.ply < len(self.moves) else None
            if exp is None or exp[0] != kind or p.get("side") != exp[1] or p.get(kind) != exp[2]:
                self.violate("other", f"v{v} {kind} {compact(p)} is not move {self.ply} of the "
                             f"record ({compact(exp)})")
                self.resync()
                return
            self.ply += 1
            self.next_move_at = time.time() + self.think()
        elif kind == "join":
            self.started = True
        elif kind == "game_over":
            self.pair.progress()
            reason = p.get("reason")
            if self.side == "silver" and reason in ("trunks", "herd", "quiet"):
                self.ack_log.write(json.dumps({"code": self.code, "over": True}) + "\n")
                self.ack_log.flush()

    def snapshot_taken(self, m):
        rec = m.get("record") or {}
        setup = rec.get("setup") or {}
        plies = [("setup", s, setup.get(s)) for s in ("silver", "bronze") if setup.get(s)]
        plies += [("turn", None, t) for t in rec.get("turns") or []]
        for i, (kind, side, data) in enumerate(plies):
            exp = self.moves[i] if i < len(self.moves) else None
            if exp is None or exp[0] != kind or exp[2] != data:
                self.violate("other", f"the snapshot's record differs from the game's at move "
                             f"{i}: {compact(data)} vs {compact(exp)}")
                break
        self.ply = len(plies)
        players = m.get("players") or {}
        self.started = self.started or m.get("status") != "open" or (
            bool(players.get("silver")) and bool(players.get("bronze")))
        self.pair.max_version = max(self.pair.max_version, m["version"])
        self.next_move_at = time.time() + self.think()


class Spectator(Client):
    def __init__(self, run, idx, transport, seed):
        super().__init__(run, f"spec{idx}", seed)
        self.transport = transport
        self.pair = None
        self.behind_since = None
        self.behind_target = 0

    def main(self):
        while True:
            self.check_stop()
            live = [p for p in self.r.pairs if p.state == "playing" and p.code]
            if not live:
                time.sleep(0.5)
                continue
            pair = self.rnd.choice(live)
            code, no = pair.code, pair.game_no
            owner = self.r.owner_of.get(code)
            others = [n for n in self.r.nodes if n.name != owner and n.running()
                      and not n.stopped]
            node = self.rnd.choice(others) if others else None
            self.pair = pair
            self.reset_view(code)
            self.behind_since = None
            try:
                self.connect(node, self.transport, fresh=self.token is None)
                self.send_watch(since=False)
                self.r.count("spectator_watches")
            except DROPS:
                continue
            self.follow(lambda: self.finished or pair.game_no != no or pair.state != "playing"
                        or pair.code != code)
            self.close_link()
            time.sleep(0.2)


# --- one run -------------------------------------------------------------------------------------

class Run:
    def __init__(self, args, seed, faults):
        self.args, self.seed, self.kinds = args, seed, faults
        self.server_bin, self.cli_bin, self.haproxy_bin = args.server_bin, args.cli_bin, args.haproxy
        self.rnd = random.Random(seed)
        self.think = (args.think_ms[0] / 1000, args.think_ms[1] / 1000)
        self.lock = threading.Lock()
        self.violations = []
        self.counters = collections.Counter()
        self.fault_counts = collections.Counter()
        self.events = []
        self.stopping = threading.Event()
        self.fault_on = False
        self.healed_at = time.time()
        self.store_faults = []  # (start, healed) of every PostgreSQL fault, for welcome.games
        self.owner_of = {}
        self.epochs = {}
        self.owned = {}
        self.pairs, self.players, self.spectators = [], [], []
        self.nodes, self.proxies = [], []
        self.redis = self.pg = self.store = self.lb = None
        self.t0 = time.time()

    # bookkeeping

    def violate(self, check, text, client=None, idx=None, others=()):
        with self.lock:
            self.violations.append({"check": check, "text": text, "t": time.time(),
                                    "client": client, "idx": idx,
                                    "others": [(c, c.idx()) for c in others]})

    def count(self, what, n=1):
        with self.lock:
            self.counters[what] += n

    def note(self, text):
        print(f"     [{time.time() - self.t0:6.1f}s] {text}", flush=True)

    def log_event(self, entry):
        now = time.time()
        entry.update(t=now, at=stamp(now), rel=round(now - self.t0, 3))
        self.events.append(entry)
        with open(os.path.join(self.work, "events.jsonl"), "a") as f:
            f.write(json.dumps(entry) + "\n")
        what = entry.get("kind", "fault")
        text = f"{what} {entry['id']} {entry['fault']} {entry.get('target', '')} " + \
            " ".join(f"{k}={v}" for k, v in entry.get("params", {}).items())
        self.note(f"{entry['at']} {text}")

    def sql(self, query):
        return crash_test.psql(self.store.url, query)

    # environment

    def setup(self):
        self.work = tempfile.mkdtemp(prefix="tf-nemesis-")
        os.chmod(self.work, 0o755)  # the postgres user reaches its folder inside
        os.mkdir(os.path.join(self.work, "acks"))
        self.pg = Postgres(os.path.join(self.work, "pg"))
        self.pg.start()
        self.store = crash_test.PgStore(self.pg.conninfo)
        rfolder = os.path.join(self.work, "redis")
        os.mkdir(rfolder)
        self.redis = cluster_test.Redis(rfolder, crash_test.free_port())
        self.redis.start()
        for k in range(3):
            name = f"n{k + 1}"
            pgp = LinkProxy(f"{name}-pg", self.pg.socket)
            rp = LinkProxy(f"{name}-redis", ("127.0.0.1", self.redis.port))
            self.proxies += [pgp, rp]
            self.nodes.append(Node(self, name, pgp, rp))
        for n in self.nodes:
            n.start()
        self.lb_http, self.lb_tcp = crash_test.free_port(), crash_test.free_port()
        cfg = os.path.join(self.work, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write(haproxy_config(self.nodes, self.lb_http, self.lb_tcp))
        check = subprocess.run([self.haproxy_bin, "-c", "-f", cfg], capture_output=True,
                               text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy -c refuses {cfg}:\n{check.stdout}{check.stderr}")
        self.lb = subprocess.Popen([self.haproxy_bin, "-db", "-f", cfg],
                                   stdout=open(os.path.join(self.work, "haproxy.log"), "w"),
                                   stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            try:
                ok = 0
                for cls, port in ((tfproto.TcpConn, self.lb_tcp), (tfproto.WsConn, self.lb_http)):
                    c = cls.connect("127.0.0.1", port, timeout=2)
                    ok += tfproto.hello(c, "probe").get("type") == "welcome"
                    c.close()
                if ok == 2:
                    break
            except (OSError, tfproto.ProtocolError):
                pass
            if time.time() > deadline or self.lb.poll() is not None:
                raise RuntimeError("HAProxy did not pass connections on (see haproxy.log)")
            time.sleep(0.3)
        print(f"seed {self.seed}; {len(self.kinds)} fault kinds ({','.join(self.kinds)}); "
              f"{self.args.duration} s; database {self.store.name}; folder {self.work}; "
              f"redis :{self.redis.port}; haproxy http :{self.lb_http} tcp :{self.lb_tcp}; "
              f"nodes " + ", ".join(f"{n.name} http :{n.http} tcp :{n.tcp}" for n in self.nodes),
              flush=True)

    def start_clients(self):
        n = self.nodes
        for i in range(self.args.pairs):
            pair = Pair(self, i)
            if i < 2:  # both seats through HAProxy
                seats = [(None, "ws"), (None, "tcp")] if i % 2 == 0 else [(None, "tcp"),
                                                                          (None, "ws")]
            else:      # pinned to two different nodes
                k = (i - 2) % 3
                seats = [(n[k], "tcp"), (n[(k + 1) % 3], "ws")]
            for side, (node, transport) in zip(("silver", "bronze"), seats):
                p = Player(self, pair, side, node, transport, self.seed * 1000 + len(self.players))
                pair.players.append(p)
                self.players.append(p)
            self.pairs.append(pair)
        for i in range(self.args.spectators):
            self.spectators.append(Spectator(self, i, "tcp" if i % 2 == 0 else "ws",
                                             self.seed * 1000 + 500 + i))
        for c in self.players + self.spectators:
            c.start()

    def teardown(self):
        for n in self.nodes:
            if n.proc and n.stopped:
                n.proc.send_signal(signal.SIGCONT)
            n.stop()
        if self.lb and self.lb.poll() is None:
            self.lb.terminate()
            try:
                self.lb.wait(10)
            except subprocess.TimeoutExpired:
                self.lb.kill()
        for p in self.proxies:
            p.close()
        if self.redis:
            self.redis.stop()
        if self.pg:
            self.pg.destroy()

    # the monitor: nodes, owners and epochs, check 6

    def monitor(self):
        while not self.stopping.is_set():
            time.sleep(1)
            try:
                self.monitor_once()
            except Exception:
                self.violate("harness", f"monitor: {traceback.format_exc()}")

    def monitor_once(self):
        for n in self.nodes:
            if n.proc and n.proc.poll() is not None and not n.expected_down:
                if n.reported_exit is None:
                    n.reported_exit = n.proc.returncode
                    self.violate("node_exit", f"{n.name} exited by itself with code "
                                 f"{n.proc.returncode} (see {n.log_path})")
                    self.restart(n, "after it exited by itself")
        try:
            rows = self.sql("SELECT code, owner, epoch, status FROM games")
        except SystemExit:
            rows = None  # PostgreSQL is down: no reading this second
        if rows is not None:
            owned = {}
            for code, owner, epoch, status in rows:
                e = int(epoch)
                before = self.epochs.get(code)
                if before is not None and e < before:
                    self.violate("epochs", f"game {code}: epoch {before} then {e}")
                self.epochs[code] = max(e, before or 0)
                if status in ("open", "playing"):
                    self.owner_of[code] = owner
                    if owner:
                        owned.setdefault(owner, []).append(code)
            self.owned = owned
        now = time.time()
        healthy = not self.fault_on and now - self.healed_at >= STUCK_BOUND
        if not healthy:
            for s in self.spectators:
                s.behind_since = None
            return
        for pair in self.pairs:
            if pair.state in ("creating", "playing") and \
                    now - pair.last_progress >= STUCK_BOUND:
                mover = self.mover(pair)
                what = ("could not start a game" if pair.state == "creating" else
                        f"no ack nor game_over for {now - pair.last_progress:.0f} s")
                self.violate("stuck", f"{mover.name}#{mover.conn_no}@{mover.route} {pair.code}: "
                             f"pair {pair.idx}: {what}, {now - self.healed_at:.0f} s after the "
                             f"last fault healed (view at v{mover.last}, move {mover.ply}, "
                             f"pending {mover.pending.ref if mover.pending else None}, "
                             f"suspended {mover.suspended is not None})", mover, mover.idx(),
                             [p for p in pair.players if p is not mover])
                for p in pair.players:
                    if p.suspended is not None and p.code == pair.code:
                        self.violate("resume", f"{p.name}#{p.conn_no}@{p.route} {p.code}: "
                                     f"suspended since {stamp(p.suspended)}, never resumed",
                                     p, p.idx())
                pair.abandon()
        for s in self.spectators:
            pair = s.pair
            if pair is None or pair.code != s.code or pair.state != "playing" or s.finished:
                s.behind_since = None
                continue
            target = pair.max_version
            if s.behind_since is not None and s.last >= s.behind_target:
                s.behind_since = None
            if s.behind_since is None and s.last < target:
                s.behind_since, s.behind_target = now, target
            elif s.behind_since is not None and now - s.behind_since >= STUCK_BOUND:
                self.violate("stuck", f"{s.name}#{s.conn_no}@{s.route} {s.code}: a spectator "
                             f"still at v{s.last} {now - s.behind_since:.0f} s after the players "
                             f"reached v{s.behind_target}", s, s.idx())
                s.behind_since = None
                s.resync_wanted = True

    def mover(self, pair):
        """The player whose move it is by its own view, else one that has not finished."""
        playing = [p for p in pair.players if p.code == pair.code and not p.finished]
        for p in playing:
            if p.ply < len(p.moves) and p.moves[p.ply][1] == p.side:
                return p
        return (playing or pair.players)[0]

    # the nemesis

    def restart(self, node, why):
        deadline = time.time() + 60
        while True:
            try:
                node.start()
                node.expected_down = False
                node.reported_exit = None
                return True
            except SystemExit as e:
                text = str(e).strip().splitlines()
                self.note(f"{node.name} did not start {why}: {text[-1] if text else e}; again")
                if time.time() > deadline:
                    self.violate("node_exit", f"{node.name} could not be restarted {why}: {e}")
                    return False
                time.sleep(1)

    def target(self):
        """A running node, one that owns unfinished games when there is one."""
        up = [n for n in self.nodes if n.running() and not n.stopped]
        owners = [n for n in up if self.owned.get(n.name)]
        return self.rnd.choice(owners or up), bool(owners)

    def fault(self, fid, kind):
        entry = {"id": fid, "fault": kind, "params": {}}
        node, owns = (None, False)
        if kind in ("kill", "stop", "term", "pg-cut", "pg-stall", "redis-cut", "redis-stall"):
            node, owns = self.target()
            entry["target"] = node.name
            entry["owns"] = len(self.owned.get(node.name, []))
        elif kind == "redis":
            entry["target"] = "redis"
        else:
            entry["target"] = "pg"
        self.fault_counts[kind] += 1
        self.fault_on = True
        started = time.time()
        try:
            if kind == "kill":
                down = round(self.rnd.uniform(0.3, 2 * LEASE), 2)
                entry["params"] = {"down_s": down}
                self.log_event(entry)
                node.expected_down = True
                node.kill9()
                time.sleep(down)
                self.restart(node, "after kill -9")
            elif kind == "stop":
                stopped = round(LEASE + self.rnd.uniform(1, 3), 2)
                entry["params"] = {"stopped_s": stopped}
                self.log_event(entry)
                node.stopped = True
                node.proc.send_signal(signal.SIGSTOP)
                time.sleep(stopped)
                node.proc.send_signal(signal.SIGCONT)
                node.stopped = False
            elif kind == "term":
                down = round(self.rnd.uniform(0.3, 3), 2)
                entry["params"] = {"down_s": down}
                self.log_event(entry)
                node.expected_down = True
                node.proc.send_signal(signal.SIGTERM)
                try:
                    code = node.proc.wait(30)
                except subprocess.TimeoutExpired:
                    node.proc.kill()
                    code = node.proc.wait()
                    self.violate("node_exit", f"{node.name} did not exit within 30 s of SIGTERM")
                if code != 0:
                    self.violate("node_exit", f"{node.name} exited {code} on SIGTERM")
                time.sleep(down)
                self.restart(node, "after SIGTERM")
            elif kind == "redis":
                down = round(self.rnd.uniform(0.5, 4), 2)
                entry["params"] = {"restart_after_s": down}
                self.log_event(entry)
                self.redis.kill9()
                time.sleep(down)
                self.redis.start()
            elif kind == "pg":
                mode = self.rnd.choice(["crash", "stop"])
                down = round(self.rnd.uniform(1, 5), 2)
                entry["params"] = {"mode": mode, "restart_after_s": down}
                self.log_event(entry)
                (self.pg.crash if mode == "crash" else self.pg.stop)()
                time.sleep(down)
                self.pg.start()
            else:
                link, mode = kind.split("-")
                seconds = round(self.rnd.uniform(1, 6), 2)
                proxy = node.pg_proxy if link == "pg" else node.redis_proxy
                entry["params"] = {"link": proxy.name, "mode": mode, "duration_s": seconds}
                self.log_event(entry)
                (proxy.cut if mode == "cut" else proxy.stall)(seconds)
                time.sleep(seconds)
        finally:
            self.fault_on = False
            self.healed_at = time.time()
            if kind.startswith("pg"):
                self.store_faults.append((started, self.healed_at))
            healed = {"id": fid, "fault": kind, "target": entry.get("target"), "kind": "healed",
                      "params": entry["params"]}
            self.log_event(healed)

    def nemesis(self):
        end = self.t0 + self.args.duration
        fid = 0
        gap = self.args.gap
        time.sleep(self.rnd.uniform(*gap) + 3)  # the clients start their games
        while time.time() < end:
            fid += 1
            self.fault(fid, self.rnd.choice(self.kinds))
            quiet = self.rnd.uniform(*gap)
            if fid % 5 == 0:
                quiet = STUCK_BOUND + 1
            time.sleep(max(0.0, min(quiet, end - time.time())))
        self.note(f"last fault healed; quiet tail of {STUCK_BOUND + 5:.0f} s")
        time.sleep(STUCK_BOUND + 5)

    # after the run: the data checks

    def journal(self):
        rows = self.sql("SELECT code, version, kind, event, at FROM journal")
        return {(c, int(v)): (k, json.loads(e), int(a)) for c, v, k, e, a in rows}

    def check_data(self):
        journal = self.journal()
        # Every ack in the journal as sent, nothing quarantined (crash_test's own check).
        logs = [p.ack_log.name for p in self.players]
        for p in self.players:
            p.ack_log.close()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ok, acks, over = crash_test.check_journal(self.store, logs)
        for line in out.getvalue().splitlines():
            self.violate("journal", line)
        if not ok and not out.getvalue().strip():
            self.violate("journal", "crash_test.check_journal failed")
        self.counters["acks_checked"] = acks
        # Finished games replay.
        node = next((n for n in self.nodes if n.running()), None)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ok = crash_test.check_replays(node.http, self.cli_bin, over)
        for line in out.getvalue().splitlines():
            self.violate("replay", line)
        if not ok and not out.getvalue().strip():
            self.violate("replay", "crash_test.check_replays failed")
        self.counters["replayed"] = len(over)
        # Journals 1..N.
        for code, count, lo, hi in self.sql("SELECT code, count(*), min(version), max(version) "
                                            "FROM journal GROUP BY code"):
            if lo != "1" or count != hi:
                self.violate("holes", f"game {code}: {count} rows, versions {lo}..{hi}")
        # Every event seen = the journal.
        for c in self.players + self.spectators:
            for (code, v), (kind, payload, idx) in c.seen.items():
                row = journal.get((code, v))
                if row is None:
                    self.violate("events", f"{c.name} {code}: v{v} {kind} seen, not in the "
                                 "journal", c, idx)
                elif row[1].get("kind") != kind or row[1].get("payload") != payload:
                    self.violate("events", f"{c.name} {code}: v{v} seen as {kind} "
                                 f"{compact(payload)}, journal has {row[0]} "
                                 f"{compact(row[1].get('payload'))}", c, idx)
        self.check_refused_applied(journal)
        # welcome.games lists the unfinished games of the player (PROTOCOL.md "Connection
        # lifecycle"): a reconnection's welcome must list the game if it was not over yet;
        # while the server cannot read its store (a PostgreSQL fault, and the few seconds its
        # connections take to come back), only the reached node's games.
        over_at = {code: at for (code, v), (kind, event, at) in journal.items()
                   if kind == "game_over"}
        unreadable = lambda t: any(a <= t <= b + 5 for a, b in self.store_faults)
        for p in self.players:
            for code, t, idx, games in p.welcomes:
                if games is not None and code not in games and not unreadable(t) and \
                        over_at.get(code, float("inf")) > t * 1000:
                    self.violate("other", f"{p.name} {code}: the welcome of a reconnection "
                                 f"lists {games}, not the game being played", p, idx)

    def check_refused_applied(self, journal):
        """Check 4: a move in the journal without an ack whose last request was refused."""
        acked = set()
        for p in self.players:
            for req in p.requests.values():
                for m, _ in req.answers:
                    if m["type"] == "ack":
                        acked.add((req.code, m["version"]))
        movers = {}
        for p in self.players:
            for req in p.requests.values():
                movers.setdefault((req.code, req.ply), []).append((p, req))
        by_game = collections.defaultdict(list)
        for (code, v), (kind, event, at) in journal.items():
            if kind in ("setup", "turn"):
                by_game[code].append((v, kind, event, at))
        for code, rows in by_game.items():
            for ply, (v, kind, event, at) in enumerate(sorted(rows)):
                if (code, v) in acked:
                    continue
                cands = [(p, r) for p, r in movers.get((code, ply), [])
                         if r.t * 1000 <= at + 50]
                if not cands:
                    continue
                p, req = max(cands, key=lambda pr: pr[1].t)
                if req.outcome in REFUSED:
                    m, idx = req.answers[0]
                    self.violate("refused_applied",
                                 f"{p.name} {code}: {req.ref} (version {req.version}) answered "
                                 f"{compact(m)}, but the journal holds the move at v{v} "
                                 f"({kind}, at {stamp(at / 1000)})", p, idx)

    def stop_clients(self):
        self.stopping.set()
        for c in self.players + self.spectators:
            c.join(15)
        # Check 5 at the end: a client still suspended since before the healthy tail.
        for c in self.players + self.spectators:
            if c.suspended is not None and not c.finished and \
                    time.time() - c.suspended > STUCK_BOUND:
                self.violate("resume", f"{c.name}#{c.conn_no}@{c.route} {c.code}: suspended "
                             f"since {stamp(c.suspended)}, no resume snapshot by the end",
                             c, c.idx())

    def stop_nodes(self):
        for n in self.nodes:
            if not n.running():
                continue
            n.expected_down = True
            n.proc.send_signal(signal.SIGTERM)
            try:
                code = n.proc.wait(30)
            except subprocess.TimeoutExpired:
                n.proc.kill()
                code = n.proc.wait()
            if code != 0:
                self.violate("node_exit", f"{n.name} exited {code} on the final SIGTERM")

    def save(self):
        with open(os.path.join(self.work, "violations.jsonl"), "w") as f:
            for v in self.violations:
                entry = {k: (val.name if isinstance(val, Client) else val)
                         for k, val in v.items() if k != "others"}
                entry["others"] = [c.name for c, _ in v.get("others") or []]
                f.write(json.dumps(entry) + "\n")
        folder = os.path.join(self.work, "frames")
        os.mkdir(folder)
        for c in self.players + self.spectators:
            with open(os.path.join(folder, c.name + ".txt"), "w") as f:
                for fr in c.frames:
                    f.write(frame_line(c.name, fr) + "\n")
        try:
            rows = self.sql("SELECT code, version, kind, event FROM journal ORDER BY code, version")
            with open(os.path.join(self.work, "journal.txt"), "w") as f:
                for r in rows:
                    f.write(" ".join(r) + "\n")
        except SystemExit:
            pass

    def execute(self):
        monitor = None
        try:
            self.setup()
            self.t0 = time.time()
            self.start_clients()
            monitor = threading.Thread(target=self.monitor, daemon=True)
            monitor.start()
            self.nemesis()
            self.stop_clients()
            self.check_data()
            self.stop_nodes()
        except Exception:
            self.violate("harness", traceback.format_exc())
        finally:
            self.stopping.set()
            if monitor:
                monitor.join(5)
            try:
                self.save()
            except Exception:
                self.violate("harness", traceback.format_exc())
            self.teardown()
        return self


def frame_line(name, fr):
    t, conn, route, way, msg = fr
    return f"{stamp(t)} {name}#{conn}@{route} {way} {compact(msg, 600)}"


def report(run, examples):
    by = collections.Counter(v["check"] for v in run.violations)
    print(f"\n== seed {run.seed}: {sum(run.fault_counts.values())} faults, "
          f"{run.counters['acks']} acks, {run.counters['games_over']} games finished, "
          f"{sum(by.values())} violations", flush=True)
    shown = collections.Counter()
    for v in run.violations:
        if shown[v["check"]] >= examples:
            continue
        shown[v["check"]] += 1
        print(f"-- {v['check']} [{stamp(v['t'])}]: {v['text']}")
        shown_frames = [(v.get("client"), v.get("idx"))] + list(v.get("others") or [])
        for c, idx in shown_frames:
            if isinstance(c, Client) and idx is not None and c.frames:
                for fr in c.frames[max(0, idx - 8):idx + 3]:
                    print("   " + frame_line(c.name, fr))
    print(f"   counters: " + ", ".join(f"{k} {v}" for k, v in sorted(run.counters.items())))
    print(f"   folder {run.work}")


def summary(runs):
    kinds = FAULT_KINDS
    print("\n== summary")
    head = f"{'seed':>10} {'faults':>6} " + " ".join(f"{k:>11}" for k in kinds) + \
        f" {'acks':>6} {'games':>5}"
    print(head)
    for r in runs:
        print(f"{r.seed:>10} {sum(r.fault_counts.values()):>6} " +
              " ".join(f"{r.fault_counts[k]:>11}" for k in kinds) +
              f" {r.counters['acks']:>6} {r.counters['games_over']:>5}")
    print()
    print(f"{'check':<42}" + "".join(f"{r.seed:>11}" for r in runs) + f"{'total':>8}")
    failed = False
    for key, label in CHECKS:
        counts = [sum(1 for v in r.violations if v["check"] == key) for r in runs]
        failed = failed or any(counts)
        print(f"{label:<42}" + "".join(f"{c:>11}" for c in counts) + f"{sum(counts):>8}")
    return failed


def main():
    ap = argparse.ArgumentParser(description="a nemesis against three nodes behind HAProxy")
    ap.add_argument("server_bin")
    ap.add_argument("cli_bin")
    ap.add_argument("--seed", type=int, default=None, help="the first run's seed (random)")
    ap.add_argument("--runs", type=int, default=1, help="runs, with seeds seed, seed+1, ...")
    ap.add_argument("--duration", type=float, default=None,
                    help=f"seconds of faults per run (default {SHORT_DURATION}, "
                    f"--long {LONG_DURATION})")
    ap.add_argument("--long", action="store_true", help="a hand run: 15 minutes of faults")
    ap.add_argument("--faults", default=",".join(FAULT_KINDS),
                    help="fault kinds to draw from: " + ",".join(FAULT_KINDS))
    ap.add_argument("--gap", default="3,8", help="quiet seconds between faults, MIN,MAX")
    ap.add_argument("--pairs", type=int, default=5, help="pairs of players (2 through HAProxy, "
                    "the others pinned to two nodes)")
    ap.add_argument("--spectators", type=int, default=3)
    ap.add_argument("--think-ms", default="40,200", help="a player's think time, MIN,MAX ms")
    ap.add_argument("--examples", type=int, default=2, help="violations printed per check")
    ap.add_argument("--haproxy", default=shutil.which("haproxy") or "/usr/sbin/haproxy")
    ap.add_argument("--keep", action="store_true", help="keep the folders of passing runs")
    args = ap.parse_args()
    args.duration = args.duration or (LONG_DURATION if args.long else SHORT_DURATION)
    args.gap = tuple(float(x) for x in args.gap.split(","))
    args.think_ms = tuple(float(x) for x in args.think_ms.split(","))
    kinds = [k for k in args.faults.split(",") if k]
    unknown = set(kinds) - set(FAULT_KINDS)
    if unknown:
        ap.error(f"unknown fault kinds {sorted(unknown)}")
    if not os.environ.get("TF_TEST_DATABASE_URL"):
        print("TF_TEST_DATABASE_URL is not set (the postgres test fixture): skipped")
        return SKIP
    for tool in ("redis-server", "psql"):
        if not shutil.which(tool):
            print(f"{tool} is not installed: skipped")
            return SKIP
    if not args.haproxy or not os.path.exists(args.haproxy):
        print("haproxy is not installed: skipped")
        return SKIP
    helptext = subprocess.run([args.server_bin, "--help"], capture_output=True, text=True).stdout
    if "--bus" not in helptext:
        print("cluster mode not in this binary: skipped")
        return SKIP
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"nemesis: seed {seed}, {args.runs} run(s) of {args.duration:.0f} s "
          f"(repeat with --seed {seed})", flush=True)
    runs = []
    for i in range(args.runs):
        run = Run(args, seed + i, kinds).execute()
        report(run, args.examples)
        runs.append(run)
        if not run.violations and not args.keep:
            shutil.rmtree(run.work, ignore_errors=True)
    failed = summary(runs)
    if failed:
        print("FAIL: some checks failed; the runs' folders are kept (frames/, events.jsonl, "
              "violations.jsonl, journal.txt, nK/server.log)")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
