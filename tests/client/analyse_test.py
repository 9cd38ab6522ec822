#!/usr/bin/env python3
"""`trunkfield analyse` (client/cli/analyse_cmd.cpp, common/analysis.h) on a record made by
`trunkfield rules random`: the JSON shape, one text line per turn that agrees with the JSON (the
notation `rules notation` prints, the judgement mark, the best turn), the same answer twice and
from standard input, no progress text when stderr is not a terminal, and the errors (an illegal
turn: exit 1 naming it; a bad --nodes: exit 2).

usage: analyse_test.py TRUNKFIELD_BIN
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_args_test import check, report, run  # noqa: E402  (the same helpers)

NODES = "2000"  # small: the test checks the command, not the engine's strength


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tf = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="tf-analyse-")
    record = json.loads(run([tf, "rules", "random", "7"]).stdout)
    record["turns"] = record["turns"][:24]  # an unfinished game is fine to analyse
    path = os.path.join(tmp, "game.json")
    with open(path, "w") as f:
        json.dump(record, f)
    n = len(record["turns"])

    r = run([tf, "analyse", path, "--nodes", NODES, "--json"])
    check(r.returncode == 0, "analyse --json: exit 0", r)
    check(r.stderr == "", "analyse --json: no progress text when stderr is not a terminal", r)
    a = json.loads(r.stdout)
    check(a["nodes"] == int(NODES), "nodes echoed")
    check(len(a["positions"]) == n + 1, "positions = turns + 1")
    check(len(a["turns"]) == n, "one entry per turn")
    for i, t in enumerate(a["turns"]):
        check(t["side"] == ("silver", "bronze")[i % 2], f"turn {i + 1}: side")
        check(t["turn"] == record["turns"][i], f"turn {i + 1}: the turn as played")
        check(t["judgement"] in (None, "inaccuracy", "mistake", "blunder"), f"turn {i + 1}: judgement")
        check(t["best"] is None or t["best"] != t["turn"], f"turn {i + 1}: best differs")
        check(0 <= t["loss"] <= 100, f"turn {i + 1}: loss in 0..100")
    for p in a["positions"]:
        check(set(p) == {"eval", "win", "forced", "best"}, "position fields")
        check(0 <= p["win"] <= 100, "win in 0..100")
    for side in ("silver", "bronze"):
        p = a["players"][side]
        check(0 <= p["accuracy"] <= 100, f"{side}: accuracy in 0..100")
        counts = {k: sum(t["side"] == side and t["judgement"] == j for t in a["turns"])
                  for k, j in (("inaccuracies", "inaccuracy"), ("mistakes", "mistake"),
                               ("blunders", "blunder"))}
        check(all(p[k] == v for k, v in counts.items()), f"{side}: counts match the turns")

    again = run([tf, "analyse", "-", "--json", "--nodes", NODES], stdin=json.dumps(record))
    check(again.returncode == 0 and json.loads(again.stdout) == a,
          "the same analysis again, from standard input", again)

    # Text: a header, a line for the start, one per turn, one per player.
    notation = run([tf, "rules", "notation", path]).stdout.splitlines()
    text = run([tf, "analyse", path, "--nodes", NODES])
    check(text.returncode == 0, "analyse (text): exit 0", text)
    lines = text.stdout.splitlines()
    check(len(lines) == 1 + 1 + n + 2, "analyse (text): line count", text)
    check(lines[0].startswith("Analysis: "), "a header line", text)
    marks = {None: "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}
    for i, t in enumerate(a["turns"]):
        words = lines[2 + i].split()
        check(words[0] == f"{i + 1}." and words[1] == t["side"] and words[2] == notation[i],
              f"text turn {i + 1}: number, side, notation: {lines[2 + i]!r}")
        check(("best: " in lines[2 + i]) == (t["best"] is not None), f"text turn {i + 1}: best")
        mark = marks[t["judgement"]]
        check(mark == "" or f"  {mark}  " in lines[2 + i] + "  ", f"text turn {i + 1}: mark {mark}")
    check(lines[-2].startswith("silver: accuracy ") and lines[-1].startswith("bronze: accuracy "),
          "the players' lines", text)

    # Errors.
    bad = dict(record, turns=record["turns"][:3] + [record["turns"][1]])
    with open(path, "w") as f:
        json.dump(bad, f)
    r = run([tf, "analyse", path, "--nodes", NODES])
    check(r.returncode == 1 and "turn 4: " in r.stderr and r.stdout == "",
          "an illegal turn: exit 1 naming it", r)
    r = run([tf, "analyse", "-"], stdin="{")
    check(r.returncode == 1 and "not valid JSON" in r.stderr, "not JSON: exit 1", r)
    r = run([tf, "analyse", path, "--nodes", "10"])
    check(r.returncode == 2 and "--nodes" in r.stderr, "--nodes below 1000: usage error", r)

    shutil.rmtree(tmp)
    return report("analyse_test")


if __name__ == "__main__":
    sys.exit(main())
