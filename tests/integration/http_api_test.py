#!/usr/bin/env python3
"""The HTTP API for programs (issue 36; PROTOCOL.md "HTTP API for programs",
proto/http/openapi.json), driven with `curl` and a token only, as a script would: every
answer is checked against the OpenAPI file, every stream line against the socket protocol's
schema, and every request's RateLimit-* headers.

One node (SQLite, or PostgreSQL with --pg):
  - access tokens (`/api/account/tokens`): malformed requests, a guest, made with scopes and
    listed without their secrets; a token lists no tokens and opens no other page; a `read`
    token streams but plays and challenges nothing (403 missing_scope); a forged secret, a
    revoked token: 401. The bot plays everything below with its access token;
  - no token, a forged token: 401; a GET of an action: 405; an unknown action: 404;
  - the bot's event stream (`GET /api/stream/event`) gets ann's challenge (made with
    `POST /api/challenge/NAME`) and, idle, its keep-alive empty lines;
  - a declined challenge (`decline`, reason later): ann's game stream ends with the `cancel`;
  - a rated challenge accepted (`accept`) after both opened the game's stream; a whole game
    (a random legal record) played with POSTed setups and turns to its end: versions as the
    acks say, each stream's events without a gap, the streams end with the game, and curl exits;
    on the way: not your turn (409), a stale version (409), an illegal turn (422 with the rules'
    code), an unknown game (404), a malformed body (400), chat in both streams, a draw offered
    and declined; none of the game's requests is rate limited;
  - the bot's event stream lists the unfinished game (`game_start`) when opened mid-game;
  - a third game resigned over HTTP; the history has both games, the first rated;
  - 60 requests at once from one account: the bucket's 40 pass, then 429 with Retry-After.
With --pg, and redis-server installed, also two nodes: ann on node 1, the bot on node 2 with an
access token made on node 1, every request of the bot forwarded to the game's node; the game
is played to its end.

usage: http_api_test.py SERVER_BIN CLI_BIN [--pg]
"""
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, check, note, run, one_then_two)
import jsonschema  # noqa: E402

check, note = ct.check, ct.note
CLI = sys.argv[2] if len(sys.argv) > 2 else ""
OPENAPI = json.load(open(os.path.join(ct.ROOT, "proto", "http", "openapi.json")))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    RESOLVER = jsonschema.RefResolver.from_schema(OPENAPI)


def template_of(path):
    """The OpenAPI path that `path` is an instance of."""
    parts = path.split("?")[0].strip("/").split("/")
    for t in OPENAPI["paths"]:
        tp = t.strip("/").split("/")
        if len(tp) == len(parts) and all(a == b or a.startswith("{") for a, b in zip(tp, parts)):
            return t
    return None


def resolve(obj):
    while isinstance(obj, dict) and "$ref" in obj:
        obj = RESOLVER.resolve(obj["$ref"])[1]
    return obj


def conforms(method, path, status, body):
    """Checks an answer against the OpenAPI file: its status is one the operation lists, and
    its JSON body matches that status's schema. A 405 (a method the file has no operation
    for) and a 404 not_found (a path it has none for) need only the error's shape."""
    t = template_of(path)
    if status == 405 or (status == 404 and body.get("error") == "not_found"):
        errs = list(jsonschema.Draft202012Validator(
            OPENAPI["components"]["schemas"]["Error"]).iter_errors(body))
        check(not errs, f"{method} {path} {status}: {body}")
        return
    if not check(t is not None, f"{method} {path}: no path of the OpenAPI file"):
        return
    op = OPENAPI["paths"][t].get(method.lower())
    if not check(op is not None, f"{method} {t}: not in the OpenAPI file"):
        return
    resp = op["responses"].get(str(status))
    if not check(resp is not None, f"{method} {t}: status {status} not in the OpenAPI file"):
        return
    schema = resolve(resp)["content"]["application/json"]["schema"]
    v = jsonschema.Draft202012Validator(schema, resolver=RESOLVER)
    errs = list(v.iter_errors(body))
    check(not errs, f"{method} {path} {status}: {body} does not match the OpenAPI file: "
          f"{[e.message[:200] for e in errs[:3]]}")


def curl(port, method, path, token=None, body=None, raw=None, limited=True):
    """(status, JSON body, headers) of one request made by curl; `limited`: an address of the
    HTTP API for programs, whose answers say the bucket's state."""
    cmd = ["curl", "-sS", "-i", "-X", method, f"http://127.0.0.1:{port}{path}"]
    if token:
        cmd += ["-H", f"Authorization: Bearer {token}"]
    if body is not None or raw is not None:
        cmd += ["-H", "Content-Type: application/json",
                "--data-binary", raw if raw is not None else json.dumps(body)]
    out = subprocess.run(cmd, capture_output=True, timeout=60).stdout.decode()
    head, _, text = out.partition("\r\n\r\n")
    lines = head.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    check(obj is not None, f"{method} {path}: {status} without a JSON body: {text[:200]}")
    conforms(method, path, status, obj)
    if limited and status not in (401, 405) and not (status == 404 and obj.get("error") == "not_found"):
        check(all(h in headers for h in ("ratelimit-limit", "ratelimit-remaining",
                                         "ratelimit-reset")),
              f"{method} {path}: RateLimit-* headers: {headers}")
    return status, obj, headers


class Stream:
    """`curl -N` on a stream, its lines read by a thread: `lines` (parsed JSON; an empty line
    as None, with the time it came)."""

    def __init__(self, port, path, token):
        self.path = path
        self.proc = subprocess.Popen(
            ["curl", "-sS", "-N", "-H", f"Authorization: Bearer {token}",
             f"http://127.0.0.1:{port}{path}"], stdout=subprocess.PIPE)
        self.lines = []
        self.blank_at = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode().rstrip("\n")
            with self.lock:
                if not line:
                    self.blank_at.append(time.time())
                    continue
                try:
                    m = json.loads(line)
                except ValueError:
                    check(False, f"{self.path}: a line that is not JSON: {line[:200]}")
                    continue
                self.lines.append(m)
            self._validate(m)

    def _validate(self, m):
        t = m.get("type")
        if t == "game_start":
            check(set(m) == {"type", "game"}, f"game_start line: {m}")
            return
        v = ct.VALIDATORS.get(t)
        if check(v is not None, f"{self.path}: a line without a schema: {m}"):
            errs = list(v.iter_errors(m))
            check(not errs, f"{self.path}: {t} does not match its schema: "
                  f"{[e.message[:200] for e in errs[:3]]}: {json.dumps(m)[:300]}")

    def wait(self, pred, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                for m in self.lines:
                    if "type" in m and pred(m):
                        return m
            time.sleep(0.05)
        return None

    def ended(self, timeout=10):
        """curl's exit code once the server ended the stream, or None."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


def register(srv, name):
    p = ct.Player(srv.tcp, username=name)
    token = p.token
    p.close()
    return token


def challenge(port, token, to, **extra):
    body = {"variant": {"size": 9}, "time_control": {"initial_ms": 600000, "increment_ms": 0},
            "color": "silver"}
    body.update(extra)
    st, r, _ = curl(port, "POST", f"/api/challenge/{to}", token, body)
    check(st == 200 and r.get("game"), f"ann challenges {to}: {st} {r}")
    return r.get("game") if st == 200 else None


def refusals(port, ann):
    st, r, _ = curl(port, "POST", "/api/game/abc/resign")
    check(st == 401 and r["error"] == "unauthorized", f"no token: {st} {r}")
    st, r, _ = curl(port, "POST", "/api/game/abc/resign", "0" * 48)
    check(st == 401, f"a forged token: {st} {r}")
    st, r, _ = curl(port, "GET", "/api/game/abc/resign", ann)
    check(st == 405, f"GET of an action: {st} {r}")
    st, r, _ = curl(port, "POST", "/api/game/abc/fly", ann, {})
    check(st == 404 and r["error"] == "not_found", f"an unknown action: {st} {r}")
    st, r, _ = curl(port, "POST", "/api/game/zzzzzz/resign", ann)
    check(st == 404 and r["error"] == "no_such_game", f"an unknown game: {st} {r}")
    st, r, _ = curl(port, "POST", "/api/challenge/nobody_here", ann, {})
    check(st == 404 and r["error"] == "unknown_player", f"an unknown account: {st} {r}")


def play(ann_port, bot_port, ann, bot, bot_name, seed, checks=True):
    """A rated challenge accepted over HTTP and played to its end with a random record."""
    code = challenge(ann_port, ann, bot_name, rated=True)
    if not code:
        return None
    ann_s = Stream(ann_port, f"/api/game/stream/{code}", ann)
    bot_s = Stream(bot_port, f"/api/game/stream/{code}", bot)
    check(bot_s.wait(lambda m: m["type"] == "snapshot") is not None,
          "the bot's game stream starts with the snapshot of the open challenge")
    st, r, _ = curl(bot_port, "POST", f"/api/challenge/{code}/accept", bot)
    check(st == 200 and r["game"] == code, f"the bot accepts: {st} {r}")
    rec = json.loads(subprocess.check_output([CLI, "rules", "random", str(seed)]))
    tok = {"silver": (ann_port, ann), "bronze": (bot_port, bot)}
    version = None
    limited = []

    def act(side, kind, what):
        nonlocal version
        port, token = tok[side]
        st, r, h = curl(port, "POST", f"/api/game/{code}/{kind}", token,
                        {kind: what, "version": version} if version is not None else {kind: what})
        if st == 429:
            limited.append(r)
        if check(st == 200, f"{side} {kind}: {st} {r}"):
            version = r["version"]
        return st == 200

    if checks:
        st, r, _ = curl(bot_port, "POST", f"/api/game/{code}/setup", bot,
                        {"setup": rec["setup"]["bronze"]})
        check(st == 409 and r["error"] == "not_your_turn", f"bronze sets up first: {st} {r}")
        st, r, _ = curl(ann_port, "POST", f"/api/game/{code}/setup", ann, {"setup": 5})
        check(st == 422 and r["error"] == "illegal_setup" and r["rule"] == "bad_format",
              f"a setup that is no setup: {st} {r}")
        st, r, _ = curl(ann_port, "POST", f"/api/game/{code}/turn", ann, raw="{not json")
        check(st == 400 and r["error"] == "bad_request", f"malformed JSON: {st} {r}")
    if not (act("silver", "setup", rec["setup"]["silver"]) and
            act("bronze", "setup", rec["setup"]["bronze"])):
        return None
    side = "silver"
    for i, t in enumerate(rec["turns"]):
        if checks and i == 2:
            st, r, _ = curl(tok[side][0], "POST", f"/api/game/{code}/turn", tok[side][1],
                            {"turn": t, "version": version - 1})
            check(st == 409 and r["error"] == "stale_version", f"a stale version: {st} {r}")
            bad = dict(t, elephant=dict(t["elephant"], path=[[0, 0]])) if t.get("elephant") \
                else {"elephant": {"from": [0, 0], "path": [[0, 1]], "facing": "N"}}
            st, r, _ = curl(tok[side][0], "POST", f"/api/game/{code}/turn", tok[side][1],
                            {"turn": bad})
            check(st == 422 and r["error"] == "illegal_turn" and r.get("rule"),
                  f"an illegal turn: {st} {r}")
            st, r, _ = curl(ann_port, "POST", f"/api/game/{code}/chat", ann, {"text": "gl hf"})
            check(st == 200, f"ann's chat: {st} {r}")
            version = r.get("version", version)
            st, r, _ = curl(tok[side][0], "POST", f"/api/game/{code}/draw", tok[side][1],
                            {"act": "offer"})
            check(st == 200, f"{side} offers a draw: {st} {r}")
            other = "bronze" if side == "silver" else "silver"
            st, r, _ = curl(tok[other][0], "POST", f"/api/game/{code}/draw", tok[other][1],
                            {"act": "decline"})
            check(st == 200, f"{other} declines it: {st} {r}")
            version = r.get("version", version)
        if not act(side, "turn", t):
            return None
        side = "bronze" if side == "silver" else "silver"
    over = ann_s.wait(lambda m: m["type"] == "event" and m["kind"] == "game_over", 15)
    check(over is not None, f"the game {code} is over after the record's last turn")
    for s, who in ((ann_s, "ann"), (bot_s, "the bot")):
        rc = s.ended(15)
        check(rc == 0, f"{who}'s game stream ends with the game (curl exit {rc})")
        evs = [m["version"] for m in s.lines if m["type"] == "event" and m["kind"] not in
               ("spectators", "ratings")]
        first = next((m for m in s.lines if m["type"] == "snapshot"), None)
        v0 = first["version"] if first else 0
        gaps = [b for a, b in zip([v0] + evs, evs) if b != a + 1]
        check(not gaps, f"{who}'s stream: events one version after another: gaps at {gaps[:5]}")
        if checks:
            chat = [m for m in s.lines if m["type"] == "event" and m["kind"] == "chat"]
            check(chat and chat[0]["payload"]["text"] == "gl hf", f"{who} sees the chat: {chat}")
            check(any(m["type"] == "event" and m["kind"] == "draw_decline" for m in s.lines),
                  f"{who} sees the draw declined")
        s.close()
    check(not limited, f"no request of the game is rate limited: {limited[:2]}")
    return code


def make_token(port, session, label, scopes, want=200):
    st, r, _ = curl(port, "POST", "/api/account/tokens", session,
                    {"label": label, "scopes": scopes}, limited=False)
    check(st == want, f"a token {label} {scopes}: {st} {r}")
    return r.get("token") if st == 200 else None


def access_tokens(srv, tag, session):
    """The account's access tokens: made, listed, scoped, revoked. Returns one with every scope."""
    port = srv.http
    for bad in ({"label": "", "scopes": ["play"]}, {"label": "x", "scopes": []},
                {"label": "x", "scopes": ["admin"]}, {"label": "x" * 61, "scopes": ["read"]},
                {"label": "x", "scopes": ["read"], "more": 1}):
        st, r, _ = curl(port, "POST", "/api/account/tokens", session, bad, limited=False)
        check(st == 400 and r["error"] == "bad_request", f"a malformed token request {bad}: {st}")
    st, r, _ = curl(port, "POST", "/api/account/tokens", None, {"label": "x", "scopes": ["read"]},
                    limited=False)
    check(st == 401, f"tokens without a session token: {st} {r}")
    guest = ct.Player(srv.tcp)
    st, r, _ = curl(port, "GET", "/api/account/tokens", guest.token, limited=False)
    check(st == 403 and r["error"] == "account_required", f"a guest's tokens: {st} {r}")
    guest.close()
    full = make_token(port, session, "my bot", ["read", "play", "challenge"])
    reader = make_token(port, session, "the watcher", ["read"])
    check(full and full.startswith("tfp_") and full != reader, f"tokens made: {full} {reader}")
    st, r, _ = curl(port, "GET", "/api/account/tokens", session, limited=False)
    listed = [t["label"] for t in r.get("tokens", [])] if st == 200 else []
    check(st == 200 and listed == ["the watcher", "my bot"] and
          not any("token" in t for t in r["tokens"]),
          f"the account lists its tokens, newest first, without their secrets: {st} {r}")
    # A token manages no tokens and opens no other page.
    st, r, _ = curl(port, "GET", "/api/account/tokens", full, limited=False)
    check(st == 401, f"an access token cannot list tokens: {st} {r}")
    st, r = ct.api(port, "GET", "/api/notifications", token=full, schema=ALWAYS)[:2]
    check(st == 401, f"an access token opens no notification list: {st} {r}")
    # Scopes.
    st, r, _ = curl(port, "POST", "/api/game/zzzzzz/resign", reader)
    check(st == 403 and r["error"] == "missing_scope", f"a read token plays nothing: {st} {r}")
    st, r, _ = curl(port, "POST", "/api/challenge/nobody_here", reader, {})
    check(st == 403 and r["error"] == "missing_scope", f"a read token challenges nobody: {st} {r}")
    s = Stream(port, "/api/stream/event", reader)
    check(s.wait(lambda m: False, 1.5) is None and s.proc.poll() is None,
          "a read token opens the event stream")
    s.close()
    st, r, _ = curl(port, "POST", "/api/game/zzzzzz/resign", full)
    check(st == 404 and r["error"] == "no_such_game", f"a play token is let through: {st} {r}")
    forged = full[:-1] + ("0" if full[-1] != "0" else "1")
    st, r, _ = curl(port, "POST", "/api/game/zzzzzz/resign", forged)
    check(st == 401, f"a token with a wrong secret: {st} {r}")
    # Revoked: refused at once.
    st, r, _ = curl(port, "GET", "/api/account/tokens", session, limited=False)
    rid = next(t["id"] for t in r["tokens"] if t["label"] == "the watcher")
    st, r, _ = curl(port, "POST", "/api/account/tokens/revoke", session, {"id": rid},
                    limited=False)
    check(st == 200 and r == {"revoked": rid}, f"revoke: {st} {r}")
    st, r, _ = curl(port, "POST", "/api/account/tokens/revoke", session, {"id": rid},
                    limited=False)
    check(st == 404, f"revoke again: {st} {r}")
    st, r, _ = curl(port, "GET", "/api/stream/event", reader)
    check(st == 401, f"a revoked token: {st} {r}")
    return full


def one_node(srv, tag):
    port = srv.http
    ann = register(srv, f"ann_{tag}")
    bot_name = f"robo_{tag}"
    session = register(srv, bot_name)
    st, r = ct.api(port, "POST", "/api/account/bot", token=session, schema=ALWAYS)[:2]
    check(st == 200, f"robo becomes a bot account: {st} {r}")
    refusals(port, ann)
    # The bot plays with an access token from here on.
    bot = access_tokens(srv, tag, session)

    # A stream's head: NDJSON, not to be buffered by a proxy (nginx: X-Accel-Buffering).
    head = subprocess.run(["curl", "-sS", "-i", "-N", "--max-time", "2", "-H",
                           f"Authorization: Bearer {bot}", f"http://127.0.0.1:{port}/api/stream/event"],
                          capture_output=True).stdout.decode().lower()
    check("content-type: application/x-ndjson" in head and "x-accel-buffering: no" in head and
          "transfer-encoding: chunked" in head, f"the stream's head: {head[:400]}")
    events = Stream(port, "/api/stream/event", bot)
    time.sleep(8.5)  # idle: a keep-alive line
    check(events.blank_at, "the event stream sends an empty line when idle")
    # Declined.
    code = challenge(port, ann, bot_name)
    n = events.wait(lambda m: m["type"] == "notification" and m["kind"] == "challenge" and
                    m["game"] == code)
    check(n is not None and n["from"]["name"] == f"ann_{tag}",
          f"the bot's event stream gets the challenge: {n}")
    ann_s = Stream(port, f"/api/game/stream/{code}", ann)
    st, r, _ = curl(port, "POST", f"/api/challenge/{code}/decline", bot, {"reason": "sideways"})
    check(st == 400, f"a reason that is none: {st} {r}")
    st, r, _ = curl(port, "POST", f"/api/challenge/{code}/decline", bot, {"reason": "later"})
    check(st == 200 and r == {"ok": True}, f"the bot declines: {st} {r}")
    c = ann_s.wait(lambda m: m["type"] == "event" and m["kind"] == "cancel")
    check(c is not None and c["payload"].get("declined") == "later",
          f"ann's game stream gets the cancel, declined later: {c}")
    check(ann_s.ended(10) == 0, "ann's stream of the declined challenge ends")
    st, r, _ = curl(port, "POST", f"/api/challenge/{code}/accept", bot)
    check(st == 404 and r["error"] == "no_such_game", f"accepting it after: {st} {r}")

    # Played to its end.
    code = play(port, port, ann, bot, bot_name, seed=7)
    # Resigned.
    code2 = challenge(port, ann, bot_name)
    if code2:
        st, r, _ = curl(port, "POST", f"/api/challenge/{code2}/accept", bot)
        check(st == 200, f"the bot accepts the third: {st} {r}")
        late = Stream(port, "/api/stream/event", bot)
        g = late.wait(lambda m: m["type"] == "game_start" and m["game"] == code2)
        check(g is not None, f"an event stream opened mid-game lists the game: {late.lines[:3]}")
        late.close()
        st, r, _ = curl(port, "POST", f"/api/game/{code2}/resign", bot)
        check(st == 409 and r["error"] == "not_started" or st == 200,
              f"the bot resigns before any setup: {st} {r}")
        if st != 200:
            rec = json.loads(subprocess.check_output([CLI, "rules", "random", "3"]))
            curl(port, "POST", f"/api/game/{code2}/setup", ann, {"setup": rec["setup"]["silver"]})
            curl(port, "POST", f"/api/game/{code2}/setup", bot, {"setup": rec["setup"]["bronze"]})
            st, r, _ = curl(port, "POST", f"/api/game/{code2}/resign", ann)
            check(st == 200, f"ann resigns: {st} {r}")
        st, r, _ = curl(port, "POST", f"/api/game/{code2}/resign", ann)
        check(st == 409 and r["error"] == "game_over", f"resigning again: {st} {r}")
    if code:
        st, g = ct.api(port, "GET", f"/api/games/{code}", schema=ALWAYS)[:2]
        check(st == 200 and g.get("status") == "over" and g.get("rated"),
              f"the history has the rated game: {st} {g}")
    events.close()

    # The bucket: the server again with the default rate and burst (the tests' servers have
    # huge ones), and 120 requests at once (Python's HTTP client: curl starts too slowly).
    srv.stop()
    for flag, value in (("--rate", "20"), ("--burst", "40")):
        srv.args[srv.args.index(flag) + 1] = value
    srv.start()
    flood = register(srv, f"flood_{tag}")
    outs = []

    def one():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/game/zzzzzz/resign", headers={"Authorization": f"Bearer {flood}"})
        r = conn.getresponse()
        body = json.loads(r.read())
        outs.append((r.status, {k.lower(): v for k, v in r.getheaders()}))
        conforms("POST", "/api/game/zzzzzz/resign", r.status, body)
        conn.close()
    threads = [threading.Thread(target=one) for _ in range(120)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    limited = [h for st, h in outs if st == 429]
    passed = [st for st, h in outs if st == 404]
    check(limited and all("retry-after" in h and h["ratelimit-remaining"] == "0" for h in limited),
          f"a flood is refused 429 with Retry-After once its bucket is empty: "
          f"{len(limited)} of {len(outs)}: {sorted(set(st for st, h in outs))} {outs[-1]}")
    check(len(passed) >= 40, f"the bucket's 40 pass: {len(passed)}")


class _Always:
    def iter_errors(self, _):
        return []


ALWAYS = _Always()


def across_nodes(one, two, tag):
    ann = register(one, f"ann2_{tag}")
    bot_name = f"robo2_{tag}"
    bot = make_token(one.http, register(two, bot_name), "on node 1, used on node 2",
                     ["read", "play", "challenge"])
    code = play(one.http, two.http, ann, bot, bot_name, seed=11, checks=False)
    check(code is not None, "a game between node 1 and node 2 played over HTTP to its end")


def main(work, store):
    ct.one_then_two(work, store, one_node, across_nodes)


if __name__ == "__main__":
    ct.run("http_api", main)
