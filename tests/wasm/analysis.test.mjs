// The game analysis in WebAssembly (RulesAnalyser, client/web/wasm/trunkfield-rules.js) against
// the native `trunkfield analyse --json`: the same engine must give the same answer for the same
// record and node budget. Also the stepwise API: total, progress, a result only when finished,
// errors for records that cannot be analysed.
//
//   node --test tests/wasm/analysis.test.mjs
//
// TF_WASM_BUNDLE and TF_CLI as in conformance.test.mjs (CTest sets them).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bundle = path.resolve(process.env.TF_WASM_BUNDLE || path.join(repo, "build/web/trunkfield-rules.js"));
const cli = path.resolve(process.env.TF_CLI || path.join(repo, "build/bin/trunkfield"));

const { Rules, RulesAnalyser, RulesError } = await import(pathToFileURL(bundle).href);
await Rules.load();

function run(args, input = "") {
  const r = spawnSync(cli, args, { input, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return r;
}

// A random game (both setups and every turn legal), cut to `turns` turns.
function randomRecord(seed, turns = Infinity) {
  const record = JSON.parse(run(["rules", "random", String(seed)]).stdout);
  record.turns = record.turns.slice(0, turns);
  return record;
}

function wasmAnalysis(record, nodes) {
  const a = new RulesAnalyser(record, nodes);
  try {
    const seen = [];
    for (let s = a.step(); ; s = a.step()) {
      seen.push(s.done);
      assert.equal(s.total, a.total);
      if (s.done === s.total) break;
    }
    assert.deepEqual(seen, Array.from({ length: a.total }, (_, i) => i + 1), "one position a step");
    return a.result();
  } finally {
    a.dispose();
  }
}

function nativeAnalysis(record, nodes) {
  const r = run(["analyse", "-", "--nodes", String(nodes), "--json"], JSON.stringify(record));
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("the same analysis as the native CLI, for the same record and budget", () => {
  // A whole game (it ends: the last position is decided) and an unfinished one.
  for (const [record, nodes] of [
    [randomRecord(3), 2000],
    [randomRecord(8, 30), 6000],
  ]) {
    const wasm = wasmAnalysis(record, nodes);
    assert.equal(wasm.positions.length, record.turns.length + 1);
    assert.equal(wasm.nodes, nodes);
    assert.deepEqual(wasm, nativeAnalysis(record, nodes));
  }
});

test("nodes 0 is the default budget", () => {
  const record = randomRecord(5, 2);
  const wasm = wasmAnalysis(record, 0);
  const native = JSON.parse(run(["analyse", "-", "--json"], JSON.stringify(record)).stdout);
  assert.deepEqual(wasm, native);
});

test("progress, a result only once finished, dispose", () => {
  const a = new RulesAnalyser(JSON.stringify(randomRecord(4, 5)), 2000);
  assert.equal(a.total, 6);
  assert.equal(a.done, 0);
  assert.throws(() => a.result(), (e) => e instanceof RulesError && e.code === "not_finished");
  assert.deepEqual(a.step(), { done: 1, total: 6 });
  assert.equal(a.done, 1);
  while (a.step().done < a.total);
  assert.deepEqual(a.step(), { done: 6, total: 6 }, "a step once finished does nothing");
  assert.equal(a.result().turns.length, 5);
  a.dispose();
  a.dispose();
  assert.throws(() => a.step(), /disposed/);
});

test("records that cannot be analysed are RulesErrors", () => {
  assert.throws(() => new RulesAnalyser("{"), (e) => e instanceof RulesError && e.code === "bad_format");
  assert.throws(() => new RulesAnalyser({ turns: [] }), RulesError);
  const record = randomRecord(6, 4);
  record.turns.push(record.turns[2]);
  assert.throws(
    () => new RulesAnalyser(record),
    (e) => e instanceof RulesError && e.message.startsWith("turn 5: "),
  );
  assert.throws(() => new RulesAnalyser(randomRecord(6, 1), 10), (e) => e.code === "bad_format");
});
