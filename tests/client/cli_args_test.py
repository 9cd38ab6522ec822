#!/usr/bin/env python3
"""The command lines of `trunkfield` (rules, play, bot) and bench/bot_ladder (CLI11, client/cli/
cli_args.h): --help on each (exit 0, every flag the README and docs name), every flag accepted,
and usage errors (unknown flags, missing or bad values, unknown subcommands) answered with a
message naming the command and exit code 2.

usage: cli_args_test.py TRUNKFIELD_BIN BOT_LADDER_BIN
"""
import os
import subprocess
import sys
import tempfile

failures = []


def run(argv, stdin=""):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)


def check(ok, what, r=None):
    if not ok:
        detail = "" if r is None else f"\n  exit {r.returncode}\n  stdout: {r.stdout[-800:]!r}\n  stderr: {r.stderr[-800:]!r}"
        failures.append(what + detail)


def report(name):
    """Prints the failures and a summary line; the exit code: 1 after a failure, else 0."""
    for f in failures:
        print("FAIL:", f)
    print(f"{name}: {len(failures)} failures")
    return 1 if failures else 0


def usage_error(argv, prefix, *words):
    """argv must fail with exit code 2, saying `prefix: ...` and each of `words` on stderr."""
    r = run(argv)
    check(r.returncode == 2, f"{argv}: exit code 2", r)
    check(r.stderr.startswith(prefix + ": "), f"{argv}: message starts with '{prefix}: '", r)
    for w in words:
        check(w in r.stderr, f"{argv}: message mentions {w!r}", r)


def helps(argv, *words):
    r = run(argv + ["--help"])
    check(r.returncode == 0, f"{argv} --help: exit code 0", r)
    for w in words:
        check(w in r.stdout, f"{argv} --help mentions {w!r}", r)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tf, ladder = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tf-cli-")
    record = os.path.join(tmp, "game.json")

    # --help everywhere.
    helps([tf], "rules", "analyse", "play", "bot")
    helps([tf, "rules"], "replay", "moves", "perft", "notation", "random", "bench")
    for sub in ("replay", "moves", "notation"):
        helps([tf, "rules", sub], "FILE")
    helps([tf, "rules", "perft"], "FILE", "DEPTH")
    helps([tf, "rules", "random"], "SEED")
    helps([tf, "rules", "bench"], "SECONDS")
    helps([tf, "analyse"], "RECORD", "--nodes", "--json")
    helps([tf, "play"], "--server", "--name", "--token-file", "--no-color", "--color", "--ascii",
          "--unicode")
    helps([tf, "bot"], "--server", "--level", "--games", "--code", "--name", "--seed", "--verbose",
          "exit codes")
    helps([ladder], "--games", "--a", "--b", "--seed", "--jobs", "--size", "--elephants", "--burnt",
          "--quiet", "--min-wins", "--json", "--progress", "--ladder")
    r = run([tf, "bot", "-h"])
    check(r.returncode == 0 and "--level" in r.stdout, "bot -h", r)

    # Every flag accepted. rules: a record made by `rules random`, read from a file and stdin.
    r = run([tf, "rules", "random", "7"])
    check(r.returncode == 0 and r.stdout.startswith("{"), "rules random 7", r)
    with open(record, "w") as f:
        f.write(r.stdout)
    check(run([tf, "rules", "random"]).returncode == 0, "rules random (seed 1)")
    check(run([tf, "rules", "random", "010"]).stdout == run([tf, "rules", "random", "10"]).stdout,
          "rules random 010 is seed 10")
    for argv in (["replay", record], ["moves", record], ["notation", record],
                 ["perft", record, "1"], ["replay", "-"], ["bench", "0.05"]):
        r = run([tf, "rules"] + argv, stdin=open(record).read())
        check(r.returncode == 0 and r.stdout, f"rules {argv}", r)
    # play: parsed, then it connects and ends at the end of its (empty) standard input.
    token = os.path.join(tmp, "token")
    for argv in (["--server", "127.0.0.1:9", "--name", "ann", "--token-file", token, "--no-color",
                  "--ascii"],
                 ["--server=127.0.0.1:9", "--name=ann", f"--token-file={token}", "--no-colour",
                  "--colour", "--unicode"]):
        r = run([tf, "play"] + argv)
        check(r.returncode == 0 and "connecting to 127.0.0.1:9" in r.stderr + r.stdout,
              f"play {argv}", r)
    # bot: parsed, then it cannot connect (exit 1, not 2).
    r = run([tf, "bot", "--server", "127.0.0.1:9", "--level", "2", "--games", "3", "--name", "robo",
             "--seed", "4", "--verbose"])
    check(r.returncode == 1 and "cannot connect to 127.0.0.1:9" in r.stderr, "bot, all flags", r)
    r = run([tf, "bot", "--server", "127.0.0.1:9", "--level", "5", "--code", "k3v9qa"])
    check(r.returncode == 1 and "cannot connect" in r.stderr, "bot --code", r)
    r = run([ladder, "--games", "2", "--a", "1", "--b", "random", "--seed", "3", "--jobs", "2",
             "--size", "9", "--elephants", "5", "--burnt", "3", "--quiet", "40", "--min-wins", "0",
             "--json", "--progress"])
    check(r.returncode == 0 and '"games":2' in r.stdout, "bot_ladder, all flags", r)
    r = run([ladder, "--games", "2", "--a", "random", "--b", "1", "--min-wins", "2"])
    check(r.returncode == 1, "bot_ladder --min-wins not reached: exit code 1", r)

    # Usage errors: exit code 2 and a message naming the command.
    usage_error([tf], "trunkfield", "subcommand")
    usage_error([tf, "frobnicate"], "trunkfield", "unknown command 'frobnicate'")
    usage_error([tf, "--bogus"], "trunkfield", "--bogus")
    usage_error([tf, "rules"], "trunkfield rules", "subcommand")
    usage_error([tf, "rules", "frob"], "trunkfield rules", "unknown command 'frob'")
    usage_error([tf, "rules", "replay"], "trunkfield rules replay", "FILE")
    usage_error([tf, "rules", "replay", record, "extra"], "trunkfield rules replay", "extra")
    usage_error([tf, "rules", "perft", record], "trunkfield rules perft", "DEPTH")
    usage_error([tf, "rules", "perft", record, "9"], "trunkfield rules perft", "0 to 8")
    usage_error([tf, "rules", "perft", record, "-1"], "trunkfield rules perft", "0 to 8")
    usage_error([tf, "rules", "random", "x"], "trunkfield rules random", "'x'")
    usage_error([tf, "rules", "bench", "0"], "trunkfield rules bench", "above 0")
    usage_error([tf, "analyse"], "trunkfield analyse", "RECORD")
    usage_error([tf, "analyse", record, "--nodes", "999"], "trunkfield analyse", "1000 to")
    usage_error([tf, "play", "--bogus"], "trunkfield play", "--bogus", "--help")
    usage_error([tf, "play", "--server"], "trunkfield play", "--server needs a value")
    usage_error([tf, "play", "--server", "host:0"], "trunkfield play", "HOST:PORT")
    usage_error([tf, "bot", "--level", "1"], "trunkfield bot", "--server")
    usage_error([tf, "bot", "--server", "127.0.0.1:9"], "trunkfield bot", "--level")
    usage_error([tf, "bot", "--server", "nohost", "--level", "1"], "trunkfield bot", "HOST:PORT")
    usage_error([tf, "bot", "--server", "h:1", "--level", "6"], "trunkfield bot", "1 to 5")
    usage_error([tf, "bot", "--server", "h:1", "--level", "0x1"], "trunkfield bot", "1 to 5")
    usage_error([tf, "bot", "--server", "h:1", "--level"], "trunkfield bot", "--level needs a value")
    usage_error([tf, "bot", "--server", "h:1", "--level", "1", "--games", "0"], "trunkfield bot",
                "--games")
    usage_error([tf, "bot", "--server", "h:1", "--level", "1", "--name", "x" * 33],
                "trunkfield bot", "--name")
    usage_error([tf, "bot", "--server", "h:1", "--level", "1", "--code", "abc", "--games", "2"],
                "trunkfield bot", "--code plays one game")
    usage_error([tf, "bot", "--server", "h:1", "--level", "1", "--bogus"], "trunkfield bot",
                "--bogus")
    usage_error([tf, "bot", "--server", "h:1", "--level", "1", "--challenges"], "trunkfield bot",
                "--token")
    usage_error([tf, "bot", "--server", "h:1", "--level", "1", "--token", "t", "--challenges",
                 "--from", "robots"], "trunkfield bot", "--from")
    bridge = [tf, "bridge", "--server", "h:1", "--engine", "e", "--token", "t"]
    usage_error(bridge + ["--clock", "5+3"], "trunkfield bridge", "--challenge")
    usage_error(bridge + ["--challenge", "bob", "--seek"], "trunkfield bridge", "--seek")
    usage_error(bridge + ["--challenge", "bob", "--clock", "5x"], "trunkfield bridge", "5x")
    usage_error([ladder, "--bogus"], "bot_ladder", "--bogus")
    usage_error([ladder, "--a", "7"], "bot_ladder", "'7'")
    usage_error([ladder, "--games", "0"], "bot_ladder", "--games")
    usage_error([ladder, "--jobs"], "bot_ladder", "--jobs needs a value")
    usage_error([ladder, "--size", "3"], "bot_ladder", "size")  # a bad variant: also 2

    subprocess.run(["rm", "-rf", tmp])
    return report("cli_args_test")


if __name__ == "__main__":
    sys.exit(main())
