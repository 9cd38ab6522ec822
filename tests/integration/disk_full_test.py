#!/usr/bin/env python3
"""A full disk never takes the server down, and games come back when space does (issue 15).

The data folder sits on a small tmpfs (mount needs root; without it the test is skipped, exit
77). Two games are played from TCP clients replaying legal records from `trunkfield rules
random`; the file system is then filled, and game A's next turn cannot be saved. Checked while
the disk is full: the process stays up, A is suspended (the mover is told, with its ref, and so
is everyone else, once), a watch with and without since_version, a player's reconnection with
its token, the live list, the history API and /readyz all answer; new games are refused; game B,
which wrote nothing meanwhile, is untouched. Then space is freed: A resumes at its last saved
version by itself, both games finish, and every acknowledged setup and turn is in the journal.

usage: disk_full_test.py SERVER_BIN CLI_BIN
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SERVER, CLI = sys.argv[1], sys.argv[2]
SKIP = 77


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


class Client:
    def __init__(self, port, name=None, token=None):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.f = self.s.makefile("rb")
        hello = {"type": "hello", "version": 1}
        if name:
            hello["name"] = name
        if token:
            hello["token"] = token
        self.send(hello)
        self.welcome = self.wait("welcome")
        self.id, self.token = self.welcome["player_id"], self.welcome["token"]

    def send(self, m):
        self.s.sendall((json.dumps(m) + "\n").encode())

    def recv(self):
        line = self.f.readline()
        if not line:
            fail("connection closed")
        return json.loads(line)

    def wait(self, t, pred=lambda m: True):
        while True:
            m = self.recv()
            if m["type"] == t and pred(m):
                return m
            if m["type"] == "error" and t != "error":
                fail("unexpected error %r while waiting for %s" % (m, t))


class Game:
    """Two players replaying one legal record."""

    def __init__(self, port, seed, names):
        self.rec = json.loads(subprocess.check_output([CLI, "rules", "random", str(seed)]))
        self.a, self.b = Client(port, names[0]), Client(port, names[1])
        self.a.send({"type": "create_game", "time_control": None, "color": "silver",
                     "public": True})
        self.code = self.a.wait("game_created")["code"]
        self.b.send({"type": "join_game", "code": self.code})
        self.version = self.b.wait("snapshot")["version"]
        self.by = {"silver": self.a, "bronze": self.b}
        self.step = 0  # setups then turns of the record done
        self.acked = 0

    def action(self):
        if self.step < 2:
            side = "silver" if self.step == 0 else "bronze"
            return side, {"type": "setup", "game": self.code, "setup": self.rec["setup"][side]}
        i = self.step - 2
        side = "silver" if i % 2 == 0 else "bronze"
        return side, {"type": "turn", "game": self.code, "turn": self.rec["turns"][i]}

    def done(self):
        return self.step >= 2 + len(self.rec["turns"])

    def play(self, ref):
        """Sends the next setup or turn: its ack, or the error that refused it."""
        side, msg = self.action()
        msg.update({"version": self.version, "ref": ref})
        c = self.by[side]
        c.send(msg)
        while True:
            m = c.recv()
            if m.get("type") == "ack" and m.get("ref") == ref:
                self.version = m["version"]
                self.step += 1
                self.acked += 1
                return m
            if m.get("type") == "error" and m.get("ref") == ref:
                return m


def http(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def main():
    if os.geteuid() != 0:
        print("SKIP: mounting a tmpfs needs root")
        return SKIP
    top = tempfile.mkdtemp(prefix="tf-diskfull-")
    mnt = os.path.join(top, "mnt")
    os.mkdir(mnt)
    if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", mnt]) != 0:
        print("SKIP: cannot mount a tmpfs here")
        return SKIP
    proc = None
    try:
        log_path = os.path.join(top, "server.log")
        log = open(log_path, "w")
        proc = subprocess.Popen([SERVER, "--bind", "127.0.0.1", "--http-port", "0", "--tcp-port",
                                 "0", "--data", os.path.join(mnt, "data"), "--rate", "1000000",
                                 "--burst", "1000000", "--web-root", "", "--live-interval-ms",
                                 "0"], stdout=log, stderr=subprocess.STDOUT)
        ports = None
        for _ in range(3000):
            m = re.search(r"listening http=[\d.]+:(\d+) tcp=[\d.]+:(\d+)", open(log_path).read())
            if m:
                ports = int(m.group(1)), int(m.group(2))
                break
            if proc.poll() is not None:
                fail("server exited: " + open(log_path).read())
            time.sleep(0.01)
        if not ports:
            fail("server did not start")
        hp, tp = ports
        ga, gb = Game(tp, 7, ("ann", "bob")), Game(tp, 11, ("cat", "dan"))
        for i in range(8):
            if "ack" != ga.play("a%d" % i)["type"] or "ack" != gb.play("b%d" % i)["type"]:
                fail("a turn was refused before the disk filled")

        # Fill the file system; the next writes of game A cannot be saved.
        # Unbuffered: a write the file system takes in part leaves nothing behind in a buffer
        # for close() to fail on (how much room is left depends on the store's size).
        with open(os.path.join(mnt, "filler"), "wb", buffering=0) as f:
            try:
                while f.write(b"\0" * 65536):
                    pass
            except OSError:
                pass
        err = None
        for i in range(200):
            r = ga.play("full%d" % i)
            if r["type"] == "error":
                err = r
                break
        if err is None:
            fail("the disk filled up but every write still succeeded")
        if err["code"] != "store_failed" or err["version"] != ga.version:
            fail("the refused turn got %r" % err)
        saved = ga.version
        other = ga.b if ga.by[ga.action()[0]] is ga.a else ga.a
        e = other.wait("error")
        if e["code"] != "store_failed" or "ref" in e:
            fail("the opponent got %r" % e)
        if proc.poll() is not None:
            fail("the server died")

        # Everything answers while the disk is full.
        w = Client(tp, "watcher")
        w.send({"type": "watch", "code": ga.code})
        snap = w.wait("snapshot")
        if snap["status"] != "suspended" or snap["version"] != saved:
            fail("watch: %r %r" % (snap["status"], snap["version"]))
        w.send({"type": "watch", "code": ga.code, "since_version": saved - 2})
        evs = [w.wait("event"), w.wait("event")]
        if [x["version"] for x in evs] != [saved - 1, saved]:
            fail("watch since_version replayed %r" % [x["version"] for x in evs])
        again = Client(tp, token=ga.a.token)
        if ga.code not in again.welcome["games"]:
            fail("welcome after a reconnection lost the game: %r" % again.welcome)
        again.send({"type": "watch", "code": ga.code, "since_version": saved})
        again.send({"type": "ping"})
        again.wait("pong")
        w.send({"type": "list_live"})
        live = {g["code"]: g for g in w.wait("live")["games"]}
        if live[ga.code]["status"] != "suspended" or live[gb.code]["status"] != "playing":
            fail("live list: %r" % live)
        st, body = http(hp, "/api/games/" + ga.code)
        if st != 200 or json.loads(body)["status"] != "suspended":
            fail("history API: %d %s" % (st, body[:200]))
        st, _ = http(hp, "/readyz")
        if st != 503:
            fail("/readyz answered %d while the store cannot write" % st)
        st, metrics = http(hp, "/metrics")
        if "trunkfield_games_suspended 1" not in metrics:
            fail("metrics do not count the suspended game")
        w.send({"type": "create_game", "time_control": None, "color": "silver", "public": True})
        if w.wait("error")["code"] != "store_unavailable":
            fail("a new game was not refused")

        # Still paused a while later: a write that happens to fit is no reason to resume.
        time.sleep(2)
        w.send({"type": "watch", "code": ga.code})
        if w.wait("snapshot")["status"] != "suspended":
            fail("the game resumed while the disk is still full")

        # Space comes back: A resumes by itself at its last saved version.
        os.remove(os.path.join(mnt, "filler"))
        for c in (ga.a, ga.b, w, again):
            snap = c.wait("snapshot")
            if snap["status"] != "playing" or snap["version"] != saved:
                fail("after recovery: %r %r" % (snap["status"], snap["version"]))
        deadline = time.time() + 30
        while http(hp, "/readyz")[0] != 200:
            if time.time() > deadline:
                fail("/readyz stays not ready after recovery")
            time.sleep(0.1)

        # Both games finish; every acknowledged setup and turn is in the journal.
        for g in (ga, gb):
            i = 0
            while not g.done():
                r = g.play("z%d" % i)
                if r["type"] != "ack":
                    fail("after recovery a turn was refused: %r" % r)
                i += 1
            g.a.wait("event", lambda m: m["kind"] == "game_over")
            st, body = http(hp, "/api/games/" + g.code)
            d = json.loads(body)
            turns = d["record"]["turns"]
            if d["status"] != "over" or turns != g.rec["turns"] or g.acked != 2 + len(turns):
                fail("game %s: status %s, %d turns stored, %d acked" %
                     (g.code, d["status"], len(turns), g.acked))
        if proc.poll() is not None:
            fail("the server died")
        if log.closed is False:
            log.flush()
        text = open(log_path).read()
        if text.count("store: writes fail") != 1:
            fail("the failure episode was not logged exactly once:\n" + text)
        if os.environ.get("TF_SHOW_LOG"):
            print(text)
        print("ok: game %s suspended at version %d and resumed; both games finished" %
              (ga.code, saved))
        return 0
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)
        subprocess.call(["umount", mnt])
        shutil.rmtree(top, ignore_errors=True)


sys.exit(main())
