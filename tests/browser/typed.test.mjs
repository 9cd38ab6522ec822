// Typed moves (issue 39): a whole game against the computer played from the move box alone, the
// board never clicked: the setup by its cells' names, every turn in the rules' notation, what is
// typed judged as it is typed (the legal elephant moves that fit listed, Tab completing what they
// share, an illegal turn refused in place with the rules' reason and nothing sent); and the box
// in French. The real trunkfield-server (the computer at once: --bot-pace 0), headless chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, serverAndBrowser, PageProblems, newPlayer, waitMyTurn, gameOf } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--bot-pace", "0"]);

const checkText = (page) => page.textContent("#typed-check");
const options = (page) => page.$$eval("#typed-options .typed-option", (bs) => bs.map((b) => b.textContent));

// The notation of every legal elephant move of the page's game (the page's own rules library).
const legalNotations = (page) => page.evaluate(() => {
  const S = window.trunkfield.S;
  const G = S.games.get(S.route.code);
  return G.rules.legalMoves().map((m) => G.rules.turnToNotation({ elephant: m }).notation);
});

// Waits until silver has played more than `n` turns, or the game is over.
const silverPlayed = (page, n) => page.waitForFunction((k) => {
  const S = window.trunkfield.S;
  const G = S.games.get(S.route.code);
  return G.result || G.turns.filter((t) => t.side === "silver").length > k;
}, n);

async function computerGame(page, { size = 7, elephants = 3, quiet = 12 } = {}) {
  await page.selectOption("#cv-opponent", "1");
  await page.selectOption("#cv-size", String(size));
  await page.selectOption("#cv-elephants", String(elephants));
  await page.fill("#cv-quiet", String(quiet));
  await page.selectOption("#cv-color", "silver");
  await page.click("#create-btn");
  await page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  await page.waitForSelector("#typed:not([hidden])");
}

test("issue 39: a whole game against the computer with typed moves only", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnTyped");
  await computerGame(ann);
  const input = ann.locator("#typed-input");
  // The setup by names: counted as it is typed, a name that is no cell said so, then legal.
  assert.match(await ann.textContent("#typed-help"), /3 cells of your start zone/);
  await input.pressSequentially("b1 d1");
  assert.equal(await checkText(ann), "Elephants 2 of 3, guardians 0 of 2");
  await input.pressSequentially(" zz");
  assert.equal(await checkText(ann), "zz is not a cell of this board");
  await input.fill("b1 e1 f1 sw NW"); // any case where it names one cell: e1 the field's, E1 the ring's
  assert.equal(await checkText(ann), "Legal: Enter plays it");
  await ann.screenshot({ path: path.join(ART, "typed-setup.png") });
  await input.press("Enter");
  await waitMyTurn(ann);
  assert.equal(await input.inputValue(), "", "the box is empty once the setup is sent");

  // The first turn: the legal elephant moves that fit the first letters are listed; Tab writes
  // what they all share.
  const legal = await legalNotations(ann);
  assert.ok(legal.length > 0);
  const from = legal[0].split("-")[0];
  await input.pressSequentially(from);
  const listed = await options(ann);
  const fitting = legal.filter((n) => n.startsWith(from));
  assert.deepEqual(listed, fitting.slice(0, 12), "the listed moves are the legal ones that fit");
  assert.equal(await checkText(ann), `${fitting.length} legal ${fitting.length === 1 ? "move fits" : "moves fit"}: Tab completes`);
  await input.press("Tab");
  const shared = fitting.reduce((a, b) => { let i = 0; while (a[i] && a[i] === b[i]) i++; return a.slice(0, i); });
  assert.equal(await input.inputValue(), fitting.length === 1 ? `${fitting[0]} ` : shared, "Tab completes");
  await ann.screenshot({ path: path.join(ART, "typed-turn-options.png") });
  // An illegal turn is refused in place, with the rules' reason, and nothing is sent.
  const v = (await gameOf(ann)).version;
  await input.fill(`${from}-${from}`);
  assert.notEqual(await checkText(ann), "Legal: Enter plays it");
  assert.ok((await checkText(ann)).length > 0, "the reason is shown");
  await input.press("Enter");
  assert.equal((await gameOf(ann)).version, v, "nothing was sent");
  assert.equal(await input.inputValue(), `${from}-${from}`, "what was typed stays, to be mended");

  // Every turn typed until the game ends: the first legal move, the first one with a burnt
  // trunk for more of the notation.
  let turns = 0;
  for (;;) {
    await waitMyTurn(ann, 20000);
    const g = await gameOf(ann);
    if (g.over) break;
    const moves = await legalNotations(ann);
    let text = moves[0] ?? "pass";
    // a cell of the start row left empty (no trunk there), not on the move's path
    if (turns === 0) text += ` *${["a1", "c1", "d1", "g1"].find((c) => !text.includes(c))}`;
    await input.fill(text);
    assert.equal(await checkText(ann), "Legal: Enter plays it", `${text} is legal`);
    await input.press("Enter");
    await silverPlayed(ann, turns);
    turns++;
    assert.ok(turns < 200, "the game ends");
  }
  await ann.waitForSelector("#result:not([hidden])");
  assert.equal(await ann.isHidden("#typed"), true, "no box once the game is over");
  const record = await ann.evaluate(() => {
    const S = window.trunkfield.S;
    const G = S.games.get(S.route.code);
    return { silver: G.turns.filter((t) => t.side === "silver").length, burnt: G.state.burnt.length };
  });
  assert.equal(record.silver, turns, "every typed turn was played");
  assert.ok(record.burnt >= 1, "the burnt trunk typed in the first turn is on the board");
  // The finished online game is kept on the device, to replay without the network.
  const kept = await ann.evaluate(() => {
    const code = window.trunkfield.S.route.code;
    const g = JSON.parse(localStorage.getItem("trunkfield.device.games") ?? "[]").find((x) => x.code === code);
    return g && { kind: g.kind, human: g.human, turns: g.record.turns.length, over: !!g.result };
  });
  assert.deepEqual(kept, { kind: "bot", human: "silver", turns: (await gameOf(ann)).turns, over: true });
  await ann.screenshot({ path: path.join(ART, "typed-over.png") });
  await ann.context().close();
});

test("issue 39: the move box speaks French", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnFr", undefined, { locale: "fr-FR" });
  await computerGame(ann);
  assert.equal(await ann.textContent("label[for=typed-input]"), "Écrire son coup");
  await ann.locator("#typed-input").pressSequentially("b1");
  assert.equal(await checkText(ann), "Éléphants 1 sur 3, gardiens 0 sur 2");
  await ann.context().close();
});

// The text view (blind mode), read as a screen reader does, from the accessibility tree.
const aria = (page, sel) => page.locator(sel).ariaSnapshot();
async function ask(page, words) {
  await page.fill("#typed-input", words);
  await page.press("#typed-input", "Enter");
  await page.waitForFunction(() => document.querySelector("#typed-check").dataset.ok === "answer");
  return page.textContent("#typed-check");
}

test("issue 39: a whole game in the text view alone, read from the accessibility tree", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnBlind");
  await computerGame(ann);
  await ann.click("#blind-btn");
  assert.equal(await ann.getAttribute("#blind-btn", "aria-pressed"), "true");
  assert.equal(await ann.isVisible("#board"), false, "no board in the text view");
  const before = await aria(ann, "#blind");
  assert.match(before, /heading "The position, as text"/);
  assert.match(before, /Elephants, yours \(0\): none/);
  assert.match(before, /Trunks on the field: 36\./); // 7×7: 49 cells but the two start zones (6 each) and a1
  await ann.fill("#typed-input", "b1 e1 f1 sw NW");
  await ann.press("#typed-input", "Enter");
  await ann.waitForFunction(() => /Elephants, yours \(3\)/.test(document.querySelector("#blind").textContent));
  const after = await aria(ann, "#blind");
  assert.match(after, /Elephants, yours \(3\): b1 facing north, e1 facing north, f1 facing north/);
  assert.match(after, /Guardian 1, yours, at SW: a corner, watches nothing/);
  assert.match(await ask(ann, "guardian 2"), /^Guardian 2, yours, at NW: a corner, watches nothing$/);
  // (a cell of row 1 may be a crossing too, as the computer's guardians fall)
  assert.match(await ask(ann, "row 1"), /^a1(, crossing, dangerous)?; b1, silver elephant facing north; c1(, [^;]*)?; d1(, [^;]*)?; e1, silver elephant facing north; f1, silver elephant facing north; g1/);
  assert.equal(await ask(ann, "clocks"), "No clocks: the game is untimed");
  assert.match(await ask(ann, "help"), /^Type a move, or ask: elephants/);
  assert.equal(await ask(ann, "last"), "No turn has been played yet");

  let turns = 0;
  for (;;) {
    await waitMyTurn(ann, 20000);
    if ((await gameOf(ann)).over) break;
    const answer = await ask(ann, "moves");
    const m = answer.match(/^\d+ legal elephant moves?: (.*)$/);
    const move = m ? m[1].split(", ")[0] : "pass";
    assert.ok(m || /No legal elephant move/.test(answer), answer);
    await ann.fill("#typed-input", move);
    await ann.press("#typed-input", "Enter");
    await silverPlayed(ann, turns);
    turns++;
    if (turns === 1) {
      await waitMyTurn(ann, 20000);
      if (!(await gameOf(ann)).over) assert.match(await ask(ann, "last"), /^Last turn, bronze: /);
    }
    assert.ok(turns < 200, "the game ends");
  }
  await ann.waitForSelector("#result:not([hidden])");
  assert.match(await aria(ann, "#result"), /wins|draw/i);
  assert.match(await aria(ann, "#blind"), /Score: yours \d+ \(\d+ trunks? held\), bronze \d+/);
  await ann.screenshot({ path: path.join(ART, "typed-blind-over.png") });
  // the setting stays on the device
  await ann.reload();
  await ann.waitForSelector("#blind:not([hidden])");
  await ann.context().close();
});
