#!/usr/bin/env python3
"""Correspondence games (issue 35; proto/PROTOCOL.md "Correspondence games", "Time"), against
the real server binary, through raw TCP connections that do only what PROTOCOL.md says, with
days shortened by --correspondence-day-seconds.

One node (SQLite, or PostgreSQL with --pg):
  - refusals: days_per_move outside 1, 2, 3, 5, 7, 10, 14, or with initial_ms beside it
    (bad_message); nothing is created.
  - ann opens a rated game of 1 day per move and leaves: past --open-away-seconds it is still in
    the lobby (a live game's would be off it); bob joins. ann, away, finds `your_turn` in her
    list; GET /api/playing has the game as hers to move (ann) and as waiting (bob).
  - ann back, both set up, bob leaves: nobody sends `player_left`, and ann's claim_win is
    not_claimable. ann's first turn starts bob's day; bob, away, is told. A second your_turn of
    the same game leaves the first one read (one unread per game).
  - every turn gives both sides the whole day again (the clocks of the events).
  - a restart: the game goes on as it was (snapshot, clocks, /api/playing).
  - bob lets his day run out: `timeout`, then game_over with reason time; the game is rated in
    the `correspondence` category (welcome's ratings) and is no longer in /api/playing.
  - a game whose setups do not come within two days is aborted (no_start).
  - bad requests to /api/playing: 401 without a token, 403 for a guest, 405, 400.
Every message received and every API answer is validated against proto/schema.

usage: correspondence_test.py SERVER_BIN CLI_BIN [--pg]
"""
import json
import os
import subprocess
import sys
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, api, check, notice, complain)
import jsonschema  # noqa: E402

if len(sys.argv) < 3:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
SERVER, CLI = sys.argv[1], sys.argv[2]
PG = "--pg" in sys.argv[3:]
DAY_S = 6  # --correspondence-day-seconds: a day per move is DAY_S seconds here
check, note = ct.check, ct.note


def playing_validator():
    with open(os.path.join(ct.SCHEMA_DIR, "notifications", "playing.json")) as f:
        schema = json.load(f)
    with open(os.path.join(ct.SCHEMA_DIR, "common.json")) as f:
        common = json.load(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store={common["$id"]: common})
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


PLAYING = playing_validator()


def playing(srv, who):
    st, body, text = ct.api(srv.http, "GET", "/api/playing", who.token, schema=PLAYING)
    check(st == 200, f"GET /api/playing for {who.username}: {st} {text[:200]}")
    return body or {"games": [], "your_move": 0}


def entry(srv, who, code):
    return next((g for g in playing(srv, who)["games"] if g["code"] == code), None)


def notifications(srv, who, kind, code):
    st, lst, _ = ct.api(srv.http, "GET", "/api/notifications", who.token)
    return [n for n in (lst or {}).get("notifications", [])
            if n["kind"] == kind and n.get("game") == code]


def event(code, kind):
    return ct.event(code, kind)


def create(p, ref, tc, rated=False, public=True):
    p.send({"type": "create_game", "time_control": tc, "color": "silver", "public": public,
            "rated": rated, "ref": ref})
    return p.wait(lambda m: m["type"] in ("game_created", "error") and m.get("ref") == ref, 15)


class Moves:
    """A legal record (the CLI's `rules random`): the setups, then the turns in order."""

    def __init__(self, seed):
        self.rec = json.loads(subprocess.check_output([CLI, "rules", "random", str(seed)]))
        self.turn = 0

    def setup(self, side):
        return self.rec["setup"][side]

    def next_turn(self):
        t = self.rec["turns"][self.turn]
        self.turn += 1
        return t


def act(p, code, msg, ref):
    """Sends a setup or turn of `p` in `code`: the event it made (None when refused)."""
    msg.update({"game": code, "ref": ref})
    p.send(msg)
    a = p.wait(lambda m: m.get("ref") == ref and m["type"] in ("ack", "error"), 15)
    if not check(a is not None and a["type"] == "ack", f"{msg['type']} {ref}: {a}"):
        return None
    return p.wait(lambda m: m["type"] == "event" and m["game"] == code and
                  m["kind"] == msg["type"], 10)


def refusals(srv, ann):
    for i, tc in enumerate([{"days_per_move": 4}, {"days_per_move": 0},
                            {"days_per_move": 1, "initial_ms": 60000},
                            {"days_per_move": "1"}]):
        m = create(ann, f"bad{i}", tc)
        check(m and m["type"] == "error" and m["code"] == "bad_message",
              f"time_control {tc} is refused: {m}")


def one_game(srv, tag):
    ann = ct.Player(srv.tcp, username=f"ann_{tag}")
    bob = ct.Player(srv.tcp, username=f"bob_{tag}")
    refusals(srv, ann)
    lobby_watcher = ct.Player(srv.tcp)
    m = create(ann, "c1", {"days_per_move": 1}, rated=True)
    if not check(m and m["type"] == "game_created", f"ann opens a correspondence game: {m}"):
        return None
    code = m["code"]
    ann.close()
    time.sleep(2.5)  # past --open-away-seconds 1
    lobby_watcher.send({"type": "list_games"})
    lob = lobby_watcher.wait(lambda m: m["type"] == "lobby", 10)
    listed = [g for g in (lob or {}).get("games", []) if g["code"] == code]
    check(listed and listed[0]["time_control"] == {"days_per_move": 1},
          f"the open correspondence game stays in the lobby with its creator away: {lob}")
    lobby_watcher.close()

    bob.send({"type": "join_game", "code": code})
    s = bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(s and s["status"] == "playing" and s["record"]["time_control"] == {"days_per_move": 1},
          f"bob joins: {s and (s['status'], s['record'].get('time_control'))}")
    time.sleep(0.5)
    told = notifications(srv, ann, "your_turn", code)
    check(len(told) == 1 and told[0]["opponent"]["name"] == bob.username and
          told[0]["move_by"] > time.time() * 1000,
          f"ann, away, is told it is her move (her setup): {told}")
    a = entry(srv, ann, code)
    check(a and a["your_move"] and a["to_move"] == "silver" and a["side"] == "silver" and
          a["opponent"]["name"] == bob.username and a["rated"] and
          a["time_control"] == {"days_per_move": 1},
          f"/api/playing: ann's move: {a}")
    b = entry(srv, bob, code)
    check(b and not b["your_move"] and b["to_move"] == "silver",
          f"/api/playing: bob waits: {b}")
    check(playing(srv, ann)["your_move"] >= 1, "ann's count of games waiting for her")

    ann = ct.Player(srv.tcp, token=ann.token)
    ann.username = f"ann_{tag}"
    ann.send({"type": "watch", "code": code})
    check(ann.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10) is not None,
          "ann back on her game")
    moves = Moves(35)
    check(act(ann, code, {"type": "setup", "setup": moves.setup("silver")}, "s1") is not None,
          "ann sets up")
    check(act(bob, code, {"type": "setup", "setup": moves.setup("bronze")}, "s2") is not None,
          "bob sets up")
    bob.close()
    check(ann.wait(event(code, "player_left"), 1.5) is None,
          "no player_left: nobody is away from a correspondence game")
    ann.send({"type": "claim_win", "game": code})
    e = ann.wait(lambda m: m["type"] == "error" or event(code, "abandon")(m), 10)
    check(e and e["type"] == "error" and e["code"] == "not_claimable",
          f"claim_win against an absent bob: {e}")
    ev = act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t1")
    per_move = DAY_S * 1000
    c = ev and ev["clocks"]
    check(c and c["running"] == "bronze" and per_move - 1500 < c["bronze_ms"] <= per_move,
          f"silver's first turn starts bronze's day: {c}")
    time.sleep(0.5)
    first = notifications(srv, bob, "your_turn", code)
    check(len(first) == 1 and not first[0]["read"], f"bob, away, is told: {first}")

    bob = ct.Player(srv.tcp, token=bob.token)
    bob.username = f"bob_{tag}"
    bob.send({"type": "watch", "code": code})
    bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    time.sleep(1.0)  # some of bob's day goes by
    ev = act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t2")
    c = ev and ev["clocks"]
    check(c and c["running"] == "silver" and c["bronze_ms"] == per_move and
          per_move - 1500 < c["silver_ms"] <= per_move,
          f"after bob's turn both have the whole day again: {c}")
    bob.close()
    time.sleep(0.3)
    ev = act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t3")
    c = ev and ev["clocks"]
    check(c and c["running"] == "bronze" and c["silver_ms"] == per_move,
          f"after ann's turn: {c}")
    time.sleep(0.5)
    told = notifications(srv, bob, "your_turn", code)
    check(len(told) == 2 and not told[0]["read"] and told[1]["read"],
          f"a newer your_turn of the game stands for the older one: "
          f"{[(n['id'], n['read']) for n in told]}")
    b = entry(srv, bob, code)
    check(b and b["your_move"] and b["to_move"] == "bronze" and
          b["move_by"] > time.time() * 1000, f"/api/playing: bob's move now: {b}")
    ann.close()
    return {"ann": ann, "bob": bob, "code": code}


def after_restart(srv, people):
    """The game goes on; then bob's day runs out: a loss on time, rated as correspondence."""
    code = people["code"]
    ann = ct.Player(srv.tcp, token=people["ann"].token)
    ann.username = people["ann"].username
    ann.send({"type": "watch", "code": code})
    s = ann.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(s and s["status"] == "playing" and s["clocks"] and s["clocks"]["running"] == "bronze",
          f"after a restart the game goes on: {s and (s['status'], s['clocks'])}")
    b = entry(srv, people["bob"], code)
    check(b and b["your_move"], f"/api/playing after a restart: {b}")
    e = ann.wait(event(code, "timeout"), DAY_S * 2 + 5)
    check(e and e["payload"] == {"side": "bronze"}, f"bob's day runs out: {e}")
    g = ann.wait(event(code, "game_over"), 5)
    check(g and g["payload"]["reason"] == "time" and g["payload"]["winner"] == "silver",
          f"game_over: {g and g['payload']}")
    ann.wait(event(code, "ratings"), 10)
    again = ct.Player(srv.tcp, token=ann.token)
    ratings = again.welcome.get("account", {}).get("ratings", {})
    check("correspondence" in ratings and ratings["correspondence"]["games"] == 1,
          f"ann's correspondence rating: {ratings}")
    check(entry(srv, ann, code) is None, "a finished game is off /api/playing")
    again.close()

    # the setups have two days: none came, the game is aborted
    bob = ct.Player(srv.tcp, token=people["bob"].token)
    m = create(ann, "c2", {"days_per_move": 1}, public=False)
    code2 = m and m.get("code")
    bob.send({"type": "join_game", "code": code2})
    bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == code2, 10)
    e = ann.wait(event(code2, "abort"), DAY_S * 2 + 5)
    check(e and e["payload"] == {"reason": "no_start"}, f"no setups in two days: {e}")
    ann.close()
    bob.close()


def bad_requests(srv):
    guest = ct.Player(srv.tcp)
    for method, path, token, want in [("GET", "/api/playing", None, 401),
                                      ("GET", "/api/playing", guest.token, 403),
                                      ("POST", "/api/playing", guest.token, 405),
                                      ("GET", "/api/playing?limit=3", guest.token, 400)]:
        st, body, _ = ct.api(srv.http, method, path, token, schema=PLAYING)
        check(st == want, f"{method} {path} ({'token' if token else 'no token'}): {st}")
    guest.close()


def main(work, store):
    extra = ["--correspondence-day-seconds", str(DAY_S), "--open-away-seconds", "1"]
    srv = ct.one_server(work, extra + (store.server_args() if store else []))
    try:
        print(f"one node on {'PostgreSQL' if PG else 'SQLite'}", flush=True)
        people = one_game(srv, "pg" if PG else "lite")
        bad_requests(srv)
        srv.stop()
        srv.start()
        if people:
            after_restart(srv, people)
    finally:
        srv.stop()
        ct.complain(srv.log_path, "the server")

if __name__ == "__main__":
    ct.run("correspondence", main)
