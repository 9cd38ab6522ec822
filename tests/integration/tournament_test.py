#!/usr/bin/env python3
"""Tournaments (issue 38; docs/TOURNAMENTS.md, proto/PROTOCOL.md "Tournaments"), end to end
against the real server and client binaries: a dozen accounts, each played by its own
`trunkfield bot --challenges` (which plays the games its tournaments pair, as PROTOCOL.md tells
a client to), entered and watched through the HTTP API. What the server decides is checked
against an independent computation here, written from docs/TOURNAMENTS.md: every Swiss round's
pairing (ranking, bye, score groups, sides) is computed again from the rounds before it and
must be the same; the scores, Buchholz and Sonneborn-Berger, the arena's points with streaks,
and both standings' order are counted again from the games' results.

One node (SQLite):
  - making a tournament: bad requests refused (400), a guest refused (403), a third unfinished
    one refused (409); the list shows the public one, not the private one;
  - a Swiss of 3 rounds on the small board: eleven players enter before the start (a bye each
    round), the twelfth after the first round is paired (it plays from round 2); a password
    refused; every game is in the history, rated; the report is a download;
  - the server is restarted in round 2: the tournament goes on where it was;
  - an arena of one minute with the same dozen: whoever finishes is paired again, never with
    its last opponent at once; games that end after the arena do not count;
  - berserk: two players of an arena go berserk before their first turn (half their clock; a
    second time refused); a Swiss takes no berserk; an arena may be made without it; a
    berserker's win of at least 7 turns scores one point more.
With --pg (and redis-server installed), instead: two nodes on one PostgreSQL database and one
Redis bus; a Swiss of a dozen is directed by one node, which is killed (kill -9) in the middle
of round 2; the other takes it over: every round complete and paired as computed here, no game
paired twice, no result lost.

usage: tournament_test.py SERVER_BIN CLI_BIN [--pg]
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, api, check, run, one_server, nodes_on_bus)

if len(sys.argv) < 3:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
CLI = sys.argv[2]
check, ANY = ct.check, ct.ANY
SMALL = {"size": 7, "elephants": 3, "burnt": 2, "quiet": 30}  # the small board (rated)
CLOCK = {"initial_ms": 120000, "increment_ms": 1000}  # blitz
DOZEN = 12


# ---------------------------------------------------------------- the independent computation
# Sides, as docs/TOURNAMENTS.md "Sides" says: a history is a list of "silver"/"bronze".
def other(side):
    return "bronze" if side == "silver" else "silver"


def preference(hist):
    """(strength, side): 3 absolute, 2 strong, 1 mild, 0 none."""
    if not hist:
        return 0, "silver"
    d = hist.count("silver") - hist.count("bronze")
    twice = len(hist) >= 2 and hist[-1] == hist[-2]
    if d > 1 or d < -1 or twice:
        return 3, ("bronze" if d > 1 else "silver" if d < -1 else other(hist[-1]))
    if d == 1:
        return 2, "bronze"
    if d == -1:
        return 2, "silver"
    return 1, other(hist[-1])


def clash(a, b):
    (sa, wa), (sb, wb) = preference(a), preference(b)
    return sa == 3 and sb == 3 and wa == wb


def side_of_higher(hi, lo, fresh="silver"):
    (sh, wh), (sl, wl) = preference(hi), preference(lo)
    if sh == 0 and sl == 0:
        return fresh
    if sh == 0:
        return other(wl)
    if sl == 0:
        return wh
    if wh != wl:
        return wh
    if sh != sl:
        return wh if sh > sl else other(wl)
    for i in range(1, min(len(hi), len(lo)) + 1):
        if hi[-i] != lo[-i]:
            return lo[-i]
    return wh


def swiss_pairing(players):
    """players: dicts id, rating, score (half points), sides, met, had_bye. Returns
    ([(silver, bronze)] in board order, bye or None), as "The pairing" describes it."""
    ps = sorted(players, key=lambda p: (-p["score"], -p["rating"], p["id"]))
    n = len(ps)
    if n < 2:
        return [], (ps[0]["id"] if ps else None)

    def search(bye, repeats, clashes):
        used = [False] * n
        if bye >= 0:
            used[bye] = True
        pairs = []

        def candidates(p):
            group = [i for i in range(p, n) if not used[i] and ps[i]["score"] == ps[p]["score"]]
            half = len(group) // 2
            keyed = []

            def add(c, tier, score, pos):
                rep = ps[c]["id"] in ps[p]["met"]
                cl = clash(ps[p]["sides"], ps[c]["sides"])
                if (rep and not repeats) or (cl and not clashes):
                    return
                keyed.append((rep, tier, -score, cl, pos, c))
            for i in range(half, len(group)):
                if group[i] != p:
                    add(group[i], 0, 0, i)
            for i in range(half - 1, 0, -1):
                add(group[i], 1, 0, half - i)
            for i in range(p + 1, n):
                if not used[i] and ps[i]["score"] < ps[p]["score"]:
                    add(i, 2, ps[i]["score"], i)
            return [k[-1] for k in sorted(keyed)]

        def step():
            p = next((i for i in range(n) if not used[i]), None)
            if p is None:
                return True
            used[p] = True
            for c in candidates(p):
                used[c] = True
                pairs.append((p, c))
                if step():
                    return True
                pairs.pop()
                used[c] = False
            used[p] = False
            return False
        return pairs if step() else None

    fresh = [i for i in reversed(range(n)) if not ps[i]["had_bye"]]
    again = [i for i in reversed(range(n)) if ps[i]["had_bye"]]
    for repeats, second, clashes in ((False, False, False), (False, False, True),
                                     (False, True, True), (True, True, True)):
        byes = [-1] if n % 2 == 0 else (again if second else fresh)
        if n % 2 == 1 and repeats:
            byes = fresh + again
        for b in byes:
            found = search(b, repeats, clashes)
            if found is not None:
                games = []
                for a, c in found:
                    hi, lo = ps[a], ps[c]
                    fresh_side = "silver" if len(games) % 2 == 0 else "bronze"
                    if side_of_higher(hi["sides"], lo["sides"], fresh_side) == "silver":
                        games.append((hi["id"], lo["id"]))
                    else:
                        games.append((lo["id"], hi["id"]))
                return games, (ps[b]["id"] if b >= 0 else None)
    raise AssertionError("no pairing")


HALVES = {"silver": (2, 0), "bronze": (0, 2), "draw": (1, 1)}


def swiss_state(entrants, games, byes, before_round):
    """Each entrant's state for pairing round `before_round`, from the rounds before it."""
    st = {e["id"]: {"id": e["id"], "rating": e["rating"], "score": 0, "sides": [], "met": set(),
                    "had_bye": False} for e in entrants}
    for g in games:
        if g["round"] >= before_round:
            continue
        s, b = g["silver"]["id"], g["bronze"]["id"]
        halves = HALVES[g["result"]] if g["result"] else (0, 0)
        for me, them, side, half in ((s, b, "silver", halves[0]), (b, s, "bronze", halves[1])):
            if me in st:  # (one absent from this round: withdrawn)
                st[me]["met"].add(them)
                st[me]["sides"].append(side)
                st[me]["score"] += half
    for b in byes:
        if b["round"] < before_round and b["player"]["id"] in st:
            st[b["player"]["id"]]["score"] += 2
            st[b["player"]["id"]]["had_bye"] = True
    return st


def swiss_standings(entrants, games, byes):
    """[(id, score, buchholz, sonneborn)] in the standings' order (points as numbers)."""
    score = {e["id"]: 0 for e in entrants}
    rating = {e["id"]: e["rating"] for e in entrants}
    for g in games:
        if g["result"]:
            hs, hb = HALVES[g["result"]]
            score[g["silver"]["id"]] += hs
            score[g["bronze"]["id"]] += hb
    for b in byes:
        score[b["player"]["id"]] += 2
    buch = {i: 0 for i in score}
    sb = {i: 0 for i in score}
    for g in games:
        if not g["result"]:
            continue
        s, b = g["silver"]["id"], g["bronze"]["id"]
        hs, hb = HALVES[g["result"]]
        buch[s] += score[b]
        buch[b] += score[s]
        sb[s] += hs * score[b]
        sb[b] += hb * score[s]
    order = sorted(score, key=lambda i: (-score[i], -buch[i], -sb[i], -rating[i], i))
    return [(i, score[i] / 2, buch[i] / 2, sb[i] / 4) for i in order]


def arena_points(entrants, games, ends_at, berserk=()):
    """{id: (points, [points per game])} from the games that ended by `ends_at`, in the order
    they ended: 2/1/0, doubled after two wins in a row, a draw within 6 turns worth nothing, and
    one more for a win of at least 7 turns by a player who went berserk ((code, id) in
    `berserk`)."""
    pts = {e["id"]: [] for e in entrants}
    streak = {e["id"]: 0 for e in entrants}
    done = [g for g in games if g["ended"] and g["result"] and g["ended_at"] <= ends_at]
    done.sort(key=lambda g: g["ended_at"])
    for g in done:
        for side in ("silver", "bronze"):
            pid = g[side]["id"]
            fire = streak[pid] >= 2
            if g["result"] == side:
                p = 4 if fire else 2
                if (g["code"], pid) in berserk and g["turns"] >= 7:
                    p += 1
                streak[pid] += 1
            else:
                p = (2 if fire else 1) if g["result"] == "draw" and g["turns"] >= 6 else 0
                streak[pid] = 0
            pts[pid].append(p)
    return {i: (sum(v), v) for i, v in pts.items()}


# ---------------------------------------------------------------- the players
class Bots:
    """A `trunkfield bot --challenges` per account, on the given nodes."""

    def __init__(self, work, players, nodes):
        self.procs = []
        servers = ",".join(f"127.0.0.1:{n.tcp}" for n in nodes)
        for i, p in enumerate(players):
            log = open(os.path.join(work, f"bot-{p.username}.log"), "a")
            self.procs.append(subprocess.Popen(
                [CLI, "bot", "--server", servers, "--level", "1", "--seed", str(i + 1),
                 "--token", p.token, "--challenges"], stdout=log, stderr=subprocess.STDOUT))

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        for p in self.procs:
            check(p.returncode in (0, -signal.SIGTERM, 143),
                  f"a bot ended on its own with {p.returncode}")


def make(port, who, body, want=200):
    st, j, text = ct.api(port, "POST", "/api/tournament", token=who.token, body=body, schema=ANY)
    check(st == want, f"POST /api/tournament {body}: {st} {text[:300]}")
    return j


def join(port, who, tid, body=None, want=200):
    st, j, text = ct.api(port, "POST", f"/api/tournament/{tid}/join", token=who.token,
                         body=body or {}, schema=ANY)
    check(st == want, f"{who.username} joins {tid}: {st} {text[:300]}")
    return j


def show(port, tid):
    st, j, text = ct.api(port, "GET", f"/api/tournament/{tid}", schema=ANY)
    check(st == 200, f"GET /api/tournament/{tid}: {st} {text[:300]}")
    return j


def wait_for(port, tid, pred, what, timeout=300):
    deadline = time.time() + timeout
    while True:
        t = show(port, tid)
        if t and pred(t):
            return t
        if time.time() > deadline:
            check(False, f"{what} within {timeout} s: {t and {k: t[k] for k in ('phase', 'round') if k in t}}")
            return t
        time.sleep(0.3)


# ---------------------------------------------------------------- the checks
def check_swiss(port, t, rounds):
    """Every round paired as computed here, the standings as counted here."""
    entrants = [{"id": s["id"], "rating": s["rating"]} for s in t["standings"]]
    games, byes = t["games"], t["byes"]
    joined_late = {}  # a player absent from a round's pairing entered after it was paired
    for r in range(1, rounds + 1):
        got = [(g["silver"]["id"], g["bronze"]["id"]) for g in games if g["round"] == r]
        bye = next((b["player"]["id"] for b in byes if b["round"] == r), None)
        present = {i for pair in got for i in pair} | ({bye} if bye else set())
        for e in entrants:
            if e["id"] not in present:
                joined_late.setdefault(e["id"], r)
        st = swiss_state([e for e in entrants if e["id"] in present], games, byes, r)
        want, want_bye = swiss_pairing(list(st.values()))
        check(got == want and bye == want_bye,
              f"round {r} paired as computed: got {got} bye {bye}, want {want} bye {want_bye}")
        check(all(g["ended"] for g in games if g["round"] == r), f"round {r}: every game ended")
    pairs = [frozenset((g["silver"]["id"], g["bronze"]["id"])) for g in games]
    check(len(pairs) == len(set(pairs)), "no two players met twice")
    want = swiss_standings(entrants, games, byes)
    got = [(s["id"], s["score"], s["buchholz"], s["sonneborn_berger"]) for s in t["standings"]]
    check(got == want, f"the standings as counted here:\n got  {got}\n want {want}")
    return joined_late


def check_history(port, t):
    """Every game of the tournament is in the history API with its result."""
    for g in t["games"]:
        st, h, text = ct.api(port, "GET", f"/api/games/{g['code']}", schema=ANY)
        ok = st == 200 and h["status"] in ("over", "aborted") and h["rated"] == t["rated"]
        check(g["turns"] > 0 or not g["result"],
              f"a game without a turn of play is worth nothing: {g}")
        if ok and g["result"]:
            w = h["result"].get("winner")
            ok = w == g["result"]
        check(ok, f"game {g['code']} in the history as the tournament has it: {st} {text[:300]}")


def refusals(srv, people, guest):
    base = {"kind": "swiss", "variant": SMALL, "time_control": CLOCK, "rounds": 3}
    for bad in ({**base, "kind": "knockout"}, {**base, "rounds": 0}, {**base, "minutes": 5},
                {**base, "surprise": 1}, {**base, "time_control": {"days_per_move": 3}},
                {**base, "max_players": 1}, {**base, "name": "x"}):
        make(srv.http, people[0], bad, 400)
    make(srv.http, guest, base, 403)
    st, _, _ = ct.api(srv.http, "POST", "/api/tournament", body=base, schema=ANY)
    check(st == 401, f"no token: 401, got {st}")


def swiss_on(srv, work, people, tag):
    """The Swiss of the one-node run, with a restart in round 2."""
    ann = people[0]
    spec = {"kind": "swiss", "name": f"Dozen Swiss {tag}", "variant": SMALL, "time_control": CLOCK,
            "rounds": 3, "round_gap_s": 1, "starts_in_s": 4}
    made = make(srv.http, ann, spec)
    tid = made and made["id"]
    check(made and made["link"] == f"/t/{tid}", f"the answer names the tournament: {made}")
    private = make(srv.http, ann, {**spec, "name": "Hidden", "public": False, "password": "owl"})
    make(srv.http, ann, {**spec, "name": "A third"}, 409)
    st, lst, _ = ct.api(srv.http, "GET", "/api/tournaments", schema=ANY)
    ids = [x["id"] for x in (lst or {}).get("tournaments", [])]
    check(st == 200 and tid in ids and private["id"] not in ids,
          f"the list shows the public one only: {ids}")
    join(srv.http, people[1], private["id"], {"password": "cat"}, 403)
    check(join(srv.http, people[1], private["id"], {"password": "owl"})["joined"] == "joined",
          "the password lets one in")
    ct.api(srv.http, "POST", f"/api/tournament/{private['id']}/withdraw", token=people[1].token,
           body={}, schema=ANY)
    for p in people[:DOZEN - 1]:
        join(srv.http, p, tid)
    check(join(srv.http, ann, tid)["joined"] == "already", "joining twice: already")
    bots = Bots(work, people, [srv])
    try:
        t = wait_for(srv.http, tid, lambda t: t["phase"] == "running" and t["round"] == 1,
                     "round 1")
        join(srv.http, people[DOZEN - 1], tid)  # the twelfth, late
        t = wait_for(srv.http, tid, lambda t: t["round"] == 2, "round 2")
        r2 = [g for g in t["games"] if g["round"] == 2]
        check(len(r2) == DOZEN // 2 and not [b for b in t["byes"] if b["round"] == 2],
              f"round 2: the late twelfth plays, no bye: {len(r2)} games")
        print("     restarting the server in round 2", flush=True)
        srv.stop()
        srv.start()
        t = wait_for(srv.http, tid, lambda t: t["phase"] == "finished", "the end", 400)
    finally:
        bots.stop()
    late = check_swiss(srv.http, t, 3)
    check(late == {people[DOZEN - 1].id: 1}, f"only the twelfth missed a round (round 1): {late}")
    check_history(srv.http, t)
    st, _, text = ct.api(srv.http, "GET", f"/api/tournament/{tid}/report", schema=ANY)
    check(st == 200 and text.startswith(f"Dozen Swiss {tag} (Swiss, finished)") and
          "Round 3 (silver first)" in text, f"the report: {st} {text[:300]}")
    join(srv.http, people[0], tid, want=409)
    return t


def arena_on(srv, work, people, tag):
    ann = people[0]
    spec = {"kind": "arena", "name": f"Dozen arena {tag}", "variant": SMALL,
            "time_control": CLOCK, "minutes": 1, "starts_in_s": 2}
    made = make(srv.http, ann, spec)
    tid = made["id"]
    # A broadcaster's stream of it, from before the start to its end, with no token.
    stream = subprocess.Popen(["curl", "-sS", "-N", f"http://127.0.0.1:{srv.http}/api/tournament/{tid}/stream"],
                              stdout=subprocess.PIPE)
    for p in people:
        join(srv.http, p, tid)
    bots = Bots(work, people, [srv])
    try:
        t = wait_for(srv.http, tid, lambda t: t["phase"] == "finished", "the arena's end", 200)
        time.sleep(1)
        # games still being played at the end: let them end, then look again
        wait_for(srv.http, tid, lambda t: all(g["ended"] for g in t["games"]),
                 "the arena's last games", 120)
        t = show(srv.http, tid)
    finally:
        bots.stop()
    check_stream(srv.http, stream, t)
    entrants = [{"id": s["id"], "rating": s["rating"]} for s in t["standings"]]
    pts = arena_points(entrants, t["games"], t["ends_at"])
    got = {s["id"]: (s["points"], [e["points"] for e in s["sheet"]]) for s in t["standings"]}
    check(got == pts, f"the arena's points as counted here:\n got  {got}\n want {pts}")
    order = [s["id"] for s in t["standings"]]
    check(order == sorted(order, key=lambda i: (-pts[i][0], -next(
        s["performance"] for s in t["standings"] if s["id"] == i), -next(
        s["rating"] for s in t["standings"] if s["id"] == i), i)), "the standings' order")
    check(len(t["games"]) >= DOZEN, f"games were paired again: {len(t['games'])}")
    last = {}
    busy = {}
    for g in sorted(t["games"], key=lambda g: g["paired_at"]):
        a, b = g["silver"]["id"], g["bronze"]["id"]
        check(last.get(a) != b and last.get(b) != a, f"{a} and {b} met twice in a row")
        for x in (a, b):
            check(busy.get(x, 0) <= g["paired_at"], f"{x} was paired while playing")
            busy[x] = g["ended_at"] or 2 ** 62
        last[a], last[b] = b, a
    late = [g for g in t["games"] if g["ended_at"] and g["ended_at"] > t["ends_at"]]
    print(f"     arena: {len(t['games'])} games, {len(late)} ended after its end", flush=True)
    return t


def berserk_on(srv, work, tag):
    """Two players in an arena that allows berserk: both go berserk before their first turn of
    play (their clocks lose half the initial time), a second berserk is refused, the game is
    played by their bots, and the winner of a game of at least 7 turns scores one point more."""
    a = ct.Player(srv.tcp, username=f"bz{tag}1")
    b = ct.Player(srv.tcp, username=f"bz{tag}2")
    make(srv.http, a, {"kind": "swiss", "time_control": CLOCK, "rounds": 1, "berserk": True},
         want=400)
    spec = {"kind": "arena", "name": f"Berserk arena {tag}", "variant": SMALL,
            "time_control": CLOCK, "minutes": 1, "starts_in_s": 1}
    tid = make(srv.http, a, spec)["id"]
    check(show(srv.http, tid)["berserk"] is True, "an arena allows berserk unless told not")
    off = make(srv.http, b, dict(spec, name=f"Calm arena {tag}", berserk=False, starts_in_s=600))
    check(show(srv.http, off["id"])["berserk"] is False, "an arena made without berserk")
    join(srv.http, a, tid)
    join(srv.http, b, tid)
    t = wait_for(srv.http, tid, lambda t: t["games"], "the first pairing", 60)
    g = t["games"][0]
    code = g["code"]
    side = {g["silver"]["id"]: "silver", g["bronze"]["id"]: "bronze"}
    for p in (a, b):
        n = len(p.got)
        p.send({"type": "watch", "code": code})
        snap = ct.seen(p, n, lambda m: m["type"] == "snapshot" and m["game"] == code)
        check(snap and snap["record"]["time_control"].get("berserk") is True,
              f"the arena's game allows berserk: {snap and snap['record']['time_control']}")
    half = CLOCK["initial_ms"] // 2
    for p in (a, b):
        n = len(p.got)
        p.send({"type": "berserk", "game": code})
        ev = ct.seen(p, n, lambda m: ct.event(code, "berserk")(m) and
                     m["payload"]["side"] == side[p.id])
        check(ev and ev["payload"]["side"] == side[p.id] and
              ev["clocks"][side[p.id] + "_ms"] == half,
              f"{side[p.id]} went berserk, its clock at half: {ev}")
        n = len(p.got)
        p.send({"type": "berserk", "game": code})
        check(ct.seen(p, n, lambda m: m["type"] == "error" and m["code"] == "berserk_off"),
              "a second berserk is refused")
    n = len(a.got)
    a.send({"type": "watch", "code": code})
    snap = ct.seen(a, n, lambda m: m["type"] == "snapshot" and m["game"] == code)
    check(snap and snap.get("berserk") == ["silver", "bronze"], f"the snapshot lists both: {snap}")
    bots = Bots(work, [a, b], [srv])
    try:
        wait_for(srv.http, tid, lambda t: t["phase"] == "finished", "the berserk arena's end", 200)
        wait_for(srv.http, tid, lambda t: all(g["ended"] for g in t["games"]),
                 "the berserk arena's last games", 120)
        t = show(srv.http, tid)
    finally:
        bots.stop()
    first = next(g for g in t["games"] if g["code"] == code)
    entrants = [{"id": s["id"], "rating": s["rating"]} for s in t["standings"]]
    pts = arena_points(entrants, t["games"], t["ends_at"], {(code, a.id), (code, b.id)})
    got = {s["id"]: (s["points"], [e["points"] for e in s["sheet"]]) for s in t["standings"]}
    check(got == pts, f"the berserk arena's points:\n got  {got}\n want {pts}")
    extra = first["result"] in ("silver", "bronze") and first["turns"] >= 7
    marked = [s["id"] for s in t["standings"] if s["sheet"] and s["sheet"][0].get("berserk")]
    winner = first["result"] in side.values() and next(
        i for i, s in side.items() if s == first["result"])
    check(marked == ([winner] if extra else []), f"the berserk point marked: {marked}, {first}")
    print(f"     berserk: the first game {first['result']} in {first['turns']} turns"
          f"{', a point more' if extra else ''}", flush=True)
    a.close()
    b.close()


def check_stream(port, stream, final):
    """GET /api/tournament/ID/stream: NDJSON lines, each a change, the last one the tournament
    over as GET has it, then the end of the stream; an unknown id is 404."""
    try:
        out, _ = stream.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        stream.kill()
        out, _ = stream.communicate()
        check(False, "the tournament's stream ends once it is over")
    lines = [json.loads(l) for l in out.decode().split("\n") if l.strip()]
    check(len(lines) >= 3 and lines[0]["phase"] == "created" and
          all(a != b for a, b in zip(lines, lines[1:])),
          f"the stream: a line at each change, from before the start: {len(lines)} lines, "
          f"phases {[x.get('phase') for x in lines[:3]]}")
    check(bool(lines) and lines[-1] == final,
          f"the stream's last line is the tournament over: {lines[-1] if lines else None}")
    players = [len(x.get("standings", [])) for x in lines]
    check(players == sorted(players) and players[-1] == DOZEN,
          f"the stream shows the players arrive: {players[:15]}")
    head = subprocess.run(["curl", "-sS", "-i", f"http://127.0.0.1:{port}/api/tournament/zzzzzzzz/stream"],
                          capture_output=True, timeout=30).stdout.decode()
    check(head.startswith("HTTP/1.1 404") and '"not_found"' in head,
          f"the stream of an unknown tournament: {head[:200]}")


def schedule_file(work):
    """The operator's schedule (docs/TOURNAMENTS.md): an hourly arena whose next slot starts
    in 3 to 4 minutes (announced 60 minutes ahead: made at once), and a weekly Swiss days away
    (announced 1 hour ahead: not yet). (path, the hourly slot's start in epoch ms)"""
    now = time.time()
    slot = (int(now // 60) + 4) * 60  # a whole minute, 3 to 4 minutes ahead
    t = time.gmtime(slot)
    weekday = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[(t.tm_wday + 3) % 7]
    entries = [
        {"every": "hour", "at": f":{t.tm_min:02d}", "tournament": {
            "kind": "arena", "name": "Hourly test arena", "minutes": 5, "rated": False,
            "time_control": CLOCK, "variant": SMALL}},
        {"every": "week", "at": f"{weekday} 12:00", "tournament": {
            "kind": "swiss", "name": "Weekly test Swiss", "rounds": 5, "time_control": CLOCK}},
    ]
    path = os.path.join(work, "schedule.json")
    with open(path, "w") as f:
        json.dump(entries, f)
    return path, slot * 1000


def check_schedule(port, slot, where):
    """The schedule's hourly slot made once, by the server itself (once it started, the next
    hour's is announced too: each once); the weekly one not yet."""
    st, lst, _ = ct.api(port, "GET", "/api/tournaments", schema=ANY)
    mine = [x for x in (lst or {}).get("tournaments", []) if x["name"] == "Hourly test arena"]
    starts = sorted(x["starts_at"] for x in mine)
    check(st == 200 and starts and starts[0] == slot and len(set(starts)) == len(starts) and
          all(b - a == 3600_000 for a, b in zip(starts, starts[1:])) and
          all(x["created_by"] is None and x["minutes"] == 5 for x in mine),
          f"{where}: the schedule's hourly arena, each slot made once, by nobody: {mine}")
    check(not [x for x in lst.get("tournaments", []) if x["name"] == "Weekly test Swiss"],
          f"{where}: the weekly Swiss days away is not made yet")


def one_node(srv, work, tag):
    people = [ct.Player(srv.tcp, username=f"t{tag}{i:02d}") for i in range(1, DOZEN + 1)]
    guest = ct.Player(srv.tcp)
    try:
        refusals(srv, people, guest)
        swiss_on(srv, work, people, tag)
        for p in people:  # the restart closed their connections: their tokens stay
            p.close()
        people2 = [ct.Player(srv.tcp, token=p.token) for p in people]
        for a, b in zip(people2, people):
            a.username = b.username
        arena_on(srv, work, people2, tag)
        for p in people2:
            p.close()
        berserk_on(srv, work, tag)
    finally:
        guest.close()


def failover(work, store):
    """Two nodes; the director of a Swiss is killed mid-round; the other takes over. Both have
    the same schedule: its slot is made once."""
    schedule, slot = schedule_file(work)
    with ct.nodes_on_bus(work, store, ["--tournament-schedule", schedule]) as nodes:
        if not nodes:
            return
        one, two = nodes
        deadline = time.time() + 20
        while time.time() < deadline and not any(
                "made by the schedule" in open(n.log_path).read() for n in nodes):
            time.sleep(0.2)
        check_schedule(one.http, slot, "two nodes")
        people = [ct.Player(two.tcp, username=f"tf{i:02d}") for i in range(1, DOZEN + 1)]
        spec = {"kind": "swiss", "name": "Failover Swiss", "variant": SMALL,
                "time_control": CLOCK, "rounds": 3, "round_gap_s": 1, "starts_in_s": 3}
        made = make(two.http, people[0], spec)
        tid = made["id"]
        for p in people:
            join(two.http, p, tid)
        bots = Bots(work, people, [one, two])
        try:
            wait_for(two.http, tid, lambda t: t["round"] == 2, "round 2", 300)
            # The director is the node that took the tournament (only it says so).
            mark = f"tournament {tid}: directed by"
            victim = one if any(mark in line for line in open(one.log_path)) else two
            survivor = two if victim is one else one
            print(f"     killing the director ({'node 1' if victim is one else 'node 2'})",
                  flush=True)
            victim.kill9()
            t = wait_for(survivor.http, tid, lambda t: t["phase"] == "finished",
                         "the end on the other node", 400)
            check(any(mark in line for line in open(survivor.log_path)),
                  "the survivor took the tournament over")
            victim.start()  # stopped again (and its log checked) by nodes_on_bus
        finally:
            bots.stop()
        check_swiss(survivor.http, t, 3)
        codes = [g["code"] for g in t["games"]]
        check(len(codes) == len(set(codes)), "no game paired twice")
        check(all(g["ended"] for g in t["games"]), "no result lost")
        for p in people:
            p.close()


def main(work, store):
    if store:  # the one-node run's SQL is the same on both stores: PostgreSQL runs the failover
        print("two nodes: the director killed", flush=True)
        failover(work, store)
        return
    schedule, slot = schedule_file(work)
    srv = ct.one_server(work, ["--no-house-bots", "--tournament-schedule", schedule])
    try:
        print("one node on SQLite", flush=True)
        deadline = time.time() + 20
        while time.time() < deadline and "made by the schedule" not in open(srv.log_path).read():
            time.sleep(0.2)
        check_schedule(srv.http, slot, "one node")
        one_node(srv, work, "l")
        check_schedule(srv.http, slot, "after a restart")
    finally:
        srv.stop()
        ct.complain(srv.log_path, "the server")


if __name__ == "__main__":
    ct.run("tournament", main)
