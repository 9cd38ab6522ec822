// Game analysis (common/analysis.h, issue 37): the time to analyse one long game natively
// (`trunkfield analyse --json`, wall clock of the process) and in WebAssembly under Node
// (RulesAnalyser, the code the browser runs in its worker), for a few node budgets.
// docs/BENCHMARKS.md "Game analysis" has the figures.
//
//   node bench/analysis_bench.mjs [--build build] [--nodes 20000,40000,80000] [--runs 3]
//                                 [--turns 140] [--level 3] [--record FILE] [--save FILE]
//
// The game: bot self-play (both sides at --level, seeds 1, 2, ...) on the standard board, the
// first game that lasts --turns turns cut there, or else the longest of 20 seeds (bot games
// end sooner: level 4's longest of 20 has 95 turns); --record reads a record instead (cut to
// --turns), --save writes the one used. Prints one JSON line per (engine, budget): the run
// times, their median, the median per position and projected to a game of --turns turns, and
// whether every run gave the same analysis.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const opts = { build: "build", nodes: "20000,40000,80000", runs: "3", turns: "140", level: "4" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const k = argv[i].replace(/^--/, "");
  if (!(k in opts) && k !== "record" && k !== "save") throw new Error(`unknown option ${argv[i]}`);
  opts[k] = argv[i + 1];
}
const build = path.resolve(opts.build);
const cli = path.join(build, "bin/trunkfield");
const { Rules, RulesGame, RulesAnalyser } = await import(
  pathToFileURL(path.join(build, "web/trunkfield-rules.js")).href
);
await Rules.load();

// Both sides played by the bot at `level` (its seed varies with the turn so that two games
// differ); stops at the end or after `turns` turns.
function selfPlay(seed, level, turns) {
  const game = new RulesGame(null);
  const record = { variant: game.state().variant, setup: {}, turns: [] };
  try {
    for (const side of ["silver", "bronze"]) {
      const { setup } = game.botMove(level, seed);
      assert.deepEqual(game.applySetup(side, setup), { ok: true });
      record.setup[side] = setup;
    }
    while (!game.state().over && record.turns.length < turns) {
      const { turn } = game.botMove(level, seed * 1000 + record.turns.length);
      assert.deepEqual(game.applyTurn(turn), { ok: true });
      record.turns.push(turn);
    }
  } finally {
    game.dispose();
  }
  return record;
}

function makeGame(level, turns) {
  let longest = null;
  for (let seed = 1; seed <= 20; ++seed) {
    const r = selfPlay(seed, level, turns);
    if (!longest || r.turns.length > longest.turns.length) longest = r;
    if (r.turns.length >= turns) break;
  }
  return longest;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const record = opts.record
  ? JSON.parse(fs.readFileSync(opts.record, "utf8"))
  : makeGame(Number(opts.level), Number(opts.turns));
record.turns = record.turns.slice(0, Number(opts.turns));
if (opts.save) fs.writeFileSync(opts.save, JSON.stringify(record) + "\n");
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tf-analysis-")), "game.json");
fs.writeFileSync(file, JSON.stringify(record));
const positions = record.turns.length + 1;

for (const nodes of opts.nodes.split(",").map(Number)) {
  for (const engine of ["native", "wasm"]) {
    const times = [];
    let first = null;
    let same = true;
    for (let run = 0; run < Number(opts.runs); ++run) {
      const t0 = performance.now();
      let result;
      if (engine === "native") {
        const r = spawnSync(cli, ["analyse", file, "--nodes", String(nodes), "--json"], {
          encoding: "utf8",
          maxBuffer: 64 << 20,
        });
        assert.equal(r.status, 0, r.stderr);
        result = r.stdout.trim();
      } else {
        const a = new RulesAnalyser(record, nodes);
        while (a.step().done < a.total);
        result = JSON.stringify(a.result());
        a.dispose();
      }
      times.push((performance.now() - t0) / 1000);
      if (first === null) first = JSON.parse(result);
      else same &&= JSON.stringify(JSON.parse(result)) === JSON.stringify(first);
    }
    const s = median(times);
    console.log(
      JSON.stringify({
        engine,
        nodes,
        turns: record.turns.length,
        runs: times.map((t) => +t.toFixed(2)),
        median_s: +s.toFixed(2),
        ms_per_position: +((1000 * s) / positions).toFixed(1),
        [`s_for_${opts.turns}_turns`]: +((s / positions) * (Number(opts.turns) + 1)).toFixed(2),
        same_every_run: same,
        accuracy: [first.players.silver.accuracy, first.players.bronze.accuracy],
      }),
    );
  }
}
