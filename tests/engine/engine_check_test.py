#!/usr/bin/env python3
"""The engine protocol (docs/ENGINE.md) from both sides: `trunkfield engine` answers a scripted
conversation as the document says (the handshake, refusals that change nothing, setups and
turns the rules accept); `trunkfield engine-check` passes it and a random engine written from
the document alone (random_engine.py, which asks for hints), and reports the faults of broken
ones: one that writes garbage, one that answers an illegal turn, one that exits mid-game, one
too slow to answer.

usage: engine_check_test.py TRUNKFIELD_BIN
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILED.append(what)
        if detail:
            print("     " + str(detail)[:2000])
    return ok


def talk(tf, lines, *args):
    """`trunkfield engine` given `lines`: its output lines."""
    r = subprocess.run([tf, "engine", *args], input="\n".join(lines) + "\n", capture_output=True,
                       text=True, timeout=60)
    return r.returncode, r.stdout.splitlines()


def conversation(tf):
    code, out = talk(tf, ["tep", "isready", "foo", "go", "newgame size 7 elephants 3 burnt 2 quiet 30",
                          "setup a1", "go", "setoption name level value 9", "setoption name level value 1",
                          "newgame size 4", "quit", "isready"])
    check(code == 0, "engine exits 0 after quit", out)
    want_head = ["id name Trunkfield level 3", "id author The Trunkfield authors",
                 "option name level type spin default 3 min 1 max 5",
                 "option name hints type check default false", "tepok", "readyok",
                 "error unknown command foo", "error no move to make", "ok"]
    check(out[:9] == want_head, "the handshake, an unknown command, go before newgame", out)
    check(out[9].startswith("error malformed setup") or out[9].startswith("error illegal"),
          "a setup the rules refuse: error", out[9:10])
    check(out[10].startswith("bestsetup "), "go in the setup phase: bestsetup", out[10:11])
    check(out[11] == "error level: 1 to 5" and out[12] == "ok", "setoption level: 9 refused, 1 ok",
          out[11:13])
    check(out[13].startswith("error variant"), "newgame of a board too small: error", out[13:14])
    check(len(out) == 14, "nothing after quit", out[14:])

    # a whole small game, the engine's own answers played back to it
    lines = ["tep", "newgame size 7 elephants 3 burnt 2 quiet 30"]
    proc = subprocess.Popen([tf, "engine", "--level", "1"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)

    def ask(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        while True:
            got = proc.stdout.readline().rstrip("\n")
            if not got.startswith("info") and not got.startswith("id ") and \
                    not got.startswith("option "):
                return got
    for line in lines:
        ask(line)
    for kind in ("setup", "setup"):
        a = ask("go")
        check(a.startswith("best" + kind), f"go: best{kind}", a)
        check(ask(kind + " " + a.split(" ", 1)[1]) == "ok", f"its {kind} played back: ok")
    for n in range(6):
        a = ask("go")
        if not check(a.startswith("bestturn "), f"turn {n + 1}: bestturn", a):
            break
        check(ask("turn " + a.split(" ", 1)[1]) == "ok", f"turn {n + 1} played back: ok")
    check(ask("turn a1-a1-a1-a1").startswith("error"), "an illegal turn: error")
    a = ask("go")
    check(a.startswith("bestturn "), "after the refusal the engine still plays", a)
    proc.stdin.write("quit\n")
    proc.stdin.close()
    check(proc.wait(10) == 0, "quit: exit 0")


def engine_check(tf, command, *args):
    r = subprocess.run([tf, "engine-check", command, *args], capture_output=True, text=True,
                       timeout=300)
    return r.returncode, r.stdout


def checks(tf):
    code, out = engine_check(tf, f"{tf} engine --level 1", "--games", "2", "--size", "7")
    check(code == 0 and "0 faults" in out and out.count(": over after") == 2,
          "engine-check passes the built-in engine", out)
    code, out = engine_check(tf, f"/usr/bin/python3 {HERE}/random_engine.py 3", "--games", "2",
                             "--size", "7")
    check(code == 0 and "engine: random mover" in out and "0 faults" in out,
          "engine-check passes the random engine written from docs/ENGINE.md", out)

    garbage = "while read l; do echo garbage; done"
    code, out = engine_check(tf, garbage)
    check(code == 1 and "FAULT tep: an answer line that is not id, option or tepok: garbage" in out,
          "garbage: a fault, exit 1", out)
    # the built-in engine, but its every turn replaced by one the rules refuse
    illegal = (f"{tf} engine --level 1 | sed -u 's/^bestturn .*/bestturn a1-a2-a3-a4/'")
    code, out = engine_check(tf, illegal, "--games", "1", "--size", "7")
    check(code == 1 and "FAULT game 1, turn 1 (silver): bestturn 'a1-a2-a3-a4'" in out and
          ": over after" in out, "illegal answers: faults named, the game goes on", out)
    quitter = f"sed -u 12q | {tf} engine"  # its input ends after 12 lines: it exits
    code, out = engine_check(tf, quitter, "--size", "7")
    # Whether the checker first finds the pipe closed when writing or when reading depends on
    # timing; either way the fault must name the exit.
    check(code == 1 and ("closed its output" in out or "stopped reading its input" in out),
          "an engine that exits: a fault", out)
    slow = "read l; sleep 30"
    code, out = engine_check(tf, slow)
    check(code == 1 and "no answer within 10000 ms" in out, "an engine that does not answer", out)
    r = subprocess.run([tf, "--help"], capture_output=True, text=True)
    check(" engine " in r.stdout and "engine-check" in r.stdout, "--help lists both commands")
    r = subprocess.run([tf, "engine-check", "x", "--size", "8"], capture_output=True, text=True)
    check(r.returncode == 2, "engine-check --size 8: usage error", r.stderr)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tf = sys.argv[1]
    conversation(tf)
    checks(tf)
    print(f"engine_check_test: {len(FAILED)} failures")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
