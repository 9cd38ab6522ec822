#!/usr/bin/env python3
"""Server-side puzzles (issue 37): the store, the operator's tools and the Puzzle API
(proto/PROTOCOL.md "Puzzle API (HTTP, JSON)"), against the real server binary.

  - `trunkfield-server puzzles import` of tests/fixtures/puzzles.jsonl stores its 9 puzzles;
    importing again adds none; `puzzles export` prints them back as the same JSON, and
    `trunkfield puzzles verify` re-verifies every exported one (exit 0, "9 of 9").
  - Readers: no token (judged, nothing kept), accounts and a guest (tokens from `hello` and
    `register` over TCP). `next` gives an untried puzzle, the closest to the reader's rating
    (ties by id), never a tried one again, narrows by theme, and ends with 404 `no_puzzle`.
  - Answers turn by turn: `correct` with the line's reply, then done/solved with the whole line;
    a wrong first (and a wrong second) turn ends the attempt. Every rated attempt's ratings
    (reader and puzzle, before and after) equal, within 1e-6, a Glicko-2 computed here from
    Glickman's paper (glicko.net/glicko/glicko2.pdf) with the project's lichess-style rules
    (server/accounts/glicko2.h: tau 0.75, 0.21436 rating periods a day since each side's last
    rated attempt, deviation 45..500, volatility at most 0.1, at most 700 points a game) -- an
    implementation of its own, not a port of the server's. A puzzle's second reader checks the
    puzzle's own growth with the days since its last attempt.
  - Later attempts at a finished puzzle are judged and change nothing (rated false); a guest's
    attempt is kept but not rated; `mine` lists kept attempts newest first with the current
    rating; the account's page shows `ratings.puzzle`.
  - `daily`: the same puzzle for every reader (the longest line of the fixture), `day` today (UTC).
  - Bad input: an illegal turn (400 illegal_turn with rule), malformed bodies and parameters
    (400 bad_request), more turns than the line holds, a body over 16 KiB (413, plain text),
    unknown ids (404 not_found); the server answers normally afterwards.
  - Everything survives a restart; with `--mine-puzzles` (when the server has it) the log says
    the miner runs (light: no game is mined here).
Every answer is validated against proto/schema/puzzles/*.json (and the player page against
proto/schema/history/player.json) with jsonschema's Draft202012Validator.

With --pg the same runs on PostgreSQL (--store postgres): in the cluster of TF_TEST_DATABASE_URL
(the CTest fixture "postgres") in a fresh database, or else in a throwaway cluster of its own
(scripts/pg-test-cluster.sh); exit 77 when PostgreSQL 15 is missing.

usage: puzzles_test.py SERVER_BIN CLI_BIN [--pg]
"""
import datetime
import glob
import http.client
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings

import jsonschema

if len(sys.argv) < 3:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
SERVER, CLI = sys.argv[1], sys.argv[2]
PG = "--pg" in sys.argv[3:]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "puzzles.jsonl")
SCHEMA_DIR = os.path.join(ROOT, "proto", "schema")
PASSWORD = "correct-horse-battery-42"
SKIP = 77
FAILED = []


def check(ok, what):
    if not ok:
        print(f"FAIL: {what}")
        FAILED.append(what)
    return ok


def note(text):
    print(f"  {text}")


# --- Glicko-2, from Glickman's paper ---------------------------------------------------------
# Step numbers are the paper's ("Example of the Glicko-2 system", 2022). The project's rules on
# top (PROTOCOL.md "Ratings", server/accounts/glicko2.h): one game is one rating period applied
# at once; the pre-period deviation grows by t = days * 0.21436 rating periods (days since the
# side's last rated game, 0 before the first; t never below 1e-6); then the deviation is kept
# within 45..500, the volatility at most 0.1 and the change at most 700 points.

GLICKO_SCALE = 173.7178
TAU = 0.75
PERIODS_PER_DAY = 0.21436
MS_PER_DAY = 86400000.0


def _g(phi):
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi ** 2))


def _new_sigma(phi, sigma, delta, v, tau):
    """Step 5: the volatility by the Illinois algorithm (regula falsi), to a tight tolerance."""
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    lo = a
    if delta * delta > phi * phi + v:
        hi = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        hi = a - k * tau
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > 1e-12:
        mid = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_mid = f(mid)
        if f_mid * f_hi < 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2.0
        hi, f_hi = mid, f_mid
    return math.exp(lo / 2.0)


def glicko_period(me, games, t, tau):
    """Steps 2-8 for one rating period: `me` (dict rating/deviation/volatility) after `games`,
    a list of (opponent, score), the period starting `t` rating periods after me's last one (the
    paper's plain period: t = 1). Unbounded: (rating, deviation, volatility)."""
    # Step 2: onto the Glicko-2 scale.
    mu = (me["rating"] - 1500.0) / GLICKO_SCALE
    phi = me["deviation"] / GLICKO_SCALE
    sigma = me["volatility"]
    # Step 3: the estimated variance of the rating from the game outcomes alone.
    terms = []
    for them, score in games:
        gj = _g(them["deviation"] / GLICKO_SCALE)
        e = 1.0 / (1.0 + math.exp(-gj * (mu - (them["rating"] - 1500.0) / GLICKO_SCALE)))
        terms.append((gj, e, score))
    v = 1.0 / sum(gj * gj * e * (1.0 - e) for gj, e, _ in terms)
    # Step 4: the estimated improvement.
    improvement = sum(gj * (score - e) for gj, e, score in terms)
    delta = v * improvement
    # Step 5: the new volatility.
    sigma_new = _new_sigma(phi, sigma, delta, v, tau)
    # Step 6: the pre-rating-period deviation, over t (fractional) rating periods.
    phi_star = math.sqrt(phi * phi + t * sigma_new * sigma_new)
    # Step 7: the new deviation and rating.
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8: back to the Glicko scale.
    return 1500.0 + GLICKO_SCALE * mu_new, GLICKO_SCALE * phi_new, sigma_new


def glicko_game(me, them, score, days):
    """One rated game under the project's rules: `me` after a game against `them` (both as
    stored before it) scoring `score`, `days` after me's last rated game."""
    rating, deviation, sigma = glicko_period(me, [(them, score)],
                                             max(days * PERIODS_PER_DAY, 1e-6), TAU)
    rating = min(max(rating, me["rating"] - 700.0), me["rating"] + 700.0)
    return rating, min(max(deviation, 45.0), 500.0), min(sigma, 0.1)


def paper_example():
    """The worked example of Glickman's paper (tau 0.5): 1500/200/0.06 against 1400/30 (win),
    1550/100 and 1700/300 (losses) gives 1464.06 / 151.52 / 0.05999."""
    me = {"rating": 1500.0, "deviation": 200.0, "volatility": 0.06}
    games = [({"rating": 1400.0, "deviation": 30.0}, 1.0),
             ({"rating": 1550.0, "deviation": 100.0}, 0.0),
             ({"rating": 1700.0, "deviation": 300.0}, 0.0)]
    r, rd, sigma = glicko_period(me, games, 1.0, 0.5)
    if abs(r - 1464.06) > 0.01 or abs(rd - 151.52) > 0.01 or abs(sigma - 0.05999) > 0.00001:
        raise SystemExit(f"this test's Glicko-2 misses the paper's example: {r} {rd} {sigma}")


def days_since(r, at_ms):
    """Days between r's last rated game and at_ms; 0 before its first."""
    if r["games"] == 0:
        return 0.0
    return max(0.0, (at_ms - r["last_at"]) / MS_PER_DAY)


def shown_deviation(r, now_ms):
    """The deviation as shown (rounded later): grown by the days since the last rated game."""
    phi = r["deviation"] / GLICKO_SCALE
    t = days_since(r, now_ms) * PERIODS_PER_DAY
    return min(max(math.sqrt(phi * phi + t * r["volatility"] ** 2) * GLICKO_SCALE, 45.0), 500.0)


# --- schemas ---------------------------------------------------------------------------------

def load_validators():
    paths = (glob.glob(os.path.join(SCHEMA_DIR, "puzzles", "*.json")) +
             glob.glob(os.path.join(SCHEMA_DIR, "history", "*.json")) +
             [os.path.join(SCHEMA_DIR, "common.json")])
    schemas = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        schemas[os.path.relpath(path, SCHEMA_DIR)[:-5]] = schema
    try:  # jsonschema >= 4.18
        import referencing
        registry = referencing.Registry().with_resources(
            (s["$id"], referencing.Resource.from_contents(s)) for s in schemas.values())
        return {name: jsonschema.Draft202012Validator(s, registry=registry)
                for name, s in schemas.items()}
    except ImportError:  # Debian 12's 4.10
        store = {s["$id"]: s for s in schemas.values()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return {name: jsonschema.Draft202012Validator(
                s, resolver=jsonschema.RefResolver.from_schema(s, store=store))
                for name, s in schemas.items()}


VALIDATORS = load_validators()


def schema_for(method, path, status):
    route = path.split("?")[0]
    if route.startswith("/api/players/"):
        return "history/player" if status == 200 else "history/error"
    if status != 200:
        return "puzzles/error"
    if route == "/api/puzzles/mine":
        return "puzzles/mine"
    if method == "POST":
        return "puzzles/answer"
    return "puzzles/puzzle"


# --- the fixture and the rules ---------------------------------------------------------------

def read_fixture():
    with open(FIXTURE, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


PUZZLES = {p["id"]: p for p in read_fixture()}


def solver_of(p):
    return "silver" if p["position"].split()[2] == "s" else "bronze"


def solver_turns(p):
    return (len(p["line"]) + 1) // 2


def initial_rating(p):
    return {1: 1300.0, 2: 1500.0, 3: 1700.0}[solver_turns(p)]


def canon(turn):
    """A turn with absent and null `facing` alike (the two spellings of "no facing")."""
    if turn is None:
        return None
    t = json.loads(json.dumps(turn))
    e = t.get("elephant")
    if isinstance(e, dict) and e.get("facing") is None:
        e.pop("facing", None)
    t.setdefault("burnt", None)
    if t.get("guardians") is None:
        t["guardians"] = []
    return t


def legal_turns(position, turns):
    """Every legal elephant move (as a whole turn) after `turns` from `position`
    (`trunkfield rules moves` on a record that starts from the position)."""
    size, elephants, burnt, quiet = (int(x) for x in position.split()[0].split("."))
    record = {"variant": {"size": size, "elephants": elephants, "burnt": burnt, "quiet": quiet},
              "position": position, "turns": turns}
    out = subprocess.run([CLI, "rules", "moves", "-"], input=json.dumps(record),
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit(f"rules moves failed ({out.returncode}): {out.stderr}")
    moves = json.loads(out.stdout)["moves"]
    return [{"elephant": m, "burnt": None, "guardians": []} for m in moves]


def replays(position, turns):
    """Whether `turns` are legal one after the other from `position` (`trunkfield rules replay`)."""
    size, elephants, burnt, quiet = (int(x) for x in position.split()[0].split("."))
    record = {"variant": {"size": size, "elephants": elephants, "burnt": burnt, "quiet": quiet},
              "position": position, "turns": turns}
    out = subprocess.run([CLI, "rules", "replay", "-"], input=json.dumps(record),
                         capture_output=True, text=True, timeout=60)
    return out.returncode == 0 and json.loads(out.stdout).get("applied") == len(turns)


def wrong_turn(p, k):
    """A legal turn for the solver's k-th turn (0-based) that is not the solution's: another
    elephant's move when there is one (never the same position as the solution's)."""
    sol = p["line"][2 * k]
    moves = legal_turns(p["position"], p["line"][:2 * k])
    others = [m for m in moves if m["elephant"]["from"] != (sol["elephant"] or {}).get("from")]
    if not others:
        others = [m for m in moves if canon(m) != canon(sol)]
    if not others:
        raise SystemExit(f"puzzle {p['id']}: no other legal turn to play wrong")
    return others[len(others) // 2]


# --- the server and its readers --------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_help():
    return subprocess.run([SERVER, "--help"], capture_output=True, text=True, timeout=30).stdout


class Server:
    def __init__(self, store_args, log_path, extra=()):
        self.log_path = log_path
        log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [SERVER, "--bind", "127.0.0.1", "--http-port", "0", "--tcp-port", "0",
             "--rate", "100000", "--burst", "100000", *store_args, *extra],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.time() + 60
        while time.time() < deadline:
            m = re.search(r"listening http=[^ ]*:(\d+) tcp=[^ ]*:(\d+)", self.log())
            if m:
                self.http, self.tcp = int(m.group(1)), int(m.group(2))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.proc.kill()
        raise SystemExit("server did not start:\n" + self.log())

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    # HTTP: one connection per request (a 413 closes it). Every JSON answer is validated.
    def call(self, method, path, body=None, token=None, raw=None, validate=True):
        """(status, parsed JSON or None, raw body text). `body`: JSON-serialised; `raw`: bytes."""
        headers = {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                            else None)
        if data is not None:
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection("127.0.0.1", self.http, timeout=60)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            status, text = resp.status, resp.read().decode("utf-8", "replace")
            ctype = resp.getheader("Content-Type") or ""
        finally:
            conn.close()
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if validate and path.startswith("/api/"):
            what = f"{method} {path} -> {status}"
            if check(obj is not None, f"{what}: the answer is not JSON: {text[:300]!r}"):
                check(ctype.startswith("application/json"),
                      f"{what}: Content-Type {ctype!r}, not application/json")
                name = schema_for(method, path, status)
                errors = sorted(VALIDATORS[name].iter_errors(obj), key=lambda e: list(e.path))
                check(not errors, f"{what}: does not match {name}.json: " +
                      "; ".join(f"{list(e.path)}: {e.message[:300]}" for e in errors[:3]) +
                      f"\n  answer: {text[:600]}")
        return status, obj, text

    def get(self, path, token=None):
        return self.call("GET", path, token=token)

    def answer(self, pid, turns, token=None):
        return self.call("POST", f"/api/puzzles/{pid}/answer", body={"turns": turns},
                         token=token)


class Reader:
    """A player with a token: a guest from `hello`, made an account by `register` (TCP)."""

    def __init__(self, srv, username=None):
        s = socket.create_connection(("127.0.0.1", srv.tcp), timeout=60)
        f = s.makefile("rb")

        def send(m):
            s.sendall((json.dumps(m) + "\n").encode())

        def welcome(ref=None):
            while True:
                line = f.readline()
                if not line:
                    raise SystemExit("the server closed the TCP connection")
                m = json.loads(line)
                if m["type"] == "welcome" and (ref is None or m.get("ref") == ref):
                    return m
                if m["type"] == "error":
                    raise SystemExit(f"TCP: {m}")

        try:
            send({"type": "hello", "version": 1})
            w = welcome()
            self.player_id, self.token, self.name = w["player_id"], w["token"], w["name"]
            self.username = None
            if username:
                send({"type": "register", "username": username, "password": PASSWORD,
                      "ref": "r1"})
                w = welcome("r1")
                if not check(w.get("account") and w["token"] == self.token and
                             w["player_id"] == self.player_id,
                             f"register {username}: {w}"):
                    raise SystemExit("cannot go on without an account")
                self.username = username
        finally:
            f.close()
            s.close()
        self.rating = None  # the stored puzzle rating (R), None before the first rated attempt
        self.kept = []      # kept attempts, oldest first: (id, solved, rated, at, rating after)
        self.tried = set()


def fresh_r(rating, deviation):
    return {"rating": rating, "deviation": deviation, "volatility": None, "games": 0, "last_at": 0}


def now_ms():
    return int(time.time() * 1000)


def utc_day(ms=None):
    t = time.time() if ms is None else ms / 1000.0
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")


# --- the checks ------------------------------------------------------------------------------

class Run:
    def __init__(self, srv):
        self.srv = srv
        # The puzzles' stored ratings (R) as this test expects them.
        self.prating = {pid: fresh_r(initial_rating(p), 350.0) for pid, p in PUZZLES.items()}
        self.plays = {pid: 0 for pid in PUZZLES}
        self.psolved = {pid: 0 for pid in PUZZLES}

    # -- one puzzle as shown --
    def check_view(self, view, what, reader=None):
        pid = view.get("id")
        p = PUZZLES.get(pid)
        if not check(p is not None, f"{what}: id {pid!r} is not one of the fixture's"):
            return
        want = {"position": p["position"], "solver": solver_of(p), "solver_turns": solver_turns(p),
                "source": {"game": None, "turn": p["source_turn"]}}
        for k, v in want.items():
            check(view.get(k) == v, f"{what} ({pid}): {k} is {view.get(k)!r}, expected {v!r}")
        check(sorted(view.get("themes", [])) == sorted(p["themes"]),
              f"{what} ({pid}): themes {view.get('themes')} , the fixture has {p['themes']}")
        check("line" not in view, f"{what} ({pid}): the solution is shown before the attempt")
        r = self.prating[pid]
        check(view.get("rating") == round(r["rating"]),
              f"{what} ({pid}): rating {view.get('rating')}, expected {round(r['rating'])} "
              f"({r['rating']})")
        dev = shown_deviation({**r, "volatility": r["volatility"] or 0.09}, now_ms())
        check(isinstance(view.get("deviation"), int) and abs(view["deviation"] - dev) <= 1,
              f"{what} ({pid}): deviation {view.get('deviation')}, expected about {dev:.2f}")
        check(view.get("plays") == self.plays[pid] and view.get("solved") == self.psolved[pid],
              f"{what} ({pid}): plays/solved {view.get('plays')}/{view.get('solved')}, expected "
              f"{self.plays[pid]}/{self.psolved[pid]} (kept attempts / solved ones)")
        tried = reader is not None and pid in reader.tried
        check(view.get("tried") == tried,
              f"{what} ({pid}): tried {view.get('tried')}, expected {tried}")

    # -- the ratings of one rated attempt --
    def check_ratings(self, ans, reader, pid, solved, what):
        at = ans.get("at")
        if not check(isinstance(at, int) and abs(at - now_ms()) < 120000,
                     f"{what}: at {at!r} is not the attempt's epoch ms"):
            return
        rb, ra = ans["rating"]["before"], ans["rating"]["after"]
        pb, pa = ans["puzzle_rating"]["before"], ans["puzzle_rating"]["after"]
        want_rb = reader.rating or {"rating": 1500.0, "deviation": 500.0, "volatility": 0.09,
                                    "games": 0, "last_at": 0}
        want_pb = dict(self.prating[pid])
        if want_pb["volatility"] is None:  # a new puzzle's volatility is not in PROTOCOL.md
            want_pb["volatility"] = pb["volatility"]
        for name, got, want in (("rating.before", rb, want_rb),
                                ("puzzle_rating.before", pb, want_pb)):
            for k in ("rating", "deviation", "volatility"):
                check(abs(got[k] - want[k]) <= 1e-6,
                      f"{what}: {name}.{k} = {got[k]!r}, expected {want[k]!r}")
            for k in ("games", "last_at"):
                check(got[k] == want[k], f"{what}: {name}.{k} = {got[k]!r}, expected {want[k]!r}")
        score = 1.0 if solved else 0.0
        mine = glicko_game(want_rb, want_pb, score, days_since(want_rb, at))
        theirs = glicko_game(want_pb, want_rb, 1.0 - score, days_since(want_pb, at))
        for name, got, calc, before in (("rating.after", ra, mine, want_rb),
                                        ("puzzle_rating.after", pa, theirs, want_pb)):
            for k, c in zip(("rating", "deviation", "volatility"), calc):
                check(abs(got[k] - c) <= 1e-6,
                      f"{what}: {name}.{k} = {got[k]!r}, Glicko-2 here gives {c!r} "
                      f"(diff {got[k] - c:.3g})")
            check(got["games"] == before["games"] + 1,
                  f"{what}: {name}.games = {got['games']}, expected {before['games'] + 1}")
            check(got["last_at"] == at, f"{what}: {name}.last_at = {got['last_at']}, at = {at}")
        note(f"{what}: reader {want_rb['rating']:.2f}/{want_rb['deviation']:.2f} -> "
             f"{ra['rating']:.4f}/{ra['deviation']:.4f}, puzzle {want_pb['rating']:.2f}/"
             f"{want_pb['deviation']:.2f} -> {pa['rating']:.4f}/{pa['deviation']:.4f}")
        # Go on from what the server stored (equal to ours within 1e-6).
        reader.rating = {k: ra[k] for k in ("rating", "deviation", "volatility", "games",
                                            "last_at")}
        self.prating[pid] = {k: pa[k] for k in ("rating", "deviation", "volatility", "games",
                                                "last_at")}

    # -- one whole attempt --
    def attempt(self, reader, pid, plan, what, first=True):
        """Plays `plan` on puzzle pid: "solve" (the line, turn by turn), "wrong0" (a wrong first
        turn), "wrong1" (the first right, a wrong second). `first`: the reader's first finished
        attempt (kept; rated for an account). Returns the final answer."""
        p = PUZZLES[pid]
        token = reader.token if reader else None
        line = p["line"]
        n = solver_turns(p)
        sent = []
        for k in range(n):
            last_k = (plan == "wrong0" and k == 0) or (plan == "wrong1" and k == 1)
            turn = wrong_turn(p, k) if last_k else line[2 * k]
            sent.append(turn)
            st, ans, text = self.srv.answer(pid, sent, token)
            step = f"{what}: turn {k + 1} of {n}"
            if not check(st == 200, f"{step}: status {st}: {text[:300]}"):
                return None
            final = last_k or k == n - 1
            if last_k:
                check(ans["verdict"] == "wrong", f"{step}: a wrong turn judged {ans['verdict']!r}"
                      f" (turn {json.dumps(turn)})")
                check(ans["done"] is True and ans["solved"] is False and ans["reply"] is None,
                      f"{step}: a wrong turn: done/solved/reply {ans['done']}/{ans['solved']}/"
                      f"{ans['reply']}")
                ref = ans.get("refutation")
                if check("refutation" in ans, f"{step}: a wrong turn without its refutation"):
                    check(ref is None or replays(p["position"], line[:2 * k] + [turn, ref]),
                          f"{step}: the refutation {ref} is not a legal answer to the wrong turn")
            else:
                check(ans["verdict"] == "correct", f"{step}: the solution's turn judged "
                      f"{ans['verdict']!r}")
                want_reply = None if k == n - 1 else canon(line[2 * k + 1])
                check(canon(ans["reply"]) == want_reply,
                      f"{step}: reply {ans['reply']}, the line's is {want_reply}")
                check(ans["done"] is final and ans["solved"] is final,
                      f"{step}: done/solved {ans['done']}/{ans['solved']}, expected {final}")
            check(ans.get("id") == pid, f"{step}: id {ans.get('id')!r}")
            if not final:
                check("line" not in ans, f"{step}: the solution shown before the end")
                continue
            check([canon(t) for t in ans.get("line", [])] == [canon(t) for t in line],
                  f"{step}: line {ans.get('line')} is not the fixture's {line}")
            solved = not last_k
            kept = reader is not None and first
            rated = kept and reader.username is not None
            check(ans.get("rated") is rated, f"{step}: rated {ans.get('rated')!r}, expected "
                  f"{rated} (reader {'none' if reader is None else reader.username or 'guest'}, "
                  f"first attempt {first})")
            if rated and "rating" in ans and "puzzle_rating" in ans:
                self.check_ratings(ans, reader, pid, solved, step)
            elif not rated:
                check("rating" not in ans and "puzzle_rating" not in ans,
                      f"{step}: an attempt not rated carries ratings: {text[:300]}")
            if kept:
                reader.tried.add(pid)
                reader.kept.append((pid, solved, rated, ans.get("at"),
                                    reader.rating["rating"] if rated and reader.rating else None))
                self.plays[pid] += 1
                self.psolved[pid] += solved
            return ans
        return None

    def predicted_next(self, reader, theme=None):
        """The closest untried puzzle to the reader's rating (1500 before the first), ties by id."""
        r = reader.rating["rating"] if reader.rating else 1500.0
        left = [pid for pid, p in PUZZLES.items() if pid not in reader.tried and
                (theme is None or theme in p["themes"])]
        if not left:
            return None
        return min(left, key=lambda pid: (abs(self.prating[pid]["rating"] - r), pid))

    def check_next(self, reader, what, theme=None):
        path = "/api/puzzles/next" + (f"?theme={theme}" if theme else "")
        st, view, text = self.srv.get(path, reader.token)
        want = self.predicted_next(reader, theme)
        if want is None:
            check(st == 404 and view and view.get("error") == "no_puzzle",
                  f"{what}: GET {path} with nothing left: {st} {text[:200]} "
                  "(expected 404 no_puzzle)")
            return None
        if not check(st == 200, f"{what}: GET {path}: {st} {text[:300]}"):
            return None
        check(view["id"] not in reader.tried, f"{what}: next offers {view['id']}, already tried")
        check(view["id"] == want, f"{what}: next gives {view['id']} (rating {view['rating']}), "
              f"the closest untried to the reader's {reader.rating and reader.rating['rating']} "
              f"is {want} ({self.prating[want]['rating']})")
        self.check_view(view, f"{what}: next", reader)
        return view["id"]

    def check_mine(self, reader, what, limit=None):
        path = "/api/puzzles/mine" + (f"?limit={limit}" if limit else "")
        st, mine, text = self.srv.get(path, reader.token)
        if not check(st == 200, f"{what}: GET {path}: {st} {text[:300]}"):
            return
        want = list(reversed(reader.kept))[:limit or 20]
        got = mine.get("attempts", [])
        check([a["id"] for a in got] == [w[0] for w in want],
              f"{what}: mine lists {[a['id'] for a in got]}, expected newest first "
              f"{[w[0] for w in want]}")
        for a, (pid, solved, rated, at, rating) in zip(got, want):
            check(a["solved"] == solved and a["rated"] == rated,
                  f"{what}: mine's {pid}: solved/rated {a['solved']}/{a['rated']}, expected "
                  f"{solved}/{rated}")
            if isinstance(at, int):
                iso = datetime.datetime.fromtimestamp(at / 1000, datetime.timezone.utc)
                iso = iso.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at % 1000:03d}Z"
                check(a["at"] == iso, f"{what}: mine's {pid}: at {a['at']}, the answer's {iso}")
            check(a["rating"] == (round(rating) if rating is not None else None),
                  f"{what}: mine's {pid}: rating {a['rating']}, expected "
                  f"{None if rating is None else round(rating)}")
        if reader.rating is None:
            check(mine.get("rating") is None, f"{what}: mine's rating {mine.get('rating')}, "
                  "expected null before a rated attempt")
        elif check(isinstance(mine.get("rating"), dict), f"{what}: mine has no rating"):
            self.check_shown(mine["rating"], reader, f"{what}: mine's rating")

    def check_shown(self, shown, reader, what):
        r = reader.rating
        dev = shown_deviation(r, now_ms())
        check(shown["rating"] == round(r["rating"]),
              f"{what}: rating {shown['rating']}, expected {round(r['rating'])} ({r['rating']})")
        check(abs(shown["deviation"] - dev) <= 1,
              f"{what}: deviation {shown['deviation']}, expected about {dev:.2f}")
        check(shown["games"] == r["games"],
              f"{what}: games {shown['games']}, expected {r['games']}")
        check(shown["provisional"] == (dev > 110),
              f"{what}: provisional {shown['provisional']} with deviation {dev:.1f}")

    def all_ids(self, reader):
        for pid in sorted(PUZZLES):
            st, view, text = self.srv.get(f"/api/puzzles/{pid}", reader.token if reader else None)
            if check(st == 200, f"GET /api/puzzles/{pid}: {st} {text[:300]}"):
                self.check_view(view, f"GET /api/puzzles/{pid}", reader)


def expect_error(srv, method, path, status, codes, what, body=None, raw=None, token=None):
    st, obj, text = srv.call(method, path, body=body, raw=raw, token=token)
    codes = (codes,) if isinstance(codes, str) else codes
    ok = check(st == status and isinstance(obj, dict) and obj.get("error") in codes,
               f"{what}: {method} {path} answered {st} {text[:300]}, expected {status} "
               f"{'/'.join(codes)}")
    return obj if ok else None


def bad_input(srv, run, guest):
    one = "6fc6d43a"   # one solver turn
    two = "032c1969"   # two solver turns
    p1, p2 = PUZZLES[one], PUZZLES[two]
    ans = f"/api/puzzles/{one}/answer"
    # An illegal turn: the rules' words and code.
    moves = legal_turns(p1["position"], [])
    illegal = json.loads(json.dumps(moves[0]))
    illegal["elephant"]["path"] = [[0, 0]]  # a corner of the ring: no step lands there
    e = expect_error(srv, "POST", ans, 400, "illegal_turn", "an illegal turn",
                     body={"turns": [illegal]})
    if e:
        check(isinstance(e.get("rule"), str) and e["rule"] and e.get("message"),
              f"illegal_turn without rule or message: {e}")
    # A turn that is not a turn at all: the rules' bad_format, as on the game protocol.
    e = expect_error(srv, "POST", ans, 400, "illegal_turn",
                     "a turn of the wrong shape", body={"turns": [{"elephant": "north"}]})
    if e:
        check(e.get("rule") == "bad_format", f"a turn of the wrong shape: rule {e.get('rule')}")
    expect_error(srv, "POST", ans, 400, "bad_request", "a body that is not JSON",
                 raw=b'{"turns": [')
    expect_error(srv, "POST", ans, 400, "bad_request", "a body that is not an object",
                 raw=b'[{"turns": []}]')
    expect_error(srv, "POST", ans, 400, "bad_request", "turns not an array",
                 body={"turns": {"0": p1["line"][0]}})
    expect_error(srv, "POST", ans, 400, "bad_request", "no turns field", body={})
    expect_error(srv, "POST", ans, 400, "bad_request", "no turns", body={"turns": []})
    expect_error(srv, "POST", ans, 400, "bad_request", "more turns than solver_turns",
                 body={"turns": [p1["line"][0], p1["line"][0]]})
    expect_error(srv, "POST", f"/api/puzzles/{two}/answer", 400, "bad_request",
                 "more turns than solver_turns (2)",
                 body={"turns": [p2["line"][0], p2["line"][2], p2["line"][2]]})
    expect_error(srv, "POST", f"/api/puzzles/{two}/answer", 400, "bad_request",
                 "a second turn after a wrong first",
                 body={"turns": [wrong_turn(p2, 0), p2["line"][2]]}, token=guest.token)
    # A body over 16 KiB.
    big = json.dumps({"turns": [p1["line"][0]], "pad": "x" * (17 * 1024)}).encode()
    # As every request the server cannot read: 413 in plain text, the connection closed.
    try:
        st, obj, text = srv.call("POST", ans, raw=big, validate=False)
        check(st == 413 and "too large" in text, f"a body over 16 KiB: {st} {text[:200]}")
    except OSError as ex:
        check(False, f"a body over 16 KiB: no answer ({ex!r}); PROTOCOL.md says 413")
    # Unknown puzzles, bad parameters.
    expect_error(srv, "GET", "/api/puzzles/ffffffff", 404, "not_found", "an unknown id")
    expect_error(srv, "POST", "/api/puzzles/ffffffff/answer", 404, "not_found",
                 "an answer to an unknown id", body={"turns": [p1["line"][0]]})
    expect_error(srv, "GET", "/api/puzzles/next?theme=nonsense", 400, "bad_request",
                 "an unknown theme")
    expect_error(srv, "GET", "/api/puzzles/next?theme=", 400, "bad_request", "an empty theme")
    for bad in ("0", "101", "abc"):
        expect_error(srv, "GET", f"/api/puzzles/mine?limit={bad}", 400, "bad_request",
                     f"limit={bad}", token=guest.token)
    # Not said by PROTOCOL.md: `mine` without a token (only its schema is checked).
    st, _, text = srv.get("/api/puzzles/mine")
    note(f"GET /api/puzzles/mine without a token: {st} {text.strip()[:120]}")
    # Nothing of it was kept; the server answers as before.
    st, view, text = srv.get("/api/puzzles/next")
    check(st == 200, f"after the bad input: next without a token (any puzzle): {st} {text[:200]}")
    st, view, _ = srv.get(f"/api/puzzles/{one}", guest.token)
    if check(st == 200, f"after the bad input: GET /api/puzzles/{one}: {st}"):
        run.check_view(view, "after the bad input", guest)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", srv.http, timeout=30)
        conn.request("GET", "/healthz")
        check(conn.getresponse().status == 200, "after the bad input: /healthz not 200")
        conn.close()
    except OSError as ex:
        check(False, f"after the bad input: /healthz: {ex!r}")


# How `puzzles import` says how many puzzles it added ("9 new", "imported 9", ...).
NEW = r"\b{n} (new|imported|added)\b|\b(new|imported|added):? {n}\b"


def store_tools(tool_args, work):
    """import twice, export, verify: the operator's side."""
    def tool(*args):
        return subprocess.run([SERVER, "puzzles", *args, *tool_args], capture_output=True,
                              text=True, timeout=300)

    r = tool("import", FIXTURE)
    out = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and re.search(NEW.format(n=9), r.stdout) is not None,
          f"puzzles import: exit {r.returncode}, the output names 9 imported: {out}")
    note(f"import: {out}")
    r = tool("import", FIXTURE)
    out = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and re.search(NEW.format(n=0), r.stdout) is not None,
          f"puzzles import again: exit {r.returncode}, the output names 0 new: {out}")
    note(f"import again: {out}")
    r = tool("export")
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    check(r.returncode == 0 and len(lines) == 9,
          f"puzzles export: exit {r.returncode}, {len(lines)} lines (expected 9): "
          f"{r.stderr[-300:]}")
    exported = {}
    for l in lines:
        try:
            j = json.loads(l)
            exported[j.get("id")] = j
        except ValueError:
            check(False, f"puzzles export: a line is not JSON: {l[:200]}")
    for pid, p in PUZZLES.items():
        got = exported.get(pid)
        if check(got is not None, f"puzzles export: {pid} missing"):
            diff = {k: (got.get(k), v) for k, v in p.items() if got.get(k) != v}
            check(not diff and set(got) == set(p),
                  f"puzzles export: {pid} differs from the fixture: {diff} keys {sorted(got)}")
    path = os.path.join(work, "export.jsonl")
    with open(path, "w") as f:
        f.write(r.stdout)
    v = subprocess.run([CLI, "puzzles", "verify", path], capture_output=True, text=True,
                       timeout=600)
    check(v.returncode == 0 and "9 of 9 puzzles verified" in v.stdout,
          f"trunkfield puzzles verify of the export: exit {v.returncode}: "
          f"{(v.stdout + v.stderr).strip()[-500:]}")


def run_all(store_args, tool_args, work):
    store_tools(tool_args, work)
    srv = Server(store_args, os.path.join(work, "server1.log"))
    try:
        run = Run(srv)
        # -- without a token: any puzzle, judged, nothing kept --
        st, view, text = srv.get("/api/puzzles/next")
        if check(st == 200, f"GET next without a token: {st} {text[:300]}"):
            run.check_view(view, "next without a token")
        st, view, text = srv.get("/api/puzzles/next", token="0" * 48)
        check(st == 200 and view and view.get("tried") is False,
              f"GET next with a token that is not valid (reads as anyone): {st} {text[:200]}")
        run.all_ids(None)
        run.attempt(None, "6fc6d43a", "solve", "no token, solving 6fc6d43a")
        run.attempt(None, "dbbb13a7", "wrong0", "no token, wrong at dbbb13a7")

        # -- account A: every puzzle once, next by rating, ratings by the paper --
        ann = Reader(srv, "puzzler_ann")
        bob = Reader(srv, "puzzler_bob")
        gus = Reader(srv)
        run.check_mine(ann, "ann before any attempt")
        st, view, text = srv.get("/api/puzzles/next?theme=defence", ann.token)
        check(st == 200 and view and view.get("id") == "e86fd0b5",
              f"next?theme=defence: {st} {text[:200]} "
              "(the fixture's only defence puzzle: e86fd0b5)")
        first = run.check_next(ann, "ann's first next")
        check(first == "032c1969", f"ann's first next is {first}, expected 032c1969 (1500, "
              "the smallest id of the 1500s)")
        if first:
            run.attempt(ann, first, "solve", f"ann solving {first}")
            st, view, _ = srv.get(f"/api/puzzles/{first}", ann.token)
            if check(st == 200, f"GET /api/puzzles/{first} after the attempt: {st}"):
                run.check_view(view, f"{first} after ann's attempt", ann)
        plans = ["wrong0", "solve", "wrong1", "solve", "wrong0", "solve", "solve", "wrong0"]
        i = 0
        while True:
            pid = run.check_next(ann, f"ann's next #{i + 2}")
            if pid is None:
                break
            plan = plans[i % len(plans)]
            if plan == "wrong1" and solver_turns(PUZZLES[pid]) < 2:
                plan = "wrong0"
            run.attempt(ann, pid, plan, f"ann #{i + 2}: {plan} {pid}")
            i += 1
            if i > 20:
                check(False, "next keeps offering puzzles")
                break
        check(len(ann.tried) == 9, f"ann tried {len(ann.tried)} of 9 puzzles")
        run.check_next(ann, "ann after every puzzle")  # 404 no_puzzle
        run.check_next(ann, "ann after every puzzle", theme="defence")  # 404 no_puzzle

        # -- later attempts at a finished puzzle: judged, nothing changes --
        run.attempt(ann, "032c1969", "solve", "ann solving 032c1969 again", first=False)
        run.attempt(ann, "032c1969", "wrong1", "ann wrong at 032c1969 again", first=False)
        run.attempt(ann, "6fc6d43a", "wrong0", "ann wrong at 6fc6d43a again", first=False)
        run.all_ids(ann)
        run.check_mine(ann, "ann after 9 puzzles")
        run.check_mine(ann, "ann's mine?limit=3", limit=3)
        st, page, text = srv.get("/api/players/puzzler_ann")
        if check(st == 200, f"GET /api/players/puzzler_ann: {st} {text[:300]}"):
            puzzle = page.get("ratings", {}).get("puzzle")
            if check(isinstance(puzzle, dict),
                     f"the player page has no ratings.puzzle: {text[:400]}"):
                run.check_shown(puzzle, ann, "the player page's ratings.puzzle")

        # -- a second account: the puzzle's own rating moves with the days since its last --
        pid = run.check_next(bob, "bob's first next")
        if pid:
            run.attempt(bob, pid, "wrong0", f"bob wrong at {pid}")
            pid2 = run.check_next(bob, "bob's second next")
            if pid2:
                run.attempt(bob, pid2, "solve", f"bob solving {pid2}")
        run.check_mine(bob, "bob")

        # -- a guest: judged, kept, not rated --
        pid = run.check_next(gus, "the guest's first next")
        if pid:
            run.attempt(gus, pid, "solve", f"the guest solving {pid}")
            st, view, _ = srv.get(f"/api/puzzles/{pid}", gus.token)
            if check(st == 200, f"GET /api/puzzles/{pid} as the guest: {st}"):
                run.check_view(view, f"{pid} after the guest's attempt", gus)
            run.check_next(gus, "the guest's second next")
        run.check_mine(gus, "the guest")

        # -- the puzzle of the day --
        days = {utc_day()}
        seen = []
        for who, token in (("ann", ann.token), ("bob", bob.token), ("the guest", gus.token),
                           ("no token", None), ("ann again", ann.token)):
            st, view, text = srv.get("/api/puzzles/daily", token)
            days.add(utc_day())
            if check(st == 200, f"daily for {who}: {st} {text[:300]}"):
                seen.append(view.get("id"))
                check(view.get("day") in days,
                      f"daily for {who}: day {view.get('day')!r}, today (UTC) is {sorted(days)}")
                reader = {"ann": ann, "bob": bob, "the guest": gus,
                          "ann again": ann}.get(who)
                run.check_view(view, f"daily for {who}", reader)
        check(len(set(seen)) == 1, f"daily differs between readers: {seen}")
        check(seen and seen[0] == "ae25dab2",
              f"daily is {seen[:1]}, the fixture's longest line is ae25dab2")

        bad_input(srv, run, gus)
        check(srv.proc.poll() is None, "the server exited")
        srv.stop()

        # -- a restart keeps it all; the miner (when the server has it) says it runs --
        extra = []
        if "--mine-puzzles" in server_help():
            extra = ["--mine-puzzles"]
            if "--mine-puzzles-every" in server_help():
                extra += ["--mine-puzzles-every", "1"]
        else:
            note("SKIP: the server has no --mine-puzzles")
        srv = Server(store_args, os.path.join(work, "server2.log"), extra)
        run.srv = srv
        run.check_mine(ann, "ann after a restart")
        run.check_mine(gus, "the guest after a restart")
        run.all_ids(bob)
        st, view, text = srv.get("/api/puzzles/daily", bob.token)
        check(st == 200 and view and view.get("id") == "ae25dab2",
              f"daily after a restart: {st} {text[:200]}")
        if extra:
            time.sleep(3)
            log = srv.log()
            check(re.search(r"(?i)\bmin(er|ing)\b", log) is not None,
                  "--mine-puzzles: the log never mentions the miner:\n" + log[-1500:])
        check(srv.proc.poll() is None, "the server exited after the restart")
        if PG:
            two_nodes(store_args, work, srv)
    finally:
        srv.stop()
        for name in ("server1.log", "server2.log", "server3.log"):
            path = os.path.join(work, name)
            if os.path.exists(path):
                bad = [l for l in open(path, errors="replace") if re.search(
                    r"\[(critical|error)\]|AddressSanitizer|runtime error", l)]
                check(not bad, f"{name} complains: {''.join(bad[:5])}")


def two_nodes(store_args, work, srv):
    """PostgreSQL: a second server on the same database. Both say the same puzzle of the day;
    one account's first attempt at a puzzle posted to both at once is kept and rated once."""
    other = Server(store_args, os.path.join(work, "server3.log"))
    try:
        days = [n.get("/api/puzzles/daily")[1] for n in (srv, other)]
        check(all(d and d.get("id") == "ae25dab2" for d in days),
              f"two nodes, one puzzle of the day: {[d and d.get('id') for d in days]}")
        cy = Reader(srv, "puzzler_cy")
        pid = "6fc6d43a"
        turns = [PUZZLES[pid]["line"][0]]
        answers = [None, None]

        def post(i, node):
            answers[i] = node.answer(pid, turns, cy.token)

        threads = [threading.Thread(target=post, args=(i, n)) for i, n in enumerate((srv, other))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        oks = [a[1] for a in answers if a and a[0] == 200 and a[1]]
        check(len(oks) == 2 and all(o.get("solved") for o in oks),
              f"both nodes judge the attempt: {[a and a[:2] for a in answers]}")
        rated = [o for o in oks if o.get("rated")]
        note(f"two nodes, one first attempt posted to both: {len(oks)} judged, {len(rated)} rated")
        check(len(rated) == 1, f"the same first attempt on two nodes at once: rated "
              f"{len(rated)} times, expected once")
        for node in (srv, other):
            st, mine, text = node.get("/api/puzzles/mine", cy.token)
            if check(st == 200 and mine, f"mine on both nodes: {st} {text[:200]}"):
                check([a["id"] for a in mine["attempts"]] == [pid],
                      f"one attempt kept, seen from both nodes: {mine['attempts']}")
                if rated:
                    check(mine["rating"]["rating"] == round(rated[0]["rating"]["after"]["rating"]),
                          f"the rating both nodes show is the rated attempt's: {mine['rating']}")
    finally:
        other.stop()


# --- PostgreSQL ------------------------------------------------------------------------------

def psql(base, sql, db="postgres"):
    subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", f"{base} dbname={db}",
                    "-c", sql], capture_output=True, text=True, check=True)


def pg_database(work):
    """(conninfo of a fresh database, cleanup function)."""
    base = os.environ.get("TF_TEST_DATABASE_URL", "")
    script = os.path.join(ROOT, "scripts", "pg-test-cluster.sh")
    cluster = None
    if not base:
        if not os.path.exists("/usr/lib/postgresql/15/bin/initdb"):
            print("SKIP: PostgreSQL 15 is not installed and TF_TEST_DATABASE_URL is not set")
            sys.exit(SKIP)
        cluster = os.path.join(work, "pg")
        out = subprocess.run(["bash", script, "start", cluster], capture_output=True, text=True,
                             timeout=300)
        if out.returncode != 0:
            raise SystemExit(f"pg-test-cluster.sh start failed:\n{out.stdout}{out.stderr}")
        base = [l for l in out.stdout.splitlines() if l.strip()][-1].strip()
        base = re.sub(r"\s*dbname=\S+", "", base)
    name = "tf_puzzles_test"
    psql(base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(base, f"CREATE DATABASE {name}")

    def cleanup():
        try:
            psql(base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        except subprocess.CalledProcessError:
            pass
        if cluster:
            subprocess.run(["bash", script, "destroy", cluster], capture_output=True, timeout=300)

    return f"{base} dbname={name}", cleanup


def main():
    paper_example()
    work = tempfile.mkdtemp(prefix="tf-puzzles.", dir="/tmp")
    os.chmod(work, 0o755)  # as root, a cluster of our own runs as `postgres`, which must reach it
    data = os.path.join(work, "data")
    cleanup = None
    try:
        if PG:
            url, cleanup = pg_database(work)
            store_args = ["--data", data, "--store", "postgres", "--database-url", url]
            tool_args = ["--database-url", url]
        else:
            store_args = tool_args = ["--data", data]
        print(f"store: {'PostgreSQL' if PG else 'SQLite'}; work folder {work}")
        run_all(store_args, tool_args, work)
    finally:
        if cleanup:
            cleanup()
    if FAILED:
        print(f"{len(FAILED)} checks failed; work folder kept: {work}")
        sys.exit(1)
    print("all puzzle checks passed")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
