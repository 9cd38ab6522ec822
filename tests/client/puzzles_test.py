#!/usr/bin/env python3
"""`trunkfield puzzles` (client/cli/puzzles_cmd.cpp, common/puzzles.h): mines a corpus of bot
games it makes itself and measures the yield (the issue asks at least one verified puzzle per 20
finished bot games on average), checks every puzzle's shape, re-verifies every one with the
deeper search (`puzzles verify`), finds a tampered one, mines a record file, gives the same
puzzles twice, and refuses bad usage.

usage: puzzles_test.py TRUNKFIELD_BIN
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_args_test import check, report, run  # noqa: E402  (the same helpers)

GAMES = 40
THEMES = {"capture", "guardian_move", "burnt_trunk", "save", "jump", "forced_win", "defence",
          "endgame", "one_turn", "two_turns", "long"}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tf = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="tf-puzzles-")
    try:
        # Mining takes seconds per game under load: more time than the shared helper gives.
        r = subprocess.run([tf, "puzzles", "generate", "--selfplay", str(GAMES), "--size", "7", "--seed", "500"],
                           capture_output=True, text=True, timeout=500)
        check(r.returncode == 0, "generate: exit 0", r)
        lines = [l for l in r.stdout.splitlines() if l.strip()]
        puzzles = [json.loads(l) for l in lines]
        print(f"{len(puzzles)} puzzles from {GAMES} bot games on the small board: "
              f"{len(puzzles) * 20 / GAMES:.1f} per 20 games")
        check(len(puzzles) * 20 >= GAMES, f"at least one puzzle per 20 games ({len(puzzles)} from {GAMES})")
        check(f"{len(puzzles)} puzzles from {GAMES} games" in r.stderr, "the summary on stderr", r)
        ids = set()
        for p in puzzles:
            check(set(p) == {"id", "position", "line", "themes", "margin", "eval", "source", "source_turn"},
                  f"puzzle {p.get('id')}: its fields")
            check(len(p["line"]) % 2 == 1, f"puzzle {p['id']}: an odd line (the solver's turn last)")
            check(set(p["themes"]) <= THEMES and len(p["themes"]) >= 1, f"puzzle {p['id']}: known themes")
            check(p["margin"] >= 25, f"puzzle {p['id']}: margin {p['margin']} >= 25")
            check(p["source"].startswith("selfplay:"), f"puzzle {p['id']}: source")
            ids.add(p["id"])
        check(len(ids) == len(puzzles), "ids are unique")

        path = os.path.join(tmp, "puzzles.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        v = run([tf, "puzzles", "verify", path])
        check(v.returncode == 0, "verify: every stored puzzle re-verifies unique", v)
        check(v.stdout.strip().endswith(f"{len(puzzles)} of {len(puzzles)} puzzles verified"), "verify's count", v)

        # A puzzle whose answer is another puzzle's first turn: refused, named.
        if len(puzzles) >= 2:
            bad = dict(puzzles[0])
            bad["line"] = [puzzles[1]["line"][0]]
            with open(path, "w") as f:
                f.write(json.dumps(bad) + "\n" + lines[1] + "\n")
            v = run([tf, "puzzles", "verify", path])
            check(v.returncode == 1, "verify: a tampered puzzle fails", v)
            check(v.stdout.startswith("puzzle 1 ("), "verify names the puzzle", v)
            check("1 of 2 puzzles verified" in v.stdout, "verify counts it", v)

        # The same corpus gives the same puzzles; a record file is mined too.
        again = run([tf, "puzzles", "generate", "--selfplay", "5", "--size", "7", "--seed", "500"])
        check(again.stdout == "".join(l + "\n" for l in lines if json.loads(l)["source"] in
                                     {f"selfplay:{s}" for s in range(500, 505)}), "deterministic", again)
        record = json.loads(run([tf, "rules", "random", "3"]).stdout)
        rpath = os.path.join(tmp, "game.json")
        with open(rpath, "w") as f:
            json.dump(record, f)
        g = run([tf, "puzzles", "generate", rpath])
        check(g.returncode == 0, "generate RECORD: exit 0", g)
        for l in g.stdout.splitlines():
            check(json.loads(l)["source"] == rpath, "a record's puzzles name it")

        # Solving in the terminal: the first puzzle right, turn by turn; the second wrong.
        def notation(p):
            rec = {"variant": {"size": 7, "elephants": 3, "burnt": 2, "quiet": 30}, "position": p["position"], "turns": p["line"]}
            rp = os.path.join(tmp, "line.json")
            with open(rp, "w") as f:
                json.dump(rec, f)
            n = run([tf, "rules", "notation", rp])
            check(n.returncode == 0, "rules notation reads a record from a position", n)
            return n.stdout.splitlines()
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        first = notation(puzzles[0])
        answers = "\n".join(first[0::2]) + "\n"
        wrong_for = puzzles[1]
        # A legal turn that is not the solution: the first legal elephant move that differs.
        rec2 = {"variant": {"size": 7, "elephants": 3, "burnt": 2, "quiet": 30}, "position": wrong_for["position"], "turns": []}
        with open(os.path.join(tmp, "start.json"), "w") as f:
            json.dump(rec2, f)
        legal = json.loads(run([tf, "rules", "moves", os.path.join(tmp, "start.json")]).stdout)["moves"]
        sol = notation(wrong_for)[0]
        other = None
        for m in legal:
            rec2["turns"] = [{"elephant": m}]
            with open(os.path.join(tmp, "one.json"), "w") as f:
                json.dump(rec2, f)
            t = run([tf, "rules", "notation", os.path.join(tmp, "one.json")]).stdout.strip()
            if t and t != sol:
                other = t
                break
        check(other is not None, "a legal turn other than the solution")
        s = run([tf, "puzzle", path, "--ascii"], stdin=answers + (other or "") + "\nquit\n")
        check(s.returncode == 0, "puzzle: exit 0", s)
        check("Puzzle 1 (" + puzzles[0]["id"] + ")" in s.stdout, "the first puzzle shown", s)
        check(s.stdout.count("Solved.") >= 1, "the first puzzle solved", s)
        check("Puzzle 2 (" in s.stdout and ("Wrong." in s.stdout or "Also good" in s.stdout), "the second judged", s)
        if "Wrong." in s.stdout:
            check("The solution: " in s.stdout, "a wrong answer shows the solution", s)
        check("Solved 1 of 2." in s.stdout or "Solved 2 of 2." in s.stdout, "the count", s)
        h = run([tf, "puzzle", path, "--ascii"], stdin="hint\nskip\nquit\n")
        check("Move the elephant on " in h.stdout or "No elephant can move" in h.stdout, "hint", h)
        check("The solution: 1" in h.stdout or "The solution: " in h.stdout, "skip shows the solution", h)
        bad_theme = run([tf, "puzzle", path, "--theme", "nonsense"])
        check(bad_theme.returncode == 2, "an unknown theme is a usage error", bad_theme)

        u = run([tf, "puzzles", "generate", "--size", "8"])
        check(u.returncode == 2, "--size 8: a usage error", u)
        u = run([tf, "puzzles", "verify", os.path.join(tmp, "missing.jsonl")])
        check(u.returncode == 1, "verify a missing file: exit 1", u)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("puzzles_test")


if __name__ == "__main__":
    sys.exit(main())
