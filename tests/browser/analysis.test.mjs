// Issue 37, computer analysis of a finished game on the replay page: the engine in WebAssembly,
// in a Web Worker, with its progress shown; every position evaluated, the chart of silver's
// winning chances under the board (clicking it moves the replay), the judged turns marked in the
// turn list, each player's accuracy, the better turn shown on the board, and the analysis kept
// on the device. The game is made here, deterministically, by the rules' own bot (level 1, which
// judges a random sample of turns, against level 5) and kept on the device as a finished game;
// the page's answers are checked against the same WebAssembly analyser run in Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ART, WEB_ROOT, serverAndBrowser, PageProblems, newPlayer, botGame } from "./lib.mjs";

const { Rules, RulesGame, RulesAnalyser } = await import(pathToFileURL(path.join(WEB_ROOT, "trunkfield-rules.js")).href);
await Rules.load();

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));


function analyseHere(record) {
  const a = new RulesAnalyser(record, 0);
  try {
    while (a.step().done < a.total);
    return a.result();
  } finally {
    a.dispose();
  }
}

test("issue 37: a finished game analysed on the replay page", async () => {
  // A game with at least one judged turn of silver's (the weak side).
  let game = null;
  let expected = null;
  for (let seed = 1; seed < 20 && !game; seed++) {
    const g = botGame(RulesGame, seed);
    const a = analyseHere(g.record);
    if (a.turns.some((t) => t.side === "silver" && t.judgement && t.best)) [game, expected] = [g, a];
  }
  assert.ok(game, "a game with a judged turn");
  const ann = await newPlayer(browser, server.base, problems, "AnnAnalysis");
  const code = "local-analysis1";
  await ann.evaluate(({ code, game }) => {
    const entry = { code, kind: "bot", level: 5, human: "silver", players: { silver: { id: "you", name: "Ann" }, bronze: { id: "bot5", name: "Computer (level 5)" } },
      record: game.record, result: game.result, version: 1, seed: 1, created_at: Date.now(), finished_at: Date.now() };
    localStorage.setItem("trunkfield.device.games", JSON.stringify([entry]));
  }, { code, game });
  await ann.goto(`${server.base}/#replay/${code}`);
  await ann.waitForSelector("#rp-analysis:not([hidden]) #rp-analyse:not([hidden])");
  assert.match(await ann.textContent("#rp-analysis-status"), /on this device/);
  await ann.click("#rp-analyse");
  await ann.waitForSelector("#rp-accuracy:not([hidden])", { timeout: 120000 });
  const shown = await ann.evaluate(() => ({ analysis: window.trunkfield.S.replay.analysis, ms: window.trunkfield.S.replay.analysisMs }));
  console.log(`analysis of ${game.record.turns.length} turns in Chromium: ${shown.ms} ms`);
  assert.deepEqual(shown.analysis, expected, "the page's analysis is the engine's, as in Node");
  assert.equal(await ann.isHidden("#rp-analyse"), true);

  // The chart, the accuracies, the marks.
  assert.equal(await ann.locator("#rp-chart svg polygon").count(), 1);
  const dots = expected.turns.filter((t) => t.judgement).length;
  assert.equal(await ann.locator("#rp-chart svg circle").count(), dots);
  assert.equal(await ann.locator("#rp-turns .judge").count(), dots);
  const silver = expected.players.silver;
  assert.equal(await ann.textContent("#rp-accuracy li[data-side=silver]"),
    `Silver (Ann) accuracy ${Math.round(silver.accuracy)} % · ${silver.inaccuracies} ${silver.inaccuracies === 1 ? "inaccuracy" : "inaccuracies"}, ` +
    `${silver.mistakes} ${silver.mistakes === 1 ? "mistake" : "mistakes"}, ${silver.blunders} ${silver.blunders === 1 ? "blunder" : "blunders"}`);

  // To the first judged turn of silver's: its evaluation, the better turn, shown on the board.
  const i = expected.turns.findIndex((t) => t.side === "silver" && t.judgement && t.best) + 1;
  await ann.locator("#rp-turns .turn-btn").nth(i).click();
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), String(i));
  assert.match(await ann.textContent("#rp-eval"), /^Evaluation [+−]?\d+\.\d|wins by force/);
  const better = await ann.textContent("#rp-better-text");
  assert.match(better, new RegExp(`^\\?{1,2}!? (inaccuracy|mistake|blunder): \\d+ points of winning chances lost\\. Better was `));
  assert.ok(expected.turns[i - 1].best, "the turn has a better one");
  assert.equal(await ann.getAttribute("#rp-board", "data-showing"), "played");
  await ann.click("#rp-better-btn");
  assert.equal(await ann.getAttribute("#rp-board", "data-showing"), "better");
  assert.equal(await ann.getAttribute("#rp-better-btn", "aria-pressed"), "true");
  await ann.screenshot({ path: path.join(ART, "analysis-better.png") });
  await ann.click("#rp-better-btn");
  assert.equal(await ann.getAttribute("#rp-board", "data-showing"), "played");

  // The chart moves the replay: its left edge is the start.
  const box = await ann.locator("#rp-chart svg").boundingBox();
  await ann.mouse.click(box.x + 2, box.y + box.height / 2);
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), "0");

  // Kept on the device: after a reload it is there at once.
  await ann.reload();
  await ann.waitForSelector("#rp-accuracy:not([hidden])");
  assert.equal(await ann.isHidden("#rp-analyse"), true);
  await ann.context().close();
});
