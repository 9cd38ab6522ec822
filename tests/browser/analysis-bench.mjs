// Benchmark of the computer analysis in the browser (issue 37; not a test: it times things). A
// 140-turn game (`trunkfield rules random SEED`, cut to 140 turns, or --record FILE) is kept on
// the device of a fresh headless chromium page, its replay opened, "Analyse this game" pressed,
// and the time from the press to the analysis shown read from the page (the worker's whole
// run, WebAssembly included). Prints one JSON line per run and the median.
//
//   TF_SERVER_BIN=build/bin/trunkfield-server TF_WEB_ROOT=build/web \
//     node tests/browser/analysis-bench.mjs [--runs 3] [--seed 3] [--turns 140] [--record FILE]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { launchBrowser, startServer, SERVER } from "./lib.mjs";

const opts = { runs: "3", seed: "3", turns: "140", record: "" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^--/, "")] = argv[i + 1];

const cli = path.join(path.dirname(SERVER), "trunkfield");
const text = opts.record ? fs.readFileSync(opts.record, "utf8")
  : spawnSync(cli, ["rules", "random", opts.seed], { encoding: "utf8" }).stdout;
const full = JSON.parse(text);
const record = { variant: full.variant ?? null, setup: full.setup, turns: full.turns.slice(0, Number(opts.turns)) };
if (!record.variant) delete record.variant;

const server = await startServer();
const browser = await launchBrowser();
const times = [];
try {
  for (let run = 0; run < Number(opts.runs); run++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${server.base}/`);
    await page.evaluate((rec) => {
      const entry = { code: "local-bench", kind: "pass", level: null, human: null, players: {}, record: rec,
        result: { over: true, reason: "resign", score: { silver: 0, bronze: 0 }, winner: "silver", to_move: null },
        version: 1, seed: 1, created_at: Date.now(), finished_at: Date.now() };
      localStorage.setItem("trunkfield.device.games", JSON.stringify([entry]));
    }, record);
    await page.goto(`${server.base}/#replay/local-bench`);
    await page.waitForSelector("#rp-analyse:not([hidden])");
    await page.click("#rp-analyse");
    await page.waitForSelector("#rp-accuracy:not([hidden])", { timeout: 300000 });
    const ms = await page.evaluate(() => window.trunkfield.S.replay.analysisMs);
    times.push(ms);
    console.log(JSON.stringify({ run, turns: record.turns.length, positions: record.turns.length + 1, ms }));
    await ctx.close();
  }
} finally {
  await browser.close();
  server.stop();
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(JSON.stringify({ turns: record.turns.length, median_ms: median, per_position_ms: +(median / (record.turns.length + 1)).toFixed(1) }));
