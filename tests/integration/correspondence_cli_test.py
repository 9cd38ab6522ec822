#!/usr/bin/env python3
"""Correspondence games in the terminal client (client/cli: play_input.cpp's time controls,
play_view.cpp's clocks, notifications_cmd.cpp's `playing` and the your_turn line; proto/
PROTOCOL.md "Correspondence games") against the real server binary, started on loopback with a
new --data folder and days of their real length (so that the clocks read in days). ann and bob
are accounts registered over TCP; their tokens reach the client through TRUNKFIELD_TOKEN.

  - --help: `playing` is listed, with --server and --token; `challenge --clock` names DAYSd.
    `--clock 4d` is a usage error (exit 2) naming the days allowed.
  - ann's `playing` before any game: "No games going on."
  - ann challenges bob with `--clock 3d` on a pseudo-terminal; bob's `notifications` say "ann
    challenges you (9x9, 3 days per move, casual, ...)"; bob accepts with `trunkfield accept
    CODE` on another: both game screens say "3 days per move". ann places `setup auto` and quits
    (her seat stays); bob places his: ann's first turn starts while she is away, and bob's
    screen and prompt show the clocks in days ("clock 3d 0h", not 72:00:00). bob quits.
  - ann's `playing`: "Your move in 1 of 1 game", the game's row: bob, 3 days per move, your
    move (silver), days and hours left. bob's: "Your move in 0 of 1 game", waiting (bronze).
  - ann's `notifications`: "Your turn against bob in CODE (move by YYYY-MM-DD HH:MM)".
  - ann's `vacation`: off with 30 days; `vacation on` starts it (it ends by itself on ...),
    `vacation` shows it, `vacation off` ends it; `vacation maybe` is a usage error.
  - `playing` with an unknown token: exit 1 in words; no token at all: exit 1.

usage: correspondence_cli_test.py TRUNKFIELD_BIN SERVER_BIN
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "client"))
from cli_args_test import check, report  # noqa: E402  (the same helpers)
from challenge_cli_test import register, start_server  # noqa: E402
from play_pty_test import PtyClient  # noqa: E402  (the pty driver of `trunkfield play`)

DAYS = r"\d+d \d+h"  # a correspondence clock from an hour up: "2d 23h"


def helps(tf, server_bin):
    def run(argv):
        return subprocess.run([tf] + argv, capture_output=True, text=True, timeout=60)

    r = run(["--help"])
    check(r.returncode == 0 and re.search(r"^  playing ", r.stdout, re.M),
          "trunkfield --help lists playing", r)
    r = run(["playing", "--help"])
    check(r.returncode == 0 and all(w in r.stdout for w in ("--server", "--token", "exit codes")),
          "playing --help: --server, --token, exit codes", r)
    r = run(["challenge", "--help"])
    check(r.returncode == 0 and "DAYSd" in r.stdout and "correspondence" in r.stdout,
          "challenge --help: --clock takes DAYSd (correspondence)", r)
    r = run(["challenge", "bob", "--clock", "4d"])
    check(r.returncode == 2 and "1, 2, 3, 5, 7, 10 or 14" in r.stderr,
          "challenge --clock 4d: usage error naming the days allowed", r)
    r = run(["playing", "--server", "nowhere"])
    check(r.returncode == 2 and r.stderr.startswith("trunkfield playing: "),
          "playing --server nowhere: usage error", r)
    r = subprocess.run([server_bin, "--help"], capture_output=True, text=True, timeout=60)
    if "--correspondence-day-seconds" not in r.stdout:
        print("NOTE: this server has no --correspondence-day-seconds: correspondence games may "
              "not be there yet")


def quit_screen(who, p):
    p.type("quit")
    deadline = time.time() + 10
    while p.proc.poll() is None and time.time() < deadline:
        p.pump(0.05)
    check(p.proc.poll() == 0, f"{who} quits the game screen: exit {p.proc.poll()}")
    p.close()


def playing_row(out, code):
    """The `playing` table's row of `code`, cut into cells where the header's words start."""
    m = re.search(r"^(  CODE .*)\n((?:  .*\n)*)", out, re.M)
    if not m:
        return None
    # The header's columns: words of it separated by two spaces or more.
    starts = [h.start() for h in re.finditer(r"(?:(?<=\s\s)|^)\S", m.group(1))]
    for line in m.group(2).splitlines():
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [len(line)])]
        if cells and cells[0] == code:
            return dict(zip([c.strip() for c in re.split(r"\s{2,}", m.group(1).strip())],
                            cells))
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tf, server_bin = sys.argv[1:]
    helps(tf, server_bin)
    tmp = tempfile.mkdtemp(prefix="tf-correspondence-cli-")
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
        os.makedirs(ann_home)
        os.makedirs(bob_home)
        ann_env = dict(base, HOME=ann_home, TRUNKFIELD_TOKEN=ann_token)
        bob_env = dict(base, HOME=bob_home, TRUNKFIELD_TOKEN=bob_token)

        def run(argv, env):
            return subprocess.run([tf] + argv, capture_output=True, text=True, timeout=60,
                                  env=env, stdin=subprocess.DEVNULL)

        r = run(["playing", *api], ann_env)
        check(r.returncode == 0 and r.stdout == "No games going on.\n",
              "ann's playing before any game: none", r)
        if r.returncode != 0:
            return report("correspondence_cli_test")

        # -- a correspondence challenge, accepted; the setups; the clocks in days --
        ann = PtyClient([tf, "challenge", "bob", *server, "--clock", "3d", "--color", "silver"],
                        ann_env)
        running.append(ann)
        code = ann.expect(r"Challenge sent to bob: game ([0-9a-z]{6})",
                          "the correspondence challenge").group(1)
        r = run(["notifications", *api], bob_env)
        check(r.returncode == 0 and re.search(
            r"ann challenges you \(9x9, 3 days per move, casual, you play bronze\): "
            rf"trunkfield accept {code}$", r.stdout, re.M),
            "bob's notifications: ann's challenge of 3 days per move", r)
        bob = PtyClient([tf, "accept", code, *server], bob_env)
        running.append(bob)
        bob.expect(r"3 days per move", "bob's game screen names the time control")
        bob.expect(r"setup: silver to place", "bob's game screen")
        ann.expect(r"bob accepted your challenge\.", "ann is told bob accepted")
        ann.expect(r"setup: silver to place \(you\)", "ann's game screen: her setup")
        check("3 days per move" in ann.text(), "ann's game screen names the time control")
        ann.type("setup auto")
        ann.expect(r"setup: bronze to place", "ann's setup placed")
        quit_screen("ann", ann)
        bob.expect(r"setup: bronze to place \(you\)", "bob's setup expected")
        bob.type("setup auto")
        bob.expect(r"turn 1: silver to move", "bob's setup placed: silver's first turn")
        bob.type("board")
        m = bob.expect(rf"clock ({DAYS})", "bob's screen shows the clocks in days")
        check(m is not None and not re.search(r"clock \d+:\d\d:\d\d", bob.text()[m.start():]),
              "no h:mm:ss clock in a correspondence game")
        bob.expect(rf"\[{code} silver to move S {DAYS} b {DAYS} you:b\]",
                   "bob's prompt shows the clocks in days")
        quit_screen("bob", bob)

        # -- playing: your move first; waiting --
        r = run(["playing", *api], ann_env)
        check(r.returncode == 0 and r.stdout.startswith("Your move in 1 of 1 game:\n"),
              "ann's playing: her move in the one game", r)
        row = playing_row(r.stdout, code) or {}
        check(row.get("OPPONENT") == "bob" and row.get("TIME CONTROL") == "3 days per move" and
              row.get("STATE") == "your move (silver)" and
              re.fullmatch(DAYS, row.get("TIME LEFT", "")),
              f"ann's row of {code}: bob, 3 days per move, your move, days left: {row}", r)
        check("watch CODE" in r.stdout, "ann is told how to play it", r)
        r = run(["playing", *api], bob_env)
        check(r.returncode == 0 and r.stdout.startswith("Your move in 0 of 1 game:\n"),
              "bob's playing: not his move", r)
        row = playing_row(r.stdout, code) or {}
        check(row.get("OPPONENT") == "ann" and row.get("STATE") == "waiting (bronze)" and
              re.fullmatch(DAYS, row.get("TIME LEFT", "")),
              f"bob's row of {code}: ann, waiting, days left: {row}", r)

        # -- your_turn --
        deadline = time.time() + 10
        while True:
            r = run(["notifications", *api], ann_env)
            if re.search(rf"Your turn against bob in {code} \(move by \d{{4}}-\d\d-\d\d \d\d:\d\d\)"
                         rf": trunkfield play, then  watch {code}$", r.stdout, re.M):
                break
            if time.time() > deadline:
                check(False, "ann's notifications: your turn against bob (move by ...)", r)
                break
            time.sleep(0.2)

        # -- vacation (PROTOCOL.md "Vacation") --
        r = run(["vacation", *api], ann_env)
        check(r.returncode == 0 and "You are not on vacation." in r.stdout and
              "30.0 of 30.0 vacation days left" in r.stdout, "ann's vacation: off, 30 days", r)
        r = run(["vacation", "on", *api], ann_env)
        check(r.returncode == 0 and "Vacation started" in r.stdout and
              "It ends by itself on" in r.stdout, "vacation on", r)
        r = run(["vacation", *api], ann_env)
        check(r.returncode == 0 and "You are on vacation since" in r.stdout, "on, shown", r)
        r = run(["vacation", "off", *api], ann_env)
        check(r.returncode == 0 and "Vacation ended" in r.stdout, "vacation off", r)
        r = run(["vacation", "maybe", *api], ann_env)
        check(r.returncode == 2, "vacation maybe: usage error", r)

        # -- refusals --
        r = run(["playing", *api], dict(base, HOME=ann_home, TRUNKFIELD_TOKEN="0" * 48))
        check(r.returncode == 1 and "does not know the token" in r.stderr,
              "playing with an unknown token: exit 1", r)
        r = run(["playing", *api], dict(base, HOME=os.path.join(tmp, "nobody")))
        check(r.returncode == 1 and "no token" in r.stderr, "playing without a token: exit 1", r)
    finally:
        for p in running:
            p.close()
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
    return report("correspondence_cli_test")


if __name__ == "__main__":
    sys.exit(main())
