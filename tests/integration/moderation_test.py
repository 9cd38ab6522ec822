#!/usr/bin/env python3
"""Mute, reports and moderation (issue 35; proto/PROTOCOL.md "Follow and block", "Reports and
moderation"), against the real server binary, through raw TCP connections that do only what
PROTOCOL.md says, and its HTTP API.

One node (SQLite, or PostgreSQL with --pg):
  - `trunkfield-server accounts grant NAME moderator` while the server runs; the moderator's
    next welcome lists the role; `accounts roles` lists it; a repeat changes nothing.
  - reports: every refusal (401, 403 for a guest, 400 bodies, own account, 404 unknown player
    and game, 405), one made with its game (a repeat answers the same id); the moderator's list
    has it with the game's chat and the reported player's standing; players get 403.
  - mute (a player's): the muted author's players' line reaches the muter as an event of kind
    `hidden` at the same version (no gap), others read it; a snapshot leaves it out; unmute.
  - shadow: the author reads its own line (without any flag), the opponent and a spectator get
    `hidden`; snapshots; the moderator's copy of the chat marks it; the reporter is told
    `report_handled`; unshadow.
  - mute in chats: `chat_muted`; unmute; warn: the `warning` notification; a moderator cannot
    act on itself or on another moderator; bad actions.
  - close: every connection of the account ends, its login is `account_closed`, its old token
    `bad_token`; reopen: the login works again.
  - the audit log lists every action and the grant, newest first; the store refuses to change
    or delete an entry (SQL UPDATE/DELETE straight into the database).
  - a restart keeps reports, standing and audit.
With --pg and redis-server: two nodes on one database and one Redis bus: the moderator on node
1 shadows and then closes a player connected to node 2; node 2 applies both at once, and the
player's token stops working on node 2 too.
Every message received and every API answer is validated against proto/schema.

usage: moderation_test.py SERVER_BIN [--pg]
"""
import json
import os
import sqlite3
import subprocess
import sys
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, api, check: one list of failures)
import cluster_test  # noqa: E402  (SILVER_SETUP, BRONZE_SETUP)
import crash_test  # noqa: E402  (Server, PgStore, free_port, psql)
import jsonschema  # noqa: E402

SERVER, PG = ct.SERVER, ct.PG
check, note, Player = ct.check, ct.note, ct.Player
MOD_SCHEMAS = os.path.join(ct.SCHEMA_DIR, "moderation")


def validator(name):
    store = {}
    for p in [os.path.join(MOD_SCHEMAS, n + ".json") for n in ("action", "audit", "reports",
                                                                "report")] + \
             [os.path.join(ct.SCHEMA_DIR, "common.json")]:
        with open(p) as f:
            s = json.load(f)
        store[s["$id"]] = s
    schema = store[f"https://trunkfield.example/proto/schema/moderation/{name}.json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


MOD_API = {"/api/reports": validator("report"), "/api/mod/actions": validator("action"),
           "/api/mod/audit": validator("audit"), "/api/mod/reports": validator("reports")}


def api(srv, method, path, who=None, body=None, raw=None, want=200):
    token = who if isinstance(who, str) or who is None else who.token
    st, obj, text = ct.api(srv.http, method, path, token, body, raw,
                           schema=MOD_API.get(path.split("?")[0]))
    if want is not None:
        check(st == want, f"{method} {path} {body or raw or ''}: {st} {text[:300]}, "
              f"expected {want}")
        if want != 200:
            check(obj and isinstance(obj.get("error"), str), f"{method} {path}: no error: {text}")
    return obj


def tool(srv, *args):
    """`trunkfield-server accounts ...` on the server's store: (exit code, output)."""
    store = srv.args[srv.args.index("--store") + 1] if "--store" in srv.args else "sqlite"
    where = (["--database-url", srv.args[srv.args.index("--database-url") + 1]]
             if store == "postgres" else ["--data", srv.args[srv.args.index("--data") + 1]])
    out = subprocess.run([SERVER, "accounts", *args, *where], capture_output=True, text=True,
                         timeout=60)
    return out.returncode, out.stdout + out.stderr


def chat_of(p, code, pred_text=None, timeout=10):
    return p.wait(lambda m: m["type"] == "event" and m["game"] == code and
                  m["kind"] in ("chat", "hidden") and
                  (pred_text is None or m["kind"] == "hidden" or
                   m["payload"].get("text") == pred_text), timeout)


def say(p, code, text):
    p.send({"type": "chat", "game": code, "text": text})


def snapshot_chat(port, token, code):
    w = Player(port, token=token)
    w.send({"type": "watch", "code": code})
    s = w.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    w.close()
    return [c["text"] for c in s["chat"]] if s else None


def closed(conn, timeout=10):
    """True once the server closed the connection."""
    try:
        conn.wait(lambda m: False, timeout)
    except (ConnectionError, OSError):
        return True
    return False


def login(port, username):
    p = Player(port)
    p.send({"type": "login", "username": username, "password": ct.PASSWORD, "ref": "li"})
    m = p.wait(lambda m: m["type"] in ("welcome", "error") and m.get("ref") == "li", 30)
    p.close()
    return m


def act(srv, mod, player, action, want=200, **extra):
    body = {"player": player, "action": action}
    body.update(extra)
    return api(srv, "POST", "/api/mod/actions", mod, body, want=want)


def one_node(srv, tag):
    ann = Player(srv.tcp, username=f"ann_{tag}")
    bob = Player(srv.tcp, username=f"bob_{tag}")
    mod = Player(srv.tcp, username=f"mod_{tag}")
    mod2 = Player(srv.tcp, username=f"mod2_{tag}")
    guest = Player(srv.tcp)

    # -- roles, from the operator's command line --
    for who in (mod, mod2):
        rc, out = tool(srv, "grant", who.username, "moderator")
        check(rc == 0 and "is now moderator" in out, f"grant {who.username}: {rc} {out}")
    rc, out = tool(srv, "grant", mod.username, "moderator")
    check(rc == 0 and "already" in out, f"a repeated grant: {rc} {out}")
    rc, out = tool(srv, "grant", "nobody_at_all", "moderator")
    check(rc == 1 and "no account" in out, f"a grant to nobody: {rc} {out}")
    rc, out = tool(srv, "roles")
    check(rc == 0 and f"{mod.username} moderator" in out, f"accounts roles: {out}")
    check(not (ann.welcome.get("account") or {}).get("roles"), "ann has roles")
    mod.close()
    name, mod = mod.username, Player(srv.tcp, token=mod.token)
    mod.username = name
    check(mod.welcome["account"].get("roles") == ["moderator"],
          f"the moderator's welcome: {mod.welcome.get('account')}")

    # -- a game, with chat --
    code = ct.play_game(ann, bob)
    cy = Player(srv.tcp)  # a spectator
    cy.send({"type": "watch", "code": code})
    cy.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    say(bob, code, "you play like a potato")
    check(chat_of(ann, code, "you play like a potato") is not None, "ann reads bob")

    # -- reports --
    body = {"player": bob.username, "reason": "abuse", "text": "insults in chat", "game": code}
    api(srv, "POST", "/api/reports", None, body, want=401)
    api(srv, "POST", "/api/reports", guest, body, want=403)
    api(srv, "GET", "/api/reports", ann, want=405)
    for bad in ({"player": bob.username}, {"player": bob.username, "reason": "rude"},
                {"player": bob.username, "reason": "abuse", "text": "x" * 2001},
                {"player": bob.username, "reason": "abuse", "extra": 1},
                {"player": 3, "reason": "abuse"}, {"player": ann.username, "reason": "other"}):
        api(srv, "POST", "/api/reports", ann, bad, want=400)
    api(srv, "POST", "/api/reports", ann, raw=b"{nope", want=400)
    api(srv, "POST", "/api/reports", ann, {"player": "nobody_at_all", "reason": "other"},
        want=404)
    api(srv, "POST", "/api/reports", ann, {"player": bob.username, "reason": "other",
                                           "game": "ZZZZZZ"}, want=404)
    r = api(srv, "POST", "/api/reports", ann, body)
    rid = r and r["id"]
    r2 = api(srv, "POST", "/api/reports", ann, body)
    check(r2 and r2["id"] == rid, f"a repeated report answers its id: {r2} vs {rid}")
    api(srv, "GET", "/api/mod/reports", ann, want=403)
    api(srv, "GET", "/api/mod/audit", bob, want=403)
    api(srv, "POST", "/api/mod/actions", ann, {"player": bob.username, "action": "warn"},
        want=403)
    lst = api(srv, "GET", "/api/mod/reports", mod)
    mine = [x for x in (lst or {}).get("reports", []) if x["id"] == rid]
    if check(len(mine) == 1, f"the moderator lists report {rid}: {lst}"):
        x = mine[0]
        check(x["reporter"] == ann.username and x["player"] == bob.username and
              x["reason"] == "abuse" and x["text"] == "insults in chat" and x["game"] == code and
              x["status"] == "open" and x["reports"] == 1 and
              x["standing"] == {"chat_muted_until": None, "shadow": False, "closed": False,
                                "warnings": 0}, f"the report as listed: {x}")
        check([(c["from"], c["text"], c["hidden"]) for c in x["chat"]] ==
              [(bob.username, "you play like a potato", False)], f"its chat: {x['chat']}")
    for path in ("/api/mod/reports?status=closed", "/api/mod/reports?limit=0",
                 "/api/mod/audit?status=open"):
        api(srv, "GET", path, mod, want=400)
    api(srv, "GET", "/api/mod/else", mod, want=404)
    api(srv, "POST", "/api/mod/reports", mod, {}, want=405)

    # -- ann mutes bob --
    ct.relate(srv, ann, {"mute": bob.username})
    st, rel, _ = ct.api(srv.http, "GET", "/api/relations", ann.token)
    check(st == 200 and [m["name"] for m in rel["muted"]] == [bob.username] and
          rel["blocked"] == [], f"ann's mutes: {rel}")
    time.sleep(0.5)  # the connections read their mutes again
    say(bob, code, "muted line")
    e = chat_of(ann, code)
    s = chat_of(cy, code, "muted line")
    check(e and e["kind"] == "hidden" and e["payload"] == {} and s and s["kind"] == "chat" and
          e["version"] == s["version"], f"the muted line for ann: {e}, for cy: {s}")
    check(snapshot_chat(srv.tcp, ann.token, code) == [], "ann's snapshot shows bob's lines")
    check(snapshot_chat(srv.tcp, cy.token, code) == ["you play like a potato", "muted line"],
          "cy's snapshot misses bob's lines")
    ct.relate(srv, ann, {"unmute": bob.username})
    time.sleep(0.5)
    say(bob, code, "heard again")
    e = chat_of(ann, code)
    check(e and e["kind"] == "chat" and e["payload"]["text"] == "heard again",
          f"after the unmute ann reads bob: {e}")
    check(chat_of(cy, code, "heard again") is not None, "cy reads bob")

    # -- moderation: shadow (handles the report) --
    act(srv, mod, bob.username, "shadow", report=10 ** 9, want=404)
    api(srv, "POST", "/api/mod/actions", mod, {"player": bob.username, "action": "ban"},
        want=400)
    act(srv, mod, bob.username, "shadow", minutes=5, want=400)
    act(srv, mod, bob.username, "mute", want=400)
    act(srv, mod, bob.username, "mute", minutes=0, want=400)
    act(srv, mod, bob.username, "mute", minutes=43201, want=400)
    act(srv, mod, mod.username, "warn", note="me", want=400)
    act(srv, mod, mod2.username, "warn", note="a colleague", want=400)
    act(srv, mod, "nobody_at_all", "warn", want=404)
    other = api(srv, "POST", "/api/reports", bob, {"player": ann.username, "reason": "other"})
    act(srv, mod, bob.username, "dismiss", report=other and other["id"], want=400)  # about ann
    e = act(srv, mod, bob.username, "shadow", report=rid, note="chat abuse")
    check(e and e["action"] == "shadow" and e["moderator"] == mod.username and
          e["player"] == bob.username and e["report"] == rid, f"the audit entry: {e}")
    say(bob, code, "shadow line")  # at once: a moderator's action holds once answered
    own = chat_of(bob, code, "shadow line")
    check(own and own["kind"] == "chat" and "hidden" not in own["payload"],
          f"bob reads his own shadowed line, unflagged: {own}")
    n = ann.wait(ct.notice("report_handled"), 10)
    check(n and n["report"] == rid and n["outcome"] == "action_taken" and
          n["player"] == {"id": bob.id, "name": bob.username}, f"ann is told: {n}")
    for who, p in (("ann", ann), ("the spectator", cy)):
        e = chat_of(p, code)
        check(e and e["kind"] == "hidden" and own and e["version"] == own["version"],
              f"{who} gets the shadowed line as hidden: {e}")
    check(snapshot_chat(srv.tcp, bob.token, code)[-1:] == ["shadow line"],
          "bob's snapshot lacks his shadowed line")
    check("shadow line" not in snapshot_chat(srv.tcp, ann.token, code),
          "ann's snapshot shows the shadowed line")
    lst = api(srv, "GET", "/api/mod/reports?status=handled", mod)
    x = [r for r in (lst or {}).get("reports", []) if r["id"] == rid]
    check(x and x[0]["status"] == "handled" and x[0]["outcome"] == "action_taken" and
          x[0]["handled_by"] == mod.username and x[0]["standing"]["shadow"] and
          [c["text"] for c in x[0]["chat"] if c["hidden"]] == ["shadow line"],
          f"the handled report: {x}")
    act(srv, mod, bob.username, "unshadow")
    say(bob, code, "visible")
    e = chat_of(ann, code)
    check(e and e["kind"] == "chat" and e["payload"]["text"] == "visible",
          f"unshadowed: {e}")

    # -- mute in chats, warn --
    act(srv, mod, bob.username, "mute", minutes=60, note="cool down")
    say(bob, code, "refused")
    err = bob.error("chat_muted")
    check(err is not None and "UTC" in err["message"], f"bob's chat refused: {err}")
    check(ann.wait(lambda m: m["type"] == "event" and m["game"] == code and
                   m["kind"] in ("chat", "hidden"), 1) is None, "a muted line was sent")
    act(srv, mod, bob.username, "unmute")
    say(bob, code, "free again")
    check(chat_of(ann, code, "free again") is not None, "after unmute ann reads bob")
    act(srv, mod, bob.username, "warn", note="mind your words")
    n = bob.wait(ct.notice("warning"), 10)
    check(n and n["note"] == "mind your words", f"bob's warning: {n}")

    # -- game_over for a player not connected when the game ends --
    dan = Player(srv.tcp, username=f"dan_{tag}")
    ann.send({"type": "create_game", "time_control": None, "color": "silver", "public": False,
              "ref": "std"})  # the standard board, for the setups below
    m = ann.wait(lambda m: m["type"] == "game_created" and m.get("ref") == "std", 10)
    g = m and m["code"]
    dan.send({"type": "join_game", "code": g})
    dan.wait(lambda m: m["type"] == "snapshot" and m["game"] == g, 10)
    ann.send({"type": "setup", "game": g, "setup": cluster_test.SILVER_SETUP, "ref": "s1"})
    ann.wait(lambda m: m.get("ref") == "s1" and m["type"] in ("ack", "error"), 10)
    dan.send({"type": "setup", "game": g, "setup": cluster_test.BRONZE_SETUP, "ref": "s2"})
    dan.wait(lambda m: m.get("ref") == "s2" and m["type"] in ("ack", "error"), 10)
    dan.close()
    time.sleep(0.5)
    ann.send({"type": "resign", "game": g})
    over = ann.wait(lambda m: m["type"] == "event" and m["game"] == g and
                    m["kind"] == "game_over", 10)
    check(ann.wait(ct.notice("game_over"), 1) is None, "ann, connected, was notified")
    time.sleep(0.5)
    st, lst, _ = ct.api(srv.http, "GET", "/api/notifications", dan.token)
    n = [x for x in (lst or {}).get("notifications", []) if x["kind"] == "game_over"]
    check(st == 200 and len(n) == 1 and n[0]["game"] == g and over and
          n[0]["result"] == over["payload"] and n[0]["opponent"]["name"] == ann.username,
          f"dan, away, finds the result: {n}")

    # -- close, reopen --
    bob2 = Player(srv.tcp, token=bob.token)
    act(srv, mod, bob.username, "close", note="repeated abuse")
    for c in (bob, bob2):
        e = c.error("account_closed")
        check(e is not None, "bob's connection is not told account_closed")
    check(closed(bob) and closed(bob2), "bob's connections end when his account is closed")
    m = login(srv.tcp, bob.username)
    check(m and m["type"] == "error" and m["code"] == "account_closed", f"bob's login: {m}")
    check(token_refused(srv.tcp, bob.token), "bob's old token still works")
    act(srv, mod, bob.username, "reopen")
    m = login(srv.tcp, bob.username)
    check(m and m["type"] == "welcome", f"bob's login after reopen: {m}")

    # -- the audit log --
    log = api(srv, "GET", "/api/mod/audit", mod)
    actions = [(e["action"], e["player"]) for e in (log or {}).get("entries", [])]
    check(actions[:7] == [("reopen", bob.username), ("close", bob.username),
                          ("warn", bob.username), ("unmute", bob.username),
                          ("mute", bob.username), ("unshadow", bob.username),
                          ("shadow", bob.username)] and
          ("grant moderator", mod.username) in actions, f"the audit log: {actions}")
    grant = [e for e in log["entries"] if e["action"] == "grant moderator"]
    check(grant and grant[0]["moderator"] == "(operator)", f"the grant's entry: {grant}")
    page = api(srv, "GET", f"/api/mod/audit?limit=2&before={log['entries'][0]['id']}", mod)
    check(page and [e["action"] for e in page["entries"]] == ["close", "warn"],
          f"audit paging: {page}")
    for c in (ann, mod, mod2, guest, cy):
        c.close()
    return {"bob": bob, "mod": mod, "report": rid, "audit": len(log["entries"])}


def token_refused(port, token):
    """True when a hello with the token is answered bad_token."""
    import socket
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall((json.dumps({"type": "hello", "version": 1, "token": token}) + "\n").encode())
    buf, deadline = b"", time.time() + 10
    while time.time() < deadline and b"\n" not in buf:
        data = s.recv(65536)
        if not data:
            break
        buf += data
    s.close()
    try:
        m = json.loads(buf.split(b"\n")[0])
    except ValueError:
        return False
    return m.get("type") == "error" and m.get("code") == "bad_token"


def audit_frozen(srv, store):
    """The store itself refuses to change or delete an audit entry."""
    for sql in ("UPDATE audit SET note = 'edited'", "DELETE FROM audit"):
        if store:
            try:
                crash_test.psql(store.url, sql)
                refused = False
            except SystemExit as e:
                refused = "cannot be changed" in str(e)
        else:
            db = sqlite3.connect(os.path.join(srv.args[srv.args.index("--data") + 1],
                                              "trunkfield.db"), timeout=10)
            try:
                db.execute(sql)
                db.commit()
                refused = False
            except sqlite3.DatabaseError as e:
                refused = "cannot be changed" in str(e)
            finally:
                db.close()
        check(refused, f"the store let `{sql}` through")
    if store:
        try:
            crash_test.psql(store.url, "TRUNCATE audit")
            check(False, "the store let TRUNCATE audit through")
        except SystemExit as e:
            check("cannot be changed" in str(e), f"TRUNCATE refused for another reason: {e}")


def after_restart(srv, kept):
    mod = kept["mod"]
    lst = api(srv, "GET", "/api/mod/reports?status=handled", mod.token)
    check(lst and kept["report"] in [r["id"] for r in lst["reports"]],
          f"the handled report after a restart: {lst}")
    log = api(srv, "GET", "/api/mod/audit", mod.token)
    check(log and len(log["entries"]) == kept["audit"], f"the audit after a restart: {log}")


def two_nodes(work, store):
    with ct.nodes_on_bus(work, store, ["--chat-lines", "100"]) as nodes:
        if nodes:
            across_nodes(*nodes)


def across_nodes(one, two):
    ann = Player(one.tcp, username="ann_nodes")
    bob = Player(two.tcp, username="bob_nodes")
    mod = Player(one.tcp, username="mod_nodes")
    rc, out = tool(one, "grant", "mod_nodes", "moderator")
    check(rc == 0, f"grant on PostgreSQL: {out}")
    code = ct.play_game(ann, bob)
    act(one, mod, "bob_nodes", "shadow")
    say(bob, code, "from node 2")
    own = chat_of(bob, code, "from node 2")
    e = chat_of(ann, code)
    check(own and own["kind"] == "chat" and e and e["kind"] == "hidden",
          f"shadowed through node 1, bob on node 2: own {own}, ann {e}")
    bob_on_one = Player(one.tcp, token=bob.token)
    act(one, mod, "bob_nodes", "close")
    check(bob.error("account_closed") is not None, "bob on node 2 is told account_closed")
    check(closed(bob), "bob's connection on node 2 ends when node 1 closes his account")
    check(closed(bob_on_one), "bob's connection on node 1 ends")
    check(token_refused(two.tcp, bob.token), "node 2 still takes bob's token")
    m = login(two.tcp, "bob_nodes")
    check(m and m["type"] == "error" and m["code"] == "account_closed",
          f"bob's login on node 2: {m}")
    ann.close()
    mod.close()


def main(work, store):
    extra = ["--chat-lines", "100"]  # more than the scenario says in 10 s
    srv = ct.one_server(work, extra + (store.server_args() if store else []))
    try:
        print(f"one node on {'PostgreSQL' if PG else 'SQLite'}", flush=True)
        kept = one_node(srv, "pg" if PG else "lite")
        audit_frozen(srv, store)
        srv.stop()
        srv.start()
        after_restart(srv, kept)
    finally:
        srv.stop()
        ct.complain(srv.log_path, "the server")
    if PG:
        print("two nodes", flush=True)
        two_nodes(work, store)

if __name__ == "__main__":
    ct.run("moderation", main)
