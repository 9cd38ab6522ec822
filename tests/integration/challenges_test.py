#!/usr/bin/env python3
"""Challenges and notifications (issue 35; proto/PROTOCOL.md "Challenges", "Notifications"),
against the real server binary, through raw TCP connections that do only what PROTOCOL.md says.

One node (SQLite, or PostgreSQL with --pg):
  - refusals: a guest's challenge (account_required), to an unknown username (unknown_player),
    to oneself or with `bot` (cannot_challenge); nothing is created.
  - ann challenges bob: game_created, a private open game whose snapshot names the invitee;
    bob, connected twice, gets the `challenge` notification on both connections with the
    game's settings; cy can neither join (not_invited) nor decline it (not_invited); the game is
    not in the lobby; bob joins: both seated, ann gets `join` and `challenge_accepted`.
  - a second challenge declined with reason "later": ann and bob get `cancel` with
    "declined": "later", ann `challenge_declined`; declining again: game_full.
  - a challenge to bob while he is offline; bob's list (GET /api/notifications) after he
    connects has all three challenges, newest first, unread; marking one read, then all;
    paging with limit/before; bad requests (401 without a token, 400 bodies and parameters,
    404, 405); other players never see bob's list.
  - the open-game limit holds for challenges (too_many_open_games at the 4th).
  - a restart keeps an open challenge (still refused to cy) and the notifications.
With --pg, and redis-server installed, also two nodes on one database and one Redis bus: a
challenge made on node 1 reaches bob connected to node 2 live; bob accepts through node 2 and
the game is played across nodes; a decline across nodes reaches the challenger.
Every message received and every API answer is validated against proto/schema.

usage: challenges_test.py SERVER_BIN [--pg]
"""
import contextlib
import http.client
import json
import os
import shutil
import sys
import tempfile
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster_test  # noqa: E402  (Conn, Redis)
import crash_test  # noqa: E402  (Server, PgStore, free_port)
import validate_schema  # noqa: E402
import jsonschema  # noqa: E402

if len(sys.argv) < 2:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
SERVER = sys.argv[1]
PG = "--pg" in sys.argv[2:]
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA_DIR = os.path.join(ROOT, "proto", "schema")
PASSWORD = "correct-horse-battery-42"
SKIP = 77
FAILED = []
VALIDATORS = validate_schema.load_schemas(SCHEMA_DIR)


def check(ok, what):
    if not ok:
        print(f"FAIL: {what}", flush=True)
        FAILED.append(what)
    return ok


def note(text):
    print(f"  {text}", flush=True)


def api_validator(name):
    path = os.path.join(SCHEMA_DIR, "notifications", name + ".json")
    with open(path) as f:
        schema = json.load(f)
    store = {}
    for p in [os.path.join(SCHEMA_DIR, "notification.json"),
              os.path.join(SCHEMA_DIR, "common.json")]:
        with open(p) as f:
            s = json.load(f)
        store[s["$id"]] = s
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


API = {"list": api_validator("list"), "read": api_validator("read")}


class _Any:
    @staticmethod
    def iter_errors(_):
        return []


ANY = _Any()  # for an answer whose own tests check it against its schema (the history API)


def relations_validator():
    with open(os.path.join(SCHEMA_DIR, "relations", "relations.json")) as f:
        schema = json.load(f)
    with open(os.path.join(SCHEMA_DIR, "common.json")) as f:
        common = json.load(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store={common["$id"]: common})
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


API["relations"] = relations_validator()


class Player(cluster_test.Conn):
    """A TCP connection; every message it receives is checked against its schema."""

    def __init__(self, port, token=None, username=None):
        super().__init__(port, token=token)
        self.username = None
        if username:
            self.send({"type": "register", "username": username, "password": PASSWORD,
                       "ref": "reg"})
            w = self.wait(lambda m: m["type"] in ("welcome", "error") and m.get("ref") == "reg",
                          30)
            if not w or w["type"] != "welcome" or not w.get("account"):
                raise SystemExit(f"register {username}: {w}")
            self.username = username

    def _pull(self, deadline):
        before = len(self.got)
        more = super()._pull(deadline)
        for m in self.got[before:]:
            v = VALIDATORS.get(m.get("type"))
            if check(v is not None, f"a message without a schema: {m}"):
                errs = list(v.iter_errors(m))
                check(not errs, f"{m['type']} does not match its schema: "
                      f"{[e.message[:200] for e in errs[:3]]}\n  {json.dumps(m)[:500]}")
        return more

    def error(self, code, timeout=10):
        return self.wait(lambda m: m["type"] == "error" and m["code"] == code, timeout)


def seen(p, since, pred, timeout=10):
    """The first message of `p` from its `since`-th on satisfying pred, in whatever order it came
    (PROTOCOL.md orders a game's events, not a notification against them), or None."""
    deadline = time.time() + timeout
    while True:
        for m in p.got[since:]:
            if pred(m):
                return m
        if not p._pull(deadline):
            return None


def notice(kind, game=None):
    return lambda m: (m["type"] == "notification" and m["kind"] == kind and
                      (game is None or m.get("game") == game))


def event(code, kind):
    return lambda m: m["type"] == "event" and m["game"] == code and m["kind"] == kind


def challenge(p, to, ref, **extra):
    msg = {"type": "create_game", "variant": {"size": 7}, "time_control": None,
           "color": "silver", "public": True, "to": to, "ref": ref}
    msg.update(extra)
    p.send(msg)
    m = p.wait(lambda m: m["type"] in ("game_created", "error") and m.get("ref") == ref, 15)
    return m


def api(port, method, path, token=None, body=None, raw=None, schema=None):
    """(status, JSON or None, text) of one HTTP request; a 200's body is checked against
    `schema` (a validator), or the notification/relations schema its path names."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if data is not None:
        headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        status, text = r.status, r.read().decode("utf-8", "replace")
    finally:
        conn.close()
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if status == 200 and obj is not None:
        v = schema or API["relations" if path.startswith("/api/relations") else
                          "read" if path.startswith("/api/notifications/read") else "list"]
        errs = list(v.iter_errors(obj))
        check(not errs, f"{method} {path}: does not match its schema: "
              f"{[e.message[:200] for e in errs[:3]]}")
    return status, obj, text


def one_node(srv, tag):
    ann = Player(srv.tcp, username=f"ann_{tag}")
    bob = Player(srv.tcp, username=f"bob_{tag}")
    bob2 = Player(srv.tcp, token=bob.token)  # bob's second page
    cy = Player(srv.tcp, username=f"cy_{tag}")
    guest = Player(srv.tcp)

    # -- refusals --
    m = challenge(guest, bob.username, "g1")
    check(m and m["type"] == "error" and m["code"] == "account_required",
          f"a guest's challenge: {m}")
    m = challenge(ann, "nobody_here", "u1")
    check(m and m["type"] == "error" and m["code"] == "unknown_player",
          f"a challenge to an unknown username: {m}")
    m = challenge(ann, ann.username.upper(), "s1")
    check(m and m["type"] == "error" and m["code"] == "cannot_challenge",
          f"a challenge to oneself: {m}")
    m = challenge(ann, bob.username, "b1", bot=2)
    check(m and m["type"] == "error" and m["code"] == "cannot_challenge",
          f"a challenge with bot: {m}")
    check(bob.wait(lambda m: m["type"] == "notification", 1) is None,
          "a refused challenge notified bob")

    # -- a challenge, accepted --
    lobby = Player(srv.tcp)
    lobby.send({"type": "list_games"})
    lobby.wait(lambda m: m["type"] == "lobby", 10)
    m = challenge(ann, bob.username.upper(), "c1", time_control={"initial_ms": 300000,
                                                                 "increment_ms": 2000})
    if not check(m and m["type"] == "game_created", f"ann challenges bob: {m}"):
        return
    code = m["code"]
    snap = ann.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(snap and snap["status"] == "open" and not snap["public"] and
          snap.get("invitee") == {"id": bob.id, "name": bob.username},
          f"the challenge's snapshot: {snap and {k: snap.get(k) for k in ('status', 'public', 'invitee')}}")
    for conn, which in ((bob, "bob"), (bob2, "bob's second page")):
        n = conn.wait(notice("challenge", code), 10)
        if check(n is not None, f"{which} is told of the challenge"):
            check(n["from"] == {"id": ann.id, "name": ann.username} and n["side"] == "bronze"
                  and n["variant"].get("size") == 7 and not n["rated"] and not n["read"] and
                  n["time_control"] == {"initial_ms": 300000, "increment_ms": 2000} and
                  n["id"] > 0, f"{which}'s challenge notification: {n}")
    check(ann.wait(lambda m: m["type"] == "notification", 0.5) is None,
          "the challenger was notified of its own challenge")
    lobby.drain(1.0)
    listed = [g["code"] for m in lobby.got if m["type"] == "lobby" for g in m["games"]]
    check(code not in listed, "the challenge is listed in the lobby")
    cy.send({"type": "join_game", "code": code})
    check(cy.error("not_invited") is not None, "cy joins bob's challenge: not not_invited")
    cy.send({"type": "decline_challenge", "game": code})
    check(cy.error("not_invited") is not None, "cy declines bob's challenge: not not_invited")
    since = len(ann.got)
    bob.send({"type": "join_game", "code": code})
    s = bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(s and s["status"] == "playing" and s["players"]["bronze"]["id"] == bob.id and
          "invitee" not in s, f"bob accepts: {s and s['status']}")
    check(ann.wait(event(code, "join"), 10) is not None, "ann sees bob join")
    n = seen(ann, since, notice("challenge_accepted", code))
    check(n and n["by"] == {"id": bob.id, "name": bob.username},
          f"ann is told bob accepted: {n}")
    ann.send({"type": "resign", "game": code})
    ann.wait(event(code, "game_over"), 10)

    # -- a challenge, declined --
    m = challenge(ann, bob.username, "c2")
    code2 = m and m.get("code")
    check(bob.wait(notice("challenge", code2), 10) is not None, "bob is told of the second")
    since = len(ann.got)
    bob.send({"type": "decline_challenge", "game": code2, "reason": "later"})
    e = ann.wait(event(code2, "cancel"), 10)
    check(e and e["payload"] == {"declined": "later"}, f"ann sees the decline: {e}")
    e = bob.wait(event(code2, "cancel"), 10)
    check(e and e["payload"] == {"declined": "later"}, f"bob sees his decline: {e}")
    n = seen(ann, since, notice("challenge_declined", code2))
    check(n and n["reason"] == "later" and n["by"]["name"] == bob.username,
          f"ann is told bob declined: {n}")
    bob.send({"type": "decline_challenge", "game": code2})
    e = bob.wait(lambda m: m["type"] == "error", 10)
    check(e and e["code"] in ("game_full", "no_such_game"),
          f"declining a cancelled challenge again: {e}")
    bob.send({"type": "decline_challenge", "game": code2, "reason": "because"})
    check(bob.error("bad_message") is not None, "an unknown reason: not bad_message")

    # -- a challenge while bob is offline --
    for c in (bob, bob2):
        c.close()
    m = challenge(ann, bob.username, "c3")
    code3 = m and m.get("code")
    time.sleep(0.5)
    bob = Player(srv.tcp, token=bob.token)
    st, lst, text = api(srv.http, "GET", "/api/notifications", bob.token)
    if check(st == 200 and lst, f"bob's list: {st} {text[:300]}"):
        kinds = [(n["kind"], n["game"]) for n in lst["notifications"]]
        check(kinds == [("challenge", code3), ("challenge", code2), ("challenge", code)],
              f"bob's list, newest first: {kinds}")
        check(lst["unread"] == 3 and not any(n["read"] for n in lst["notifications"]),
              f"bob's unread: {lst['unread']}")
        ids = [n["id"] for n in lst["notifications"]]
        check(ids == sorted(ids, reverse=True), f"ids grow with time: {ids}")
        st, page, _ = api(srv.http, "GET", f"/api/notifications?limit=1&before={ids[0]}",
                          bob.token)
        check(st == 200 and [n["id"] for n in page["notifications"]] == [ids[1]],
              f"paging: {page}")
        st, r, _ = api(srv.http, "POST", "/api/notifications/read", bob.token,
                       {"ids": [ids[1]]})
        check(st == 200 and r == {"unread": 2}, f"one read: {st} {r}")
        st, r, _ = api(srv.http, "POST", "/api/notifications/read", ann.token,
                       {"ids": [ids[0]]})
        check(st == 200 and r["unread"] >= 0, f"ann marks bob's: {st} {r}")
        st, lst2, _ = api(srv.http, "GET", "/api/notifications", bob.token)
        check([n["read"] for n in lst2["notifications"]] == [False, True, False],
              f"only the one read is read (ann cannot mark bob's): "
              f"{[n['read'] for n in lst2['notifications']]}")
        st, r, _ = api(srv.http, "POST", "/api/notifications/read", bob.token, {"all": True})
        check(st == 200 and r == {"unread": 0}, f"all read: {st} {r}")
    st, other, _ = api(srv.http, "GET", "/api/notifications", cy.token)
    check(st == 200 and other["notifications"] == [] and other["unread"] == 0,
          f"cy's list is his own: {other}")
    for method, path, token, body, raw, want in (
            ("GET", "/api/notifications", None, None, None, 401),
            ("GET", "/api/notifications", "not-a-token", None, None, 401),
            ("GET", "/api/notifications?limit=0", bob.token, None, None, 400),
            ("GET", "/api/notifications?limit=abc", bob.token, None, None, 400),
            ("GET", "/api/notifications?colour=red", bob.token, None, None, 400),
            ("GET", "/api/notifications/else", bob.token, None, None, 404),
            ("POST", "/api/notifications", bob.token, {"all": True}, None, 405),
            ("GET", "/api/notifications/read", bob.token, None, None, 405),
            ("POST", "/api/notifications/read", bob.token, {"ids": []}, None, 400),
            ("POST", "/api/notifications/read", bob.token, {"ids": ["x"]}, None, 400),
            ("POST", "/api/notifications/read", bob.token, {"all": False}, None, 400),
            ("POST", "/api/notifications/read", bob.token, None, b"{not json", 400)):
        st, obj, text = api(srv.http, method, path, token, body, raw)
        check(st == want and obj and isinstance(obj.get("error"), str),
              f"{method} {path} {body or raw}: {st} {text[:200]}, expected {want}")

    # -- the open-game limit holds for challenges (3 open: code3, then two more) --
    codes = [code3]
    for i in range(2):
        m = challenge(ann, cy.username, f"l{i}")
        check(m and m["type"] == "game_created", f"challenge {i + 2} of 3: {m}")
        codes.append(m and m.get("code"))
    m = challenge(ann, cy.username, "l3")
    check(m and m["type"] == "error" and m["code"] == "too_many_open_games",
          f"a 4th open challenge: {m}")
    for c in (ann, bob, cy, guest, lobby):
        c.close()
    return {"ann": ann, "bob": bob, "cy": cy, "open": code3}


def relate(srv, who, body, want=200):
    st, obj, text = api(srv.http, "POST", "/api/relations", who.token, body)
    check(st == want, f"POST /api/relations {body}: {st} {text[:200]}, expected {want}")
    return obj


def quick(p, ref=None):
    p.send({"type": "quick_match", "variant": {"size": 7}, "time_control": None})


def play_game(creator, joiner, public=True):
    """An open game of `creator` joined by `joiner`: its code."""
    creator.send({"type": "create_game", "variant": {"size": 7}, "time_control": None,
                  "color": "silver", "public": public, "ref": "pg"})
    m = creator.wait(lambda m: m["type"] == "game_created" and m.get("ref") == "pg", 10)
    code = m and m["code"]
    joiner.send({"type": "join_game", "code": code})
    s = joiner.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(s and s["status"] == "playing", f"a game of {creator.username} joined: {s}")
    return code


def relations(srv, tag):
    """Follow (with presence and followed_game), then block, against every path of PROTOCOL.md
    "Follow and block"."""
    ann = Player(srv.tcp, username=f"fan_{tag}")
    bob = Player(srv.tcp, username=f"star_{tag}")
    cy = Player(srv.tcp, username=f"troll_{tag}")
    guest = Player(srv.tcp)
    st, _, _ = api(srv.http, "GET", "/api/relations")
    check(st == 401, f"relations without a token: {st}")
    st, _, _ = api(srv.http, "GET", "/api/relations", guest.token)
    check(st == 403, f"a guest's relations: {st}")
    relate(srv, ann, {"follow": "nobody_at_all"}, 404)
    relate(srv, ann, {"follow": ann.username}, 400)
    relate(srv, ann, {"follow": bob.username, "block": cy.username}, 400)
    relate(srv, ann, {"unfollow": bob.username, "notify": True}, 400)
    st, _, _ = api(srv.http, "POST", "/api/relations", ann.token, raw=b"[1]")
    check(st == 400, f"a body that is no object: {st}")

    r = relate(srv, ann, {"follow": bob.username.upper()})
    check(r and r["following"] and r["following"][0]["name"] == bob.username and
          r["following"][0]["notify"] and r["following"][0]["online"] and
          r["following"][0]["playing"] is None, f"ann follows bob: {r}")
    relate(srv, cy, {"follow": bob.username})
    code = play_game(cy, bob)
    n = ann.wait(notice("followed_game", code), 10)
    check(n and n["player"] == {"id": bob.id, "name": bob.username},
          f"ann is told bob started a game: {n}")
    st, r, _ = api(srv.http, "GET", "/api/relations", ann.token)
    check(st == 200 and r["following"][0]["playing"] == code, f"bob plays {code}: {r}")
    # bob opts out of being announced: ann is not told of his next game; then in again
    a = relate(srv, bob, {"announce": False})
    check(a and a["announce"] is False, f"bob's opt-out: {a}")
    relate(srv, bob, {"announce": False, "follow": ann.username}, 400)
    quiet_game = play_game(bob, cy)
    check(ann.wait(notice("followed_game", quiet_game), 2) is None,
          "ann was told of the game of bob, who opted out")
    a = relate(srv, bob, {"announce": True})
    check(a and a["announce"] is True, f"bob opts in again: {a}")
    since = r["following"][0]["since"]
    r = relate(srv, ann, {"follow": bob.username, "notify": False})
    check(r and not r["following"][0]["notify"] and r["following"][0]["since"] == since,
          f"a follow made quiet keeps its date: {r and r['following']} (since {since})")
    cy.send({"type": "chat", "game": code, "text": "before the block"})
    check(bob.wait(lambda m: m["type"] == "event" and m["kind"] == "chat", 10) is not None,
          "bob reads cy before the block")

    # -- bob blocks cy --
    r = relate(srv, bob, {"block": cy.username})
    check(r and [b["name"] for b in r["blocked"]] == [cy.username], f"bob's blocks: {r}")
    st, r, _ = api(srv.http, "GET", "/api/relations", cy.token)
    check(st == 200 and r["following"] == [], f"the block ended cy's follow of bob: {r}")
    relate(srv, cy, {"follow": bob.username}, 403)
    time.sleep(0.5)  # the connections read their blocks again
    cy.send({"type": "chat", "game": code, "text": "you cannot read this"})
    bob.send({"type": "chat", "game": code, "text": "nor this"})
    check(bob.wait(lambda m: m["type"] == "event" and m["kind"] == "chat" and
                   m["payload"]["from"]["id"] == cy.id, 2) is None,
          "bob read cy's chat after blocking cy")
    check(cy.wait(lambda m: m["type"] == "event" and m["kind"] == "chat" and
                  m["payload"]["from"]["id"] == bob.id, 2) is None,
          "cy read bob's chat after bob blocked cy")
    watcher = Player(srv.tcp, token=bob.token)  # bob's snapshot has no line of cy's
    watcher.send({"type": "watch", "code": code})
    snap = watcher.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    texts = [c["text"] for c in snap["chat"]] if snap else None
    check(texts == ["nor this"], f"bob's snapshot's chat: {texts}")
    watcher.close()
    m = challenge(cy, bob.username, "bc1")
    check(m and m["type"] == "error" and m["code"] == "cannot_challenge",
          f"cy challenges bob: {m}")
    m = challenge(bob, cy.username, "bc2")
    check(m and m["type"] == "error" and m["code"] == "cannot_challenge",
          f"bob challenges cy: {m}")
    cy.send({"type": "create_game", "variant": {"size": 7}, "time_control": None,
             "color": "silver", "public": True, "ref": "open1"})
    m = cy.wait(lambda m: m["type"] == "game_created" and m.get("ref") == "open1", 10)
    bob.send({"type": "join_game", "code": m and m["code"]})
    check(bob.error("blocked") is not None, "bob joins cy's open game: not blocked")
    cy.send({"type": "cancel_game", "code": m and m["code"]})
    quick(bob)
    bob.wait(lambda m: m["type"] == "quick_match_waiting", 10)
    quick(cy)
    check(cy.wait(lambda m: m["type"] == "matched", 2) is None, "quick match paired bob and cy")
    dan = Player(srv.tcp, username=f"dan_{tag}")
    quick(dan)
    m = dan.wait(lambda m: m["type"] == "matched", 10)
    check(m is not None, "dan is paired with one of the two waiting")
    for p in (bob, cy):
        p.send({"type": "quick_match_cancel"})
    relate(srv, bob, {"unblock": cy.username})
    m = challenge(cy, bob.username, "bc3")
    check(m and m["type"] == "game_created", f"after the unblock cy challenges bob: {m}")
    for c in (ann, bob, cy, guest, dan):
        c.close()


def after_restart(srv, people):
    """The open challenge to bob is still bob's alone, and the lists are kept."""
    cy = Player(srv.tcp, token=people["cy"].token)
    cy.send({"type": "join_game", "code": people["open"]})
    check(cy.error("not_invited") is not None, "after a restart, cy still cannot join")
    st, lst, _ = api(srv.http, "GET", "/api/notifications", people["bob"].token)
    check(st == 200 and len(lst["notifications"]) == 3 and lst["unread"] == 0,
          f"bob's list after a restart: {st} {lst and len(lst['notifications'])}")
    st, lst, _ = api(srv.http, "GET", "/api/notifications", cy.token)
    check(st == 200 and [n["kind"] for n in lst["notifications"]] == ["challenge", "challenge"],
          f"cy's two challenges after a restart: {lst}")
    bob = Player(srv.tcp, token=people["bob"].token)
    bob.send({"type": "join_game", "code": people["open"]})
    s = bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == people["open"], 10)
    check(s and s["status"] == "playing", f"bob accepts the restored challenge: {s}")
    cy.close()
    bob.close()


@contextlib.contextmanager
def nodes_on_bus(work, store, extra=()):
    """Node 1 and node 2 on one database and one Redis bus (started, then stopped and their
    logs checked), or None when redis-server is not installed."""
    if not shutil.which("redis-server"):
        note("SKIP two nodes: redis-server is not installed")
        yield None
        return
    redis = cluster_test.Redis(os.path.join(work, "redis"), crash_test.free_port())
    os.mkdir(redis.folder)
    redis.start()
    nodes = []
    try:
        for i in (1, 2):
            folder = os.path.join(work, f"node{i}")
            os.mkdir(folder)
            n = crash_test.Server(SERVER, os.path.join(folder, "data"), crash_test.free_port(),
                                  crash_test.free_port(), os.path.join(folder, "server.log"),
                                  store.server_args() + list(extra) + [
                                      "--bus", f"redis://127.0.0.1:{redis.port}",
                                      "--node-id", f"n{i}"])
            n.http, n.tcp = int(n.args[n.args.index("--http-port") + 1]), \
                int(n.args[n.args.index("--tcp-port") + 1])
            n.start()
            nodes.append(n)
        time.sleep(1)  # both subscribed to the bus
        yield nodes
    finally:
        for n in nodes:
            n.stop()
        redis.stop()
        for i, n in enumerate(nodes, 1):
            complain(n.log_path, f"node {i}")


def one_then_two(work, store, on_one, on_two):
    """The usual run of a social test: `on_one(srv, tag)` on one node (SQLite, or PostgreSQL
    with --pg), the server's log checked; then, with --pg, `on_two(node1, node2, tag)` on two
    nodes on one database and one Redis bus. `tag` ("lite" or "pg") keeps names apart."""
    srv = one_server(work, store.server_args() if store else [])
    tag = "pg" if store else "lite"
    try:
        print(f"one node on {'PostgreSQL' if store else 'SQLite'}", flush=True)
        on_one(srv, tag)
    finally:
        srv.stop()
        complain(srv.log_path, "the server")
    if store:
        print("two nodes", flush=True)
        with nodes_on_bus(work, store) as nodes:
            if nodes:
                on_two(*nodes, tag)


def two_nodes(work, store):
    """Node 1 and node 2 on one database and one Redis bus."""
    with nodes_on_bus(work, store) as nodes:
        if nodes:
            across_nodes(*nodes)


def across_nodes(one, two):
    ann = Player(one.tcp, username="ann_nodes")
    bob = Player(two.tcp, username="bob_nodes")
    m = challenge(ann, "bob_nodes", "x1")
    code = m and m.get("code")
    n = bob.wait(notice("challenge", code), 10)
    check(n is not None and n["from"]["name"] == "ann_nodes",
          f"a challenge on node 1 reaches bob on node 2 live: {n}")
    bob.send({"type": "join_game", "code": code})
    s = bob.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(s and s["status"] == "playing", f"bob accepts through node 2: {s and s['status']}")
    n = ann.wait(notice("challenge_accepted", code), 10)
    check(n is not None, "ann on node 1 is told bob accepted")
    m = challenge(ann, "bob_nodes", "x2")
    code2 = m and m.get("code")
    check(bob.wait(notice("challenge", code2), 10) is not None, "the second reaches node 2")
    bob.send({"type": "decline_challenge", "game": code2, "reason": "too_fast"})
    e = ann.wait(event(code2, "cancel"), 10)
    check(e and e["payload"] == {"declined": "too_fast"},
          f"a decline through node 2 reaches ann on node 1: {e}")
    st, lst, _ = api(one.http, "GET", "/api/notifications", bob.token)
    check(st == 200 and [x["game"] for x in lst["notifications"]] == [code2, code],
          f"bob's list read on node 1: {lst}")
    # presence across nodes: bob is connected to node 2 only
    relate(one, ann, {"follow": "bob_nodes"})
    st, r, _ = api(one.http, "GET", "/api/relations", ann.token)
    check(st == 200 and r["following"][0]["online"],
          f"node 1 sees bob (on node 2) online: {r}")
    # a block made through node 1 reaches bob's connection on node 2 at once
    cy = Player(one.tcp, username="cy_nodes")
    game = play_game(cy, bob)
    relate(one, bob, {"block": "cy_nodes"})
    time.sleep(1.0)
    cy.send({"type": "chat", "game": game, "text": "across nodes"})
    check(bob.wait(lambda m: m["type"] == "event" and m["kind"] == "chat", 2) is None,
          "bob (node 2) read cy's chat after blocking cy through node 1")
    bob.close()
    deadline = time.time() + 10
    while time.time() < deadline:
        st, r, _ = api(one.http, "GET", "/api/relations", ann.token)
        if st == 200 and not r["following"][0]["online"]:
            break
        time.sleep(0.2)
    check(st == 200 and not r["following"][0]["online"],
          f"bob gone from node 2: offline for node 1: {r}")
    ann.close()
    cy.close()


def complain(path, what):
    bad = [l for l in open(path, errors="replace")
           if "AddressSanitizer" in l or "runtime error" in l or "[critical]" in l]
    check(not bad, f"{what}'s log complains: {''.join(bad[:5])}")


def pg_store():
    """With --pg: a fresh PostgreSQL database (crash_test.PgStore) in the CTest fixture's
    cluster, or exit 77 when there is none; None without --pg."""
    if not PG:
        return None
    url = os.environ.get("TF_TEST_DATABASE_URL", "")
    if not url:
        print("SKIP: --pg needs TF_TEST_DATABASE_URL (the CTest fixture \"postgres\")")
        sys.exit(SKIP)
    return crash_test.PgStore(url)


def one_server(work, extra):
    """The server of a one-node run, started, on free ports (its .http and .tcp)."""
    http_port, tcp_port = crash_test.free_port(), crash_test.free_port()
    srv = crash_test.Server(SERVER, os.path.join(work, "data"), http_port, tcp_port,
                            os.path.join(work, "server.log"), extra)
    srv.http, srv.tcp = http_port, tcp_port
    srv.start()
    return srv


def run(name, body):
    """A test's whole run in a fresh work folder (under /tmp, readable by the postgres user):
    `body(work, store)`, `store` the --pg run's database (else None). The folder and the
    database are dropped when every check passed, else kept for a look (and exit 1)."""
    work = tempfile.mkdtemp(prefix=f"tf-{name}.", dir="/tmp")
    os.chmod(work, 0o755)
    store = None
    ok = False
    try:
        store = pg_store()
        body(work, store)
        ok = not FAILED
    finally:
        if store and ok:
            store.drop()
        if ok:
            shutil.rmtree(work, ignore_errors=True)
    if FAILED:
        print(f"{len(FAILED)} checks failed; work folder kept: {work}")
        sys.exit(1)
    print(f"all {name} checks passed")


def main(work, store):
    srv = one_server(work, store.server_args() if store else [])
    try:
        print(f"one node on {'PostgreSQL' if PG else 'SQLite'}", flush=True)
        people = one_node(srv, "pg" if PG else "lite")
        relations(srv, "pg" if PG else "lite")
        srv.stop()
        srv.start()
        if people:
            after_restart(srv, people)
    finally:
        srv.stop()
        complain(srv.log_path, "the server")
    if PG:
        print("two nodes", flush=True)
        two_nodes(work, store)

if __name__ == "__main__":
    run("challenges", main)
