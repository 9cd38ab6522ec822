#!/usr/bin/env python3
"""`trunkfield puzzle --server` (client/cli/puzzle_cmd.cpp): the terminal client solving the
server's puzzles through the Puzzle API (proto/PROTOCOL.md). Imports the fixture puzzles into a
new store with `trunkfield-server puzzles import`, starts the real server on loopback, and types
the puzzle of the day's solution (its three solver turns, in the notation, made from the
fixture's line by `trunkfield rules notation`) into the client: "Right" twice, then "Solved.".
With a guest's token (from a `hello` over TCP) the attempt is kept: the API then says it was
tried. A wrong turn gets the engine's answer to it and the solution; a server that is not there is an error, exit 1.

usage: puzzle_server_test.py TRUNKFIELD_BIN SERVER_BIN FIXTURE
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_args_test import check, report  # noqa: E402  (the same helpers)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def notation(tf, position, turns):
    """The notation of turns played from a position (`trunkfield rules notation`)."""
    size, elephants, burnt, quiet = (int(x) for x in position.split()[0].split("."))
    rec = {"variant": {"size": size, "elephants": elephants, "burnt": burnt, "quiet": quiet},
           "position": position, "turns": turns}
    r = subprocess.run([tf, "rules", "notation", "-"], input=json.dumps(rec), capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, "rules notation of the line", r)
    moves = [l.strip() for l in r.stdout.splitlines() if l.strip()]
    check(len(moves) == len(turns), f"one notation per turn ({r.stdout!r})")
    return moves


def client(tf, port, lines, *extra, token=None):
    env = dict(os.environ, HOME=tempfile.gettempdir() + "/tf-no-home")
    env.pop("TRUNKFIELD_TOKEN", None)
    if token:
        env["TRUNKFIELD_TOKEN"] = token
    return subprocess.run([tf, "puzzle", "--server", f"127.0.0.1:{port}", "--ascii", *extra],
                          input="".join(l + "\n" for l in lines), capture_output=True, text=True,
                          timeout=120, env=env)


def guest_token(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b'{"type":"hello","version":1,"name":"pz"}\n')
        buf = b""
        while b"\n" not in buf:
            buf += s.recv(4096)
        w = json.loads(buf.split(b"\n")[0])
        check(w.get("type") == "welcome", f"welcome ({w})")
        return w["token"]


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    tf, server_bin, fixture = sys.argv[1:]
    puzzles = {p["id"]: p for p in (json.loads(l) for l in open(fixture) if l.strip())}
    tmp = tempfile.mkdtemp(prefix="tf-puzzle-server-")
    proc = None
    try:
        data = os.path.join(tmp, "data")
        r = subprocess.run([server_bin, "puzzles", "import", fixture, "--data", data],
                           capture_output=True, text=True, timeout=300)
        check(r.returncode == 0 and f"{len(puzzles)} new" in r.stdout, "import the fixture", r)
        http, tcp = free_port(), free_port()
        log = open(os.path.join(tmp, "server.log"), "w")
        proc = subprocess.Popen([server_bin, "--data", data, "--http-port", str(http),
                                 "--tcp-port", str(tcp), "--bind", "127.0.0.1"],
                                stdout=log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{http}/readyz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        daily = json.load(urllib.request.urlopen(f"http://127.0.0.1:{http}/api/puzzles/daily"))
        p = puzzles[daily["id"]]
        moves = notation(tf, p["position"], p["line"])
        solver = moves[0::2]
        token = guest_token(tcp)

        r = client(tf, http, solver, "--daily", token=token)
        check(r.returncode == 0, "daily: exit 0", r)
        check(r.stdout.count("Right.") == len(solver) - 1, "daily: each turn but the last is right", r)
        for reply in moves[1::2]:
            check(f"answers {reply}." in r.stdout, f"daily: the reply {reply} shown", r)
        check("Solved." in r.stdout and "Solved 1 of 1." in r.stdout, "daily: solved", r)
        req = urllib.request.Request(f"http://127.0.0.1:{http}/api/puzzles/{p['id']}",
                                     headers={"Authorization": f"Bearer {token}"})
        check(json.load(urllib.request.urlopen(req))["tried"] is True, "the guest's attempt kept")

        # A legal turn that is not the solution's: another move of the position's legal ones.
        size, elephants, burnt, quiet = (int(x) for x in p["position"].split()[0].split("."))
        rec = {"variant": {"size": size, "elephants": elephants, "burnt": burnt, "quiet": quiet},
               "position": p["position"], "turns": []}
        r = subprocess.run([tf, "rules", "moves", "-"], input=json.dumps(rec), capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 0, "rules moves", r)
        wrong = None
        for m in json.loads(r.stdout)["moves"]:
            w = notation(tf, p["position"], [{"elephant": m, "burnt": None, "guardians": []}])[0]
            if w != solver[0]:
                wrong = w
                break
        check(wrong is not None, "another legal turn")
        r = client(tf, http, [wrong, "quit"], "--daily")
        check(r.returncode == 0, "wrong: exit 0", r)
        check(re.search(r"Wrong\. \w+ answers \S+\. The solution: ", r.stdout) or
              "Also good" in r.stdout, "wrong: the refutation and the solution shown (or "
              "another turn as good)", r)
        check("nothing is kept" in r.stdout, "no token: nothing kept", r)

        r = client(tf, free_port(), ["quit"])
        check(r.returncode == 1 and "trunkfield puzzle:" in r.stderr, "no server: exit 1", r)
        r = client(tf, http, [], "--server", "nonsense")
        check(r.returncode in (1, 2), "a bad --server: refused", r)
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    return report("puzzle_server_test")


if __name__ == "__main__":
    sys.exit(main())
