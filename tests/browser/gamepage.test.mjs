// The game page's faults of issue 32, one test each, against the real trunkfield-server in
// headless chromium (one server for the file). Each test failed before its fix: they observe the
// page as a player does. The opponent is a scripted TCP client playing the example game of
// docs/RULES.md. Desktop viewport 1366 × 768, as the testers had.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, serverAndBrowser, PageProblems, TcpPlayer, tcpAccount, newPlayer, exampleGame, tcpTurn, clickTurn, waitMyTurn,
  gameOf, cell, cellName, EXAMPLE } from "./lib.mjs";

const WIDE = { width: 1366, height: 768 };
let server, browser;
const problems = new PageProblems();

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

const silverTurn = (bob) => bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");

// Each player card's name: its text, its title, and whether it is cut (wider than its box).
const cardNames = (page) => page.evaluate(() => ["card-top", "card-bottom"].map((id) => {
  const e = document.querySelector(`#${id} .pc-who .name`);
  return { id, text: e?.textContent, title: e?.getAttribute("title"), cut: e ? e.scrollWidth > e.clientWidth : null, width: e?.clientWidth };
}));

// Which card says "to move": the side of each card that has it.
const toMoveCards = (page) => page.evaluate(() => [...document.querySelectorAll("#game .pcard")]
  .filter((c) => c.classList.contains("to-move") || /to move/.test(c.querySelector(".pc-tag")?.textContent ?? ""))
  .map((c) => c.dataset.side));


test("issue 32.1: the players' names are whole on the cards on a desktop, during the game and after it", async () => {
  // The testers' game: two accounts, rated, timed: a rating after each name, a clock, and once
  // the game is over each rating's change.
  const a = await tcpAccount(server, "Annabelle");
  a.close();
  const bob = await tcpAccount(server, "Benedikt");
  const ctx = await browser.newContext({ viewport: WIDE, locale: "en-US" });
  await ctx.addInitScript((tok) => localStorage.setItem("trunkfield.token", tok), a.token);
  const ann = problems.watch(await ctx.newPage(), "Annabelle");
  await ann.goto(server.base);
  await ann.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Annabelle");
  await ann.selectOption("#cv-size", "9");
  await ann.selectOption("#cv-color", "silver");
  await ann.selectOption("#cv-time", "300000/5000");
  await ann.check("#cv-rated");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot" && m.game === code);
  await ann.waitForSelector("#send-btn:not([hidden])");
  const placing = [...EXAMPLE.silver.elephants, ...EXAMPLE.silver.guardians];
  for (const c of placing.slice(0, 2)) await cell(ann, cellName(c, 9)).click();
  // A snapshot of the same position (as the one a rated game asks for after a join, to learn the
  // newcomer's rating) keeps the cells placed so far.
  await ann.evaluate((c) => {
    const G = window.trunkfield.S.games.get(c);
    G.rewatch = { version: G.version, fresh: true };
    window.trunkfield.conn.send({ type: "watch", code: c });
  }, code);
  await ann.waitForFunction((c) => window.trunkfield.S.games.get(c).rewatch === null, code);
  assert.equal(await ann.evaluate((c) => window.trunkfield.S.games.get(c).draft.setupE.length, code), 2,
    "the elephants placed before the snapshot are still placed");
  for (const c of placing.slice(2)) await cell(ann, cellName(c, 9)).click();
  await ann.click("#send-btn");
  // bronze sets up once silver's setup is in (sent before, it would be refused as out of turn)
  await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "silver");
  bob.send({ type: "setup", game: code, setup: EXAMPLE.bronze });
  await waitMyTurn(ann);
  await ann.waitForSelector("#card-top .rating");
  await ann.screenshot({ path: path.join(ART, "gamepage-names-playing.png") });
  const during = await cardNames(ann);
  assert.deepEqual(during.map((n) => n.text).sort(), ["Annabelle", "Benedikt"], JSON.stringify(during));
  for (const n of during) {
    assert.equal(n.cut, false, `${n.text} is cut during the game: ${JSON.stringify(n)}`);
    assert.equal(n.title, n.text, "the full name is the title");
  }
  // a turn each (a game resigned before is aborted, unrated), then Bob resigns
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  bob.send({ type: "resign", game: code });
  await ann.waitForSelector("#result:not([hidden])");
  await ann.waitForSelector("#card-top .rating-diff");
  await ann.screenshot({ path: path.join(ART, "gamepage-names-over.png") });
  const over = await cardNames(ann);
  for (const n of over) assert.equal(n.cut, false, `${n.text} is cut after the game: ${JSON.stringify(n)}`);
  bob.close();
  await ctx.close();
  // A guest's name of 20 characters is whole too; a longer one may be cut, its title says it whole.
  for (const [name, whole] of [["Maximiliana-Konstanz", true], ["Maximiliana-Konstantina-Xaveria", false]]) {
    const max = await newPlayer(browser, server.base, problems, name, WIDE);
    const g2 = await exampleGame(max, server, { name: "Bo", tc: "300000/5000" });
    await waitMyTurn(max);
    const mine = (await cardNames(max)).find((n) => n.id === "card-bottom");
    assert.equal(mine.title, name);
    if (whole) assert.equal(mine.cut, false, `${name} is cut: ${JSON.stringify(mine)}`);
    g2.bob.close();
    await max.context().close();
  }
});

test("issue 32.2: 'to move' follows the side to move while the player drafts a turn or a premove", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnT", WIDE);
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  assert.deepEqual(await toMoveCards(ann), ["silver"], "Ann is to move");
  // the whole turn drafted, not sent: Ann is still to move (her clock runs)
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.waitForSelector("#draft-notation");
  await ann.screenshot({ path: path.join(ART, "gamepage-to-move-draft.png") });
  assert.deepEqual(await toMoveCards(ann), ["silver"], "while Ann drafts her turn, her card says to move");
  assert.equal((await ann.textContent("#card-bottom .pc-tag")).includes("to move"), true);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await ann.waitForSelector("#status[data-phase=premove]");
  assert.deepEqual(await toMoveCards(ann), ["bronze"], "Bob is to move");
  // a premove drafted while Bob thinks: Bob is still to move
  await clickTurn(ann, { elephant: { from: [5, 1], path: [[5, 2]] } }, 9);
  assert.deepEqual(await toMoveCards(ann), ["bronze"], "while Ann drafts a premove, Bob's card says to move");
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  bob.close();
  await ann.context().close();
});

test("issue 32.6: game codes in any case; a bad address gets the app's own page, translated", async () => {
  // Bob opens a game; Ann types its code in capitals in the lobby's Join field
  const bob = await TcpPlayer.connect(server.tcpPort, "BobC");
  bob.send({ type: "create_game", variant: { size: 9, elephants: 5, burnt: 3, quiet: 40 }, time_control: null, color: "bronze", public: false });
  const { code } = await bob.next((m) => m.type === "game_created");
  const ann = await newPlayer(browser, server.base, problems, "AnnC", WIDE);
  await ann.fill("#join-code", code.toUpperCase());
  await ann.click("#join-form button[type=submit]");
  await ann.waitForURL(new RegExp(`/g/${code}$`), { timeout: 5000 });
  await ann.waitForFunction((c) => window.trunkfield.S.games.get(c)?.players?.silver?.name === "AnnC", code);
  assert.equal(await ann.isVisible("#lobby-error"), false, "no error in the lobby");
  // /g/CODE in capitals opens the game (a spectator's view)
  const ctx = await browser.newContext({ viewport: WIDE, locale: "en-US" });
  const cy = problems.watch(await ctx.newPage(), "cy");
  const res = await cy.goto(`${server.base}/g/${code.toUpperCase()}`);
  assert.equal(res.status(), 200);
  await cy.waitForSelector("#game:not([hidden])");
  await cy.waitForFunction((c) => window.trunkfield.S.games.get(c)?.players?.silver?.name === "AnnC", code);
  assert.equal(await cy.textContent("#game-code"), code);
  assert.equal((await gameOf(cy))?.code, code);
  await ctx.close();
  // a bad address: the app's own page, saying so in English, and in French for a French browser
  for (const [locale, words] of [["en-US", /page not found/i], ["fr-FR", /page introuvable/i]]) {
    const c = await browser.newContext({ viewport: WIDE, locale });
    const p = problems.watch(await c.newPage(), `404-${locale}`);
    for (const where of ["/nonsense", "/g/not-a-code!"]) {
      const r = await p.goto(server.base + where);
      assert.equal(r.status(), 404, where);
      await p.waitForSelector("#notfound:not([hidden])", { timeout: 5000 });
      assert.match(await p.textContent("#notfound"), words, `${where} in ${locale}`);
      assert.ok(await p.isVisible(".topbar"), "the app's own page, with its bar");
    }
    if (locale === "fr-FR") await p.screenshot({ path: path.join(ART, "gamepage-404-fr.png") });
    await c.close();
  }
  bob.close();
  await ann.context().close();
});

test("issue 32.7: notices and refusals clear when their moment is past; a refused chat line is shown as refused", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnM", WIDE);
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await ann.waitForSelector("#status[data-phase=premove]");
  await clickTurn(ann, { elephant: { from: [5, 1], path: [[5, 2]] } }, 9);
  await ann.click("#send-btn");
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  await silverTurn(bob); // the premove, played without a click
  await ann.waitForSelector("#notice:has-text('Premove e1-e2 played')");
  // Bob's next turn: the premove's notice is old news
  await tcpTurn(bob, code, { elephant: { from: [1, 2], path: [[1, 1]], facing: "E" } });
  await ann.waitForSelector("#notice", { state: "hidden", timeout: 1500 });
  // a refused click explains itself; browsing earlier positions, that explanation is gone
  await waitMyTurn(ann);
  await cell(ann, "e5").click();
  await ann.waitForSelector("#error:not([hidden])");
  await ann.click("#turn-log .turn-btn[data-index='1']");
  await ann.waitForSelector("#browse-bar:not([hidden])");
  assert.equal(await ann.isVisible("#error"), false, "no old refusal while browsing");
  await ann.click("#browse-live");
  assert.equal(await ann.isVisible("#error"), false, "nor back at the live position");
  // six lines at once: the server takes five; the sixth is shown refused, with the reason
  for (let i = 1; i <= 6; i++) {
    await ann.fill("#chat-input", `line ${i}`);
    await ann.press("#chat-input", "Enter");
  }
  const refused = ann.locator("#chat-log .chat-line.refused");
  await refused.first().waitFor({ timeout: 5000 });
  assert.equal(await refused.count(), 1);
  assert.match(await refused.textContent(), /line 6/);
  assert.match(await refused.textContent(), /too many chat lines/i);
  await ann.waitForFunction(() => document.querySelectorAll("#chat-log .chat-line:not(.refused):not(.sending)").length === 5);
  await ann.screenshot({ path: path.join(ART, "gamepage-chat-refused.png") });
  bob.close();
  await ann.context().close();
});
