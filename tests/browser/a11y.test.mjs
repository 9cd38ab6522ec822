// WCAG 2.1 A and AA as axe-core checks them (issue 39): no violation on any page or state of the
// web client, in both colour schemes, both languages, on a desktop and a phone: the lobby, the
// sign-in dialog, the rules and practice page, a game waiting for its opponent, in its setup, in
// play with the move box's list open, in the text view, watched by a spectator, over with its result, its replay,
// a player's page, the challenge form, a challenge's toast and page, the notifications, follow
// and block (the player page's buttons, the Following panel, the block dialog, the blocked
// players), mute, reports and moderation (a muted player's page, the muted players, the report
// dialog and its answer, the moderators' page with open and handled reports, the audit log, a
// muted player's chat, a moderator's warning), the leaderboard, a puzzle (to solve, failed, its
// solution shown) and the page of an address that is none. axe-core (npm,
// tests/browser/package.json) runs inside the page, as the real server serves it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ART, WEB_ROOT, SERVER, serverAndBrowser, PageProblems, TcpPlayer, tcpAccount, newPlayer, exampleGame, waitMyTurn, PHONE,
  importPuzzles, fixturePuzzles, wrongTurn, clickTurn } from "./lib.mjs";

const { Rules, RulesGame } = await import(pathToFileURL(path.join(WEB_ROOT, "trunkfield-rules.js")).href);
await Rules.load();

const AXE = readFileSync(new URL("./node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--bot-pace", "0"], { prepare: importPuzzles });

const audited = [];

// axe-core's violations of the page as it stands, each with its first few elements.
async function audit(page, what) {
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE);
  const r = await page.evaluate((tags) => window.axe.run(document, { runOnly: tags }), TAGS);
  audited.push(what);
  const found = r.violations.map((v) => `${v.id} (${v.impact}) on ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}: ` +
    `${v.nodes[0].failureSummary.replace(/\s+/g, " ")}`);
  assert.deepEqual(found, [], `${what}: axe-core found violations`);
}


for (const scheme of ["light", "dark"]) {
  test(`issue 39: no WCAG 2.1 AA violation on any page or state (${scheme})`, async () => {
    const ann = await newPlayer(browser, server.base, problems, `Ann${scheme}`, undefined, { context: { colorScheme: scheme } });
    await audit(ann, "lobby");
    await ann.click("#signin-btn");
    await ann.waitForSelector("#account-dialog[open]");
    await audit(ann, "the sign-in dialog");
    await ann.click("#acct-close");
    await ann.goto(server.base + "/#how");
    await ann.waitForSelector("#howto:not([hidden])");
    await audit(ann, "rules and practice");
    await ann.goto(server.base + "/");
    await ann.waitForSelector("#conn.conn-online");

    // a game: waiting for the opponent, then the setup, then play with the move box's list open
    await ann.selectOption("#cv-size", "9");
    await ann.selectOption("#cv-color", "silver");
    await ann.click("#create-btn");
    await ann.waitForURL(/\/g\/[a-z0-9]+$/);
    await ann.waitForSelector("#share:not([hidden])");
    await audit(ann, "a game waiting for its opponent");
    const code = new URL(ann.url()).pathname.split("/")[2];
    const bob = await TcpPlayer.connect(server.tcpPort, "Bob");
    bob.send({ type: "join_game", code });
    await bob.next((m) => m.type === "snapshot" && m.game === code);
    await ann.waitForSelector("#typed:not([hidden])");
    await audit(ann, "the setup");
    await ann.fill("#typed-input", "b1 c1 e1 g1 h1 SW NW");
    await ann.press("#typed-input", "Enter");
    await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "silver");
    bob.send({ type: "setup", game: code, setup: { elephants: [[1, 2], [1, 3], [1, 4], [1, 7], [1, 9]], guardians: [[10, 0], [10, 10]] } });
    await waitMyTurn(ann);
    await ann.locator("#typed-input").pressSequentially("b1");
    await ann.waitForSelector("#typed-options:not([hidden])");
    await audit(ann, "play, the move box's list open");
    await ann.click("#blind-btn");
    await ann.waitForSelector("#blind:not([hidden])");
    await audit(ann, "the text view (blind mode)");
    await ann.click("#blind-btn");
    const sam = await newPlayer(browser, server.base, problems, `Sam${scheme}`, undefined, { context: { colorScheme: scheme }, path: `/g/${code}` });
    await sam.waitForFunction(() => !!window.trunkfield.S.games.get(window.trunkfield.S.route.code)?.state);
    await audit(sam, "a spectator's game");
    bob.send({ type: "resign", game: code });
    await ann.waitForSelector("#result:not([hidden])");
    await audit(ann, "the result");
    bob.close();
    await ann.goto(`${server.base}/#replay/${code}`);
    await ann.waitForSelector("#replay:not([hidden])");
    await ann.waitForFunction(() => document.querySelector("#rp-board svg") !== null);
    await audit(ann, "the replay");
    await ann.click("#rp-analyse");
    await ann.waitForSelector("#rp-accuracy:not([hidden])", { timeout: 60000 });
    await audit(ann, "the replay with its computer analysis");
    await ann.click("#rp-explore");
    await ann.waitForSelector("#ex-engine:not([data-state=waiting])", { timeout: 60000 });
    await ann.click("#ex-paste");
    await audit(ann, "the analysis board");
    await ann.click("#ex-edit");
    await ann.waitForSelector("#ed-body:not([hidden])");
    await audit(ann, "the position editor");
    // a puzzle: to solve, failed (a wrong turn by clicks), its solution on the board
    const puzzle = fixturePuzzles().find((p) => p.id === "dbbb13a7");
    await ann.goto(`${server.base}/#puzzles/${puzzle.id}`);
    await ann.waitForSelector("#pz-body[data-phase=solve]");
    await audit(ann, "a puzzle");
    await clickTurn(ann, wrongTurn(RulesGame, puzzle), 7, "#pz-board");
    await audit(ann, "a puzzle, a turn drafted");
    await ann.click("#pz-send");
    await ann.waitForSelector("#pz-body[data-phase=done]");
    await audit(ann, "a puzzle failed");
    await ann.click("#pz-show");
    await ann.waitForSelector("#pz-body[data-phase=solution]");
    await audit(ann, "a puzzle's solution");
    await ann.goto(`${server.base}/no/such/page`);
    await ann.waitForSelector("#notfound:not([hidden])");
    await audit(ann, "an address that is no page");
    await sam.context().close();
    await ann.context().close();
  });
}

test("issue 39: no WCAG 2.1 AA violation on the accounts' pages, in French, on a phone", async () => {
  const a = await tcpAccount(server, "Aurelie");
  a.close();
  const ctx = await browser.newContext({ viewport: PHONE, locale: "fr-FR" });
  await ctx.addInitScript((tok) => localStorage.setItem("trunkfield.token", tok), a.token);
  const page = await ctx.newPage();
  problems.watch(page, "Aurelie");
  await page.goto(server.base);
  await page.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Aurelie");
  await audit(page, "the lobby, signed in, French, phone");
  await page.goto(`${server.base}/@/Aurelie`);
  await page.waitForSelector("#profile:not([hidden])");
  await audit(page, "a player's page");
  // issue 35: the bell's list (empty), the challenge form on another account's page, a
  // challenge's toast, the list with it unread, and the challenge's page with Accept and Decline
  await page.click("#bell-btn");
  await page.waitForSelector("#bell-empty:not([hidden])");
  await audit(page, "the notifications, none yet");
  await page.keyboard.press("Escape");
  const bastien = await tcpAccount(server, "Bastien");
  await page.goto(`${server.base}/@/Bastien`);
  await page.waitForSelector("#pf-challenge:not([hidden])");
  await page.click("#pf-challenge");
  await page.waitForSelector("#challenge-dialog[open]");
  await audit(page, "the challenge form");
  await page.click("#ch-close");
  bastien.send({ type: "create_game", to: "Aurelie", time_control: null, color: "random", public: false });
  await bastien.next((m) => m.type === "game_created");
  await page.waitForSelector("#note-toast:not([hidden])");
  await audit(page, "a challenge's toast");
  await page.click("#bell-btn");
  await page.waitForSelector("#bell-list li.unread");
  await audit(page, "the notifications, a challenge unread");
  await page.keyboard.press("Escape");
  await page.click("#note-open");
  await page.waitForSelector("#challenge-box:not([hidden])");
  await audit(page, "a challenge to accept or decline");
  bastien.close();
  // follow and block: the buttons on a followed player's page, the lobby's Following panel, the
  // block dialog, a blocked player's page, the list of blocked players on one's own page
  await page.goto(`${server.base}/@/Bastien`);
  await page.waitForSelector("#pf-rel:not([hidden])");
  await page.click("#pf-follow");
  await page.waitForFunction(() => document.querySelector("#pf-follow").textContent === "Ne plus suivre");
  await audit(page, "a followed player's page");
  await page.goto(server.base);
  await page.waitForSelector("#following-list li");
  await audit(page, "the lobby's Following panel");
  await page.goto(`${server.base}/@/Bastien`);
  await page.waitForSelector("#pf-rel:not([hidden])");
  await page.click("#pf-block");
  await page.waitForSelector("#block-dialog[open]");
  await audit(page, "the block dialog");
  await page.click("#block-confirm");
  await page.waitForSelector("#pf-block-note:not([hidden])");
  await audit(page, "a blocked player's page");
  await page.goto(`${server.base}/@/Aurelie#blocked`);
  await page.waitForSelector("#pf-blocked li");
  await audit(page, "the blocked players");
  await page.click("#pf-blocked li .unblock");
  await page.waitForSelector("#pf-blocked-empty:not([hidden])");
  // mute and report: a muted player's page, the report dialog, the muted players
  await page.goto(`${server.base}/@/Bastien`);
  await page.waitForSelector("#pf-rel:not([hidden])");
  await page.click("#pf-mute");
  await page.waitForSelector("#pf-mute[aria-pressed=true]");
  await audit(page, "a muted player's page");
  await page.click("#pf-report");
  await page.waitForSelector("#report-dialog[open]");
  await page.click("#report-send"); // no reason: the field says so
  await page.waitForSelector("#report-reason-err:not([hidden])");
  await audit(page, "the report dialog, no reason chosen");
  await page.click("#report-close");
  await page.goto(`${server.base}/@/Aurelie#blocked`);
  await page.waitForSelector("#pf-muted li");
  await audit(page, "the muted players");
  await page.goto(`${server.base}/players`);
  await page.waitForSelector("#leaderboard:not([hidden])");
  await audit(page, "the leaderboard");
  await page.goto(`${server.base}/#puzzles/e0e88b85`);
  await page.waitForSelector("#pz-body[data-phase=solve]");
  await audit(page, "a puzzle, signed in");
  await page.goto(`${server.base}/#puzzles/00000000`);
  await page.waitForSelector("#pz-error-box:not([hidden])");
  await audit(page, "a puzzle that is none");
  const g = await newPlayer(browser, server.base, problems, "Phil", PHONE, { locale: "fr-FR" });
  const { bob } = await exampleGame(g, server);
  await waitMyTurn(g);
  await audit(g, "a game on a phone, French");
  bob.close();
  await g.context().close();
  await ctx.close();
  console.log(`audited: ${audited.length} states`);
});

// Mute, reports and moderation (issue 35), in both colour schemes: the report dialog and its
// answer on a game page, the moderators' page (an open report with its chat, then the handled
// ones), the audit log, the chat of a player a moderator muted, and the moderator's warning.
for (const scheme of ["light", "dark"]) {
  test(`issue 35: reports and moderation: no violation (${scheme})`, async () => {
    const opened = [];
    const accountPage = async (username, tok) => {
      const ctx = await browser.newContext({ colorScheme: scheme });
      await ctx.addInitScript((t) => localStorage.setItem("trunkfield.token", t), tok);
      const page = await ctx.newPage();
      problems.watch(page, username);
      await page.goto(server.base);
      await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
      opened.push(ctx);
      return page;
    };
    const modo = await tcpAccount(server, `Modo_${scheme}`);
    modo.close();
    execFileSync(SERVER, ["accounts", "grant", `Modo_${scheme}`, "moderator", "--data", server.data], { stdio: ["ignore", "pipe", "pipe"] });
    const vic = await tcpAccount(server, `Vic_${scheme}`);
    const rudeTcp = await tcpAccount(server, `Rude_${scheme}`);
    rudeTcp.close();
    const rude = await accountPage(`Rude_${scheme}`, rudeTcp.token);
    await rude.selectOption("#cv-color", "silver");
    await rude.click("#create-btn");
    await rude.waitForURL(/\/g\/[a-z0-9]+$/);
    const code = new URL(rude.url()).pathname.split("/")[2];
    vic.send({ type: "join_game", code });
    await vic.next((m) => m.type === "snapshot" && m.game === code);
    await rude.fill("#chat-input", "You are hopeless.");
    await rude.press("#chat-input", "Enter");
    await rude.waitForFunction(() => window.trunkfield.S.games.get(window.trunkfield.S.route.code).chat.length === 1);
    // the report dialog, from the game page (the opponent's Report button)
    await rude.waitForSelector("#report-opp:not([hidden])");
    await rude.click("#report-opp");
    await rude.waitForSelector("#report-dialog[open]");
    await audit(rude, `the report dialog (${scheme})`);
    await rude.selectOption("#report-reason", "stalling");
    await rude.click("#report-send");
    await rude.waitForSelector("#report-done:not([hidden])");
    await audit(rude, `a report sent (${scheme})`);
    await rude.click("#report-ok");
    const r = await fetch(`${server.base}/api/reports`, { method: "POST", headers: { Authorization: `Bearer ${vic.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ player: `Rude_${scheme}`, reason: "abuse", text: "Insults.\nAgain and again.", game: code }) });
    assert.equal(r.status, 200);
    const id = (await r.json()).id;
    // the moderators' page, its help open
    const mod = await accountPage(`Modo_${scheme}`, modo.token);
    await mod.goto(`${server.base}/mod`);
    await mod.waitForSelector(`#mod-list li[data-id="${id}"]`);
    await mod.click(".mod-help summary");
    await audit(mod, `the moderators' page, open reports (${scheme})`);
    await mod.locator(`#mod-list li[data-id="${id}"] .mr-mute`).click();
    await mod.waitForSelector(`#mod-list li[data-id="${id}"]`, { state: "detached" });
    await mod.click("#mod-handled");
    await mod.waitForSelector(`#mod-list li[data-id="${id}"] .mr-unmute`);
    await audit(mod, `the moderators' page, handled reports (${scheme})`);
    // the muted player's chat, and a warning
    await rude.fill("#chat-input", "Hello?");
    await rude.press("#chat-input", "Enter");
    await rude.waitForSelector("#chat-muted:not([hidden])");
    await audit(rude, `a muted player's chat (${scheme})`);
    await mod.locator(`#mod-list li[data-id="${id}"] .mr-note`).fill("Mind your words.");
    await mod.locator(`#mod-list li[data-id="${id}"] .mr-warn`).click();
    await rude.waitForSelector('#note-toast[data-kind="warning"]:not([hidden])');
    await audit(rude, `a moderator's warning (${scheme})`);
    await mod.click("#mod-tab-audit");
    await mod.waitForSelector("#mod-audit-rows tr");
    await audit(mod, `the audit log (${scheme})`);
    vic.close();
    for (const ctx of opened) await ctx.close();
  });
}

test("issue 39: board themes, large pieces and coordinates off: chosen, kept on the device, no violation", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnTheme");
  const { bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  const look = () => ann.evaluate(() => {
    const fill = (sel) => { const e = document.querySelector(sel); return e ? getComputedStyle(e).fill : null; };
    const el = document.querySelector("#board .elephant .shape").getBoundingClientRect();
    const names = [...document.querySelectorAll("#board .ring-name")];
    return { field: fill("#board .bg-a"), bronze: fill("#board .elephant.bronze .shape"), size: el.width,
      names: names.filter((n) => getComputedStyle(n).display !== "none").length };
  });
  const classic = await look();
  assert.ok(classic.names > 0, "the ring's names are drawn");
  await ann.click("#board-card summary");
  await ann.selectOption("#bp-theme", "contrast");
  const contrast = await look();
  assert.equal(contrast.field, "rgb(255, 255, 255)", "high contrast: white field cells");
  assert.equal(contrast.bronze, "rgb(0, 0, 0)", "high contrast: black bronze elephants");
  await ann.screenshot({ path: path.join(ART, "board-contrast.png") });
  await audit(ann, "the high-contrast board");
  await ann.selectOption("#bp-theme", "colourblind");
  const cb = await look();
  assert.equal(cb.bronze, "rgb(230, 159, 0)", "colour-blind: Okabe-Ito orange bronze");
  await ann.screenshot({ path: path.join(ART, "board-colourblind.png") });
  await audit(ann, "the colour-blind board");
  await ann.selectOption("#bp-pieces", "large");
  await ann.uncheck("#bp-coords");
  const big = await look();
  assert.ok(big.size > classic.size * 1.15, `large pieces: ${big.size} against ${classic.size}`);
  assert.equal(big.names, 0, "no coordinates");
  await ann.screenshot({ path: path.join(ART, "board-large-nocoords.png") });
  await ann.reload();
  await ann.waitForSelector("#board .elephant");
  const kept = await look();
  assert.deepEqual({ bronze: kept.bronze, names: kept.names }, { bronze: cb.bronze, names: 0 }, "kept on the device");
  assert.equal(await ann.inputValue("#bp-theme"), "colourblind");
  bob.close();
  await ann.context().close();
});

// A game on this device (localgame.js) in each of its states, the lobby listing it, and the
// lobby offline with its note and the buttons that need the server.
test("issue 39: games on this device and the offline lobby: no violation", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnDevice");
  await ann.selectOption("#dv-opponent", "1");
  await ann.selectOption("#dv-color", "silver");
  await ann.selectOption("#dv-variant", "tiny");
  await ann.click("#dv-play");
  await ann.waitForSelector("#typed:not([hidden])");
  await audit(ann, "a game on this device, its setup");
  await ann.click("#setup-random");
  await ann.click("#send-btn");
  await ann.waitForFunction(() => {
    const S = window.trunkfield.S;
    const G = S.games.get(S.route.code);
    return G?.state?.phase === "play" && G.state.to_move === G.localSide && !G.pending;
  });
  await audit(ann, "a game on this device, in play");
  await ann.click("#resign-btn");
  await ann.click("#resign-btn");
  await ann.waitForSelector("#result:not([hidden])");
  await audit(ann, "a game on this device, over");
  await ann.click("#back-btn");
  await ann.waitForSelector("#device-games li");
  await audit(ann, "the lobby with games on this device");
  await ann.context().setOffline(true);
  await ann.waitForSelector("#offline-note:not([hidden])");
  await audit(ann, "the lobby offline");
  await ann.context().close();
});

// Zoomed to 200 %: a 1280×800 screen shows 640×400 CSS pixels. Every page must still fit its
// width (WCAG 1.4.10 reflow asks 320 px; 1.4.4 asks 200 % without loss): nothing scrolls sideways.
test("issue 39: zoomed to 200 %, no page scrolls sideways and none has a violation", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnZoom", { width: 640, height: 400 });
  const fits = async (what) => {
    const w = await ann.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
    assert.ok(w.scroll <= w.view, `${what}: ${w.scroll} px wide in a ${w.view} px window`);
    await audit(ann, `${what}, at 200 %`);
  };
  await fits("the lobby");
  await ann.selectOption("#dv-opponent", "1");
  await ann.click("#dv-play");
  await ann.waitForSelector("#typed:not([hidden])");
  await fits("a game");
  await ann.screenshot({ path: path.join(ART, "zoom200-game.png"), fullPage: true });
  await ann.goto(server.base + "/#how");
  await ann.waitForSelector("#howto:not([hidden])");
  await fits("rules and practice");
  await ann.goto(server.base + "/players");
  await ann.waitForSelector("#leaderboard:not([hidden])");
  await fits("the leaderboard");
  await ann.goto(server.base + "/#analysis");
  await ann.waitForSelector("#ex-body:not([hidden])");
  await fits("the analysis board");
  await ann.goto(server.base + "/#editor");
  await ann.waitForSelector("#ed-body:not([hidden])");
  await fits("the position editor");
  await ann.screenshot({ path: path.join(ART, "zoom200-editor.png"), fullPage: true });
  await ann.goto(server.base + "/#puzzles/032c1969");
  await ann.waitForSelector("#pz-body[data-phase=solve]");
  await fits("a puzzle");
  await ann.screenshot({ path: path.join(ART, "zoom200-puzzle.png"), fullPage: true });
  await ann.context().close();
});
