#!/usr/bin/python3
"""Validates every recorded protocol frame against proto/schema/<type>.json.

Usage: validate_schema.py SCHEMA_DIR TRAFFIC_DIR [PROTOCOL_MD]
       validate_schema.py --reset TRAFFIC_DIR   (empties it before the tests run)

TRAFFIC_DIR holds the JSON-lines files written by the client library when TF_TRAFFIC_LOG is set
(client/lib/traffic_log.h). History API answers recorded there ("dir": "http") are checked
against proto/schema/history/<list|game|record|leaderboard|player|error>.json. Fails when a frame is not JSON, has no string "type", names a type
without a schema, or does not match its schema; when an error code is missing from the error
table of PROTOCOL_MD; or when nothing was recorded. Frames marked "probe" (deliberately invalid
input from the bad-input tests) and binary frames are skipped. Needs Debian's python3-jsonschema.
"""
import collections
import glob
import json
import os
import re
import sys

import jsonschema


def load_schemas(schema_dir):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(schema_dir, "*.json"))):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        schemas[os.path.basename(path)[:-5]] = schema
    store = {s["$id"]: s for s in schemas.values()}
    validators = {}
    for name, schema in schemas.items():
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        validators[name] = jsonschema.Draft202012Validator(schema, resolver=resolver)
    return validators


def load_history_schemas(schema_dir):
    """proto/schema/history/*.json, the history API's answers, resolving common.json."""
    paths = sorted(glob.glob(os.path.join(schema_dir, "history", "*.json")))
    schemas = {}
    for path in paths + [os.path.join(schema_dir, "common.json")]:
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        schemas[path] = schema
    store = {s["$id"]: s for s in schemas.values()}
    validators = {}
    for path, schema in schemas.items():
        if os.path.basename(os.path.dirname(path)) != "history":
            continue
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        validators[os.path.basename(path)[:-5]] = jsonschema.Draft202012Validator(
            schema, resolver=resolver)
    return validators


def history_kind(path, status):
    """Which history schema an answer of GET `path` with `status` must match (None: not JSON)."""
    if status != 200:
        return "error"
    route = path.split("?")[0].rstrip("/")
    parts = route.split("/")  # "", "api", "games", CODE, what
    if route == "/api/games":
        return "list"
    if route == "/api/leaderboard":
        return "leaderboard"
    if route.startswith("/api/players/"):
        return "player"
    if len(parts) == 4:
        return "game"
    if len(parts) == 5 and parts[4] == "record":
        return "record"
    return None


def check_http(rec, where, history, failures, counts):
    kind = history_kind(rec["path"], rec["status"])
    if kind is None:
        return
    counts[f"http {kind}"] += 1
    try:
        msg = json.loads(rec["text"])
    except ValueError:
        failures.append(f"{where}: {rec['path']}: not JSON: {rec['text'][:200]}")
        return
    for err in history[kind].iter_errors(msg):
        path_s = "/".join(str(p) for p in err.absolute_path)
        failures.append(f"{where}: {rec['path']} ({kind}) at /{path_s}: {err.message[:300]}")


def documented_codes(protocol_md):
    codes = set()
    with open(protocol_md, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\|\s*`?([a-z_]+)`?\s*(?:/\s*`?([a-z_]+)`?\s*)?\|", line)
            if m:
                codes.update(c for c in m.groups() if c)
    return codes


def reset(traffic_dir):
    os.makedirs(traffic_dir, exist_ok=True)
    for path in glob.glob(os.path.join(traffic_dir, "*.jsonl")):
        os.remove(path)
    return 0


def check_examples(protocol_md, validators):
    """Every message type has an example in the document; those that are complete JSON (no
    "…" placeholders) must match their schema."""
    with open(protocol_md, encoding="utf-8") as f:
        doc = f.read()
    failures = []
    for t in validators:
        if t != "common" and f'"type":"{t}"' not in doc:
            failures.append(f"PROTOCOL.md: no example of {t!r}")
    for m in re.finditer(r'`(\{"type":[^`]*\})`', doc):
        try:
            msg = json.loads(m.group(1))
        except ValueError:
            continue  # an example with placeholders
        t = msg["type"]
        if t not in validators:
            failures.append(f"PROTOCOL.md: example of {t!r} has no schema")
            continue
        for err in validators[t].iter_errors(msg):
            failures.append(f"PROTOCOL.md: example {m.group(1)[:80]}: {err.message[:200]}")
    return failures


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--reset":
        return reset(sys.argv[2])
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    validators = load_schemas(sys.argv[1])
    history = load_history_schemas(sys.argv[1])
    codes = documented_codes(sys.argv[3]) if len(sys.argv) > 3 else None
    files = sorted(glob.glob(os.path.join(sys.argv[2], "*.jsonl")))
    seen, counts, failures = set(), collections.Counter(), []
    if len(sys.argv) > 3:
        failures += check_examples(sys.argv[3], validators)
    frames = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                rec = json.loads(line)
                frames += 1
                if rec.get("probe") or rec.get("binary"):
                    continue
                key = (rec["dir"], rec["text"])
                if key in seen:
                    continue
                seen.add(key)
                where = f"{os.path.basename(path)}:{lineno} ({rec['dir']} {rec['transport']})"
                if rec["dir"] == "http":
                    check_http(rec, where, history, failures, counts)
                    continue
                try:
                    msg = json.loads(rec["text"])
                except ValueError:
                    failures.append(f"{where}: not JSON: {rec['text'][:200]}")
                    continue
                t = msg.get("type") if isinstance(msg, dict) else None
                if not isinstance(t, str):
                    failures.append(f"{where}: no string type: {rec['text'][:200]}")
                    continue
                counts[f"{rec['dir']} {t}"] += 1
                if t not in validators:
                    failures.append(f"{where}: no schema for type {t!r}")
                    continue
                for err in validators[t].iter_errors(msg):
                    path_s = "/".join(str(p) for p in err.absolute_path)
                    failures.append(f"{where}: {t} at /{path_s}: {err.message[:300]}")
                if t == "error" and codes is not None and msg.get("code") not in codes:
                    failures.append(f"{where}: error code {msg.get('code')!r} not in PROTOCOL.md")
    for k in sorted(counts):
        print(f"{counts[k]:8d} distinct  {k}")
    print(f"{frames} frames in {len(files)} files, {len(seen)} distinct")
    if frames == 0:
        print("FAIL: no traffic recorded (is TF_TRAFFIC_LOG set for the integration tests?)")
        return 1
    for f in failures[:50]:
        print("FAIL:", f)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
