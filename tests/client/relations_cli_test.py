#!/usr/bin/env python3
"""`trunkfield follow`, `unfollow`, `block`, `unblock`, `mute`, `unmute`, `following` and
`report` (client/cli/relations_cmd.cpp, report_cmd.cpp; proto/PROTOCOL.md "Follow and block",
"Reports and moderation") against the real server binary, started on loopback with a new --data
folder (as challenge_cli_test.py, whose helpers it uses). ann, bob and cat are accounts
registered over TCP; ann's token reaches the client through the token file `trunkfield play`
keeps, bob's through TRUNKFIELD_TOKEN, cat's through --token.

  - --help names the commands and their flags; usage errors exit 2.
  - ann follows bob, and cat --quiet: `following` lists them offline, told / not told of their
    games; bob connects: online; bob and cat start a public game: bob and cat are shown playing
    it, with the watch link http://HOST:PORT/g/CODE; ann's notifications say bob started it.
  - ann blocks cat: cat leaves the follows, `following` lists cat as blocked; cat's `challenge
    ann` is refused (cannot_challenge, exit 1) and ann cannot follow cat (blocked, exit 1);
    unblock lifts it.
  - refusals in words, exit 1: an unknown account, one's own account, an unknown token, no token.
  - mute and unmute, listed under Muted (when the server lists `muted`; else mute is refused in
    words and the rest is skipped, said on the output).
  - `report cat --reason abuse --game CODE --text ...`: "Report #N sent", the same N again for the
    same report; an unknown account is refused. Then, when the server has `accounts grant`, bob is
    made a moderator (`trunkfield-server accounts grant bob moderator --data DIR`) and
    GET /api/mod/reports lists the report; ann's is 403 forbidden. (Skipped, and said, when the
    server has no /api/reports yet.)

usage: relations_cli_test.py TRUNKFIELD_BIN SERVER_BIN
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

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
from cli_args_test import check, report  # noqa: E402  (the same helpers)
from challenge_cli_test import register, start_server  # noqa: E402

TIMEOUT = 30.0


class Player:
    """An account's TCP connection kept open (it is online), read line by line."""

    def __init__(self, port, token):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.f = self.sock.makefile("rw", encoding="utf-8", newline="\n")
        self.send({"type": "hello", "version": 1, "token": token})
        self.wait(lambda m: m["type"] == "welcome", "welcome")

    def send(self, msg):
        self.f.write(json.dumps(msg) + "\n")
        self.f.flush()

    def wait(self, pred, what):
        while True:
            line = self.f.readline()
            if not line:
                raise SystemExit(f"FAIL: waiting for {what}: the server closed")
            m = json.loads(line)
            if m.get("type") == "error":
                raise SystemExit(f"FAIL: waiting for {what}: {m}")
            if pred(m):
                return m

    def close(self):
        self.sock.close()


def http(port, method, path, token=None, body=None):
    """(status, JSON answer) of one request to the HTTP API."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read() or b"null")
        except ValueError:
            return e.code, None


def helps(tf):
    def run(argv):
        return subprocess.run([tf] + argv, capture_output=True, text=True, timeout=60)

    r = run(["--help"])
    for sub in ("follow", "unfollow", "block", "unblock", "mute", "unmute", "following", "report"):
        check(r.returncode == 0 and re.search(rf"^  {sub} ", r.stdout, re.M),
              f"trunkfield --help lists {sub}", r)
    r = run(["follow", "--help"])
    check(r.returncode == 0 and all(w in r.stdout for w in ("NAME", "--quiet", "--server",
                                                            "--token", "exit codes")),
          "follow --help: NAME, --quiet, --server, --token, exit codes", r)
    r = run(["following", "--help"])
    check(r.returncode == 0 and "--server" in r.stdout and "--token" in r.stdout,
          "following --help: --server, --token", r)
    r = run(["report", "--help"])
    check(r.returncode == 0 and all(w in r.stdout for w in (
        "NAME", "--reason", "--game", "--text", "cheating", "abuse", "stalling", "sandbagging",
        "other")), "report --help: NAME, --reason and its values, --game, --text", r)
    for argv, words in ((["follow"], "NAME"), (["block", "no spaces"], "not a username"),
                        (["unmute", "ann", "--loud"], "--loud"),
                        (["report", "cat"], "--reason"), (["report", "cat", "--reason", "rude"],
                                                          "--reason"),
                        (["report", "cat", "--reason", "other", "--game", "!!"], "game code"),
                        (["following", "--server", "nowhere"], "HOST:PORT"),
                        (["unfollow", "--quiet", "ann"], "--quiet")):
        r = run(argv)
        check(r.returncode == 2 and r.stderr.startswith(f"trunkfield {argv[0]}: ")
              and words in r.stderr, f"{argv}: usage error (exit 2) mentioning {words!r}", r)


def following_row(out, name):
    """The `following` table's row of `name`, cut into cells where the header's words start;
    None when it is not there."""
    m = re.search(r"^Following \(\d+\):\n(  NAME .*)\n((?:  .*\n)*)", out, re.M)
    if not m:
        return None
    starts = [h.start() for h in re.finditer(r"\S+", m.group(1))]
    for line in m.group(2).splitlines():
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [len(line)])]
        if cells[0] == name:
            return cells
    return None


def listed(out, section, name):
    """Whether `name` is in the `section` table ("Blocked", "Muted") of `following`."""
    m = re.search(rf"^{section} \(\d+\):\n((?:  .*\n)+)", out, re.M)
    return bool(m and re.search(rf"^  {re.escape(name)} ", m.group(1), re.M))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tf, server_bin = sys.argv[1:]
    helps(tf)
    tmp = tempfile.mkdtemp(prefix="tf-relations-cli-")
    proc = log = None
    players = []
    try:
        proc, log, hport, tcp = start_server(server_bin, tmp)
        tokens = {n: register(tcp, n) for n in ("ann", "bob", "cat")}
        api = ["--server", f"127.0.0.1:{hport}"]
        server = ["--server", f"127.0.0.1:{tcp}"]

        base = dict(os.environ, NO_COLOR="1", TERM="xterm", LANG="C.UTF-8")
        for var in ("TRUNKFIELD_TOKEN", "XDG_CONFIG_HOME"):
            base.pop(var, None)
        ann_home = os.path.join(tmp, "ann")
        os.makedirs(os.path.join(ann_home, ".config", "trunkfield"))
        with open(os.path.join(ann_home, ".config", "trunkfield", "token"), "w") as f:
            f.write(f"127.0.0.1:{tcp} {tokens['ann']}\n")
        ann_env = dict(base, HOME=ann_home)
        bob_env = dict(base, HOME=os.path.join(tmp, "bob"), TRUNKFIELD_TOKEN=tokens["bob"])
        cat_env = dict(base, HOME=os.path.join(tmp, "cat"))
        cat_token = ["--token", tokens["cat"]]

        def run(argv, env):
            return subprocess.run([tf] + argv, capture_output=True, text=True, timeout=60,
                                  env=env, stdin=subprocess.DEVNULL)

        def ann_following(pred, what, timeout=10.0):
            """ann's `following`, polled until pred(stdout) (online and playing are live)."""
            deadline = time.time() + timeout
            while True:
                r = run(["following", *api], ann_env)
                if r.returncode == 0 and pred(r.stdout):
                    return r
                if time.time() > deadline:
                    check(False, what, r)
                    return r
                time.sleep(0.2)

        # -- nothing yet --
        r = run(["following", *api], ann_env)
        check(r.returncode == 0 and "Following nobody" in r.stdout and "Blocked: nobody."
              in r.stdout, "ann's following: nobody followed, nobody blocked", r)

        # -- follow; online; playing --
        r = run(["follow", "bob", *api], ann_env)
        check(r.returncode == 0 and r.stdout.startswith("Following bob: you are told when bob "
                                                        "starts a public game."),
              "ann follows bob: exit 0, one line", r)
        check(r.stdout.count("\n") == 1, "the confirmation is one line", r)
        r = run(["follow", "cat", "--quiet", *api], ann_env)
        check(r.returncode == 0 and r.stdout.startswith("Following cat quietly"),
              "ann follows cat --quiet: exit 0", r)
        r = run(["follow", "bob", *api], ann_env)
        check(r.returncode == 0, "following bob again: exit 0 (idempotent)", r)
        r = ann_following(lambda o: following_row(o, "bob") and following_row(o, "cat"),
                          "ann's following lists bob and cat")
        check(re.search(r"^  NAME +ONLINE +PLAYING +NOTIFY +SINCE$", r.stdout, re.M),
              "the table's header", r)
        check(following_row(r.stdout, "bob")[1:4] == ["offline", "-", "yes"],
              "bob: offline, not playing, told of his games", r)
        check(following_row(r.stdout, "cat")[1:4] == ["offline", "-", "no"],
              "cat: offline, not playing, not told (--quiet)", r)
        check(re.search(r"^  bob .*\d{4}-\d\d-\d\d \d\d:\d\d$", r.stdout, re.M),
              "bob's row ends with the date he was followed", r)

        bob = Player(tcp, tokens["bob"])
        players.append(bob)
        ann_following(lambda o: (following_row(o, "bob") or [None, None])[1] == "online",
                      "bob's connection open: ann's following shows him online")
        cat = Player(tcp, tokens["cat"])
        players.append(cat)
        bob.send({"type": "create_game", "time_control": None, "color": "silver",
                  "public": True})
        code = bob.wait(lambda m: m["type"] == "game_created", "game_created")["code"]
        cat.send({"type": "join_game", "code": code})
        cat.wait(lambda m: m["type"] == "snapshot", "cat seated")
        link = f"http://127.0.0.1:{hport}/g/{code}"
        r = ann_following(lambda o: (following_row(o, "bob") or [None] * 3)[2].startswith(code),
                          f"bob plays {code}: ann's following shows it")
        check(following_row(r.stdout, "bob")[1:3] == ["online", f"{code}  watch: {link}"],
              "bob's row: online, the game's code and its watch link", r)
        check((following_row(r.stdout, "cat") or [None] * 3)[1:3]
              == ["online", f"{code}  watch: {link}"], "cat's row: the same game", r)
        deadline = time.time() + 10
        while True:
            r = run(["notifications", *api], ann_env)
            if f"bob started a public game {code}" in r.stdout or time.time() > deadline:
                break
            time.sleep(0.2)
        check(r.returncode == 0 and f"bob started a public game {code}" in r.stdout,
              "ann's notifications: bob started a public game (told; cat's game is not said)", r)
        check("cat started" not in r.stdout, "nothing about cat, followed --quiet", r)

        # -- block --
        r = run(["block", "cat", *api], ann_env)
        check(r.returncode == 0 and r.stdout.startswith("Blocked cat:"), "ann blocks cat", r)
        r = run(["following", *api], ann_env)
        check(r.returncode == 0 and following_row(r.stdout, "cat") is None
              and following_row(r.stdout, "bob") and listed(r.stdout, "Blocked", "cat"),
              "after the block: cat no longer followed, listed as blocked; bob still followed", r)
        r = run(["challenge", "ann", *server, *cat_token], cat_env)
        check(r.returncode == 1 and "cannot_challenge" in r.stdout + r.stderr,
              "cat's challenge to ann, who blocked cat: refused (cannot_challenge), exit 1", r)
        r = run(["follow", "cat", *api], ann_env)
        check(r.returncode == 1 and re.search(r"^trunkfield follow: .*cat.* \(blocked\)$",
                                              r.stderr, re.M),
              "ann cannot follow cat while blocked: exit 1, the server's words", r)
        r = run(["follow", "ann", *api, *cat_token], cat_env)
        check(r.returncode == 1 and "(blocked)" in r.stderr,
              "cat cannot follow ann either (a block works both ways)", r)
        r = run(["unblock", "cat", *api], ann_env)
        check(r.returncode == 0 and r.stdout == "Unblocked cat.\n", "ann unblocks cat", r)
        r = run(["following", *api], ann_env)
        check(r.returncode == 0 and "Blocked: nobody." in r.stdout, "nobody blocked now", r)

        # -- refusals in words --
        r = run(["follow", "nobody_here", *api], ann_env)
        check(r.returncode == 1 and re.search(r"^trunkfield follow: .+ \(unknown_player\)$",
                                              r.stderr, re.M),
              "following an unknown account: exit 1, the message and unknown_player", r)
        r = run(["block", "ann", *api], ann_env)
        check(r.returncode == 1 and "(bad_request)" in r.stderr and "trunkfield block:"
              in r.stderr, "blocking one's own account: exit 1, bad_request", r)
        r = run(["following", *api], dict(base, HOME=ann_home, TRUNKFIELD_TOKEN="0" * 48))
        check(r.returncode == 1 and "does not know the token" in r.stderr,
              "an unknown token: exit 1, says to sign in", r)
        r = run(["unfollow", "bob", *api], cat_env)
        check(r.returncode == 1 and "no token" in r.stderr, "no token: exit 1", r)
        r = run(["following", "--server", "127.0.0.1:1"], ann_env)
        check(r.returncode == 1 and r.stderr.startswith("trunkfield following: "),
              "no server there: exit 1", r)
        r = run(["unfollow", "cat", *api], bob_env)
        check(r.returncode == 0 and r.stdout == "No longer following cat.\n",
              "unfollowing someone not followed: exit 0 (idempotent)", r)

        # -- mute --
        status, rel = http(hport, "GET", "/api/relations", tokens["ann"])
        if status == 200 and isinstance(rel, dict) and "muted" in rel:
            r = run(["mute", "cat", *api], ann_env)
            check(r.returncode == 0 and r.stdout.startswith("Muted cat:"), "ann mutes cat", r)
            r = run(["following", *api], ann_env)
            check(r.returncode == 0 and listed(r.stdout, "Muted", "cat"),
                  "ann's following lists cat as muted", r)
            r = run(["unmute", "cat", *api], ann_env)
            check(r.returncode == 0 and r.stdout.startswith("Unmuted cat"), "ann unmutes cat", r)
            r = run(["following", *api], ann_env)
            check(r.returncode == 0 and "Muted: nobody." in r.stdout, "nobody muted now", r)
        else:
            r = run(["mute", "cat", *api], ann_env)
            check(r.returncode == 1 and "trunkfield mute: " in r.stderr,
                  "a server without mute refuses it in words: exit 1", r)
            r = run(["following", *api], ann_env)
            check(r.returncode == 0 and "Muted: this server does not list them." in r.stdout,
                  "a server without mute: following says so", r)
            print("SKIP: mute and unmute: this server does not list `muted` yet")

        # -- report --
        status, _ = http(hport, "GET", "/api/mod/reports")
        if status == 404:
            print("SKIP: report: this server has no /api/reports yet")
            r = run(["report", "cat", "--reason", "abuse", *api], ann_env)
            check(r.returncode == 1 and r.stderr.startswith("trunkfield report: "),
                  "a server without reports: exit 1, in words", r)
        else:
            argv = ["report", "cat", "--reason", "abuse", "--game", code.upper(), "--text",
                    "rude in the chat", *api]
            r = run(argv, ann_env)
            m = re.match(rf"Report #(\d+) sent: cat, abuse, game {code}\.", r.stdout)
            check(r.returncode == 0 and m, "ann reports cat: exit 0, the report's number", r)
            report_id = int(m.group(1)) if m else None
            r = run(argv, ann_env)
            check(r.returncode == 0 and m and r.stdout.startswith(f"Report #{report_id} sent"),
                  "the same report again: the same number", r)
            r = run(["report", "nobody_here", "--reason", "other", *api], ann_env)
            check(r.returncode == 1 and "(unknown_player)" in r.stderr,
                  "reporting an unknown account: exit 1, unknown_player", r)
            r = run(["report", "ann", "--reason", "other", *api], ann_env)
            check(r.returncode == 1 and "(bad_request)" in r.stderr,
                  "reporting oneself: exit 1, bad_request", r)
            h = subprocess.run([server_bin, "accounts", "--help"], capture_output=True,
                               text=True, timeout=60)
            if h.returncode != 0 or "grant" not in h.stdout:
                print("SKIP: the moderator's list: the server has no `accounts grant` yet")
            else:
                g = subprocess.run([server_bin, "accounts", "grant", "bob", "moderator", "--data",
                                    os.path.join(tmp, "data")], capture_output=True, text=True,
                                   timeout=60)
                check(g.returncode == 0, f"accounts grant bob moderator: exit {g.returncode}\n"
                                         f"{g.stdout}{g.stderr}")
                status, j = http(hport, "GET", "/api/mod/reports", tokens["bob"])
                mine = [x for x in (j or {}).get("reports", []) if x.get("id") == report_id]
                check(status == 200 and len(mine) == 1 and mine[0].get("reporter") == "ann"
                      and mine[0].get("player") == "cat" and mine[0].get("reason") == "abuse"
                      and mine[0].get("game") == code,
                      f"the moderator bob's GET /api/mod/reports lists report {report_id}: "
                      f"{status} {json.dumps(j)[:800]}")
                status, j = http(hport, "GET", "/api/mod/reports", tokens["ann"])
                check(status == 403 and (j or {}).get("error") == "forbidden",
                      f"ann (no moderator) is refused the list: {status} {j}")
    finally:
        for p in players:
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
    return report("relations_cli_test")


if __name__ == "__main__":
    sys.exit(main())
