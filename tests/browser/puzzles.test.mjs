// Puzzles in the web client (client/web/app/puzzles.js) against the real trunkfield-server's
// Puzzle API (proto/PROTOCOL.md), the puzzles of tests/fixtures/puzzles.jsonl imported with
// `trunkfield-server puzzles import` before it starts: a two-turn puzzle solved by clicks on the
// board by an account (the reply played on the board, the rating change equal to what
// GET /api/puzzles/mine then says); a wrong turn, the solution played on the board to its final
// position (as the rules library in Node has it), an unrated second try; the next puzzle, one not
// tried; the puzzle of the day; a guest's note; the errors said in words; the links to the page.
// Screenshots (TF_ARTIFACTS): puzzle-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ART, WEB_ROOT, PHONE, serverAndBrowser, PageProblems, newPlayer, clickTurn, importPuzzles, fixturePuzzles, wrongTurn } from "./lib.mjs";

const { Rules, RulesGame } = await import(pathToFileURL(path.join(WEB_ROOT, "trunkfield-rules.js")).href);
await Rules.load();

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), [], { prepare: importPuzzles });

const PUZZLES = fixturePuzzles();
const byId = (id) => PUZZLES.find((p) => p.id === id);
const N = 7; // the fixture's board

// The position string after the first `k` turns of the puzzle's line (the rules library's own).
function positionAfter(puzzle, k) {
  const g = RulesGame.fromPosition(puzzle.position);
  try {
    for (const turn of puzzle.line.slice(0, k)) assert.ok(g.applyTurn(turn).ok);
    return g.position();
  } finally {
    g.dispose();
  }
}

const shot = async (page, name, opts = {}) => {
  await page.mouse.move(0, 0); // no hover on what is looked at
  await page.screenshot({ path: path.join(ART, `${name}.png`), ...opts });
};
const text = (page, sel) => page.locator(sel).innerText();
const boardPosition = (page) => page.getAttribute("#pz-board", "data-position");
const waitPosition = (page, pos, timeout = 15000) =>
  page.waitForFunction((p) => document.querySelector("#pz-board")?.dataset.position === p, pos, { timeout });

// Opens /#puzzles/ID and waits for the solver's turn.
async function openPuzzle(page, id) {
  await page.goto(`${server.base}/#puzzles/${id}`);
  await page.waitForSelector(`#pz-body[data-puzzle="${id}"][data-phase=solve]`);
}

// Drafts `turn` by clicks on the puzzle's board, plays it, and resolves to the server's answer.
async function playTurn(page, turn) {
  await clickTurn(page, turn, N, "#pz-board");
  const answer = page.waitForResponse((r) => r.url().endsWith("/answer") && r.request().method() === "POST");
  await page.click("#pz-send");
  const res = await answer;
  assert.equal(res.status(), 200, await res.text());
  return res.json();
}

// The reader's attempts and rating, as the page's token has them.
const mine = (page) => page.evaluate(async () => {
  const r = await fetch("/api/puzzles/mine", { headers: { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } });
  return r.json();
});

async function register(page, username) {
  await page.click("#signin-btn");
  await page.waitForSelector("#account-dialog[open]");
  await page.click("#tab-register");
  await page.fill("#reg-user", username);
  await page.fill("#reg-pass", `${username}-secret`);
  await page.click("#reg-submit");
  await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
  await page.waitForSelector("#account-dialog:not([open])", { state: "attached" });
}

let ann; // an account's page, shared by the tests below (one after the other)

test("a two-turn puzzle solved by clicks: the reply on the board, the rating change as /mine has it", async () => {
  ann = await newPlayer(browser, server.base, problems, "PuzzleAnn");
  // from the lobby's navigation and its card
  assert.equal(await ann.locator('.nav a[data-view="puzzles"]').innerText(), "Puzzles");
  assert.equal(await ann.getAttribute("#lobby-daily", "href"), "/#puzzles/daily");
  await register(ann, "PuzzleAnn");
  await ann.waitForSelector("#toast", { state: "hidden", timeout: 8000 }); // "Welcome…": not over the screenshots

  const p = byId("032c1969");
  assert.equal(p.line.length, 3, "two solver turns and a reply");
  await openPuzzle(ann, p.id);
  assert.equal(await boardPosition(ann), positionAfter(p, 0));
  assert.equal(await text(ann, "#pz-status"), "Silver to move: find the best turn");
  assert.equal(await text(ann, "#pz-h"), `Puzzle ${p.id}`);
  const themes = await ann.locator("#pz-themes li").allInnerTexts();
  assert.deepEqual(themes, ["Save", "Forced win", "Two turns"]);
  assert.equal(await text(ann, "#pz-info-turns"), "2 turns to find");
  assert.match(await text(ann, "#pz-info-rating"), /^\d+$/);
  assert.ok(await ann.locator("#pz-guest").isHidden(), "an account gets no guest note");
  assert.ok(await ann.locator("#pz-after").isHidden(), "no solution, no next before the end");
  await shot(ann, "puzzle-start");

  // The first turn, by clicks: correct, and the reply comes onto the board (animated).
  const moves = await ann.evaluate(() => window.trunkfield.motion.length);
  const a1 = await playTurn(ann, p.line[0]);
  assert.deepEqual({ verdict: a1.verdict, done: a1.done, solved: a1.solved }, { verdict: "correct", done: false, solved: false });
  assert.deepEqual(a1.reply, p.line[1]);
  await ann.waitForSelector('#pz-feedback[data-verdict="correct"]');
  assert.match(await text(ann, "#pz-feedback"), /^Correct!/);
  await waitPosition(ann, positionAfter(p, 2));
  await ann.waitForSelector("#pz-body[data-phase=solve]");
  const anim = await ann.evaluate((k) => window.trunkfield.motion.slice(k), moves);
  assert.ok(anim.some((m) => m.kind === "move" && JSON.stringify(m.from) === JSON.stringify(p.line[1].elephant.from)), JSON.stringify(anim));
  assert.equal(await text(ann, "#pz-status"), "Silver to move: find the next best turn");
  await shot(ann, "puzzle-after-reply");

  // The second: solved, rated.
  const a2 = await playTurn(ann, p.line[2]);
  assert.deepEqual({ verdict: a2.verdict, done: a2.done, solved: a2.solved, rated: a2.rated }, { verdict: "correct", done: true, solved: true, rated: true });
  assert.deepEqual(a2.line, p.line);
  await ann.waitForSelector('#pz-feedback[data-verdict="solved"]');
  assert.equal(await text(ann, "#pz-status"), "Puzzle solved");
  await waitPosition(ann, positionAfter(p, 3));
  const now = Math.round(a2.rating.after.rating);
  const diff = Math.round(a2.rating.after.rating - a2.rating.before.rating);
  assert.ok(diff > 0, "solving raises the rating");
  assert.equal(await text(ann, "#pz-rating"), `Your puzzle rating: ${now} (+${diff})`);
  const m = await mine(ann);
  assert.equal(m.rating.rating, now, "the page's rating is the server's");
  assert.equal(Math.round(a2.rating.before.rating), 1500, "the first rating starts at 1500");
  assert.deepEqual({ id: m.attempts[0].id, solved: m.attempts[0].solved, rated: m.attempts[0].rated }, { id: p.id, solved: true, rated: true });
  assert.ok(await ann.locator("#pz-again").isHidden(), "nothing to try again once solved");
  assert.ok(await ann.locator("#pz-next").isVisible());
  assert.match(await ann.getAttribute("#pz-analyse", "href"), /^\/#analysis\/[^?]+\?line=/);
  await shot(ann, "puzzle-solved");
  // The puzzle rating on the player's page, and its leaderboard tab.
  await ann.goto(`${server.base}/@/PuzzleAnn`);
  await ann.waitForSelector("#pf-body:not([hidden])");
  const card = ann.locator('#pf-ratings .rating-card[data-category="puzzle"]');
  assert.equal(Number(await card.locator(".rc-rating").getAttribute("data-rating")), now);
  assert.match(await card.innerText(), /Puzzles/);
  await ann.goto(`${server.base}/players?category=puzzle`);
  await ann.waitForSelector('#lb-tabs .tab.active[data-category="puzzle"]');
  assert.equal(await text(ann, "#lb-title"), "Leaderboard · Puzzles");
  await ann.goto(`${server.base}/#puzzles/${p.id}`);
  await ann.waitForSelector("#pz-body[data-puzzle]");
});

test("a wrong turn: the solution on the board, an unrated try again, the next puzzle, the daily one", async () => {
  const p = byId("dbbb13a7");
  await openPuzzle(ann, p.id);
  const wrong = wrongTurn(RulesGame, p);
  const a = await playTurn(ann, wrong);
  assert.deepEqual({ verdict: a.verdict, done: a.done, solved: a.solved, rated: a.rated }, { verdict: "wrong", done: true, solved: false, rated: true });
  await ann.waitForSelector('#pz-feedback[data-verdict="wrong"]');
  // The engine's answer to the wrong turn, played on the board and named.
  assert.ok(a.refutation, "a refutation");
  await ann.waitForFunction(() => window.trunkfield.S.puzzle.refuted === true);
  const refuted = positionAfter({ position: p.position, line: [wrong, a.refutation] }, 2);
  await waitPosition(ann, refuted);
  const refNotation = Rules.turnToNotation(a.refutation, N).notation;
  assert.match(await text(ann, "#pz-feedback"), new RegExp(`^Wrong: that is not the best turn\\. (Silver|Bronze) answers ${refNotation.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.$`));
  const diff = Math.round(a.rating.after.rating - a.rating.before.rating);
  assert.ok(diff < 0);
  assert.equal(await text(ann, "#pz-rating"), `Your puzzle rating: ${Math.round(a.rating.after.rating)} (−${-diff})`);
  assert.equal((await mine(ann)).rating.rating, Math.round(a.rating.after.rating));
  await shot(ann, "puzzle-wrong");

  // The solution, played on the board to its final position.
  await ann.click("#pz-show");
  await ann.waitForSelector("#pz-body[data-phase=solution]");
  await waitPosition(ann, positionAfter(p, p.line.length));
  assert.equal(await ann.locator("#pz-sol-list .turn-btn").count(), p.line.length);
  assert.equal(await ann.locator("#pz-sol-list .turn-btn").first().locator(".nt").innerText(), Rules.turnToNotation(p.line[0], N).notation);
  await ann.keyboard.press("Home");
  await waitPosition(ann, positionAfter(p, 0));
  await ann.keyboard.press("End");
  await waitPosition(ann, positionAfter(p, p.line.length));
  await shot(ann, "puzzle-solution");

  // Try again: judged, not rated.
  await ann.click("#pz-again");
  await ann.waitForSelector("#pz-body[data-phase=solve]");
  assert.equal(await boardPosition(ann), positionAfter(p, 0));
  assert.ok(await ann.locator("#pz-unrated").isVisible());
  const b = await playTurn(ann, p.line[0]);
  assert.deepEqual({ solved: b.solved, rated: b.rated }, { solved: true, rated: false });
  await ann.waitForSelector('#pz-feedback[data-verdict="solved"]');
  assert.match(await text(ann, "#pz-unrated"), /^Only the first attempt at a puzzle is rated/);
  assert.equal(await ann.getAttribute("#pz-rating", "data-diff"), "", "no change");

  // Next: a puzzle not tried yet; the address names it.
  const tried = new Set((await mine(ann)).attempts.map((x) => x.id));
  assert.ok(tried.has("032c1969") && tried.has("dbbb13a7"));
  await ann.click("#pz-next");
  await ann.waitForURL(/#puzzles\/[0-9a-f]{8}$/);
  await ann.waitForSelector("#pz-body[data-phase=solve]");
  const id = new URL(ann.url()).hash.split("/")[1];
  assert.ok(byId(id), `a puzzle of the fixture: ${id}`);
  assert.ok(!tried.has(id), `not tried: ${id}`);
  assert.equal(await ann.getAttribute("#pz-body", "data-puzzle"), id);
  assert.equal(await ann.evaluate(() => window.trunkfield.S.puzzle.data.tried), false);
  assert.equal(await boardPosition(ann), positionAfter(byId(id), 0));
  const solver = RulesGame.fromPosition(byId(id).position);
  assert.equal(await text(ann, "#pz-status"), `${solver.state().to_move === "silver" ? "Silver" : "Bronze"} to move: find the best turn`);
  solver.dispose();

  // A theme chosen for the next puzzles: each one loaded has it; "any theme" forgets it.
  for (const theme of ["defence", "long"]) {
    await ann.selectOption("#pz-theme-pick", theme);
    await ann.goto(`${server.base}/#puzzles`);
    await ann.waitForURL(/#puzzles\/[0-9a-f]{8}$/);
    await ann.waitForSelector("#pz-body[data-phase=solve]");
    const got = new URL(ann.url()).hash.split("/")[1];
    assert.ok(byId(got).themes.includes(theme), `${got} has the theme ${theme}`);
    assert.equal(await ann.inputValue("#pz-theme-pick"), theme, "the choice is kept");
  }
  await ann.selectOption("#pz-theme-pick", "");
  assert.equal(await ann.evaluate(() => localStorage.getItem("trunkfield.puzzleTheme")), null);

  // The puzzle of the day, from the lobby's card.
  await ann.goto(server.base + "/");
  await ann.click("#lobby-daily");
  await ann.waitForSelector("#pz-body[data-phase=solve]");
  assert.match(await text(ann, "#pz-h"), /^Puzzle of the day · \d{4}-\d{2}-\d{2}$/);
  const daily = await ann.getAttribute("#pz-body", "data-puzzle");
  assert.ok(byId(daily), daily);
  assert.equal(await boardPosition(ann), positionAfter(byId(daily), 0));
  await ann.context().close();
});

test("a guest: the note about a rating, no rating after solving; the errors in words; a phone", async () => {
  const gus = await newPlayer(browser, server.base, problems, "PuzzleGus", PHONE);
  const p = byId("6fc6d43a");
  await openPuzzle(gus, p.id);
  assert.ok(await gus.locator("#pz-guest").isVisible());
  assert.match(await text(gus, "#pz-guest"), /With an account you get a puzzle rating/);
  await shot(gus, "puzzle-phone", { fullPage: true });
  const w = await gus.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
  assert.ok(w.scroll <= w.view, `nothing scrolls sideways on a phone: ${w.scroll} > ${w.view}`);
  const a = await playTurn(gus, p.line[0]);
  assert.deepEqual({ solved: a.solved, rated: a.rated }, { solved: true, rated: false });
  await gus.waitForSelector('#pz-feedback[data-verdict="solved"]');
  assert.ok(await gus.locator("#pz-rating").isHidden(), "a guest has no puzzle rating");

  // No such puzzle, from the real server; the others answered for it.
  await gus.goto(`${server.base}/#puzzles/00000000`);
  await gus.waitForSelector("#pz-error-box:not([hidden])");
  assert.equal(await text(gus, "#pz-error"), "There is no puzzle 00000000.");
  const fake = (status, error) => (route) => route.fulfill({ status, contentType: "application/json", body: JSON.stringify({ error, message: error }) });
  await gus.route("**/api/puzzles/next", fake(404, "no_puzzle"));
  await gus.goto(`${server.base}/#puzzles`);
  await gus.waitForSelector('#pz-error-box[data-code="no_puzzle"]:not([hidden])');
  assert.match(await text(gus, "#pz-error"), /^You have tried every puzzle/);
  assert.ok(await gus.locator("#pz-daily-link").isVisible());
  await gus.unroute("**/api/puzzles/next");
  await gus.route("**/api/puzzles/*/answer", fake(429, "busy"));
  await openPuzzle(gus, "dbbb13a7");
  await clickTurn(gus, byId("dbbb13a7").line[0], N, "#pz-board");
  await gus.click("#pz-send");
  await gus.waitForSelector("#pz-move-error:not([hidden])");
  assert.match(await text(gus, "#pz-move-error"), /^The server is judging many answers right now/);
  assert.equal(await gus.getAttribute("#pz-body", "data-phase"), "solve", "the turn can be played again");
  assert.equal(await boardPosition(gus), positionAfter(byId("dbbb13a7"), 0));
  await gus.unroute("**/api/puzzles/*/answer");
  await gus.route("**/api/puzzles/daily", fake(503, "store_unavailable"));
  await gus.goto(`${server.base}/#puzzles/daily`);
  await gus.waitForSelector('#pz-error-box[data-code="store_unavailable"]:not([hidden])');
  assert.equal(await text(gus, "#pz-error"), "Puzzles are not available on this server right now.");
  await gus.context().close();
});
