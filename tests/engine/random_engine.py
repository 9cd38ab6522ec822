#!/usr/bin/env python3
"""A random engine written from docs/ENGINE.md alone, as a newcomer would: it knows no rules of
the game, asks for hints and answers one of them at random. Seeded by its first argument."""
import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
legal = []          # the hints of the next go
expect_legal = 0    # hint lines still to come


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


in_setup = True
for raw in sys.stdin:
    line = raw.rstrip("\r\n")
    words = line.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "legal":
        if expect_legal == 0:          # "legal N": the count
            legal, expect_legal = [], int(words[1])
        else:                          # "legal TURN" or "legal CELLS"
            legal.append(line[len("legal "):])
            expect_legal -= 1
        continue
    if cmd == "quit":
        break
    if cmd == "stop":
        continue
    if cmd == "tep":
        out("id name random mover")
        out("id author tests/engine/random_engine.py")
        out("option name hints type check default false")
        out("tepok")
    elif cmd == "isready":
        out("readyok")
    elif cmd == "setoption":
        out("ok")
    elif cmd == "newgame":
        in_setup, setups = True, 0
        out("ok")
    elif cmd == "setup":
        setups += 1
        in_setup = setups < 2
        out("ok")
    elif cmd == "turn":
        out("ok")
    elif cmd == "go":
        if not legal:
            out("error no hints")
        else:
            out(("bestsetup " if in_setup else "bestturn ") + rng.choice(legal))
        legal = []
    else:
        out("error unknown command " + cmd)
