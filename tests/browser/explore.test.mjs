// Issue 37, the analysis board: opened from a finished game's replay at the turn shown, turns for
// either side played on its board with the rules, a variation branched off and navigated by
// keyboard, made the main line, the engine's evaluation and best line (checked against the same
// WebAssembly in Node, search for search), the engine's turn played, the whole tree kept in the
// address (a reload shows it again), and a record with variations pasted in. The texts are
// checked against the rules library's own reading of them (common/variations.h).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ART, WEB_ROOT, serverAndBrowser, PageProblems, newPlayer, clickTurn, botGame } from "./lib.mjs";

const { Rules, RulesGame } = await import(pathToFileURL(path.join(WEB_ROOT, "trunkfield-rules.js")).href);
await Rules.load();

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));


// The position string after the record's first `k` turns, and the game there (to be disposed).
function gameAfter(record, k) {
  const g = new RulesGame(record.variant);
  for (const side of ["silver", "bronze"]) g.applySetup(side, record.setup[side]);
  for (const turn of record.turns.slice(0, k)) assert.ok(g.applyTurn(turn).ok);
  return g;
}

// The page's tree, as the rules library reads it back from the address.
const pageTree = (page) => page.evaluate(() => window.trunkfield.S.explore.tree);
const pagePath = (page) => page.evaluate(() => window.trunkfield.S.explore.path.join("."));

test("issue 37: the analysis board, from a replay to variations, the engine and shared links", async () => {
  const game = botGame(RulesGame, 4, { levels: { silver: 2, bronze: 3 } });
  const n = game.record.variant.size;
  assert.ok(game.record.turns.length > 12, "a game long enough to branch in");
  const ann = await newPlayer(browser, server.base, problems, "AnnExplore");
  const code = "local-explore1";
  await ann.evaluate(({ code, game }) => {
    const entry = { code, kind: "bot", level: 3, human: "silver", players: { silver: { id: "you", name: "Ann" }, bronze: { id: "bot3", name: "Computer (level 3)" } },
      record: game.record, result: game.result, version: 1, seed: 1, created_at: Date.now(), finished_at: Date.now() };
    localStorage.setItem("trunkfield.device.games", JSON.stringify([entry]));
  }, { code, game });

  // From the replay (it opens at the end), at turn 6: the analysis board with the game as its main line, at turn 6.
  await ann.goto(`${server.base}/#replay/${code}`);
  await ann.waitForSelector("#rp-explore:not([hidden])");
  await ann.click("#rp-first");
  for (let i = 0; i < 6; i++) await ann.click("#rp-next");
  await ann.click("#rp-explore");
  await ann.waitForSelector("#ex-body:not([hidden])");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0");
  const start = gameAfter(game.record, 0);
  const startPos = start.position();
  start.dispose();
  let tree = await pageTree(ann);
  assert.equal(tree.position, startPos);
  let depth = 0;
  for (let k = tree.children; k.length; k = k[0].children) depth++;
  assert.equal(depth, game.record.turns.length, "the game is the main line");
  assert.equal(await ann.locator("#ex-tree .turn-btn").count(), game.record.turns.length + 1);
  assert.equal(await ann.getAttribute("#ex-tree .turn-btn.current", "data-path"), "0.0.0.0.0.0");
  const at6 = gameAfter(game.record, 6);
  assert.equal(await ann.inputValue("#ex-position"), at6.position());

  // The engine: the same evaluation and line as the WebAssembly rules give in Node, deepest budget.
  await ann.waitForSelector("#ex-engine[data-state=done]", { timeout: 120000 });
  const shown = await ann.evaluate(() => window.trunkfield.S.explore.look.result);
  // (From the position string, as the page's game is: the order in which pieces are read breaks
  // the search's ties.)
  const fromPos = RulesGame.fromPosition(at6.position());
  assert.deepEqual(shown, fromPos.analyse(560000, 6), "the page's engine is the library's");
  fromPos.dispose();
  assert.match(await ann.textContent("#ex-eval"), /^[+−]?\d+\.\d$|wins by force/);
  assert.ok((await ann.textContent("#ex-line")).startsWith(`7. ${Rules.turnToNotation(shown.line[0], n).notation}`));

  // A turn of the side to move that is not the game's: a new variation beside turn 7.
  const played = game.record.turns[6];
  const other = at6.legalMoves().map((m) => ({ elephant: m, burnt: null, guardians: [] }))
    .find((tt) => JSON.stringify(tt.elephant) !== JSON.stringify(played.elephant));
  at6.dispose();
  await clickTurn(ann, other, n, "#ex-board");
  await ann.click("#ex-send");
  await ann.waitForFunction(() => window.trunkfield.S.explore.path.join(".") === "0.0.0.0.0.0.1");
  assert.equal(await ann.locator("#ex-tree .ex-alt").count(), 1);
  tree = await pageTree(ann);
  let node = tree;
  for (let i = 0; i < 6; i++) node = node.children[0];
  assert.equal(node.children.length, 2);
  assert.deepEqual(node.children[1].turn.elephant, other.elephant);
  assert.match(ann.url(), /#analysis\/[^?]+\?line=.*&at=0\.0\.0\.0\.0\.0\.1$/);

  // Keys: ↑ to the game's turn, ↓ back to the variation, ← to the branching point.
  await ann.locator("#ex-h").click();
  await ann.keyboard.press("ArrowUp");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.0");
  await ann.keyboard.press("ArrowDown");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.1");
  await ann.keyboard.press("ArrowLeft");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0");
  await ann.keyboard.press("ArrowDown");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0", "no alternative to turn 6");
  await ann.keyboard.press("ArrowRight");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.0", "forward follows the main line");

  // The engine's turn from the variation; then the variation becomes the main line.
  await ann.keyboard.press("ArrowDown");
  await ann.waitForSelector("#ex-play-best:not([hidden])", { timeout: 60000 });
  const best = await ann.evaluate(() => window.trunkfield.S.explore.look.result.best);
  await ann.click("#ex-play-best");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.1.0");
  tree = await pageTree(ann);
  node = tree;
  for (let i = 0; i < 6; i++) node = node.children[0];
  assert.deepEqual(node.children[1].children[0].turn, best);
  await ann.click("#ex-promote");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.0.0");
  tree = await pageTree(ann);
  node = tree;
  for (let i = 0; i < 6; i++) node = node.children[0];
  assert.deepEqual(node.children[0].turn.elephant, other.elephant, "promoted");
  assert.deepEqual(node.children[1].turn, played, "the game's turn is now the alternative");
  await ann.screenshot({ path: path.join(ART, "explore-variation.png") });

  // The address holds it all: a reload shows the same tree at the same node.
  const before = JSON.stringify(tree);
  await ann.reload();
  await ann.waitForSelector("#ex-body:not([hidden])");
  assert.deepEqual(await pageTree(ann), JSON.parse(before));
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.0.0");
  const text = Rules.printVariations(await pageTree(ann));
  assert.ok(!text.error, text.error?.message);
  assert.match(text.text, /^\[Position "[^"]+"\]\n\[Game "local-explore1"\]|^\[Position "[^"]+"\]\n\n/);
  assert.match(text.text, /\(7\. /, "the alternative in parentheses");

  // Deleting the turn shown takes the page back one turn.
  await ann.click("#ex-delete");
  assert.equal(await pagePath(ann), "0.0.0.0.0.0.0");

  // Pasting a record with variations made here (a comment, two alternatives, one nested).
  const g = gameAfter(game.record, 0);
  const moves = g.legalMoves().slice(0, 3).map((m) => ({ elephant: m, burnt: null, guardians: [] }));
  const after0 = g.clone();
  assert.ok(after0.applyTurn(moves[0]).ok);
  const reply = { elephant: after0.legalMoves()[0], burnt: null, guardians: [] };
  after0.dispose();
  const pasted = { position: g.position(), tags: { Event: "Test" }, comment: "from the start",
    children: [{ turn: moves[0], comment: "the first", children: [{ turn: reply, children: [] }] },
      { turn: moves[1], children: [] }, { turn: moves[2], children: [] }] };
  g.dispose();
  const record = Rules.printVariations(pasted);
  assert.ok(!record.error);
  await ann.click("#ex-paste");
  await ann.fill("#ex-paste-text", record.text);
  await ann.click("#ex-paste-load");
  await ann.waitForFunction(() => window.trunkfield.S.explore?.tree?.tags?.Event === "Test");
  tree = await pageTree(ann);
  assert.deepEqual(tree, Rules.parseVariations(record.text));
  assert.equal(await ann.locator("#ex-tree .ex-alt").count(), 2);
  assert.equal(await pagePath(ann), "");

  // Something that is no position is refused, with the library's reason.
  await ann.click("#ex-paste");
  await ann.fill("#ex-paste-text", "9.5.3.40 nonsense s 0.0.3.0.0 0.0.3.0.0 0 0");
  await ann.click("#ex-paste-load");
  assert.match(await ann.textContent("#ex-notice"), /^This cannot be opened: position: the board has 1 rows, the variant 11$/);

  // A broken address is said so, and breaks nothing.
  await ann.goto(`${server.base}/#analysis/%E0%A4%A`);
  await ann.waitForSelector("#ex-error:not([hidden])");
  await ann.goto(`${server.base}/#editor/%E0%A4%A`);
  await ann.waitForSelector("#ed-body:not([hidden])");
  assert.equal(await ann.getAttribute("#ed-status", "data-valid"), "yes", "a start position instead");

  // The address alone opens a position (the board's link in the nav: the standard board).
  await ann.goto(`${server.base}/#analysis`);
  await ann.waitForSelector("#ex-body:not([hidden])");
  const std = RulesGame.fromPosition(await ann.inputValue("#ex-position"));
  assert.equal(std.state().variant.size, 9);
  std.dispose();
  await ann.context().close();
});

test("issue 37: the position editor, checked by the rules, to the analysis board and back", async () => {
  const eve = await newPlayer(browser, server.base, problems, "EveEditor", undefined, { path: "/#editor" });
  await eve.waitForSelector("#ed-body:not([hidden])");
  assert.equal(await eve.getAttribute("#ed-status", "data-valid"), "yes", "a start position to begin with");

  // Only trunks: no herd, no guardian, refused with the rules' words.
  await eve.click("#ed-clear");
  assert.equal(await eve.getAttribute("#ed-status", "data-valid"), "no");
  assert.match(await eve.textContent("#ed-status"), /^Not a position the rules accept: position: /);

  // Five silver elephants on b1..f1 facing north, five bronze on a2..a6 facing east, the
  // guardians in the corners (which watch nothing).
  const n = 9;
  const put = async (tool, names, facing = null) => {
    await eve.check(`#ed-tools input[value="${tool}"]`);
    if (facing) await eve.check(`#ed-facing input[value="${facing}"]`);
    for (const name of names) await eve.locator(`#ed-board [data-name="${name}"]`).click();
  };
  await put("silver", ["b1", "c1", "d1", "e1", "f1"], "N");
  await put("bronze", ["a2", "a3", "a4", "a5", "a6"], "E");
  await put("guardian-silver", ["SW", "SE"]);
  await put("guardian-bronze", ["NW", "NE"]);
  assert.equal(await eve.getAttribute("#ed-status", "data-valid"), "yes", await eve.textContent("#ed-status"));
  let g = RulesGame.fromPosition(await eve.inputValue("#ed-position"));
  let st = g.state();
  g.dispose();
  assert.equal(st.elephants.length, 10);
  assert.ok(st.elephants.some((e) => e.side === "bronze" && e.cell[0] === 1 && e.cell[1] === 6 && e.facing === "E"));
  assert.equal(st.trunks.length, (n - 1) * (n - 1));

  // Clicked again with its own herd's tool, an elephant turns; a sixth is refused.
  await put("silver", ["c1"]);
  g = RulesGame.fromPosition(await eve.inputValue("#ed-position"));
  assert.equal(g.state().elephants.find((e) => e.cell[0] === 3 && e.cell[1] === 1).facing, "E");
  g.dispose();
  await put("silver", ["g1"]);
  assert.equal(await eve.textContent("#ed-notice"), "That herd has all its elephants on the field.");

  // A trunk taken off: someone holds or spent it. Bronze's spent is the rest until silver holds it.
  await put("erase", ["e5"]);
  assert.equal(await eve.inputValue("#ed-bronze-spent"), "1");
  await eve.fill("#ed-silver-held", "1");
  await eve.locator("#ed-silver-held").press("Tab");
  assert.equal(await eve.inputValue("#ed-bronze-spent"), "0");
  assert.equal(await eve.inputValue("#ed-silver-held"), "1");
  assert.equal(await eve.getAttribute("#ed-status", "data-valid"), "yes");
  await eve.selectOption("#ed-to-move", "bronze");
  const pos = await eve.inputValue("#ed-position");
  assert.match(pos, / b 1\.0\.3\.0\.0 0\.0\.3\.0\.0 0 0$/);
  await eve.screenshot({ path: path.join(ART, "editor.png") });

  // To the analysis board with it, and back to the editor from there.
  await eve.click("#ed-analyse");
  await eve.waitForSelector("#ex-body:not([hidden])");
  assert.equal(await eve.inputValue("#ex-position"), pos);
  assert.match(await eve.textContent("#ex-status"), /^Bronze to move/);
  await eve.click("#ex-edit");
  await eve.waitForSelector("#ed-body:not([hidden])");
  assert.equal(await eve.inputValue("#ed-position"), pos);
  // The address keeps the position: a reload shows it again.
  await eve.reload();
  await eve.waitForSelector("#ed-body:not([hidden])");
  assert.equal(await eve.inputValue("#ed-position"), pos);

  // Played on from there against the computer, on this device: Eve has bronze (to move).
  await eve.selectOption("#ed-level", "1");
  await eve.click("#ed-play-bot");
  await eve.waitForURL(/\/#local\/[a-z0-9]+$/);
  const view = () => eve.evaluate(() => {
    const S = window.trunkfield.S;
    const G = S.games.get(S.route.code);
    return G?.state ? { code: G.code, me: G.localSide, toMove: G.state.to_move, turns: G.turns.length, positions: G.positions.length,
      pending: !!G.pending, draft: !!G.draft?.from } : null;
  });
  await eve.waitForFunction(() => window.trunkfield.S.games.get(window.trunkfield.S.route.code)?.state);
  let v = await view();
  assert.equal(v.me, "bronze");
  assert.equal(v.toMove, "bronze");
  assert.equal(v.turns, 0);
  const start = RulesGame.fromPosition(pos);
  const move = start.legalMoves()[0];
  const text = start.turnToNotation({ elephant: move }).notation;
  start.dispose();
  await eve.fill("#typed-input", text);
  await eve.press("#typed-input", "Enter");
  // The computer (silver) answers; the turn list and every position start at the edited one.
  await eve.waitForFunction(() => {
    const G = window.trunkfield.S.games.get(window.trunkfield.S.route.code);
    return G.turns.length === 2 && G.state.to_move === "bronze" && !G.pending;
  }, null, { timeout: 30000 });
  v = await view();
  assert.equal(v.positions, 3, "the start and after each turn");
  const rec = await eve.evaluate((c) => JSON.parse(localStorage.getItem("trunkfield.device.games")).find((g) => g.code === c).record, v.code);
  assert.equal(rec.position, pos);
  assert.equal(rec.turns.length, 2);
  const replay = Rules.replay(rec);
  assert.equal(replay.error, null, "the record replays with the rules from its position");
  assert.equal(replay.applied, 2);
  await eve.screenshot({ path: path.join(ART, "editor-play.png") });
  // A reload continues the game from the device.
  await eve.reload();
  await eve.waitForFunction(() => window.trunkfield.S.games.get(window.trunkfield.S.route.code)?.turns?.length === 2);
  // Its replay starts at the edited position too.
  await eve.evaluate((c) => window.trunkfield.app.navigate(`/#replay/${c}`), v.code);
  await eve.waitForSelector("#rp-body:not([hidden])");
  assert.equal(await eve.locator("#rp-turns .turn-btn").count(), 3);
  await eve.context().close();
});
