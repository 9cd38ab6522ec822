#!/usr/bin/env python3
"""`trunkfield tournaments`, `tournament ID`, `join-tournament ID` and `withdraw-tournament ID`
(client/cli/tournament_cmd.cpp; proto/PROTOCOL.md "Tournaments") against the real server binary,
started on loopback with a new --data folder (as challenge_cli_test.py, whose helpers it uses).
ann and bob are accounts registered over TCP; ann's token reaches the client through --token,
bob's through TRUNKFIELD_TOKEN.

  - --help names the commands; a malformed id is a usage error (exit 2).
  - `tournaments` with no token: "No tournament..."; then ann's Swiss of one round (over HTTP)
    and her private arena with a password: the list without a token shows the Swiss only, with
    ann's token both, each with its kind, clock, players and when it starts.
  - join-tournament: ann "Entered", again "Already in"; bob without the password is refused in
    words (wrong_password, exit 1), with it "Entered"; withdraw and join again: "Back in".
  - refusals, exit 1: an unknown id (not_found), withdrawing from one not entered
    (not_entered), entering with no token.
  - the Swiss (on the small board) starts: `tournament ID` shows both players and the game they
    play (its code, the one the standings of GET /api/tournament/ID give); then a level-1
    `trunkfield bot` for each plays it to its end (a game resigned before any turn of play
    would be worth nothing: docs/TOURNAMENTS.md); the tournament finishes: the winner first with
    score 1 and 1-0-0 (or both 0.5 after a draw), "finished" and the report's address.

usage: tournament_cli_test.py TRUNKFIELD_BIN SERVER_BIN
"""
import json
import os
import shutil
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
from challenge_cli_test import register, start_server  # noqa: E402

TIMEOUT = 30.0
SMALL = {"size": 7, "elephants": 3, "burnt": 2, "quiet": 30}  # the small board: short games
failures = []


def check(ok, what, detail=None):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
        if detail is not None:
            print("     " + str(detail)[-1500:].replace("\n", "\n     "))


def http(port, method, path, token=None, body=None):
    """(status, JSON answer) of one request to the HTTP API."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tf, server = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tf-tournament-cli-")
    home = os.path.join(tmp, "home")
    os.mkdir(home)
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
    env.pop("TRUNKFIELD_TOKEN", None)
    proc, log, http_port, tcp_port = start_server(server, tmp)
    bots = []
    srv = f"127.0.0.1:{http_port}"

    def cli(*args, token=None, env_token=None):
        e = dict(env)
        if env_token:
            e["TRUNKFIELD_TOKEN"] = env_token
        argv = [tf, *args, "--server", srv] + (["--token", token] if token else [])
        r = subprocess.run(argv, capture_output=True, text=True, env=e, timeout=TIMEOUT)
        return r.returncode, r.stdout + r.stderr

    try:
        r = subprocess.run([tf, "--help"], capture_output=True, text=True)
        check(all(c in r.stdout for c in ("tournaments", "join-tournament",
                                            "withdraw-tournament")),
              "--help names the tournaments' commands", r.stdout)
        code, out = cli("tournament", "no/such")
        check(code == 2, "a malformed id: usage error (exit 2)", out)

        code, out = cli("tournaments")
        check(code == 0 and "No tournament" in out, "tournaments: none yet", out)

        ann = register(tcp_port, "ann")
        bob = register(tcp_port, "bob")
        st, swiss = http(http_port, "POST", "/api/tournament", ann,
                         {"kind": "swiss", "name": "Winter Swiss", "rounds": 1, "round_gap_s": 0,
                          "starts_in_s": 6, "rated": False, "variant": SMALL,
                          "time_control": {"initial_ms": 180000, "increment_ms": 2000}})
        check(st == 200 and swiss.get("id"), "ann makes a Swiss over HTTP", swiss)
        st, arena = http(http_port, "POST", "/api/tournament", ann,
                         {"kind": "arena", "name": "Secret arena", "minutes": 30,
                          "starts_in_s": 3600, "public": False, "password": "moon",
                          "time_control": {"initial_ms": 60000, "increment_ms": 0}})
        check(st == 200 and arena.get("id"), "ann makes a private arena with a password", arena)
        sid, aid = swiss["id"], arena["id"]

        code, out = cli("tournaments")
        check(code == 0 and sid in out and "Winter Swiss" in out and aid not in out and
              "Swiss 1 round" in out and "3+2" in out and "starts " in out,
              "tournaments without a token: the public Swiss only", out)
        code, out = cli("tournaments", token=ann)
        check(code == 0 and sid in out and aid in out and "Secret arena" in out and
              "private, password" in out and "arena 30 min" in out,
              "tournaments with ann's token: her private arena too", out)

        code, out = cli("join-tournament", sid.upper(), token=ann)
        check(code == 0 and out.startswith("Entered " + sid) and f"/t/{sid}" in out,
              "join-tournament (the id in capitals): Entered", out)
        code, out = cli("join-tournament", sid, token=ann)
        check(code == 0 and out.startswith("Already in"), "join-tournament again: Already in", out)
        code, out = cli("join-tournament", aid, env_token=bob)
        check(code == 1 and "wrong_password" in out, "the arena without its password: refused",
              out)
        code, out = cli("join-tournament", aid, "--password", "moon", env_token=bob)
        check(code == 0 and out.startswith("Entered"), "the arena with its password: Entered", out)
        code, out = cli("withdraw-tournament", aid, env_token=bob)
        check(code == 0 and out.startswith("Withdrew"), "withdraw-tournament: Withdrew", out)
        code, out = cli("join-tournament", aid, "--password", "moon", env_token=bob)
        check(code == 0 and out.startswith("Back in"), "join-tournament after it: Back in", out)
        code, out = cli("join-tournament", sid, env_token=bob)
        check(code == 0 and out.startswith("Entered"), "bob enters the Swiss", out)

        code, out = cli("tournament", "zzzzzzzz")
        check(code == 1 and "not_found" in out, "an unknown id: not_found, exit 1", out)
        code, out = cli("withdraw-tournament", aid, token=ann)
        check(code == 1 and "not_entered" in out, "withdrawing from one not entered: refused",
              out)
        code, out = cli("join-tournament", sid)
        check(code == 1 and "token" in out, "join-tournament with no token: refused in words", out)

        # The Swiss starts: both are paired.
        deadline, game = time.time() + TIMEOUT, None
        while time.time() < deadline and not game:
            st, t = http(http_port, "GET", f"/api/tournament/{sid}")
            game = next((s["playing"] for s in t.get("standings", []) if s.get("playing")), None)
            if not game:
                time.sleep(0.3)
        check(game is not None, "the Swiss pairs ann and bob", t)
        code, out = cli("tournament", sid)
        check(code == 0 and "Winter Swiss" in out and "round 1 of 1" in out and "ann" in out and
              "bob" in out and out.count(game) == 2 and "BUCHHOLZ" in out,
              "tournament ID: the standings and the game both play", out)

        # Each account's bot plays the game it holds (the welcome's games) to its end.
        for i, token in enumerate((ann, bob)):
            bots.append(subprocess.Popen(
                [tf, "bot", "--server", f"127.0.0.1:{tcp_port}", "--level", "1", "--seed",
                 str(i + 1), "--token", token, "--games", "1"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env=env))
        deadline = time.time() + 120
        while time.time() < deadline:
            st, t = http(http_port, "GET", f"/api/tournament/{sid}")
            if t.get("phase") == "finished":
                break
            time.sleep(0.3)
        g = t["games"][0]
        names = {g["silver"]["name"]: "silver", g["bronze"]["name"]: "bronze"}
        code, out = cli("tournament", sid)
        rows = {l.split()[1]: l for l in out.splitlines() if l.strip()[:1] in ("1", "2")}
        if g["result"] == "draw":
            want = all(" 0.5 " in rows.get(n, "") and "0-1-0" in rows.get(n, "") for n in names)
        else:
            winner = next(n for n, side in names.items() if side == g["result"])
            loser = next(n for n in names if n != winner)
            want = (rows.get(winner, "").split()[:1] == ["1"] and " 1 " in rows[winner] and
                    "1-0-0" in rows[winner] and "0-0-1" in rows.get(loser, ""))
        check(code == 0 and t.get("phase") == "finished" and g["turns"] > 0 and want and
              "finished" in out and f"/api/tournament/{sid}/report" in out,
              f"the Swiss is over ({g['result']} after {g['turns']} turns): the standings, "
              "the report's address", out)
    finally:
        for b in bots:
            if b.poll() is None:
                b.kill()
            b.wait()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"tournament_cli: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
