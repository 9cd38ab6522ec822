#!/usr/bin/env python3
"""`trunkfield challenge`, `accept`, `decline` and `notifications` (client/cli/challenge_cmd.cpp,
notifications_cmd.cpp; proto/PROTOCOL.md "Challenges", "Notifications") against the real server
binary, started on loopback with a new --data folder. ann and bob are accounts registered over
TCP; ann's token reaches the client through TRUNKFIELD_TOKEN, bob's through the token file
`trunkfield play` keeps (XDG_CONFIG_HOME/trunkfield/token, "127.0.0.1:TCP TOKEN").

  - ann challenges bob (7x7, 5+2, ann silver), her command waiting in the background with its
    input closed; bob's `trunkfield notifications` (the HTTP port) lists the challenge, unread,
    with the command that accepts it; bob declines it (`decline CODE --reason later`): ann's
    command says "bob declined: ..." and exits 1; ann's notifications say bob declined, and
    `--read` marks them read (then none unread; `--all` still lists them).
  - a second challenge, ann's command on a pseudo-terminal, accepted by bob's `trunkfield accept
    CODE` on another: both show the game screen of `trunkfield play` (the board, silver to
    place its setup, ann told bob accepted); both quit (exit 0).
  - a third, taken back by Ctrl-C (SIGINT): "cancelled", exit 1; accepting or declining it
    afterwards is refused (exit 1).
  - a challenge to an unknown username is refused (exit 1); no token at all: exit 1.

usage: challenge_cli_test.py TRUNKFIELD_BIN SERVER_BIN
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
from cli_args_test import check, report  # noqa: E402  (the same helpers)
from play_pty_test import PtyClient, plain  # noqa: E402  (the pty driver of `trunkfield play`)

PASSWORD = "correct-horse-battery-42"
TIMEOUT = 30.0


def start_server(binary, tmp):
    log_path = os.path.join(tmp, "server.log")
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    log = open(log_path, "w")
    proc = subprocess.Popen([binary, "--http-port", "0", "--tcp-port", "0", "--bind",
                             "127.0.0.1", "--data", data], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        with open(log_path) as f:
            m = re.search(r"listening http=\S*:(\d+) tcp=\S*:(\d+)", f.read())
        if m:
            return proc, log, int(m.group(1)), int(m.group(2))
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    with open(log_path) as f:
        raise SystemExit("FAIL: the server did not start:\n" + f.read())


def register(port, username):
    """An account over TCP: hello, then register; its token."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        f = s.makefile("rw", encoding="utf-8", newline="\n")

        def send(msg):
            f.write(json.dumps(msg) + "\n")
            f.flush()

        def wait(pred):
            while True:
                line = f.readline()
                if not line:
                    raise SystemExit(f"FAIL: register {username}: the server closed")
                m = json.loads(line)
                if pred(m):
                    return m

        send({"type": "hello", "version": 1, "name": username})
        wait(lambda m: m["type"] == "welcome")
        send({"type": "register", "username": username, "password": PASSWORD, "ref": "reg"})
        w = wait(lambda m: m.get("ref") == "reg")
        if w["type"] != "welcome" or not w.get("account"):
            raise SystemExit(f"FAIL: register {username}: {w}")
        return w["token"]


class Background:
    """A command with piped output (and its input closed), read as it comes."""

    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=env)
        self.out = ""
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for chunk in iter(lambda: self.proc.stdout.read1(4096), b""):
            with self.lock:
                self.out += chunk.decode("utf-8", "replace")

    def text(self):
        with self.lock:
            return plain(self.out)

    def expect(self, pattern, what, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(pattern, self.text(), re.M)
            if m:
                return m
            if self.proc.poll() is not None:
                self.reader.join(2)
                m = re.search(pattern, self.text(), re.M)
                if m:
                    return m
                break
            time.sleep(0.05)
        check(False, f"{what}: {pattern!r} not seen (exit {self.proc.poll()}); output:\n"
                     f"{self.text()[-2000:]}")
        return None

    def finish(self, timeout=TIMEOUT):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(5)
        return self.proc.returncode

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.finish()


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tf, server_bin = sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="tf-challenge-cli-")
    proc = log = None
    running = []
    try:
        proc, log, http, tcp = start_server(server_bin, tmp)
        ann_token, bob_token = register(tcp, "ann"), register(tcp, "bob")
        server = ["--server", f"127.0.0.1:{tcp}"]
        api = ["--server", f"127.0.0.1:{http}"]

        base = dict(os.environ, NO_COLOR="1", TERM="xterm", LANG="C.UTF-8")
        for var in ("TRUNKFIELD_TOKEN", "XDG_CONFIG_HOME"):
            base.pop(var, None)
        ann_home, bob_home = os.path.join(tmp, "ann"), os.path.join(tmp, "bob")
        os.makedirs(os.path.join(bob_home, ".config", "trunkfield"))
        os.makedirs(ann_home)
        with open(os.path.join(bob_home, ".config", "trunkfield", "token"), "w") as f:
            f.write(f"127.0.0.1:{tcp} {bob_token}\n")
        ann_env = dict(base, HOME=ann_home, TRUNKFIELD_TOKEN=ann_token)
        bob_env = dict(base, HOME=bob_home)

        def run(argv, env):
            return subprocess.run([tf] + argv, capture_output=True, text=True, timeout=60,
                                  env=env, stdin=subprocess.DEVNULL)

        # -- a challenge, declined --
        ann = Background([tf, "challenge", "bob", *server, "--size", "7", "--clock", "5+2",
                          "--color", "silver"], ann_env)
        running.append(ann)
        m = ann.expect(r"Challenge sent to bob: game ([0-9a-z]{6})", "ann's challenge is made")
        if not m:
            return report("challenge_cli_test")
        code = m.group(1)
        check(ann.proc.poll() is None, "ann's command waits with its input closed")
        r = run(["notifications", *api], bob_env)
        check(r.returncode == 0, "bob's notifications: exit 0", r)
        check(re.search(r"^\* \d{4}-\d\d-\d\d \d\d:\d\d  ann challenges you \(7x7, 5\+2, casual, "
                        rf"you play bronze\): trunkfield accept {code}$", r.stdout, re.M),
              "bob's notifications list ann's challenge, unread, with the command to accept it", r)
        check("1 unread" in r.stdout, "bob has one unread notification", r)
        r = run(["decline", code.upper(), "--reason", "later", *server], bob_env)
        check(r.returncode == 0 and f"Declined the challenge {code}: not now, ask again later."
              in r.stdout, "bob declines with reason later: exit 0, the outcome said", r)
        rc = ann.finish()
        check(rc == 1, f"ann's command exits 1 once declined (exit {rc})")
        check("bob declined: not now, ask again later" in ann.text(),
              f"ann's command says bob declined, and why; output:\n{ann.text()[-1500:]}")
        r = run(["decline", code, *server], bob_env)
        check(r.returncode == 1 and "trunkfield decline:" in r.stderr,
              "declining it again is refused (exit 1, the server's message)", r)
        r = run(["notifications", *api, "--read"], ann_env)
        check(r.returncode == 0 and re.search(
            rf"^\* .*  bob declined your challenge {code}: later$", r.stdout, re.M),
            "ann's notifications say bob declined, and why", r)
        check("Marked all read" in r.stdout, "ann's --read marks them read", r)
        r = run(["notifications", *api], ann_env)
        check(r.returncode == 0 and "No unread notifications" in r.stdout,
              "after --read: nothing unread", r)
        r = run(["notifications", *api, "--all"], ann_env)
        check(r.returncode == 0 and re.search(
            rf"^  .*  bob declined your challenge {code}: later$", r.stdout, re.M),
            "--all lists the read ones, unmarked", r)

        # -- a challenge, accepted: both on the game screen --
        ann = PtyClient([tf, "challenge", "bob", *server, "--color", "silver"], ann_env)
        running.append(ann)
        code2 = ann.expect(r"Challenge sent to bob: game ([0-9a-z]{6})",
                           "the second challenge").group(1)
        ann.expect(r"waiting for bob to answer the challenge", "the open challenge's screen")
        bob = PtyClient([tf, "accept", code2, *server], bob_env)
        running.append(bob)
        bob.expect(r"setup: silver to place", "bob's game screen")
        bob.expect(rf"\[{code2} silver's setup", "bob's prompt names the game")
        ann.expect(r"bob accepted your challenge\.", "ann is told bob accepted")
        ann.expect(r"setup: silver to place \(you\)", "ann's game screen: her setup")
        ann.expect(r"Your setup:", "ann's hint for her setup")
        for who, p in (("ann", ann), ("bob", bob)):
            p.type("quit")
            deadline = time.time() + 10
            while p.proc.poll() is None and time.time() < deadline:
                p.pump(0.05)
            check(p.proc.poll() == 0, f"{who} quits the game screen: exit {p.proc.poll()}")
            p.close()

        # -- a challenge taken back with Ctrl-C --
        ann = Background([tf, "challenge", "bob", *server, "--clock", "none"], ann_env)
        running.append(ann)
        m = ann.expect(r"Challenge sent to bob: game ([0-9a-z]{6})", "the third challenge")
        if m:
            code3 = m.group(1)
            ann.expect(r"waiting for bob to answer", "the third challenge's screen")
            ann.proc.send_signal(signal.SIGINT)
            rc = ann.finish()
            check(rc == 1 and f"Challenge {code3} cancelled." in ann.text(),
                  f"Ctrl-C cancels the challenge (exit {rc}); output:\n{ann.text()[-1500:]}")
            r = run(["accept", code3, *server], bob_env)
            check(r.returncode == 1, "accepting a cancelled challenge: exit 1", r)
            r = run(["decline", code3, *server], bob_env)
            check(r.returncode == 1, "declining a cancelled challenge: exit 1", r)

        # -- refusals --
        r = run(["challenge", "nobody_here", *server], ann_env)
        check(r.returncode == 1 and "unknown_player" in r.stdout,
              "a challenge to an unknown username: exit 1, unknown_player", r)
        r = run(["challenge", "bob", *server], dict(base, HOME=os.path.join(tmp, "nobody")))
        check(r.returncode == 1 and "no token" in r.stderr, "no token: exit 1", r)
        r = run(["notifications", *api], dict(base, HOME=bob_home, TRUNKFIELD_TOKEN="0" * 48))
        check(r.returncode == 1 and "does not know the token" in r.stderr,
              "notifications with an unknown token: exit 1", r)
        r = run(["notifications", *api], bob_env)
        check(r.returncode == 0 and "ann challenges you" in r.stdout,
              "bob's saved token reaches the HTTP API too", r)
    finally:
        for p in running:
            if isinstance(p, PtyClient):
                p.close()
            else:
                p.stop()
        if proc:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        if log:
            log.close()
            with open(os.path.join(tmp, "server.log"), errors="replace") as f:
                bad = [l for l in f if "AddressSanitizer" in l or "runtime error" in l]
            check(not bad, "the server's log complains: " + "".join(bad[:5]))
        shutil.rmtree(tmp, ignore_errors=True)
    return report("challenge_cli_test")


if __name__ == "__main__":
    sys.exit(main())
