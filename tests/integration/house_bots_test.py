#!/usr/bin/env python3
"""House bots (issue 36; proto/PROTOCOL.md "House bots"): the built-in levels as the bot accounts
Level1 to Level5 that people challenge, against the real server and client binaries, through raw
TCP connections and HTTP requests that do only what PROTOCOL.md says.

One node (SQLite, or PostgreSQL with --pg):
  - the server makes Level1..Level5 at its start: each a bot account with a player page
    (`bot: true`); nobody logs in as one (`bad_credentials` whatever the password) or registers
    the name in any letter case (`bad_username`: reserved);
  - ann challenges Level1, rated, 9×9 with a clock: `game_created`, then a snapshot of a game
    already being played, Level1 in its seat marked bot (in /api/playing too); her side is played to the end by
    `trunkfield bot --level 1 --token` (her account); the `ratings` event moves both ratings;
    the history has the game rated with Level1 marked bot; both player pages count the game;
  - her rematch is taken at once: Level1 again, on the other side, marked bot, rated; she
    resigns it;
  - through the HTTP API (POST /api/challenge/Level5 with her token) a casual untimed game
    starts at once; she resigns through the API: no `ratings` event;
  - a restart makes no account twice (each page's `created_at` unchanged; the log says each
    was made once);
  - with --no-house-bots, on a fresh data folder, nothing is made: a challenge to Level3 is
    `unknown_player`.
With --pg, and redis-server installed, also two nodes started on one fresh database and one
Redis bus: each house bot is made once between them; ann on node 2 plays Level2 (resigned).

usage: house_bots_test.py SERVER_BIN CLI_BIN [--pg]
"""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, challenge, api, check, event, nodes_on_bus)
import crash_test  # noqa: E402  (Server, free_port)

if len(sys.argv) < 3:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
CLI = sys.argv[2]
check, event = ct.check, ct.event
ANY = ct.ANY
CLOCK = {"initial_ms": 180000, "increment_ms": 2000}  # blitz
LEVELS = [f"Level{n}" for n in range(1, 6)]
MADE = "house bot Level"  # the log's line when one is made: "house bot LevelN plays at level N"


def pages(port, timeout=20):
    """Each house bot's player page, once all five exist (they are made in the background)."""
    deadline = time.time() + timeout
    while True:
        got = {}
        for name in LEVELS:
            st, p, _ = ct.api(port, "GET", f"/api/players/{name}", schema=ANY)
            if st == 200:
                got[name] = p
        if len(got) == len(LEVELS) and all(p["bot"] for p in got.values()):
            return got
        if time.time() > deadline:
            check(False, f"the house bots within {timeout} s: {sorted(got)}")
            return got
        time.sleep(0.2)


def made_in(*logs):
    """How many times the logs say a house bot was made, per name."""
    count = {}
    for path in logs:
        for line in open(path, errors="replace"):
            if MADE in line and "plays at level" in line:
                name = line.split(MADE, 1)[1].split()[0]
                count["Level" + name] = count.get("Level" + name, 0) + 1
    return count


def snapshot(p, code, since=0):
    return ct.seen(p, since, lambda m: m["type"] == "snapshot" and m["game"] == code, 15)


def challenge_level1(srv, ann):
    since = len(ann.got)
    m = ct.challenge(ann, "Level1", "h1", rated=True, time_control=CLOCK, variant={"size": 9})
    check(m and m["type"] == "game_created", f"ann challenges Level1: {m}")
    code = m and m.get("code")
    snap = snapshot(ann, code, since)
    bronze = snap and snap["players"]["bronze"]
    check(snap and snap["status"] == "playing" and snap["rated"] and bronze and
          bronze["name"] == "Level1" and bronze.get("bot") is True,
          f"the game starts at once, Level1 seated and marked bot: {snap}")
    st, j, text = ct.api(srv.http, "GET", "/api/playing", token=ann.token,
                         schema=ct.api_validator("playing"))
    mine = [g for g in (j or {}).get("games", []) if g["code"] == code]
    check(st == 200 and mine and mine[0]["opponent"] == {"id": bronze["id"], "name": "Level1",
                                                          "bot": True},
          f"/api/playing names Level1 a bot: {st} {text[:300]}")
    # Her side, played to the end by the built-in level 1 with her token.
    out = os.path.join(os.path.dirname(srv.log_path), "ann-bot.log")
    with open(out, "w") as f:
        rc = subprocess.run([CLI, "bot", "--server", f"127.0.0.1:{srv.tcp}", "--level", "1",
                             "--token", ann.token, "--code", code], stdout=f,
                            stderr=subprocess.STDOUT, timeout=300).returncode
    check(rc == 0, f"ann's side is played to the end:\n{open(out).read()[-2000:]}")
    r = ct.seen(ann, since, event(code, "ratings"), 15)
    check(r and all(r["payload"].get(s, {}).get("after") for s in ("silver", "bronze")),
          f"the game moves both ratings: {r}")
    st, g, text = ct.api(srv.http, "GET", f"/api/games/{code}", schema=ANY)
    check(st == 200 and g["status"] == "over" and g["rated"] and
          g["players"]["bronze"].get("bot") is True and "bot" not in g["players"]["silver"],
          f"the history: rated, over, Level1 a bot: {text[:400]}")
    for name in ("Level1", ann.username):
        st, p, _ = ct.api(srv.http, "GET", f"/api/players/{name}", schema=ANY)
        check(st == 200 and p["ratings"].get("blitz", {}).get("games") == 1,
              f"{name}'s page counts the rated game: {p and p['ratings']}")
    return code


def rematch(ann, code):
    since = len(ann.got)
    ann.send({"type": "rematch", "game": code})
    m = ct.seen(ann, since, lambda m: m["type"] == "matched", 15)
    code2 = m and m["code"]
    snap = code2 and snapshot(ann, code2, since)
    silver = snap and snap["players"]["silver"]
    check(snap and snap["status"] == "playing" and snap["rated"] and silver and
          silver["name"] == "Level1" and silver.get("bot") is True and
          snap["players"]["bronze"]["name"] == ann.username,
          f"the rematch: Level1 again, on the other side, rated: {snap}")
    if code2:
        ann.send({"type": "resign", "game": code2})
        check(ct.seen(ann, since, event(code2, "game_over"), 15) is not None,
              "ann resigns the rematch")


def over_http(srv, ann):
    st, j, text = ct.api(srv.http, "POST", "/api/challenge/Level5", token=ann.token,
                         body={"variant": {"size": 9}, "time_control": None}, schema=ANY)
    code = st == 200 and j.get("game")
    check(code, f"POST /api/challenge/Level5: {st} {text}")
    if not code:
        return
    since = len(ann.got)
    ann.send({"type": "watch", "code": code})
    snap = snapshot(ann, code, since)
    check(snap and snap["status"] == "playing" and not snap["rated"] and
          any(snap["players"][s]["name"] == "Level5" and snap["players"][s].get("bot")
              for s in ("silver", "bronze")),
          f"the casual game against Level5 is being played: {snap}")
    st, j, text = ct.api(srv.http, "POST", f"/api/game/{code}/resign", token=ann.token,
                         body={}, schema=ANY)
    check(st == 200 and j.get("ok"), f"ann resigns through the API: {st} {text}")
    over = ct.seen(ann, since, event(code, "game_over"), 15)
    check(over is not None, "the game is over")
    check(ct.seen(ann, since, event(code, "ratings"), 2) is None, "a casual game rates nobody")


def one_node(srv, tag):
    made = pages(srv.http)
    for name, p in made.items():
        check(p["bot"] is True and p["username"] == name, f"{name}'s page: a bot: {p}")
    ann = ct.Player(srv.tcp, username=f"ann_{tag}")
    guest = ct.Player(srv.tcp)
    for pw in ("", "!house-bot", ct.PASSWORD):
        guest.send({"type": "login", "username": "Level1", "password": pw, "ref": "in" + pw})
        m = guest.wait(lambda m: m.get("ref") == "in" + pw and m["type"] in ("welcome", "error"),
                       15)
        check(m and m["type"] == "error" and m["code"] == "bad_credentials",
              f"nobody logs in as Level1 (password {pw!r}): {m}")
    guest.send({"type": "register", "username": "level1", "password": ct.PASSWORD, "ref": "r"})
    m = guest.wait(lambda m: m.get("ref") == "r" and m["type"] in ("welcome", "error"), 15)
    check(m and m["type"] == "error" and m["code"] == "bad_username",
          f"nobody registers level1 (reserved): {m}")
    guest.close()
    code = challenge_level1(srv, ann)
    rematch(ann, code)
    over_http(srv, ann)
    ann.close()
    srv.stop()
    srv.start()
    again = pages(srv.http)
    for name in LEVELS:
        check(again.get(name, {}).get("created_at") == made.get(name, {}).get("created_at"),
              f"{name} is the same account after a restart")
    count = made_in(srv.log_path)
    check(count == {name: 1 for name in LEVELS}, f"each made once: {count}")


def without(work):
    http_port, tcp_port = crash_test.free_port(), crash_test.free_port()
    srv = crash_test.Server(ct.SERVER, os.path.join(work, "plain"), http_port, tcp_port,
                            os.path.join(work, "plain.log"), ["--no-house-bots"])
    srv.http, srv.tcp = http_port, tcp_port
    srv.start()
    try:
        ann = ct.Player(srv.tcp, username="ann_plain")
        time.sleep(1)
        m = ct.challenge(ann, "Level3", "p1")
        check(m and m["type"] == "error" and m["code"] == "unknown_player",
              f"--no-house-bots: no Level3: {m}")
        check(made_in(srv.log_path) == {}, "--no-house-bots makes none")
        ann.close()
    finally:
        srv.stop()
        ct.complain(srv.log_path, "the server without house bots")


def two_nodes(one, two, tag):
    pages(two.http)
    count = made_in(one.log_path, two.log_path)
    check(count == {name: 1 for name in LEVELS}, f"two nodes make each once: {count}")
    ann = ct.Player(two.tcp, username=f"ann2_{tag}")
    since = len(ann.got)
    m = ct.challenge(ann, "Level2", "n1", variant={"size": 9}, time_control=CLOCK)
    code = m and m.get("code")
    snap = code and snapshot(ann, code, since)
    check(snap and snap["status"] == "playing", f"ann plays Level2 on node 2: {snap}")
    ann.send({"type": "resign", "game": code})
    check(ct.seen(ann, since, event(code, "game_over"), 15) is not None, "and resigns")
    ann.close()


def main(work, store):
    srv = ct.one_server(work, store.server_args() if store else [])
    tag = "pg" if store else "lite"
    try:
        print(f"one node on {'PostgreSQL' if store else 'SQLite'}", flush=True)
        one_node(srv, tag)
    finally:
        srv.stop()
        ct.complain(srv.log_path, "the server")
    if not store:
        return without(work)
    print("two nodes on a fresh database", flush=True)
    fresh = ct.pg_store()  # the nodes race to make the house bots
    try:
        with ct.nodes_on_bus(work, fresh) as nodes:
            if nodes:
                two_nodes(*nodes, tag)
    finally:
        if not ct.FAILED:
            fresh.drop()


if __name__ == "__main__":
    ct.run("house_bots", main)
