// The WebAssembly rules module against the conformance cases and against the native build.
//
//   node --test tests/wasm/conformance.test.mjs
//
// Paths come from the environment (CTest sets them, see tests/CMakeLists.txt); the defaults
// suit a build in build/:
//   TF_WASM_BUNDLE  the JS API of the bundle      (build/web/trunkfield-rules.js)
//   TF_CLI          the native trunkfield CLI      (build/bin/trunkfield)
//   TF_SPEC_DIR     rules-v1.md and conformance/   (../shared/spec)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const specDir = path.resolve(process.env.TF_SPEC_DIR || path.join(repo, "../shared/spec"));
const bundle = path.resolve(process.env.TF_WASM_BUNDLE || path.join(repo, "build/web/trunkfield-rules.js"));
const cli = path.resolve(process.env.TF_CLI || path.join(repo, "build/bin/trunkfield"));

const { Rules, RulesGame, RulesError } = await import(pathToFileURL(bundle).href);
await Rules.load();

// ---- helpers ----------------------------------------------------------------------------------

// JSON text with object keys sorted at every level: equal values give equal text.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}
const moveSet = (moves) => moves.map(canonical).sort();

// Runs `trunkfield rules <args>` with `input` on stdin.
function native(args, input = "") {
  const r = spawnSync(cli, ["rules", ...args], { input, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  const lines = r.stdout.split("\n").filter((l) => l.length);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, lines };
}
const nativeJson = (args, input) => {
  const r = native(args, input);
  return { ...r, json: r.lines.length ? JSON.parse(r.lines[0]) : null };
};

const withoutMoves = ({ moves, ...rest }) => rest;

// Native `rules replay -` and `rules moves -` against the wasm replay of the same text.
function compareWithNative(text, wasm) {
  const rep = nativeJson(["replay", "-"], text);
  assert.deepEqual(withoutMoves(wasm), rep.json, "replay summary differs from native");
  assert.equal(rep.code, wasm.error === null ? 0 : 1, "native exit code vs wasm error");
  const mv = nativeJson(["moves", "-"], text);
  assert.deepEqual(wasm.moves, mv.json.moves, "legal moves (in order) differ from native");
}

// ---- raw JSON spans ----------------------------------------------------------------------------
// Some cases hold values such as 3.0 that JSON.parse turns into 3, so everything fed to the rules
// is cut out of the original text instead of re-serialized.

function skipWs(s, i) {
  while (i < s.length && " \t\r\n".includes(s[i])) ++i;
  return i;
}
// End (exclusive) of the JSON value starting at s[i].
function valueEnd(s, i) {
  if (s[i] === '"') {
    for (++i; s[i] !== '"'; ++i) if (s[i] === "\\") ++i;
    return i + 1;
  }
  if (s[i] === "{" || s[i] === "[") {
    let depth = 0;
    for (; i < s.length; ++i) {
      if (s[i] === '"') i = valueEnd(s, i) - 1;
      else if (s[i] === "{" || s[i] === "[") ++depth;
      else if ((s[i] === "}" || s[i] === "]") && --depth === 0) return i + 1;
    }
    throw new Error("unterminated JSON");
  }
  while (i < s.length && !",]} \t\r\n".includes(s[i])) ++i;
  return i;
}
// Raw text of each member of the object (or element of the array) that is the whole of `s`.
function rawParts(s) {
  const out = s.trimStart()[0] === "{" ? {} : [];
  let i = skipWs(s, 0) + 1;
  for (;;) {
    i = skipWs(s, i);
    if (s[i] === "}" || s[i] === "]") return out;
    let key = null;
    if (!Array.isArray(out)) {
      const k = valueEnd(s, i);
      key = JSON.parse(s.slice(i, k));
      i = skipWs(s, skipWs(s, k) + 1);  // past ':'
    }
    const e = valueEnd(s, i);
    if (key === null) out.push(s.slice(i, e));
    else out[key] = s.slice(i, e);
    i = skipWs(s, e);
    if (s[i] === ",") ++i;
  }
}
// A record's text in parts: {text, variant, silver, bronze, turns: [text...]}.
function recordParts(text) {
  const r = rawParts(text);
  const setup = rawParts(r.setup);
  const turns = r.turns && r.turns !== "null" ? rawParts(r.turns) : [];
  return { text, variant: r.variant ?? "null", silver: setup.silver, bronze: setup.bronze, turns };
}

// Plays a record through the game API turn by turn. With `offered`, checks that each
// elephant-only turn is among the legal moves offered before it. Returns the game, the error of
// the first illegal setup or turn (as replay reports it) and the turns applied.
function playThrough(parts, { offered = false } = {}) {
  const game = new RulesGame(parts.variant);
  for (const side of ["silver", "bronze"]) {
    const r = game.applySetup(side, parts[side]);
    if (r.error) return { game, error: { setup: side, ...r.error }, applied: 0 };
  }
  for (let i = 0; i < parts.turns.length; ++i) {
    const t = parts.turns[i];
    const legal = offered ? new Set(moveSet(game.legalMoves())) : null;
    const check = game.checkTurn(t);
    const r = game.applyTurn(t);
    assert.deepEqual(check, r, `checkTurn and applyTurn disagree on turn ${i}`);
    if (r.error) return { game, error: { turn: i, ...r.error }, applied: i };
    const turn = JSON.parse(t);
    if (legal && turn.elephant && !turn.burnt && !(turn.guardians ?? []).length)
      assert.ok(legal.has(canonical(normalizeMove(turn.elephant))), `turn ${i} not among legal moves`);
  }
  return { game, error: null, applied: parts.turns.length };
}

// A move as the generator prints it: facing only when present.
function normalizeMove(m) {
  const out = { from: m.from, path: m.path };
  if (m.facing !== undefined && m.facing !== null) out.facing = m.facing;
  return out;
}

function checkGameApi(parts, wasm, opts) {
  const { game, error, applied } = playThrough(parts, opts);
  try {
    assert.equal(applied, wasm.applied, "turns applied through the game API");
    assert.deepEqual(error, wasm.error, "error through the game API");
    assert.deepEqual(game.legalMoves(), wasm.moves, "legal moves through the game API");
    const state = game.state();
    for (const k of ["over", "reason", "score", "winner", "to_move"])
      assert.deepEqual(state[k], wasm[k], `state.${k}`);
    // The state reloads into the same game.
    if (state.phase !== "setup_silver" && state.phase !== "setup_bronze") {
      const again = RulesGame.fromState(state);
      assert.deepEqual(again.state(), state, "state round trip");
      assert.deepEqual(again.legalMoves(), wasm.moves, "legal moves after the round trip");
      again.dispose();
    }
  } finally {
    game.dispose();
  }
}

// ---- conformance cases ------------------------------------------------------------------------

const caseDir = path.join(specDir, "conformance");
const caseFiles = fs
  .readdirSync(caseDir)
  .filter((f) => f.endsWith(".json"))
  .sort();

describe(`conformance cases (${caseFiles.length}) in ${caseDir}`, () => {
  test("the folder has cases", () => assert.ok(caseFiles.length > 0));
  for (const file of caseFiles) {
    test(file, () => {
      const raw = fs.readFileSync(path.join(caseDir, file), "utf8");
      const ex = JSON.parse(raw).expect;
      const parts = recordParts(rawParts(raw).record);
      const text = parts.text;
      const r = Rules.replay(text);
      assert.equal(r.applied, ex.applied, "applied");
      if (ex.error_turn === null) assert.equal(r.error, null, "no error expected");
      else assert.equal(r.error?.turn, ex.error_turn, "error_turn");
      for (const k of ["over", "reason", "score", "winner", "to_move"])
        assert.deepEqual(r[k], ex[k], k);
      assert.deepEqual(moveSet(r.moves), moveSet(ex.moves), "legal moves as a set");
      compareWithNative(text, r);
      checkGameApi(parts, r);
    });
  }
});

// ---- random games: native vs wasm ---------------------------------------------------------------

describe("random records (trunkfield rules random 1..20), native vs wasm", () => {
  for (let seed = 1; seed <= 20; ++seed) {
    test(`seed ${seed}`, () => {
      const gen = native(["random", String(seed)]);
      assert.equal(gen.code, 0, gen.stderr);
      const text = gen.lines[0];
      const record = JSON.parse(text);
      const r = Rules.replay(text);
      assert.equal(r.error, null);
      assert.equal(r.applied, record.turns.length);
      assert.equal(r.over, true, "random records are complete games");
      compareWithNative(text, r);
      checkGameApi(recordParts(text), r, { offered: true });
      // Notation, both ways, as the native CLI writes it.
      const notes = native(["notation", "-"], text).lines;
      assert.equal(notes.length, record.turns.length);
      const size = record.variant?.size ?? 9;
      record.turns.forEach((t, i) => {
        assert.equal(Rules.turnToNotation(t, size).notation, notes[i], `notation of turn ${i}`);
        const back = Rules.turnFromNotation(notes[i], size);
        assert.equal(Rules.turnToNotation(back.turn, size).notation, notes[i], `parse of turn ${i}`);
      });
    });
  }
});

// ---- errors -----------------------------------------------------------------------------------

// A record cut after `n` turns with `bad` appended.
function withBadTurn(record, n, bad) {
  return { ...record, turns: [...record.turns.slice(0, n), bad] };
}

describe("errors: same code and message as native", () => {
  const base = JSON.parse(native(["random", "7"]).lines[0]);
  const n = 6;
  const before = (() => {
    const g = new RulesGame(base.variant ?? null);
    g.applySetup("silver", base.setup.silver);
    g.applySetup("bronze", base.setup.bronze);
    for (const t of base.turns.slice(0, n)) assert.deepEqual(g.applyTurn(t), { ok: true });
    return g;
  })();
  const legal = before.legalMoves();
  const m = legal[0];
  const empty = before.state().trunks[0];
  const badTurns = {
    "empty turn while a move exists": {},
    "elephant from a cell without one": { elephant: { from: empty, path: [m.path[0]], facing: "N" } },
    "missing facing": { elephant: { from: m.from, path: m.path } },
    "cell with a float": { elephant: { from: [m.from[0] + 0.5, m.from[1]], path: m.path } },
    "path too long": { elephant: { ...m, path: [m.path[0], m.path[0], m.path[0], m.path[0]] } },
    "guardian of nobody": {
      elephant: m,
      guardians: [{ from: [5, 5], dir: "cw", steps: 1 }],
    },
    "turn not an object": [1, 2],
  };
  for (const [name, bad] of Object.entries(badTurns)) {
    test(`illegal turn: ${name}`, () => {
      const rec = withBadTurn(base, n, bad);
      const text = JSON.stringify(rec);
      const r = Rules.replay(text);
      assert.equal(r.applied, n);
      assert.equal(r.error?.turn, n);
      assert.ok(r.error.code && r.error.message);
      compareWithNative(text, r);
      // The game API reports the same error and leaves the game as it was.
      const g = before.clone();
      const st = g.state();
      assert.deepEqual(g.applyTurn(bad), { error: { code: r.error.code, message: r.error.message } });
      assert.deepEqual(g.checkTurn(bad), { error: { code: r.error.code, message: r.error.message } });
      assert.deepEqual(g.state(), st, "an illegal turn changes nothing");
      g.dispose();
    });
  }

  test("illegal setup", () => {
    const rec = { ...base, setup: { ...base.setup, bronze: { elephants: [], guardians: [] } } };
    const text = JSON.stringify(rec);
    const r = Rules.replay(text);
    assert.equal(r.error?.setup, "bronze");
    compareWithNative(text, r);
    const g = new RulesGame(base.variant ?? null);
    assert.deepEqual(g.applySetup("silver", base.setup.silver), { ok: true });
    assert.deepEqual(g.applySetup("bronze", rec.setup.bronze), {
      error: { code: r.error.code, message: r.error.message },
    });
    g.dispose();
  });

  const notJson = ["{", "", "nul", '{"variant": }', "[1, 2"];
  for (const text of notJson) {
    test(`malformed JSON ${JSON.stringify(text)}`, () => {
      const r = Rules.replay(text);
      assert.equal(r.applied, undefined);
      assert.equal(r.error.code, "bad_format");
      const nat = native(["replay", "-"], text);
      assert.equal(nat.code, 2);
      assert.equal(nat.stderr.trim(), "trunkfield rules: -: not valid JSON");
      const g = new RulesGame();
      assert.equal(g.applyTurn(text).error.code, "bad_format");
      assert.equal(g.applySetup("silver", text).error.code, "bad_format");
      g.dispose();
    });
  }

  const notRecords = {
    "an array": [1],
    "no setups": { variant: null, turns: [] },
    "turns not a list": { ...base, turns: 3 },
    "variant out of bounds": { ...base, variant: { size: 99 } },
  };
  for (const [name, rec] of Object.entries(notRecords)) {
    test(`not a record: ${name}`, () => {
      const text = JSON.stringify(rec);
      const r = Rules.replay(text);
      assert.equal(r.applied, undefined);
      const nat = native(["replay", "-"], text);
      assert.equal(nat.code, 2);
      assert.equal(nat.stderr.trim(), `trunkfield rules: -: not a game record: ${r.error.message}`);
    });
  }

  test("API misuse is reported, not thrown from the module", () => {
    assert.throws(() => new RulesGame({ size: 4 }), (e) => e instanceof RulesError && e.code === "bad_variant");
    assert.throws(() => RulesGame.fromState({ phase: "nope" }), (e) => e instanceof RulesError && e.code === "bad_format");
    assert.throws(() => RulesGame.fromState("{"), (e) => e instanceof RulesError && e.code === "bad_format");
    const g = new RulesGame();
    assert.equal(g.applySetup("purple", base.setup.silver).error.code, "bad_format");
    assert.equal(g.applyTurn({}).error.code, "wrong_phase");
    assert.deepEqual(g.legalMoves(), []);
    g.dispose();
    assert.throws(() => g.legalMoves(), /disposed/);
    assert.equal(Rules.turnFromNotation("zz-top", 9).error.code, "bad_format");
    assert.equal(Rules.turnToNotation({}, 99).error.code, "bad_variant");
  });

  // The library cuts long bad values to 40 bytes, which can split a UTF-8 sequence; the native
  // CLI then aborts in nlohmann's dump (reported). The module must answer, with U+FFFD instead.
  test("non-ASCII in a rejected value: an error, not an abort (wasm only)", () => {
    const bad = { elephant: { from: m.from, path: m.path, facing: "x" + "\u00e9".repeat(30) } };
    const r = Rules.replay(withBadTurn(base, n, bad));
    assert.equal(r.error?.turn, n);
    assert.equal(r.error.code, "bad_format");
    assert.match(r.error.message, /^elephant\.facing: /);
    assert.equal(before.checkTurn(bad).error.code, "bad_format");
    assert.ok(before.legalMoves().length > 0, "the module still works");
  });

  test("clone is independent", () => {
    const c = before.clone();
    const st = before.state();
    assert.deepEqual(c.applyTurn({ elephant: m }), { ok: true });
    assert.deepEqual(before.state(), st);
    assert.notDeepEqual(c.state(), st);
    c.dispose();
  });

  test("large input (a record repeated into 2 MB of JSON) goes through the heap", () => {
    const big = { ...base, padding: "x".repeat(2 << 20) };
    const r = Rules.replay(big);
    assert.equal(r.applied, base.turns.length);
  });
});

// ---- the computer opponent ----------------------------------------------------------------------

// botMove is the server's bot (common/bot.h) in the page: whatever it answers must be legal.
describe("the computer opponent (botMove)", () => {
  for (const [level, size] of [[1, 9], [3, 7], [5, 9]]) {
    test(`level ${level}, ${size} x ${size}: legal setups for both sides, then legal turns`, () => {
      const g = new RulesGame({ size });
      for (const side of ["silver", "bronze"]) {
        assert.equal(g.state().to_move, side);
        const r = g.botMove(level, 11);
        assert.ok(r.setup, `a setup for ${side}: ${JSON.stringify(r)}`);
        assert.deepEqual(g.applySetup(side, r.setup), { ok: true });
      }
      for (let i = 0; i < 6 && !g.state().over; i++) {
        const r = g.botMove(level, 100 + i);
        assert.ok(r.turn, `turn ${i}: ${JSON.stringify(r)}`);
        assert.deepEqual(g.checkTurn(r.turn), { ok: true });
        assert.deepEqual(g.applyTurn(r.turn), { ok: true });
      }
      g.dispose();
    });
  }

  test("the same game, level and seed give the same move", () => {
    const g = new RulesGame();
    assert.deepEqual(g.botMove(2, 5), g.botMove(2, 5));
    g.applySetup("silver", g.botMove(2, 5).setup);
    g.applySetup("bronze", g.botMove(2, 6).setup);
    assert.deepEqual(g.botMove(4, 2 ** 40), g.botMove(4, 2 ** 40));
    g.dispose();
  });

  test("errors: a level outside 1..5, a finished game, a disposed game", () => {
    const g = new RulesGame();
    for (const level of [0, 6, -1, "x"])
      assert.deepEqual(g.botMove(level), { error: { code: "bad_format", message: `bot level ${Number(level) | 0} is out of range (1 to 5)` } });
    const record = JSON.parse(native(["random", "3"]).lines[0]);
    const over = new RulesGame(record.variant ?? null);
    over.applySetup("silver", record.setup.silver);
    over.applySetup("bronze", record.setup.bronze);
    for (const t of record.turns) over.applyTurn(t);
    assert.equal(over.state().over, true);
    assert.equal(over.botMove(3).error.code, "game_over");
    over.dispose();
    g.dispose();
    assert.throws(() => g.botMove(3), /disposed/);
    // A handle the module does not know (the JS API never sends one): an error, not a crash.
    assert.equal(JSON.parse(Rules.module.UTF8ToString(Rules.module._tf_game_bot_move(987654, 3, 1))).error.code, "bad_handle");
  });
});
