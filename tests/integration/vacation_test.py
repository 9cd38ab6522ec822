#!/usr/bin/env python3
"""Vacation (issue 35; proto/PROTOCOL.md "Vacation"), against the real server binary, through raw
TCP connections that do only what PROTOCOL.md says, with days shortened by
--correspondence-day-seconds (a budget of VACATION_DAYS such days a year).

One node (SQLite, or PostgreSQL with --pg):
  - GET /api/vacation: off, the whole budget left; refusals (401, 403 for a guest, 400).
  - ann (silver) and bob play a correspondence game; bob, to move, goes on vacation: ann gets
    the `vacation` event, the clocks stand (running null); bob's time does not run out past his
    day (/api/playing: no deadline); a watcher's snapshot lists bronze on vacation.
  - bob moves on vacation: ann's time runs, both have the whole day; ann moves: the clocks
    stand again (bob is to move and away).
  - a restart: the game is as it was (vacation in the snapshot, no time running).
  - bob comes back: the `vacation` event off, his time runs from where it stood; GET counts
    the days used.
  - bob goes again and lets his budget run out: he is back by himself (the event; GET: off,
    nothing left), and a new vacation is refused (409 vacation_spent).
With --pg, two nodes on one database and one Redis bus: bob, on node 2, goes on vacation in a
game node 1 runs: node 1 stops his clock (at its next read); node 1 stops, node 2 takes the game
over and it stays paused.
Every message received and every API answer is validated against proto/schema.

usage: vacation_test.py SERVER_BIN CLI_BIN [--pg]
"""
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, api, check, event, complain, nodes_on_bus)
import correspondence_test as cor  # noqa: E402  (create, act, Moves)

if len(sys.argv) < 3:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
PG = "--pg" in sys.argv[3:]
DAY_S = 4  # --correspondence-day-seconds
VACATION_DAYS = 3  # --vacation-days: a budget of 12 s here
check, note, event = ct.check, ct.note, ct.event
VACATION = ct.api_validator("vacation")
ARGS = ["--correspondence-day-seconds", str(DAY_S), "--vacation-days", str(VACATION_DAYS),
        "--vacation-poll-seconds", "0.5"]


def vacation(port, who, on=None, want=200):
    body = None if on is None else {"on": on}
    st, v, text = ct.api(port, "POST" if body else "GET", "/api/vacation", who.token, body=body,
                         schema=VACATION)
    check(st == want, f"{'POST' if body else 'GET'} /api/vacation {body} for {who.username}: "
          f"{st} {text[:200]}")
    return v


def again(srv_tcp, who, code):
    """`who` on a new connection watching `code`: (connection, its snapshot)."""
    p = ct.Player(srv_tcp, token=who.token)
    p.username = who.username
    p.send({"type": "watch", "code": code})
    return p, p.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 15)


def game(ann_tcp, bob_tcp, tag, seed):
    """A correspondence game of ann and bob (connected to those TCP ports), silver's first turn
    made: bronze (bob) to move."""
    ann = ct.Player(ann_tcp, username=f"ann_{tag}")
    bob = ct.Player(bob_tcp, username=f"bob_{tag}")
    m = cor.create(ann, "c1", {"days_per_move": 1}, public=False)
    code = m and m.get("code")
    bob.send({"type": "join_game", "code": code})
    bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    moves = cor.Moves(seed)
    cor.act(ann, code, {"type": "setup", "setup": moves.setup("silver")}, "s1")
    cor.act(bob, code, {"type": "setup", "setup": moves.setup("bronze")}, "s2")
    ev = cor.act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t1")
    check(ev and ev["clocks"]["running"] == "bronze", f"bob's day runs: {ev and ev['clocks']}")
    return ann, bob, code, moves


def refusals(srv, ann):
    guest = ct.Player(srv.tcp)
    for method, token, body, raw, want in [
            ("GET", None, None, None, 401), ("GET", guest.token, None, None, 403),
            ("POST", ann.token, {"on": "yes"}, None, 400),
            ("POST", ann.token, {"on": True, "days": 3}, None, 400),
            ("POST", ann.token, None, b"not json", 400)]:
        st, _, text = ct.api(srv.http, method, "/api/vacation", token, body=body, raw=raw,
                             schema=VACATION)
        check(st == want, f"{method} /api/vacation {body or raw}: {st} (want {want}) {text[:120]}")
    st, _, _ = ct.api(srv.http, "GET", "/api/vacation?x=1", ann.token, schema=VACATION)
    check(st == 400, f"a query string: {st}")
    guest.close()


def one_node(srv, tag):
    per_move = DAY_S * 1000
    ann, bob, code, moves = game(srv.tcp, srv.tcp, tag, 7)
    v = vacation(srv.http, ann)
    check(v and not v["on"] and v["budget_days"] == VACATION_DAYS and
          v["left_days"] == VACATION_DAYS and v["since"] is None and v["ends_at"] is None,
          f"ann has her whole vacation: {v}")
    refusals(srv, ann)

    time.sleep(1.0)  # a second of bob's day goes by
    v = vacation(srv.http, bob, True)
    check(v and v["on"] and v["since"] and v["ends_at"] > v["since"], f"bob goes: {v}")
    e = ann.wait(event(code, "vacation"), 5)
    c = e and e["clocks"]
    check(e and e["payload"] == {"side": "bronze", "on": True} and c["running"] is None and
          per_move - 2500 < c["bronze_ms"] < per_move - 500,
          f"ann is told; bob's time stands where it was: {e}")
    stood = c and c["bronze_ms"]
    b = cor.entry(srv, bob, code)
    check(b and b["your_move"] and b["move_by"] == 0,
          f"/api/playing: bob's move, no deadline while he is away: {b}")
    time.sleep(DAY_S + 1)  # past the rest of bob's day: no loss on time
    check(ann.wait(event(code, "timeout"), 0.2) is None, "no timeout while bob is on vacation")
    watcher, s = again(srv.tcp, ann, code)
    check(s and s.get("vacation") == ["bronze"] and s["clocks"]["running"] is None and
          s["clocks"]["bronze_ms"] == stood,
          f"the snapshot: bronze on vacation, the clock standing: {s and (s.get('vacation'), s['clocks'])}")
    watcher.close()

    ev = cor.act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t2")
    c = ev and ev["clocks"]
    check(c and c["running"] == "silver" and per_move - 100 < c["silver_ms"] <= per_move and
          c["bronze_ms"] == per_move, f"bob moves on vacation: ann's day runs: {c}")
    ev = cor.act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t3")
    c = ev and ev["clocks"]
    check(c and c["running"] is None and c["bronze_ms"] == per_move,
          f"ann moves: bob's time stands again: {c}")
    ann.close()
    bob.close()
    return {"ann": ann, "bob": bob, "code": code, "moves": moves}


def after_restart(srv, people):
    per_move = DAY_S * 1000
    code = people["code"]
    ann, s = again(srv.tcp, people["ann"], code)
    check(s and s["status"] == "playing" and s.get("vacation") == ["bronze"] and
          s["clocks"]["running"] is None and s["clocks"]["bronze_ms"] == per_move,
          f"after a restart bob is still away: {s and (s.get('vacation'), s['clocks'])}")
    bob, _ = again(srv.tcp, people["bob"], code)
    time.sleep(1.0)
    v = vacation(srv.http, bob, False)
    check(v and not v["on"] and 0 < v["used_days"] < VACATION_DAYS and
          abs(v["used_days"] + v["left_days"] - VACATION_DAYS) < 0.01,
          f"bob comes back: days used counted: {v}")
    e = ann.wait(event(code, "vacation"), 5)
    check(e and e["payload"] == {"side": "bronze", "on": False} and
          e["clocks"]["running"] == "bronze" and e["clocks"]["bronze_ms"] > per_move - 1000,
          f"ann is told; bob's time runs again from where it stood: {e}")
    ev = cor.act(bob, code, {"type": "turn", "turn": people["moves"].next_turn()}, "t4")
    check(ev and ev["clocks"]["running"] == "silver", "bob moves")
    ev = cor.act(ann, code, {"type": "turn", "turn": people["moves"].next_turn()}, "t5")
    check(ev and ev["clocks"]["running"] == "bronze", "ann moves: bob's day runs")

    # his budget runs out: back by himself
    v = vacation(srv.http, bob, True)
    left_s = v and v["left_days"] * DAY_S
    check(v and v["on"] and 0 < left_s < VACATION_DAYS * DAY_S,
          f"bob goes again with {left_s} s left: {v}")
    e = ann.wait(event(code, "vacation"), 5)
    check(e and e["payload"]["on"] and e["clocks"]["running"] is None, "the clock stands")
    e = ann.wait(event(code, "vacation"), (left_s or 0) + 5)
    check(e and e["payload"] == {"side": "bronze", "on": False} and
          e["clocks"]["running"] == "bronze",
          f"his budget spent, bob is back by himself and his time runs: {e}")
    v = vacation(srv.http, bob)
    check(v and not v["on"] and v["left_days"] == 0 and v["used_days"] == VACATION_DAYS,
          f"nothing left: {v}")
    v = vacation(srv.http, bob, True, want=409)
    check(v and v.get("error") == "vacation_spent", f"no new vacation this year: {v}")
    bob.send({"type": "resign", "game": code})
    check(ann.wait(event(code, "game_over"), 10) is not None, "bob resigns: the game ends")
    ann.close()
    bob.close()


def across_nodes(one, two):
    ann, bob, code, _ = game(one.tcp, two.tcp, "nodes", 11)
    v = vacation(two.http, bob, True)
    check(v and v["on"], f"bob goes on vacation through node 2: {v}")
    e = ann.wait(event(code, "vacation"), 5)
    check(e and e["payload"] == {"side": "bronze", "on": True} and
          e["clocks"]["running"] is None,
          f"node 1, which runs the game, stops bob's clock: {e}")
    bob.close()
    one.stop()  # node 2 takes the game over
    ann2, s = again(two.tcp, ann, code)
    check(s and s.get("vacation") == ["bronze"] and s["clocks"]["running"] is None,
          f"on node 2 after the takeover the game is still paused: {s and (s.get('vacation'), s['clocks'])}")
    time.sleep(DAY_S + 1)
    check(ann2.wait(event(code, "timeout"), 0.2) is None, "no timeout on node 2 either")
    vacation(two.http, bob, False)
    e = ann2.wait(event(code, "vacation"), 5)
    check(e and not e["payload"]["on"] and e["clocks"]["running"] == "bronze",
          f"bob back: node 2 starts his clock: {e}")
    ann2.close()
    one.start()  # stopped by nodes_on_bus


def main(work, store):
    srv = ct.one_server(work, ARGS + (store.server_args() if store else []))
    try:
        print(f"one node on {'PostgreSQL' if store else 'SQLite'}", flush=True)
        people = one_node(srv, "pg" if store else "lite")
        srv.stop()
        srv.start()
        after_restart(srv, people)
    finally:
        srv.stop()
        ct.complain(srv.log_path, "the server")
    if store:
        print("two nodes", flush=True)
        with ct.nodes_on_bus(work, store, ARGS) as nodes:
            if nodes:
                across_nodes(*nodes)

if __name__ == "__main__":
    ct.run("vacation", main)
