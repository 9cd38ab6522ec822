// Correspondence games in the web client (proto/PROTOCOL.md "Time": {"days_per_move": D}, a
// clock per move reset to D days after each turn; "GET /api/playing"; the notification kind
// your_turn), two accounts against the real trunkfield-server with a durable store and a "day"
// of two hours (--correspondence-day-seconds 7200: the clocks read "1h 59m", a correspondence
// reading, where a day of a few seconds would read "0:29" as any clock does).
// Ann challenges Bob to a game of 1 day per move (the dialog's time control, its rated category);
// Bob accepts; both set up by clicks and Ann plays the first turn: both pages' clocks read hours
// and minutes and the game says "1 day per move". Bob, whose page was closed meanwhile, opens
// the lobby: "Your games" lists the game with "Your move", the opponent, the settings and the
// time left; the top bar's badge counts 1 and leads to the card; the bell has "Your turn against
// Ann_k". Bob opens the game from the list and plays: his badge goes, Ann's comes (on the game
// page), and her lobby lists the game as her move while Bob's says "Waiting". /api/playing as the
// server answers it; the words in French; a guest has neither card nor badge; an open
// correspondence game in the lobby and the create form's and quick match's choices; a live game
// in "Your games" (In play, no deadline); the leaderboard's new categories.
// Screenshots (TF_ARTIFACTS): correspondence-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DESKTOP, PHONE, serverAndBrowser, PageProblems, axeAudit, accountPage as newAccountPage, newPlayer, shot, cell, cellName, clickTurn,
  waitMyTurn, EXAMPLE } from "./lib.mjs";

const DAY_MS = 7200 * 1000;
let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--store", "sqlite", "--correspondence-day-seconds", String(DAY_MS / 1000)]);

const text = (page, sel) => page.locator(sel).innerText();

// axe-core's WCAG 2.1 A/AA violations of the page as it stands (as a11y.test.mjs runs it). The
// game page's turn list is left out: its buttons' names ("1. Silver: … (b1-d1:N)") do not contain
// their visible text ("1. silver b1-d1:N"), label-content-name-mismatch, which a11y.test.mjs
// never meets (it audits no game with a turn played); not a matter of correspondence games.
const audit = (page, what) => axeAudit(page, what, ["#turn-log"]);
const accountPage = (username, viewport) => newAccountPage(browser, server, problems, username, viewport);

// A new page of an account whose token is known (its earlier page closed), on `path`.
async function reopen(token, username, path = "/", viewport = DESKTOP) {
  const ctx = await browser.newContext({ viewport, locale: "en-US" });
  await ctx.addInitScript((tok) => localStorage.setItem("trunkfield.token", tok), token);
  const page = await ctx.newPage();
  page.token = token;
  problems.watch(page, `${username} (again)`);
  await page.goto(server.base + path);
  await page.waitForSelector("#conn.conn-online");
  await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
  return page;
}

// GET /api/playing with the page's token: {status, body}.
const playing = (page, token = true) => page.evaluate(async (withToken) => {
  const headers = withToken ? { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } : {};
  const r = await fetch("/api/playing", { headers });
  return { status: r.status, body: await r.json().catch(() => null) };
}, token);

// The "Your games" line of game `code`, once it says `move` ("1": the page's move, "0": waiting).
async function playingLine(page, code, move) {
  const li = page.locator(`#playing-list li[data-code="${code}"][data-your-move="${move}"]`);
  await li.waitFor({ timeout: 15000 });
  return li;
}

const clockTexts = (page) => page.locator("#game .clock[data-side]").evaluateAll((cs) =>
  Object.fromEntries(cs.map((c) => [c.dataset.side, c.textContent])));

const HOURS = /^(1h 5\d|2h 0)m$/; // a clock of one "day" (two hours) as it runs down

test("a correspondence challenge: the clocks in hours, Your games, the badge and your_turn", async () => {
  const ann = await accountPage("Ann_k", DESKTOP);
  let bob = await accountPage("Bob_k", DESKTOP);
  const bobToken = bob.token;
  // nothing being played yet: no card, no badge
  assert.ok(await bob.locator("#your-games").isHidden());
  assert.ok(await bob.locator("#yourmove-link").isHidden());
  assert.deepEqual((await playing(bob)).body, { your_move: 0, games: [] });
  assert.equal((await playing(bob, false)).status, 401, "no token, no list");

  // Ann challenges Bob to a game of 1 day per move.
  await ann.goto(`${server.base}/@/Bob_k`);
  await ann.waitForSelector("#pf-body:not([hidden])");
  await ann.click("#pf-challenge");
  await ann.waitForSelector("#challenge-dialog[open]");
  assert.deepEqual(await ann.locator("#ch-time optgroup").evaluateAll((gs) => gs.map((g) => g.label)), ["Real time", "Correspondence"]);
  assert.deepEqual(await ann.locator("#ch-time optgroup:last-child option").allInnerTexts(),
    ["1 day per move", "2 days per move", "3 days per move", "5 days per move", "7 days per move", "10 days per move", "14 days per move"]);
  await ann.selectOption("#ch-color", "silver");
  await ann.selectOption("#ch-time", "d1");
  await ann.check("#ch-rated");
  assert.equal(await text(ann, "#ch-rated-hint"), "Counts for your Correspondence rating.");
  await ann.uncheck("#ch-rated");
  await shot(ann, "correspondence-challenge-dialog-desktop");
  await ann.click("#ch-send");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];

  // Bob accepts from the toast.
  await bob.waitForSelector("#note-toast:not([hidden])");
  assert.equal(await text(bob, "#note-toast-detail"), "Casual · 9×9, 5 elephants, 3 burnt, quiet 40 · 1 day per move · you play bronze");
  await bob.click("#note-accept");
  await bob.waitForURL(new RegExp(`/g/${code}$`));
  for (const p of [ann, bob]) await p.waitForFunction((c) => window.trunkfield.S.games.get(c)?.status === "playing", code);
  assert.deepEqual(await ann.evaluate((c) => window.trunkfield.S.games.get(c).timeControl, code), { days_per_move: 1 });

  // The setups by clicking.
  await ann.waitForSelector("#send-btn:not([hidden])");
  for (const c of [...EXAMPLE.silver.elephants, ...EXAMPLE.silver.guardians]) await cell(ann, cellName(c, 9)).click();
  await ann.click("#send-btn");
  await bob.waitForSelector("#send-btn:not([hidden])");
  for (const c of [...EXAMPLE.bronze.elephants, ...EXAMPLE.bronze.guardians]) await cell(bob, cellName(c, 9)).click();
  await bob.click("#send-btn");
  await waitMyTurn(ann);
  // Bob leaves (his page closed); Ann plays the first turn.
  await bob.context().close();
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await ann.waitForFunction((c) => {
    const G = window.trunkfield.S.games.get(c);
    return G.turns.length === 1 && !G.pending && G.clocks?.running === "bronze";
  }, code);

  // Ann's clocks read hours and minutes (a day: two hours), bronze's running; the game's line
  // says the time control; no "+15 s" in a correspondence game.
  const clocks = await clockTexts(ann);
  assert.match(clocks.silver, HOURS, JSON.stringify(clocks));
  assert.match(clocks.bronze, HOURS, JSON.stringify(clocks));
  assert.match(await text(ann, "#meta"), / · 1 day per move · Casual$/);
  assert.ok(await ann.locator("#give-time-btn").isHidden());
  assert.equal(await ann.locator("#game .clock.low").count(), 0, "two hours is not low");
  assert.equal(await ann.locator("#game .pcard .presence").count(), 0, "players come and go as they like: no presence");
  // her badge counted this game while it waited for her first turn; no longer
  await ann.waitForFunction(() => document.querySelector("#yourmove-link").hidden, null, { timeout: 15000 });
  await ann.evaluate(() => window.scrollTo(0, 0));
  await shot(ann, "correspondence-game-desktop");
  await audit(ann, "a correspondence game");

  // Bob comes back to the lobby: the game is his move.
  bob = await reopen(bobToken, "Bob_k");
  const line = await playingLine(bob, code, "1");
  assert.ok(await bob.locator("#your-games").isVisible());
  assert.equal(await text(bob, "#playing-h"), "Your games");
  assert.equal(await line.locator(".badge").textContent(), "Your move");
  assert.equal(await line.locator(".who").innerText(), "vs Ann_k");
  assert.equal(await line.locator(".what").innerText(), "Casual · 9×9, 5 elephants, 3 burnt, quiet 40 · 1 day per move · you play bronze");
  assert.match(await line.locator(".left").innerText(), /^(1h 5\dm|2h 0m) left$/);
  assert.equal(await line.locator("a").getAttribute("href"), `/g/${code}`);
  assert.equal(await line.locator("a").getAttribute("aria-label"), "Open the game against Ann_k");
  // the top bar's badge: one game where it is his move
  await bob.waitForSelector("#yourmove-link:not([hidden])");
  assert.equal(await text(bob, "#yourmove-count"), "1");
  assert.equal(await bob.getAttribute("#yourmove-link", "aria-label"), "Your move in 1 game");
  // the server's list
  const api = (await playing(bob)).body;
  assert.equal(api.your_move, 1);
  assert.equal(api.games.length, 1);
  const g = api.games[0];
  assert.deepEqual({ code: g.code, side: g.side, to_move: g.to_move, your_move: g.your_move, rated: g.rated, tc: g.time_control, opp: g.opponent?.name },
    { code, side: "bronze", to_move: "bronze", your_move: true, rated: false, tc: { days_per_move: 1 }, opp: "Ann_k" });
  assert.ok(g.move_by > Date.now() && g.move_by <= Date.now() + DAY_MS + 5000, `move_by ${g.move_by} within a day`);
  // the notification he had while away: "Your turn against Ann_k", with the deadline
  await bob.waitForFunction(() => window.trunkfield.S.notes?.loaded);
  await bob.click("#bell-btn");
  const note = bob.locator('#bell-list li[data-kind="your_turn"]');
  await note.waitFor();
  assert.equal(await note.locator(".note-text").innerText(), "Your turn against Ann_k");
  assert.match(await note.locator(".note-detail").innerText(), /^Move by /);
  assert.equal(await note.locator("a").getAttribute("href"), `/g/${code}`);
  await shot(bob, "correspondence-bell-desktop");
  await bob.keyboard.press("Escape");
  await bob.locator("#your-games").scrollIntoViewIfNeeded();
  await shot(bob, "correspondence-lobby-desktop");
  await audit(bob, "the lobby with Your games and the badge");
  await bob.emulateMedia({ colorScheme: "dark" });
  await audit(bob, "the lobby with Your games and the badge, dark");
  await shot(bob, "correspondence-lobby-dark-desktop");
  await bob.emulateMedia({ colorScheme: "light" });

  // The words in French.
  await bob.selectOption("#lang-select", "fr");
  assert.match(await line.locator(".what").innerText(), / · 1 jour par coup · vous jouez bronze$/);
  assert.match(await line.locator(".left").innerText(), /^il reste (1 h 5\d min|2 h 0 min)$/);
  assert.equal(await bob.getAttribute("#yourmove-link", "aria-label"), "À vous de jouer dans 1 partie");
  await bob.selectOption("#lang-select", "en");

  // The badge leads to the card: from elsewhere in the app, the lobby, the card's heading focused.
  await bob.click('.nav a[data-view="how"]');
  await bob.waitForFunction(() => window.trunkfield.S.route.view === "how");
  await bob.click("#yourmove-link");
  await bob.waitForFunction(() => window.trunkfield.S.route.view === "lobby" && document.activeElement?.id === "playing-h");
  assert.equal(new URL(bob.url()).hash, "#your-games");

  // Bob opens the game from the list and plays: his badge goes; Ann's comes on her game page.
  await line.locator("a").click();
  await bob.waitForURL(new RegExp(`/g/${code}$`));
  await waitMyTurn(bob);
  const bobClocks = await clockTexts(bob);
  assert.match(bobClocks.bronze, HOURS, JSON.stringify(bobClocks));
  await bob.setViewportSize(PHONE);
  await bob.evaluate(() => window.scrollTo(0, 0));
  await shot(bob, "correspondence-game-phone");
  await bob.setViewportSize(DESKTOP);
  await clickTurn(bob, EXAMPLE.turns[1], 9);
  await bob.click("#send-btn");
  await bob.waitForFunction(() => document.querySelector("#yourmove-link").hidden, null, { timeout: 15000 });
  await ann.waitForFunction(() => !document.querySelector("#yourmove-link").hidden && document.querySelector("#yourmove-count").textContent === "1",
    null, { timeout: 15000 });
  await waitMyTurn(ann);
  assert.match((await clockTexts(ann)).silver, HOURS);

  // Ann's lobby lists it as her move; Bob's says Waiting.
  await ann.click('.nav a[data-view="lobby"]');
  const annLine = await playingLine(ann, code, "1");
  assert.equal(await annLine.locator(".who").innerText(), "vs Bob_k");
  assert.match(await annLine.locator(".what").innerText(), / · 1 day per move · you play silver$/);
  await ann.locator("#your-games").scrollIntoViewIfNeeded();
  await shot(ann, "correspondence-lobby-ann-desktop");
  await ann.setViewportSize(PHONE);
  await ann.evaluate(() => window.scrollTo(0, 0));
  await shot(ann, "correspondence-lobby-phone");
  await bob.click('.nav a[data-view="lobby"]');
  const waiting = await playingLine(bob, code, "0");
  assert.equal(await waiting.locator(".badge").textContent(), "Waiting");
  assert.match(await waiting.locator(".left").innerText(), /^(1h 5\dm|2h 0m) left$/, "Ann's time left");
  assert.ok(await bob.locator("#yourmove-link").isHidden());
  assert.ok(await bob.locator(`#my-games li[data-code="${code}"]`).isHidden(), "listed once, in Your games");
  await ann.context().close();
  await bob.context().close();
});

test("an open correspondence game in the lobby; the forms offer days per move; a guest sees no list; a live game listed", async () => {
  const cat = await accountPage("Cat_k", DESKTOP);
  const guest = await newPlayer(browser, server.base, problems, "Gus", PHONE);
  // the create form: Correspondence, 3 days per move, rated
  assert.deepEqual(await cat.locator("#cv-time optgroup").evaluateAll((gs) => gs.map((g) => g.label)), ["Real time", "Correspondence"]);
  assert.deepEqual(await cat.locator("#qm-time optgroup:last-child option").evaluateAll((os) => os.map((o) => o.value)),
    ["d1", "d2", "d3", "d5", "d7", "d10", "d14"]);
  await cat.selectOption("#qm-time", "d2");
  await cat.check("#qm-rated");
  assert.equal(await text(cat, "#qm-rated-hint"), "Counts for your Correspondence rating.");
  await cat.uncheck("#qm-rated");
  await cat.selectOption("#cv-size", "7");
  await cat.selectOption("#cv-elephants", "3");
  await cat.selectOption("#cv-burnt", "2");
  await cat.fill("#cv-quiet", "30");
  await cat.selectOption("#cv-time", "d3");
  await cat.check("#cv-rated");
  assert.equal(await text(cat, "#cv-rated-hint"), "Counts for your Correspondence 7×7 rating.");
  await cat.click("#create-btn");
  await cat.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(cat.url()).pathname.split("/")[2];
  assert.equal(await text(cat, "#game-rated"), "Rated · Correspondence 7×7");
  const open = guest.locator(`#open-games li[data-code="${code}"]`);
  await open.waitFor();
  assert.match(await open.locator(".what").innerText(), /^Rated · 7×7, 3 elephants, 2 burnt, quiet 30 · 3 days per move · /);
  // a guest: no "Your games", no badge
  assert.ok(await guest.locator("#your-games").isHidden());
  assert.ok(await guest.locator("#yourmove-link").isHidden());
  await shot(guest, "correspondence-open-phone");
  // the leaderboard has the two new categories, after classical
  await cat.goto(`${server.base}/players?category=correspondence`);
  await cat.waitForFunction(() => window.trunkfield.S.board && !window.trunkfield.S.board.loading);
  assert.equal(await text(cat, "#lb-title"), "Leaderboard · Correspondence");
  assert.deepEqual(await cat.locator("#lb-tabs .tab[data-category]").evaluateAll((ts) => ts.map((t) => t.dataset.category)).then((c) => c.slice(0, 6)),
    ["bullet", "blitz", "rapid", "classical", "correspondence", "untimed"]);
  // a live game is listed too, "In play", with no deadline (its page has the clock)
  await cat.goto(server.base);
  await cat.waitForSelector("#conn.conn-online");
  await cat.selectOption("#cv-time", "300000/5000");
  await cat.click("#create-btn");
  await cat.waitForURL(/\/g\/[a-z0-9]+$/);
  const live = new URL(cat.url()).pathname.split("/")[2];
  await guest.locator(`#open-games li[data-code="${live}"] .join`).click();
  await guest.waitForURL(new RegExp(`/g/${live}$`));
  await cat.waitForFunction((c) => window.trunkfield.S.games.get(c)?.status === "playing", live);
  await cat.click('.nav a[data-view="lobby"]');
  const line = await playingLine(cat, live, "0");
  assert.equal(await line.locator(".badge").textContent(), "In play");
  assert.equal(await line.locator(".who").innerText(), "vs Gus");
  assert.match(await line.locator(".what").innerText(), / · 5 min \+ 5 s · you play (silver|bronze)$/);
  assert.equal(await line.locator(".left").count(), 0);
  assert.ok(await cat.locator("#yourmove-link").isHidden());
  await cat.context().close();
  await guest.context().close();
});

// Many games at once make a long welcome (a watch per game): the page paces what it sends under
// the server's message credits (PROTOCOL.md "Limits": 40, 20 a second) instead of losing the
// messages past the fortieth to rate_limited (and the connection to `flood`).
test("the page paces its messages under the server's credits", async () => {
  const page = await newPlayer(browser, server.base, problems, null);
  await page.evaluate(() => {
    const c = window.trunkfield.conn;
    const deliver = c.onMessage;
    window.seen = { live: 0, limited: 0 };
    c.onMessage = (m, text) => {
      if (m.type === "live") window.seen.live++;
      if (m.type === "error" && (m.code === "rate_limited" || m.code === "flooding")) window.seen.limited++;
      return deliver(m, text);
    };
    for (let i = 0; i < 100; i++) c.send({ type: "list_live" });
  });
  await page.waitForFunction(() => window.seen.live >= 100, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => window.seen.limited), 0, "no message was refused for want of credit");
  assert.equal(await page.evaluate(() => window.trunkfield.S.conn ?? "online"), "online");
  await page.context().close();
});
