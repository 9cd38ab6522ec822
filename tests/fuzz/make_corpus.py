#!/usr/bin/env python3
"""Regenerates the committed seed corpora of the fuzz targets (docs/FUZZING.md) from real inputs:
the client messages of proto/PROTOCOL.md, the conformance records of the rules spec, the turn
notation the rules CLI prints for them, and game states reached by those records.

    python3 tests/fuzz/make_corpus.py --cli build-fuzz/bin/trunkfield \
        --seed-states build-fuzz/bin/fuzz_seed_states   # (cmake --build build-fuzz --target fuzz_seed_states)

Files are named after what they hold; running it again rewrites the same files."""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.join(HERE, "corpus")
CLIENT_TYPES = {"hello", "create_game", "join_game", "cancel_game", "list_games", "watch", "setup",
                "turn", "resign", "chat", "ping", "quick_match", "quick_match_cancel", "list_live",
                "draw_offer", "draw_accept", "draw_decline", "claim_win", "abort",
                "takeback_offer", "takeback_accept", "takeback_decline", "give_time", "claim_draw",
                "preferences", "berserk"}


def compact(j):
    return json.dumps(j, separators=(",", ":"), ensure_ascii=False)


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def protocol_examples():
    text = open(os.path.join(ROOT, "proto", "PROTOCOL.md"), encoding="utf-8").read()
    seen, out = set(), []
    for m in re.findall(r'`(\{"type":"[^`]*\})`', text):
        if "…" in m:
            m = m.replace('"…"', '"3f9a0c1e5b7d2468ace013579bdf2468ace013579bdf2468"')
        try:
            j = json.loads(m)
        except ValueError:
            continue
        if j["type"] in CLIENT_TYPES and m not in seen:
            seen.add(m)
            out.append(j)
    return out


def conformance(spec_dir):
    d = os.path.join(spec_dir, "conformance")
    cases = {}
    for name in sorted(os.listdir(d)):
        if name.startswith("case-") and name.endswith(".json"):
            cases[name[:-5]] = json.load(open(os.path.join(d, name)))
    return cases


def proto_corpus(examples, cases):
    for j in examples:
        write("fuzz_proto", "doc-" + j["type"], compact(j))
    # A game's setup and turn messages as a client sends them.
    for key in ["case-std-00001", "case-b2-e4-q30-s7-00002"]:
        rec = cases[key]["record"]
        for side in ("silver", "bronze"):
            write("fuzz_proto", f"{key}-setup-{side}",
                  compact({"type": "setup", "game": "k3v9qa", "setup": rec["setup"][side],
                           "version": 1, "ref": "s-" + side}))
        for i, t in enumerate(rec["turns"][:4]):
            write("fuzz_proto", f"{key}-turn-{i}",
                  compact({"type": "turn", "game": "k3v9qa", "turn": t, "version": 3 + i,
                           "ref": f"t{i}"}))
    write("fuzz_proto", "create-game-variant",
          compact({"type": "create_game", "variant": cases["case-b2-e4-q30-s7-00001"]["record"]["variant"],
                   "time_control": {"initial_ms": 300000, "increment_ms": 0}, "color": "bronze",
                   "public": False}))
    # What the integration tests send as bad input (tests/integration/bad_input_test.cpp).
    for name, text in [("bad-hello-version", '{"type":"hello","version":99}'),
                       ("bad-unknown-type", '{"type":"nope"}'),
                       ("bad-no-type", '{"kind":"turn"}'),
                       ("bad-turn-missing", '{"type":"turn","game":"k3v9qa"}'),
                       ("bad-code-number", '{"type":"join_game","code":7}'),
                       ("bad-pass-object", '{"type":"turn","game":"k3v9qa","turn":{}}'),
                       ("bad-not-json", "hello"),
                       ("bad-array", "[1,2,3]"),
                       ("bad-chat-unicode", '{"type":"chat","game":"k3v9qa","text":"\\u00e9l\\u00e9phant \\ud83d\\udc18"}')]:
        write("fuzz_proto", name, text)


def rules_corpus(cases, cli, seed_states):
    picks = ["case-std-00001", "case-std-00007", "case-std-00019", "case-std-00033",
             "case-b2-e4-q30-s7-00001", "case-b2-e4-q30-s7-00005"]
    for key in picks:
        write("fuzz_rules_json", key + "-record", compact(cases[key]["record"]))
    write("fuzz_rules_json", "case-std-00002-whole-case", compact(cases["case-std-00002"]))
    for key in sorted(k for k in cases if k.startswith("case-edge-00001")):
        write("fuzz_rules_json", key[len("case-edge-00001-"):] + "-record",
              compact(cases[key]["record"]))
        last = cases[key]["record"]["turns"][-1]
        write("fuzz_rules_json", key[len("case-edge-00001-"):] + "-turn", compact(last))
    rec = cases["case-std-00001"]["record"]
    write("fuzz_rules_json", "variant-default", "{}")
    write("fuzz_rules_json", "variant-b2", compact(cases["case-b2-e4-q30-s7-00001"]["record"]["variant"]))
    write("fuzz_rules_json", "setup-silver", compact(rec["setup"]["silver"]))
    write("fuzz_rules_json", "setup-bronze", compact(rec["setup"]["bronze"]))
    write("fuzz_rules_json", "cell", "[3,4]")
    # Turns with guardian moves or a burnt trunk, and plain ones.
    n = 0
    for key in picks:
        for i, t in enumerate(cases[key]["record"]["turns"]):
            if (t.get("guardians") or t.get("burnt") is not None or i < 2) and n < 10:
                write("fuzz_rules_json", f"{key}-turn-{i}", compact(t))
                n += 1
    if cli:
        for key in picks[:3] + picks[4:5]:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(cases[key]["record"], f)
            out = subprocess.run([cli, "rules", "notation", f.name], capture_output=True, text=True).stdout
            os.unlink(f.name)
            lines = [l for l in out.splitlines() if l.strip()]
            for i in [0, 1, len(lines) // 2]:
                if i < len(lines):
                    write("fuzz_rules_json", f"{key}-notation-{i}", lines[i])
    if seed_states:
        paths = [os.path.join(SPEC, "conformance", k + ".json") for k in picks[:3] + picks[4:]]
        out = subprocess.run([seed_states, "25"] + paths, capture_output=True, text=True, check=True).stdout
        for i, line in enumerate(out.splitlines()[:14]):
            write("fuzz_rules_json", f"state-{i:02d}", line)


def turn_header(variant, start, seed, random_turns):
    return bytes([variant, start]) + struct.pack("<Q", seed) + bytes([random_turns])


def turn_corpus(cases):
    # Real games replayed through the fuzzer's JSON actions: setups, then up to 14 turns.
    for key, vbyte in [("case-std-00001", 0), ("case-std-00004", 0), ("case-std-00011", 0),
                       ("case-std-00016", 0), ("case-std-00025", 0), ("case-std-00030", 0),
                       ("case-std-00038", 0), ("case-b2-e4-q30-s7-00003", 1),
                       ("case-b2-e4-q30-s7-00006", 1), ("case-b2-e4-q30-s7-00008", 1)]:
        rec = cases[key]["record"]
        data = turn_header(vbyte, 0, 0, 0)
        data += b"\x01" + compact(rec["setup"]["silver"]).encode() + b"\n"
        data += b"\x01" + compact(rec["setup"]["bronze"]).encode() + b"\n"
        for t in rec["turns"][:14]:
            data += b"\x00" + compact(t).encode() + b"\n"
        write("fuzz_turn", key + "-replay", data)
    # Random positions, then turns from bytes: a generated move, one mutated, raw cells, with
    # burnt trunks and guardian moves.
    actions = [
        bytes([3, 1, 0, 0, 0]),              # generated move 0, no burnt, no guardians
        bytes([3, 1, 5, 1, 4, 4, 1, 0, 0, 1]),  # generated move 5, burnt on (3,3), one guardian cw 1
        bytes([3, 2, 2, 3, 0, 0]),           # generated move 2, mutated: drop the last step
        bytes([3, 3, 3, 1, 2, 3, 2, 1, 0, 0]),  # raw: from (2,0) one step to (3,1), facing E
        bytes([3, 0, 0, 2, 0, 1, 3, 1, 0, 2]),  # no elephant, two guardian moves
    ]
    seeds = [1, 7, 42, 1000, 65535, 2**40 + 3]
    n = 0
    for variant in (0, 1, 2):
        for turns in (0, 9, 25, 40, 80, 200):
            data = turn_header(variant, 2, seeds[n % len(seeds)], turns)
            data += actions[n % len(actions)] + actions[(n + 2) % len(actions)]
            write("fuzz_turn", f"random-v{variant}-t{turns}", data)
            n += 1
    data = turn_header(3, 2, 99, 30)[:1] + bytes([6, 3, 2, 30]) + turn_header(0, 2, 99, 30)[1:]
    write("fuzz_turn", "random-built-variant", data + actions[1])
    # Setups from bytes for both sides, including one for the wrong side.
    write("fuzz_turn", "setups-bytes", turn_header(0, 0, 5, 0) +
          bytes([2, 5, 0, 1, 2, 3, 4, 2, 0, 9]) + bytes([2, 5, 0, 1, 2, 3, 4, 2, 5, 20]) + actions[0])
    write("fuzz_turn", "setup-wrong-side", turn_header(1, 1, 5, 0) + bytes([130, 4, 0, 1, 2, 3, 2, 0, 9]))


def framer_corpus(examples):
    lines = [compact(j) for j in examples]
    def put(name, limit_byte, chunks, stream):
        write("fuzz_line_framer", name, bytes([limit_byte]) + bytes(chunks) + stream.encode())
    put("protocol-lf", 0, [15, 3, 7, 1, 15, 15, 2, 9], "\n".join(lines[:8]) + "\n")
    put("protocol-crlf", 0, [0, 1, 2, 3, 4, 5, 6, 7], "\r\n".join(lines[8:14]) + "\r\n")
    put("blank-lines", 0, [3] * 8, "\n\r\n" + lines[0] + "\n\n\r\n" + lines[1] + "\n")
    put("partial-tail", 0, [15] * 8, lines[0] + "\n" + lines[1][:10])
    put("small-limit-too-long", 20, [4] * 8, '{"type":"ping"}\n' + lines[2] + "\n" + lines[3] + "\n")
    put("small-limit-exact", 15, [1] * 8, '{"type":"ping"}\n{"type":"ping"}\r\n')
    put("cr-inside", 33, [2, 5] * 4, "a\rb\n\r\r\n\rx\n")
    for i, l in enumerate(lines):
        put(f"one-line-{i}", 4 * i, [(i + k) % 16 for k in range(8)], l + ("\r\n" if i % 2 else "\n"))


def ws_frame(first, payload, masked=True):
    n = len(payload)
    head = bytes([first])
    m = 0x80 if masked else 0
    if n < 126:
        head += bytes([m | n])
    elif n <= 0xffff:
        head += bytes([m | 126]) + struct.pack(">H", n)
    else:
        head += bytes([m | 127]) + struct.pack(">Q", n)
    if not masked:
        return head + payload
    key = bytes([0x12, 0x34, 0x56, 0x78])
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def ws_framer_corpus(examples):
    msgs = [compact(j).encode() for j in examples]
    def put(name, limit_byte, chunks, stream):
        write("fuzz_ws_framer", name, bytes([limit_byte]) + bytes(chunks) + stream)
    put("protocol-text", 0, [15, 3, 7, 1, 15, 15, 2, 9], b"".join(ws_frame(0x81, m) for m in msgs[:8]))
    put("fragmented-with-ping", 0, [2] * 8, ws_frame(0x01, msgs[0][:5]) + ws_frame(0x89, b"hi") +
        ws_frame(0x00, msgs[0][5:9]) + ws_frame(0x80, msgs[0][9:]))
    put("long-forms", 0, [15] * 8, ws_frame(0x81, b"x" * 300) + ws_frame(0x82, b"\x00" * 70000)[:40])
    put("close-1000", 0, [4] * 8, ws_frame(0x81, msgs[1]) + ws_frame(0x88, b"\x03\xe8bye") +
        ws_frame(0x81, msgs[2]))
    put("unmasked", 0, [3] * 8, ws_frame(0x81, msgs[1], masked=False))
    put("small-limit", 20, [1] * 8, ws_frame(0x81, b'{"type":"ping"}') + ws_frame(0x81, msgs[3]))
    put("utf8", 0, [5] * 8, ws_frame(0x81, "café € 🐘".encode()) + ws_frame(0x81, b"\xed\xa0\x80"))


SPEC = None


def main():
    global SPEC
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default=os.path.join(ROOT, "..", "shared", "spec"))
    ap.add_argument("--cli", help="the trunkfield CLI (for turn notation seeds)")
    ap.add_argument("--seed-states", help="fuzz_seed_states (for game state seeds)")
    a = ap.parse_args()
    SPEC = a.spec
    cases = conformance(a.spec)
    examples = protocol_examples()
    proto_corpus(examples, cases)
    rules_corpus(cases, a.cli, a.seed_states)
    turn_corpus(cases)
    framer_corpus(examples)
    ws_framer_corpus(examples)
    for t in sorted(os.listdir(CORPUS)):
        print(t, len(os.listdir(os.path.join(CORPUS, t))), "files", file=sys.stderr)


if __name__ == "__main__":
    main()
