// Position strings, records with variations and the engine on one position, in WebAssembly
// (RulesGame.fromPosition / position / analyse, Rules.parseVariations / printVariations): what
// the analysis board uses. The same C++ is unit-tested natively (tests/unit/position_test.cpp);
// here the bindings: round trips over random games, the documented example, errors as values or
// RulesError, and an engine answer that is the same for the same position.
//
//   node --test tests/wasm/position.test.mjs
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bundle = path.resolve(process.env.TF_WASM_BUNDLE || path.join(repo, "build/web/trunkfield-rules.js"));
const { Rules, RulesGame, RulesError } = await import(pathToFileURL(bundle).href);
await Rules.load();

// docs/RULES.md §8 "Position strings"
const EXAMPLE = "5.3.2.20 7/g1oooo1/1eoooo1/2Seoo1/2Neoo1/5N1/1G2gG1 s 2.0.2.0.0 2.0.2.0.0 0 4";

test("position strings: every position of bot games read back the same", () => {
  for (const [variant, seed] of [[{ size: 5, elephants: 3, burnt: 2, quiet: 20 }, 1], [null, 2], [{ size: 7, elephants: 4, burnt: 2, quiet: 30 }, 3]]) {
    const g = new RulesGame(variant);
    assert.equal(g.position(), null, "none during the setups");
    for (const side of ["silver", "bronze"]) g.applySetup(side, g.botMove(1, seed).setup);
    for (let i = 0; i < 300; i++) {
      const p = g.position();
      const back = RulesGame.fromPosition(p);
      assert.equal(back.position(), p);
      const a = g.state(), b = back.state();
      assert.deepEqual({ ...b, elephants: null, guardians: null, to_move: a.over ? null : b.to_move },
        { ...a, elephants: null, guardians: null, to_move: a.over ? null : a.to_move });
      back.dispose();
      if (a.over) break;
      assert.ok(g.applyTurn(g.botMove(2, seed + i).turn).ok);
    }
    g.dispose();
  }
});

test("position strings: the documented example, underscores, errors", () => {
  const g = RulesGame.fromPosition(EXAMPLE.replaceAll(" ", "_"));
  const st = g.state();
  assert.equal(g.position(), EXAMPLE);
  assert.equal(st.to_move, "silver");
  assert.equal(st.turns_played, 4);
  assert.deepEqual(st.players.silver.trunks, 2);
  assert.ok(st.elephants.some((e) => e.side === "silver" && e.facing === "S" && e.cell[0] === 2 && e.cell[1] === 3));
  g.dispose();
  assert.throws(() => RulesGame.fromPosition("9.5.3.40"), (e) => e instanceof RulesError && e.code === "bad_format" &&
    e.message === "position: expected 7 fields separated by spaces, found 1");
  assert.throws(() => RulesGame.fromPosition(EXAMPLE.replace("5.3.2.20", "99.3.2.20")), (e) => e.code === "bad_variant");
});

test("records with variations: parse, print, errors as values", () => {
  const text = `[Position "${EXAMPLE}"]\n[Event "x"]\n\n{start} 5. e1-e2 {main} (5. b2-a2:W 6. c3-d3) (5. e1-d1:W) 6. c2-d2\n`;
  const tree = Rules.parseVariations(text);
  assert.ok(!tree.error, tree.error?.message);
  assert.equal(tree.position, EXAMPLE);
  assert.deepEqual(tree.tags, { Event: "x" });
  assert.equal(tree.comment, "start");
  assert.equal(tree.children.length, 3);
  assert.equal(tree.children[0].comment, "main");
  assert.equal(tree.children[1].children.length, 1);
  const printed = Rules.printVariations(tree);
  assert.equal(printed.text, `[Position "${EXAMPLE}"]\n[Event "x"]\n\n{start} 5. e1-e2 {main} (5. b2-a2:W 6. c3-d3) (5. e1-d1:W) 6. c2-d2\n`);
  assert.deepEqual(Rules.parseVariations(printed.text), tree);
  const bad = Rules.parseVariations(`[Position "${EXAMPLE}"]\n5. a1-a2:N`);
  assert.equal(bad.error.code, "not_own_elephant");
  assert.match(bad.error.message, /^turn 5 \(a1-a2:N\): /);
  assert.equal(Rules.printVariations({ position: EXAMPLE, children: [{ turn: { elephant: null, burnt: null, guardians: [] }, children: [] }] }).error.code, "elephant_required");
});

test("the engine on one position: the same answer every time, a legal line", () => {
  const g = RulesGame.fromPosition(EXAMPLE);
  const a = g.analyse(20000, 4);
  assert.deepEqual(g.analyse(20000, 4), a);
  assert.ok(a.line.length >= 1 && a.line.length <= 4);
  assert.deepEqual(a.line[0], a.best);
  assert.ok(typeof a.eval === "number" && a.win >= 0 && a.win <= 100);
  const c = g.clone();
  for (const turn of a.line) assert.ok(c.applyTurn(turn).ok, "each turn of the line is legal in turn");
  c.dispose();
  assert.equal(g.analyse(10, 4).error.code, "bad_format");
  g.dispose();
});
