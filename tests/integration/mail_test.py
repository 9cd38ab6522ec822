#!/usr/bin/env python3
"""E-mail (issue 35; proto/PROTOCOL.md "E-mail"), against the real server binary and a real SMTP
server on loopback (tests/integration/smtp_sink.py: Debian's aiosmtpd), every mail read back
from it. Players connect over raw TCP and do only what PROTOCOL.md says.

One node (SQLite, or PostgreSQL with --pg):
  - refusals of GET/POST /api/account/mail: 401, 403 (a guest), 400 bad_address, 400.
  - ann gives an address: it is unverified until the link of the mail that comes opens it (once:
    the link is then no longer valid); bob verifies his.
  - bob challenges ann: ann gets a mail naming bob and the game, with an unsubscribe link in the
    text and in List-Unsubscribe (RFC 8058's one-click too).
  - a correspondence game: ann, away, gets "your move" by mail; a second one of the game waits
    for --mail-turn-gap-seconds after the first; one the game no longer needs (ann moved
    meanwhile) is never sent.
  - the unsubscribe link: GET shows a button, POST stops every mail (the settings say so), and a
    your_turn afterwards mails nothing.
  - the relay down: the mail waits in the store, the server restarts, the relay comes back, and
    the mail comes once.
  - the digest: two challenges within the digest period come in one mail, after it.
With --pg, two nodes on one database and one Redis bus: an address verified through the other
node's link, a challenge across nodes mailed once. No Message-ID is ever mailed twice.

usage: mail_test.py SERVER_BIN CLI_BIN [--pg]
"""
import http.client
import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402
import correspondence_test as cot  # noqa: E402  (Moves, act)
import crash_test  # noqa: E402
import smtp_sink  # noqa: E402

check = ct.check
GAP_S = 5      # --mail-turn-gap-seconds
DIGEST_S = 8   # --mail-digest-seconds
POLL_S = 0.5   # --mail-poll-seconds (a failed attempt is retried 15 polls later)


def mail_args(srv_http, sink):
    return ["--smtp-url", f"smtp://127.0.0.1:{sink.port}", "--mail-from", "games@trunk.test",
            "--public-url", f"http://127.0.0.1:{srv_http}", "--mail-turn-gap-seconds",
            str(GAP_S), "--mail-digest-seconds", str(DIGEST_S), "--mail-poll-seconds",
            str(POLL_S), "--correspondence-day-seconds", "60"]


def settings(port, who, body=None, want=200):
    st, obj, text = ct.api(port, "POST" if body is not None else "GET", "/api/account/mail",
                           who.token, body=body, schema=MAIL_SCHEMA)
    check(st == want, f"{'POST ' + str(body) if body is not None else 'GET'} /api/account/mail "
          f"for {who.username}: {st} {text[:200]}")
    return obj


class AnySchema:
    def iter_errors(self, obj):
        keys = {"available", "address", "verified", "turns", "challenges", "digest"}
        return [] if set(obj) == keys else [type("E", (), {"message": f"keys {sorted(obj)}"})]


MAIL_SCHEMA = AnySchema()


def mails(sink, addr, since=0):
    return [m for rcpt, m in sink.messages()[since:] if addr in rcpt]


def wait_mail(sink, addr, pred, since=0, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for m in mails(sink, addr, since):
            if pred(m):
                return m
        time.sleep(0.1)
    return None


def text(m):
    return m.get_content()


def link(m, path):
    found = re.search(r"(http://[\w.:]+" + re.escape(path) + r"\?token=[0-9a-f]+)", text(m))
    return found and found.group(1)


def get(url, method="GET", body=None):
    rest = url.split("//", 1)[1]
    hostport, path = rest.split("/", 1)
    host, port = hostport.split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
        c.request(method, "/" + path, body=body, headers=headers)
        r = c.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        c.close()


def give_address(port, sink, who, addr, verify_port=None):
    s = settings(port, who, {"address": addr})
    check(s and s["address"] == addr and not s["verified"], f"{who.username}'s address: {s}")
    m = wait_mail(sink, addr, lambda m: "confirm" in m["Subject"])
    if not check(m is not None, f"the verification mail reaches {addr}"):
        return
    url = link(m, "/api/mail/verify")
    check(url and m["List-Unsubscribe"] is None, f"it has its link: {url}")
    if verify_port:
        url = re.sub(r":\d+/", f":{verify_port}/", url)
    st, page = get(url)
    check(st == 200 and "Address verified" in page and addr in page, f"the link: {st} {page[:300]}")
    st, page = get(url)
    check(st == 404, f"the link again: {st}")
    s = settings(port, who)
    check(s and s["verified"], f"{who.username}'s address verified: {s}")


def refusals(srv, ann, guest):
    st, obj, _ = ct.api(srv.http, "GET", "/api/account/mail")
    check(st == 401, f"no token: {st}")
    st, obj, _ = ct.api(srv.http, "GET", "/api/account/mail", guest.token)
    check(st == 403 and obj["error"] == "account_required", f"a guest: {st} {obj}")
    s = settings(srv.http, ann)
    check(s == {"available": True, "address": None, "verified": False, "turns": True,
                "challenges": True, "digest": False}, f"no address yet: {s}")
    for body, code in [({"address": "not an address"}, "bad_address"),
                       ({"address": "a@b.test\r\nBcc: x@y.test"}, "bad_address"),
                       ({"address": "a@nodot"}, "bad_address"),
                       ({"turns": "yes"}, "bad_request"), ({}, "bad_request"),
                       ({"colour": True}, "bad_request"), ({"turns": False}, "bad_request")]:
        st, obj, _ = ct.api(srv.http, "POST", "/api/account/mail", ann.token, body=body)
        check(st == 400 and obj and obj["error"] == code, f"POST {body}: {st} {obj}")
    st, obj, _ = ct.api(srv.http, "GET", "/api/mail/verify?token=00")
    check(st == 404, f"a verify link that is none: {st}")


def challenge(p, to, ref, days):
    """`p` challenges `to` to a correspondence game of the default variant, `p` silver."""
    p.send({"type": "create_game", "time_control": {"days_per_move": days}, "color": "silver",
            "public": True, "to": to, "ref": ref})
    return p.wait(lambda m: m["type"] in ("game_created", "error") and m.get("ref") == ref, 15)


def turn_mails(sink, addr):
    return [m for m in mails(sink, addr) if m["Subject"].startswith("Your move")]


def back(srv, who, code):
    p = ct.Player(srv.tcp, token=who.token)
    p.username = who.username
    p.send({"type": "watch", "code": code})
    p.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    return p


def one_node(srv, sink, tag):
    ann = ct.Player(srv.tcp, username=f"ann_{tag}")
    bob = ct.Player(srv.tcp, username=f"bob_{tag}")
    cy = ct.Player(srv.tcp, username=f"cy_{tag}")
    guest = ct.Player(srv.tcp)
    refusals(srv, ann, guest)
    a_addr, b_addr = f"ann.{tag}@trunk.test", f"bob.{tag}@trunk.test"
    give_address(srv.http, sink, ann, a_addr)
    give_address(srv.http, sink, bob, b_addr)

    # -- a challenge --
    m = challenge(bob, ann.username, "ch1", 1)
    if not check(m and m["type"] == "game_created", f"bob challenges ann: {m}"):
        return
    code = m["code"]
    cm = wait_mail(sink, a_addr, lambda m: "challenges you" in m["Subject"])
    if check(cm is not None, "ann gets the challenge by mail"):
        check(bob.username in cm["Subject"] and f"/g/{code}" in text(cm) and
              "1 day per move" in text(cm), f"it names bob and the game: {cm['Subject']} "
              f"{text(cm)[:300]}")
        check(cm["From"] == "Trunkfield <games@trunk.test>" and cm["Message-ID"] and
              cm["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click" and
              link(cm, "/api/mail/unsubscribe") and
              cm["List-Unsubscribe"].strip("<>") == link(cm, "/api/mail/unsubscribe"),
              f"its headers and unsubscribe link: {dict(cm.items())}")

    # -- the game --
    ann.send({"type": "join_game", "code": code})
    s = ann.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 10)
    check(s and s["status"] == "playing", f"ann accepts: {s and s['status']}")
    moves = cot.Moves(36)
    check(cot.act(bob, code, {"type": "setup", "setup": moves.setup("silver")}, "s1") is not None,
          "bob sets up")
    check(cot.act(ann, code, {"type": "setup", "setup": moves.setup("bronze")}, "s2") is not None,
          "ann sets up")
    ann.close()
    time.sleep(0.3)
    cot.act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t1")
    first = wait_mail(sink, a_addr, lambda m: m["Subject"].startswith("Your move"))
    if check(first is not None, "ann, away, gets her move by mail"):
        check(bob.username in first["Subject"] and f"/g/{code}" in text(first) and
              "move by" in text(first), f"it names the game: {text(first)[:300]}")
    sent_at = time.time()
    ann = back(srv, ann, code)
    cot.act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t2")
    ann.close()
    time.sleep(0.3)
    cot.act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t3")
    time.sleep(1.0)
    check(len(turn_mails(sink, a_addr)) == 1 or time.time() - sent_at >= GAP_S,
          "a second mail of the game's turn waits for the gap")
    second = wait_mail(sink, a_addr, lambda m: m["Subject"].startswith("Your move") and
                       m["Message-ID"] != first["Message-ID"], timeout=GAP_S + 15)
    check(second is not None and time.time() - sent_at >= GAP_S - 1,
          f"... and comes after it ({time.time() - sent_at:.1f} s after the first)")

    # A mail of a turn ann played meanwhile is never sent.
    ann = back(srv, ann, code)
    cot.act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t4")
    ann.close()
    time.sleep(0.3)
    cot.act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t5")
    ann = back(srv, ann, code)
    cot.act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t6")
    ann.close()
    time.sleep(GAP_S + 3)
    check(len(turn_mails(sink, a_addr)) == 2,
          f"the turn ann played before its mail was due is not mailed: "
          f"{[m['Subject'] for m in mails(sink, a_addr)]}")

    # -- unsubscribe --
    url = link(second, "/api/mail/unsubscribe")
    st, page = get(url)
    check(st == 200 and "<form method=\"post\"" in page, f"GET the unsubscribe link: {st}")
    st, page = get(url, "POST", "List-Unsubscribe=One-Click")
    check(st == 200 and "No more mails" in page, f"POST it (one click): {st} {page[:200]}")
    s = settings(srv.http, ann)
    check(s and not s["turns"] and not s["challenges"] and s["verified"],
          f"ann's settings after unsubscribing: {s}")
    before = len(mails(sink, a_addr))
    cot.act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t7")
    time.sleep(2)
    told = cot.notifications(srv, ann, "your_turn", code)
    check(told and len(mails(sink, a_addr)) == before,
          "unsubscribed: the notification is kept, nothing is mailed")

    # -- the relay down across a restart --
    settings(srv.http, ann, {"turns": True})
    ann = back(srv, ann, code)
    cot.act(ann, code, {"type": "turn", "turn": moves.next_turn()}, "t8")
    ann.close()
    sink.stop()
    time.sleep(0.3)
    cot.act(bob, code, {"type": "turn", "turn": moves.next_turn()}, "t9")
    time.sleep(2)  # tried and refused (nobody listens)
    bob.close()
    cy.close()
    srv.stop()
    srv.start()
    sink.start()
    late = wait_mail(sink, a_addr, lambda m: m["Subject"].startswith("Your move") and
                     m["Message-ID"] not in (first["Message-ID"], second["Message-ID"]),
                     since=0, timeout=GAP_S + 30)
    check(late is not None, "the mail waited in the store through the restart and came")
    time.sleep(2)
    if late:
        same = [m for m in mails(sink, a_addr) if m["Message-ID"] == late["Message-ID"]]
        check(len(same) == 1, f"once: {len(same)}")

    st, page = get(f"http://127.0.0.1:{srv.http}/metrics")
    check(st == 200 and 'trunkfield_mails_total{result="sent"} ' in page,
          f"/metrics counts the mails: {st}")

    # -- the digest --
    bob = ct.Player(srv.tcp, token=bob.token)
    bob.username = f"bob_{tag}"
    cy = ct.Player(srv.tcp, token=cy.token)
    cy.username = f"cy_{tag}"
    settings(srv.http, ann, {"digest": True, "challenges": True})
    before = len(mails(sink, a_addr))
    digest_from = time.time()
    challenge(bob, ann.username, "ch2", 3)
    challenge(cy, ann.username, "ch3", 5)
    time.sleep(1)
    check(len(mails(sink, a_addr)) == before, "the digest waits")
    deadline = time.time() + DIGEST_S + 20
    while len(mails(sink, a_addr)) == before and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    d = mails(sink, a_addr)[before:]
    check(len(d) == 1 and "2 challenges" in d[0]["Subject"] and bob.username in text(d[0]) and
          cy.username in text(d[0]) and "at most one a day" in text(d[0]),
          f"the digest: one mail of both challenges: {[m['Subject'] for m in d]}")
    check(time.time() - digest_from >= DIGEST_S - 6,
          f"... after the digest period: {time.time() - digest_from:.1f} s")
    bob.close()
    cy.close()


def unique_ids(sink):
    ids = [m["Message-ID"] for _, m in sink.messages()]
    check(len(ids) == len(set(ids)), f"no mail twice: {len(ids)} mails, {len(set(ids))} ids")


def across_nodes(one, two, sink):
    dan = ct.Player(one.tcp, username="dan_x")
    eve = ct.Player(two.tcp, username="eve_x")
    give_address(one.http, sink, dan, "dan@trunk.test", verify_port=two.http)
    m = challenge(eve, dan.username, "x1", 2)
    check(m and m["type"] == "game_created", f"eve (node 2) challenges dan (node 1): {m}")
    got = wait_mail(sink, "dan@trunk.test", lambda m: "challenges you" in m["Subject"])
    check(got is not None, "dan gets it by mail")
    time.sleep(3)
    n = len([m for m in mails(sink, "dan@trunk.test") if "challenges you" in m["Subject"]])
    check(n == 1, f"once, though both nodes send the queue: {n}")
    dan.close()
    eve.close()


def main(work, store):
    sink = smtp_sink.Sink(os.path.join(work, "smtp"), crash_test.free_port()).start()
    try:
        http_port = crash_test.free_port()
        extra = mail_args(http_port, sink) + (store.server_args() if store else [])
        srv = crash_test.Server(ct.SERVER, os.path.join(work, "data"), http_port,
                                crash_test.free_port(), os.path.join(work, "server.log"), extra)
        srv.http, srv.tcp = http_port, int(srv.args[srv.args.index("--tcp-port") + 1])
        srv.start()
        try:
            print(f"one node on {'PostgreSQL' if store else 'SQLite'}", flush=True)
            one_node(srv, sink, "pg" if store else "lite")
        finally:
            srv.stop()
            ct.complain(srv.log_path, "the server")
        if store:
            print("two nodes", flush=True)
            with ct.nodes_on_bus(work, store, mail_args(0, sink)) as nodes:
                if nodes:
                    across_nodes(*nodes, sink)
        unique_ids(sink)
    finally:
        sink.stop()

if __name__ == "__main__":
    ct.run("mail", main)
