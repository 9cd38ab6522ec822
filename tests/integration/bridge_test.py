#!/usr/bin/env python3
"""The bridge (issue 36; docs/ENGINE.md, `trunkfield bridge`): an engine written from
docs/ENGINE.md alone (tests/engine/random_engine.py, which knows no rules and asks for hints)
plays as an account through the real client and server binaries.

One node (SQLite, or PostgreSQL with --pg):
  - the bridge, for account rando, takes only 9×9 games with a clock: ann's 7×7 challenge is
    declined `variant`, her untimed one `time_control` (ann gets the `cancel` event saying so);
  - ann's rated 9×9 challenge with a clock is taken; ann sets up, the engine answers with its
    setup; the server restarts; the bridge reconnects with its token, and ann's side is played on
    by `trunkfield bot --level 1 --token` (her account, her unfinished game first) to the end;
    the game is rated in the history;
  - with --seek the bridge plays a quick match against the built-in level 1 (`trunkfield bot`);
  - bot accounts (PROTOCOL.md "Bot accounts"): rando, who played, cannot become one (409); two
    new accounts do (`POST /api/account/bot`, also refused without a token, to a guest, to a
    GET); a bot's quick match, public game and join of a public game are `bot_account`; the
    built-in level 1 runs as a bot account (`trunkfield bot --challenges --from bots`), declines
    ann's challenge `only_bot` and takes the rated challenge of robo's bridge
    (`--challenge`): two bots play a rated game to the end, marked bots in the snapshot, the
    challenge notification, the history, the player pages; the leaderboard's `bots` board;
    robo's bridge challenges the house bot Level1 (the server's own level 1), rated, and plays
    it to the end.
With --pg, and redis-server installed, also two nodes on one database and one Redis bus: the
bridge and ann's bot are given both nodes; node 1, which runs their game, stops mid-game; both
reconnect to node 2 (ann's bot starts after), which takes the game over, and the game ends.

usage: bridge_test.py SERVER_BIN CLI_BIN [--pg]
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import challenges_test as ct  # noqa: E402  (Player, challenge, api, check, event, nodes_on_bus)
import correspondence_test as cor  # noqa: E402  (Moves, act)
import jsonschema  # noqa: E402
import warnings  # noqa: E402

if len(sys.argv) < 3:
    print(__doc__.strip().splitlines()[-1])
    sys.exit(2)
CLI = sys.argv[2]
ENGINE = os.path.join(os.path.dirname(HERE), "engine", "random_engine.py")
check, note, event, notice = ct.check, ct.note, ct.event, ct.notice
ANY = ct.ANY
CLOCK = {"initial_ms": 120000, "increment_ms": 1000}
RULES = ["--games", "1", "--sizes", "9", "--no-untimed"]  # the bridge's: 9×9 with a clock
SMALL = {"size": 7, "elephants": 3, "burnt": 2, "quiet": 30}  # the small board: rated


class Proc:
    """A client process whose output goes to a file read by the test."""

    def __init__(self, work, name, args):
        self.path = os.path.join(work, name + ".log")
        self.out = open(self.path, "w")
        self.p = subprocess.Popen([CLI, *args], stdout=self.out, stderr=subprocess.STDOUT)
        self.name = name

    def text(self):
        with open(self.path, errors="replace") as f:
            return f.read()

    def wait_for(self, text, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if text in self.text():
                return True
            if self.p.poll() is not None:
                return text in self.text()
            time.sleep(0.1)
        return False

    def finish(self, timeout):
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
            check(False, f"{self.name} did not finish within {timeout} s:\n{self.text()[-3000:]}")
        self.out.close()
        return rc

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            self.p.wait(10)
        self.out.close()


def servers(*nodes):
    return ",".join(f"127.0.0.1:{n.tcp}" for n in nodes)


def bridge(work, name, nodes, token, *extra):
    return Proc(work, name, ["bridge", "--server", servers(*nodes), "--engine",
                             f"/usr/bin/python3 {ENGINE} 5", "--token", token, *extra])


def bot(work, name, nodes, *extra):
    return Proc(work, name, ["bot", "--server", servers(*nodes), "--level", "1", *extra])


def setups(ann, code):
    """ann (silver) sets up by hand; the bridge's engine answers with bronze's setup and ann's
    first turn is due: the game is under way (ann's bot plays it on after the fault)."""
    moves = cor.Moves(3)
    cor.act(ann, code, {"type": "setup", "setup": moves.setup("silver")}, "s1")
    e = ann.wait(lambda m: m["type"] == "event" and m["game"] == code and m["kind"] == "setup" and
                 m["payload"]["side"] == "bronze", 30)
    check(e is not None, f"the bridge's engine sets bronze up: {e}")


def take_challenge(ann, rando, br):
    """ann's challenges: two the bridge's rules decline, then one it takes (its code)."""
    for ref, extra, reason in [("c7", {"variant": SMALL, "time_control": CLOCK}, "variant"),
                               ("cu", {"variant": {"size": 9}, "time_control": None},
                                "time_control")]:
        m = ct.challenge(ann, rando, ref, **extra)
        code = m and m.get("code")
        e = ann.wait(event(code, "cancel"), 15)
        check(e and e["payload"] == {"declined": reason},
              f"the bridge declines a challenge {extra}: {reason}: {e}")
    m = ct.challenge(ann, rando, "c9", rated=True, time_control=CLOCK, variant={"size": 9})
    code = m and m.get("code")
    n = ann.wait(notice("challenge_accepted", code), 20)
    check(n is not None and n["by"]["name"] == rando,
          f"the bridge takes ann's rated challenge with a clock: {n}")
    return code


def game_across_fault(work, name, nodes, tag, fault, where):
    """rando's bridge (given `nodes`) takes ann's rated challenge on nodes[0]; ann sets up;
    `fault()` strikes; ann's bot plays her side on and both finish. (code, the bridge's output)"""
    rando = ct.Player(nodes[0].tcp, username=f"rando_{tag}")
    ann = ct.Player(nodes[0].tcp, username=f"ann_{tag}")
    br = bridge(work, f"bridge_{name}", nodes, rando.token, *RULES)
    try:
        check(br.wait_for("playing with engine", 20), f"the bridge connects:\n{br.text()}")
        code = take_challenge(ann, rando.username, br)
        setups(ann, code)
        ann.close()
        fault()
        note(f"{where} mid-game")
        she = bot(work, f"ann_bot_{name}", nodes, "--token", ann.token)
        check(she.finish(180) == 0, f"ann's bot plays to the end:\n{she.text()[-2000:]}")
        check(br.finish(60) == 0, f"the bridge plays to the end and exits:\n{br.text()[-3000:]}")
        return code, rando, br.text()
    finally:
        br.stop()


def one_node(srv, work, tag):
    def restart():
        srv.stop()
        srv.start()
    code, rando, out = game_across_fault(work, "restart", [srv], tag, restart,
                                         "the server restarted")
    check("connected again" in out and f"game 1/1 {code} over" in out,
          f"the bridge reconnected and saw the end:\n{out[-2000:]}")
    st, g, text = ct.api(srv.http, "GET", f"/api/games/{code}", schema=ANY)
    check(st == 200 and g["status"] == "over" and g["rated"],
          f"the history has the rated game, finished: {text[:300]}")
    bot_accounts(srv, work, tag, rando)

    # --seek: a quick match against the built-in level 1
    br = bridge(work, "seek", [srv], rando.token, "--seek", "--size", "7", "--games", "1")
    lvl1 = bot(work, "level1", [srv], "--size", "7", "--games", "1")
    try:
        check(lvl1.finish(180) == 0, f"level 1 plays a quick match to the end:\n{lvl1.text()}")
        check(br.finish(60) == 0, f"the bridge plays it to the end:\n{br.text()[-3000:]}")
        check("game 1/1" in br.text() and " over (" in br.text(), "the bridge's quick match")
    finally:
        br.stop()
        lvl1.stop()


def history_validator(name):
    """The history API's schema `name` (proto/schema/history/), its references resolved."""
    folder = os.path.join(ct.SCHEMA_DIR, "history")
    store = {}
    for path in [os.path.join(ct.SCHEMA_DIR, "common.json")] + [
            os.path.join(folder, f) for f in sorted(os.listdir(folder))]:
        with open(path) as f:
            schema = json.load(f)
        store[schema["$id"]] = schema
    schema = store[f"https://trunkfield.example/proto/schema/history/{name}.json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def create(p, ref):
    """A public open game in the lobby: its game_created, or the error."""
    p.send({"type": "create_game", "time_control": None, "color": "silver", "public": True,
            "ref": ref})
    return p.wait(lambda m: m["type"] in ("game_created", "error") and m.get("ref") == ref, 15)


def bot_accounts(srv, work, tag, played):
    """PROTOCOL.md "Bot accounts", with `played` an account that has played a game."""
    post = "/api/account/bot"
    st, j, _ = ct.api(srv.http, "POST", post, token=played.token, schema=ANY)
    check(st == 409 and j["error"] == "has_games",
          f"an account that played is not made a bot: {st} {j}")
    guest = ct.Player(srv.tcp)
    for token, want in [(None, 401), (guest.token, 403)]:
        st, j, _ = ct.api(srv.http, "POST", post, token=token, schema=ANY)
        check(st == want, f"POST {post} with {'a guest' if token else 'no'} token: {st} {j}")
    robo = ct.Player(srv.tcp, username=f"robo_{tag}")
    level1 = ct.Player(srv.tcp, username=f"level1_{tag}")
    ann = ct.Player(srv.tcp, username=f"annb_{tag}")
    st, j, _ = ct.api(srv.http, "GET", post, token=robo.token, schema=ANY)
    check(st == 405, f"GET {post}: 405: {st} {j}")
    for who in [robo, level1, robo]:  # robo twice: asking again changes nothing
        st, j, _ = ct.api(srv.http, "POST", post, token=who.token, schema=ANY)
        check(st == 200 and j == {"bot": True}, f"{who.username} becomes a bot: {st} {j}")

    # What a bot does not do, on a connection opened since.
    me = ct.Player(srv.tcp, token=robo.token)
    check(me.welcome.get("account", {}).get("roles") == ["bot"],
          f"the welcome's roles say bot: {me.welcome}")
    me.send({"type": "quick_match", "variant": {"size": 9}, "time_control": None})
    e = me.error("bot_account")
    check(e is not None, f"a bot's quick match is refused bot_account: {e}")
    m = create(me, "open")
    check(m and m["type"] == "error" and m["code"] == "bot_account",
          f"a bot's public game in the lobby is refused: {m}")
    m = create(ann, "annopen")
    code = m and m.get("code")
    me.send({"type": "join_game", "code": code})
    e = me.error("bot_account")
    check(e is not None, f"a bot joining a person's public game is refused: {e}")
    ann.send({"type": "cancel_game", "code": code})
    me.close()

    # The built-in level 1 as a bot account, taking bots' challenges only.
    lvl = bot(work, "level1_account", [srv], "--token", level1.token, "--challenges",
              "--from", "bots")
    br = None
    try:
        check(lvl.wait_for("playing with", 20), f"level 1 connects:\n{lvl.text()}")
        m = ct.challenge(ann, level1.username, "cb", variant={"size": 9}, time_control=CLOCK)
        code = m and m.get("code")
        e = ann.wait(event(code, "cancel"), 15)
        check(e and e["payload"] == {"declined": "only_bot"},
              f"a person's challenge to a bot that plays bots: only_bot: {e}")
        br = bridge(work, "challenger", [srv], robo.token, "--challenge", level1.username,
                    "--rated", "--clock", "2+1", "--games", "1")
        check(br.finish(300) == 0, f"robo's bridge plays level 1 to the end:\n{br.text()[-3000:]}")
        out = br.text()
        code = out.split("(game ", 1)[1].split(")", 1)[0] if "(game " in out else ""
        check(code != "", f"the bridge says its challenge's game:\n{out}")
    finally:
        if br:
            br.stop()
        lvl.stop()
    # The built-in level 1 as the house bot Level1 (PROTOCOL.md "House bots"): robo's engine
    # challenges it, rated, through the bridge, and plays it to the end.
    house = bridge(work, "house", [srv], robo.token, "--challenge", "Level1", "--rated",
                   "--clock", "2+1", "--size", "7", "--games", "1")
    check(house.finish(300) == 0, f"robo's bridge plays Level1 to the end:\n{house.text()[-3000:]}")
    out = house.text()
    hcode = out.split("(game ", 1)[1].split(")", 1)[0] if "(game " in out else ""
    st, g, text = ct.api(srv.http, "GET", f"/api/games/{hcode}", schema=history_validator("game"))
    check(st == 200 and g["status"] == "over" and g["rated"] and
          {g["players"][s]["name"] for s in ("silver", "bronze")} == {"Level1", robo.username},
          f"the history: robo's rated game against the house bot Level1, finished: {text[:400]}")
    st, g, text = ct.api(srv.http, "GET", f"/api/games/{code}", schema=history_validator("game"))
    check(st == 200 and g["status"] == "over" and g["rated"] and
          all(g["players"][s].get("bot") is True for s in ("silver", "bronze")),
          f"the history: a rated game between two bots, finished: {text[:400]}")
    watcher = ct.Player(srv.tcp)
    watcher.send({"type": "watch", "code": code})
    snap = watcher.wait(lambda m: m["type"] == "snapshot" and m["game"] == code, 15)
    check(snap and all(snap["players"][s].get("bot") is True for s in ("silver", "bronze")),
          f"the snapshot marks both seats bots: {snap and snap['players']}")
    watcher.close()
    st, j, _ = ct.api(srv.http, "GET", "/api/notifications", token=level1.token)
    got = [n for n in (j or {}).get("notifications", []) if n.get("kind") == "challenge"]
    check(got and all(n["from"].get("bot") is True for n in got if n["from"]["name"] ==
                      robo.username) and any(n["from"]["name"] == robo.username for n in got),
          f"the challenge notification says it came from a bot: {got}")
    check(all("bot" not in n["from"] for n in got if n["from"]["name"] == ann.username),
          f"and ann's that it came from a person: {got}")
    player = history_validator("player")
    for who, want in [(robo, True), (ann, False)]:
        st, p, _ = ct.api(srv.http, "GET", f"/api/players/{who.username}", schema=player)
        check(st == 200 and p["bot"] is want, f"{who.username}'s page: bot {want}: {st}")
    board = history_validator("leaderboard")
    for q, want in [("bots=true", True), ("bots=false", False), ("", False)]:
        st, b, text = ct.api(srv.http, "GET", f"/api/leaderboard?category=bullet&{q}",
                             schema=board)
        check(st == 200 and b["bots"] is want, f"the leaderboard with {q or 'no bots'}: {text}")
    st, _, _ = ct.api(srv.http, "GET", "/api/leaderboard?bots=yes", schema=ANY)
    check(st == 400, f"bots=yes is a bad request: {st}")
    ann.close()


def across_nodes(one, two, work):
    try:
        code, _, out = game_across_fault(work, "nodes", [one, two], "nodes", one.stop,
                                         "node 1 stopped")
    finally:
        one.start()  # stopped by nodes_on_bus
    check(f"connected again, to 127.0.0.1:{two.tcp}" in out,
          f"the bridge went to node 2:\n{out[-2000:]}")
    st, g, text = ct.api(two.http, "GET", f"/api/games/{code}", schema=ANY)
    check(st == 200 and g["status"] == "over", f"node 2 finished it: {text[:300]}")


def main(work, store):
    ct.one_then_two(work, store, lambda srv, tag: one_node(srv, work, tag),
                    lambda one, two, tag: across_nodes(one, two, work))


if __name__ == "__main__":
    ct.run("bridge", main)
