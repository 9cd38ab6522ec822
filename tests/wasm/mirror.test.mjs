// The game mirror of the client library through the WebAssembly bindings (RulesMirror): the
// browser reads the server's messages with the same C++ code as the terminal client and the bot.
//
//   node --test tests/wasm/mirror.test.mjs      (CTest: wasm_mirror; paths as conformance.test.mjs)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bundle = path.resolve(process.env.TF_WASM_BUNDLE || path.join(repo, "build/web/trunkfield-rules.js"));
const cli = path.resolve(process.env.TF_CLI || path.join(repo, "build/bin/trunkfield"));
const { Rules, RulesGame, RulesMirror } = await import(pathToFileURL(bundle).href);
await Rules.load();

// A complete legal game from the native CLI, and what the server would send about it.
const record = JSON.parse(spawnSync(cli, ["rules", "random", "4"], { encoding: "utf8" }).stdout);
const code = "abc234";
const fresh = new RulesGame(record.variant);
const snapshot = {
  type: "snapshot", game: code, version: 1, status: "playing", state: fresh.state(),
  record: { variant: record.variant, time_control: null, setup: { silver: null, bronze: null }, turns: [] },
  players: { silver: { id: "p1", name: "ann", away: null }, bronze: { id: "p2", name: "bob", away: null } },
  clocks: null, spectators: 0, draw_offer: null,
};
fresh.dispose();
const event = (version, kind, payload) => JSON.stringify({ type: "event", game: code, version, kind, payload, clocks: null });

test("the mirror follows a whole game from a snapshot and its events", () => {
  const m = new RulesMirror("p2");
  assert.equal(m.view(), null);
  assert.equal(m.apply(JSON.stringify(snapshot)).update, "snapshot");
  assert.equal(m.view().my_side, "bronze");
  let v = 1;
  assert.equal(m.apply(event(++v, "setup", { side: "silver", setup: record.setup.silver })).update, "event");
  assert.equal(m.apply(event(++v, "setup", { side: "bronze", setup: record.setup.bronze })).update, "event");
  const replay = new RulesGame(record.variant);
  replay.applySetup("silver", record.setup.silver);
  replay.applySetup("bronze", record.setup.bronze);
  record.turns.forEach((turn, i) => {
    const r = m.apply(event(++v, "turn", { side: i % 2 ? "bronze" : "silver", turn }));
    assert.equal(r.update, "event");
    assert.equal(r.kind, "turn");
    assert.ok(Array.isArray(r.event.payload.captures));
    replay.applyTurn(turn);
  });
  const view = m.view();
  assert.equal(view.version, v);
  assert.equal(view.turns.length, record.turns.length);
  assert.deepEqual(view.state, replay.state());
  // Old versions are ignored; a version that skips one is a gap; a turn that does not apply
  // to the mirror's copy is a divergence.
  assert.equal(m.apply(event(3, "chat", { from: { id: "p1", name: "ann" }, text: "x" })).update, "ignored");
  assert.equal(m.apply(event(v + 2, "chat", { from: { id: "p1", name: "ann" }, text: "x" })).update, "gap");
  if (!view.state.over)
    assert.equal(m.apply(event(v + 1, "turn", { side: view.state.to_move, turn: { elephant: { from: [0, 0], path: [[0, 1]] } } })).update, "diverged");
  assert.equal(m.apply("{not json").update, "error");
  replay.dispose();
  m.dispose();
});

test("a snapshot's turn list carries each turn's captures, as live events do", () => {
  const live = new RulesMirror("");
  live.apply(JSON.stringify(snapshot));
  let v = 1;
  live.apply(event(++v, "setup", { side: "silver", setup: record.setup.silver }));
  live.apply(event(++v, "setup", { side: "bronze", setup: record.setup.bronze }));
  record.turns.forEach((turn, i) => live.apply(event(++v, "turn", { side: i % 2 ? "bronze" : "silver", turn })));
  const late = new RulesMirror("");
  const end = live.view();
  late.apply(JSON.stringify({
    ...snapshot, version: v, state: end.state, status: end.state.over ? "over" : "playing",
    record: { ...snapshot.record, setup: record.setup, turns: record.turns },
  }));
  assert.deepEqual(late.view().turns, end.turns);
  live.dispose();
  late.dispose();
});
