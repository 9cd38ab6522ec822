// Takebacks and more time on the game page (issue 32: "Takeback and more time ... work in the
// browser"), the claims against a stalling opponent, and three nits of the game page, one test each, against the real trunkfield-server
// in headless chromium (one server for the file). A player in the browser (bronze) plays a timed
// 9 × 9 game against a scripted TCP opponent (silver); each test observes what the opponent
// receives and what the page shows, and failed before its change. Screenshots of the answer bar
// on a desktop (1366 × 768) and a phone (390 × 844), of the settings, of the away note flipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { ART, PHONE, SERVER, sleep, serverAndBrowser, startServer, PageProblems, TcpPlayer, fitsPhone, newPlayer, clickTurn, waitMyTurn,
  cell, cellName, gameOf, EXAMPLE } from "./lib.mjs";

const WIDE = { width: 1366, height: 768 };
const VARIANT = { size: 9, elephants: 5, burnt: 3, quiet: 40 };
const TC = { initial_ms: 300000, increment_ms: 0 };
let server, browser;
const problems = new PageProblems();

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

const isEvent = (kind, side) => (m) => m.type === "event" && m.kind === kind && (!side || m.payload.side === side);

// Where the focus is: a board cell's name ("d1"), else the element ("BUTTON#send-btn").
const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a?.closest?.("#board [data-cell]")?.getAttribute("data-name") ?? `${a?.tagName}#${a?.id ?? ""}`;
});

// From a board cell, Tab until the focus is on `selector`; then the key Enter.
async function pressByKey(page, from, selector, max = 30) {
  await cell(page, from).focus();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return page.keyboard.press("Enter");
  }
  throw new Error(`${selector} not reached from the board with ${max} Tabs (focus on ${await focused(page)})`);
}

// A clock on the page in seconds ("4:59" -> 299).
async function clockS(page, side) {
  const text = await page.textContent(`#game .clock[data-side=${side}]`);
  const [m, s] = text.split(":").map(Number);
  return m * 60 + s;
}

// Waits until a clock on the page shows at least `min` seconds.
const waitClock = (page, side, min) => page.waitForFunction(([s, b]) => {
  const [m, sec] = document.querySelector(`#game .clock[data-side=${s}]`).textContent.split(":").map(Number);
  return m * 60 + sec >= b;
}, [side, min], { timeout: 5000 }).catch(async () => assert.fail(`${side}'s clock is not at ${min} s: ${await clockS(page, side)} s`));

// What the live region says.
const said = (page) => page.evaluate(() => document.querySelector("#announce")?.textContent ?? "");
const waitSaid = (page, re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector("#announce")?.textContent ?? ""),
  re.source, { timeout: 5000 }).catch(async () => assert.fail(`the live region does not say ${re}: "${await said(page)}"`));

// Resolves once fn() is true (the page's sent frames are reported a little after they leave).
async function until(fn, what, ms = 3000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (fn()) return;
  assert.fail(`never: ${what}`);
}

// A timed game: Bob (TCP) creates it as silver, the browser's player joins as bronze; both setups
// of the example game, and Bob's first turn: the browser's player is to move. `frames`: every
// message the page sent from the game page on.
async function timedGame(name, tag, page = null) {
  page ??= await newPlayer(browser, server.base, problems, name, WIDE);
  const bob = await TcpPlayer.connect(server.tcpPort, `Bob${tag}`);
  bob.send({ type: "create_game", variant: VARIANT, time_control: TC, color: "silver", public: false });
  const { code } = await bob.next((m) => m.type === "game_created");
  const frames = [];
  page.on("websocket", (ws) => ws.on("framesent", (f) => {
    try {
      frames.push(JSON.parse(f.payload));
    } catch { /* not JSON */ }
  }));
  await page.goto(`${server.base}/g/${code}`);
  await page.click("#join-seat");
  await bob.next(isEvent("join"));
  bob.send({ type: "setup", game: code, setup: EXAMPLE.silver });
  await page.waitForSelector("#status[data-phase='setup']");
  assert.ok(await page.isHidden("#give-time-btn"), "no +15 s before silver's first turn starts the clocks");
  for (const c of [...EXAMPLE.bronze.elephants, ...EXAMPLE.bronze.guardians]) await cell(page, cellName(c, 9)).click();
  await page.click("#send-btn");
  await bob.next(isEvent("setup", "bronze"));
  bob.send({ type: "turn", game: code, turn: EXAMPLE.turns[0] });
  await bob.next(isEvent("turn", "silver"));
  await waitMyTurn(page);
  return { page, bob, code, frames };
}

// The browser's player plays bronze's turn of the example game (a3-b3, collecting a trunk).
async function playBronze({ page, bob }) {
  await clickTurn(page, EXAMPLE.turns[1], 9);
  await page.click("#send-btn");
  await bob.next(isEvent("turn", "bronze"));
}

test("Take back: offered once the player has a turn to take back; asked from the keyboard; accepted, the position before it", async () => {
  const g = await timedGame("AnnT", "T");
  const { page, bob, code } = g;
  assert.equal(await page.isVisible("#takeback-btn"), false, "no turn of the player's yet: nothing to take back");
  assert.equal(await page.isVisible("#takeback-note"), false);
  await playBronze(g);
  await page.waitForSelector("#takeback-btn:not([hidden])", { timeout: 5000 })
    .catch(() => assert.fail("no Take back button after the player's turn"));
  assert.equal((await page.textContent("#takeback-btn")).trim(), "Take back");
  assert.equal(await page.getAttribute("#takeback-btn", "title"), "Ask your opponent to take back your last turn");
  assert.equal((await gameOf(page)).turns, 2);
  assert.match(await cell(page, "b3").getAttribute("aria-label"), /bronze elephant/);
  // asked from the keyboard: the opponent receives the request, the focus is back on the board
  await pressByKey(page, "b3", "#takeback-btn");
  const asked = await bob.next(isEvent("takeback_offer"));
  assert.equal(asked.payload.side, "bronze");
  await page.waitForSelector("#takeback-note:not([hidden])");
  assert.equal((await page.textContent("#takeback-note")).trim(), "Takeback asked…");
  assert.equal(await page.isVisible("#takeback-btn"), false, "one request at a time");
  assert.equal(await focused(page), "b3", "after Take back the focus is on the board");
  // Bob accepts: the turn list and the board are as before the player's turn, their move again
  bob.send({ type: "takeback_accept", game: code });
  const back = await bob.next(isEvent("takeback"));
  assert.deepEqual(back.payload, { side: "bronze", turns: 1 });
  await page.waitForFunction(() => document.querySelectorAll("#turn-log li").length === 1, null, { timeout: 5000 })
    .catch(async () => assert.fail(`the turn list still has ${await page.locator("#turn-log li").count()} turns`));
  const v = await gameOf(page);
  assert.equal(v.turns, 1);
  assert.equal(v.toMove, "bronze");
  assert.equal(v.version, back.version);
  assert.match(await cell(page, "a3").getAttribute("aria-label"), /bronze elephant/, "the elephant is back on a3");
  assert.doesNotMatch(await cell(page, "b3").getAttribute("aria-label"), /elephant/);
  assert.match(await page.textContent("#status"), /^Your turn/);
  assert.equal(await page.isVisible("#takeback-note"), false);
  assert.equal(await page.isVisible("#takeback-btn"), false, "nothing left to take back");
  await waitSaid(page, /You took back 1 turn/);
  assert.match(await page.textContent("#notice"), /You took back 1 turn/);
  // the turn is played again: one request per own turn, so the button is back only after it
  await waitMyTurn(page);
  await playBronze(g);
  await page.waitForSelector("#takeback-btn:not([hidden])", { timeout: 5000 });
  bob.close();
  await page.context().close();
});

test("the opponent asks for a takeback: the answer bar; Decline from the keyboard sends takeback_decline; desktop and phone", async () => {
  const g = await timedGame("AnnD", "D");
  const { page, bob, code } = g;
  await playBronze(g);
  bob.send({ type: "turn", game: code, turn: EXAMPLE.turns[2] });
  await bob.next(isEvent("turn", "silver"));
  bob.send({ type: "takeback_offer", game: code });
  await bob.next(isEvent("takeback_offer", "silver"));
  await page.waitForSelector("#takeback-answer:not([hidden])", { timeout: 5000 })
    .catch(() => assert.fail("no answer bar for the opponent's request"));
  assert.equal((await page.textContent("#takeback-accept")).trim(), "Accept takeback");
  assert.equal((await page.textContent("#takeback-decline")).trim(), "Decline");
  assert.equal(await page.isVisible("#takeback-btn"), false);
  assert.equal(await page.textContent("#status"), "BobD (Silver) asks to take back their last turn: accept or decline.");
  await waitSaid(page, /BobD \(Silver\) asks to take back their last turn\./);
  // the bar looks like the draw's: the same buttons in the same row
  const look = await page.evaluate(() => {
    const st = (id) => {
      const s = getComputedStyle(document.getElementById(id));
      return { h: Math.round(parseFloat(s.minHeight)), font: s.fontSize, bg: s.backgroundColor, radius: s.borderRadius };
    };
    return { accept: st("takeback-accept"), resign: { ...st("resign-btn"), bg: null }, row: document.getElementById("takeback-answer").parentElement.id };
  });
  assert.equal(look.row, "actions");
  assert.deepEqual({ ...look.accept, bg: null }, look.resign, "sized like the other game buttons");
  await page.screenshot({ path: path.join(ART, "takeback-answer.png") });
  await page.setViewportSize(PHONE);
  await fitsPhone(page, "takeback answer");
  await page.screenshot({ path: path.join(ART, "takeback-answer-phone.png"), fullPage: true });
  await page.setViewportSize(WIDE);
  // Decline, from the keyboard
  await pressByKey(page, "b3", "#takeback-decline");
  const no = await bob.next(isEvent("takeback_decline"));
  assert.equal(no.payload.side, "bronze");
  await page.waitForSelector("#takeback-answer", { state: "hidden" });
  assert.equal(await focused(page), "b3", "after Decline the focus is on the board");
  assert.equal((await gameOf(page)).turns, 3, "nothing taken back");
  bob.close();
  await page.context().close();
});

test("+15 s gives the opponent 15 seconds (mouse and keyboard); time given to the player is said, in French too", async () => {
  const g = await timedGame("AnnG", "G");
  const { page, bob, code } = g;
  await page.waitForSelector("#give-time-btn:not([hidden])", { timeout: 5000 })
    .catch(() => assert.fail("no +15 s button in a timed game"));
  assert.equal((await page.textContent("#give-time-btn")).trim(), "+15 s");
  assert.equal(await page.getAttribute("#give-time-btn", "aria-label"), "+15 s: give your opponent 15 seconds");
  assert.equal(await page.getAttribute("#give-time-btn", "title"), "Give your opponent 15 seconds");
  // bronze to move: silver's clock stands still
  const before = await clockS(page, "silver");
  await page.click("#give-time-btn");
  const given = await bob.next(isEvent("time_given"));
  assert.deepEqual(given.payload, { side: "bronze", ms: 15000 });
  await waitClock(page, "silver", before + 15);
  assert.match(await page.textContent("#notice"), /You gave BobG 15 seconds\./);
  await pressByKey(page, "a3", "#give-time-btn");
  assert.equal((await bob.next(isEvent("time_given"))).payload.side, "bronze");
  assert.equal(await focused(page), "a3", "after +15 s the focus is on the board");
  await waitClock(page, "silver", before + 30);
  // Bob gives time to the player: said in the page's language
  await page.selectOption("#lang-select", "fr");
  const mine = await clockS(page, "bronze");
  bob.send({ type: "give_time", game: code });
  await waitSaid(page, /BobG vous a donné 15 secondes\./);
  await waitClock(page, "bronze", mine + 12); // the player's own clock runs meanwhile
  assert.equal(await page.getAttribute("#give-time-btn", "aria-label"), "+15 s : donner 15 secondes à votre adversaire");
  // Bob does not accept more time: no button
  bob.send({ type: "preferences", game: code, more_time: false });
  await bob.next(isEvent("preferences", "silver"));
  await page.waitForSelector("#give-time-btn", { state: "hidden", timeout: 5000 });
  bob.close();
  await page.context().close();
});

test("preferences: takebacks 'never' sends takeback:false, the button goes and the opponent's request is refused; sent at each new game", async () => {
  const g = await timedGame("AnnP", "P");
  const { page, bob, code, frames } = g;
  const prefsSent = (c, list = frames) => list.filter((f) => f.type === "preferences" && f.game === c);
  assert.deepEqual(prefsSent(code), [], "the defaults (casual game: takebacks on, more time on) are the server's");
  await playBronze(g);
  await page.waitForSelector("#takeback-btn:not([hidden])", { timeout: 5000 });
  assert.ok(await page.isVisible("#prefs-card"), "a seated player has the settings");
  await page.click("#prefs-card summary");
  assert.equal(await page.inputValue("#pref-takeback"), "casual");
  assert.equal(await page.isChecked("#pref-time"), true);
  await page.screenshot({ path: path.join(ART, "takeback-prefs.png"), fullPage: true });
  await page.selectOption("#pref-takeback", "never");
  const ev = await bob.next(isEvent("preferences", "bronze"));
  assert.deepEqual(ev.payload, { side: "bronze", takeback: false, more_time: true });
  await until(() => prefsSent(code).length > 0, "the page sent its preferences");
  assert.deepEqual(prefsSent(code), [{ type: "preferences", game: code, takeback: false }], "only what changed");
  await page.waitForSelector("#takeback-btn", { state: "hidden", timeout: 5000 });
  // Bob's request is refused now
  bob.send({ type: "turn", game: code, turn: EXAMPLE.turns[2] });
  await bob.next(isEvent("turn", "silver"));
  bob.send({ type: "takeback_offer", game: code });
  const err = await bob.next((m) => m.type === "error" || isEvent("takeback_offer")(m));
  assert.equal(err.code, "takeback_off", JSON.stringify(err));
  // more time off: Bob's +15 s is refused
  await page.uncheck("#pref-time");
  assert.deepEqual((await bob.next(isEvent("preferences", "bronze"))).payload, { side: "bronze", takeback: false, more_time: false });
  bob.send({ type: "give_time", game: code });
  assert.equal((await bob.next((m) => m.type === "error" || isEvent("time_given")(m))).code, "more_time_off");
  assert.equal(await page.isVisible("#prefs-card"), true, "the settings stay");
  bob.close();
  // the next game: the page tells the server at once, from the snapshot
  const g2 = await timedGame("AnnP", "P2", page);
  const ev2 = await g2.bob.next(isEvent("preferences", "bronze"));
  assert.deepEqual(ev2.payload, { side: "bronze", takeback: false, more_time: false });
  await until(() => prefsSent(g2.code, g2.frames).length > 0, "the page sent its preferences for the new game");
  assert.deepEqual(prefsSent(g2.code, g2.frames), [{ type: "preferences", game: g2.code, takeback: false, more_time: false }]);
  await page.click("#prefs-card summary");
  assert.equal(await page.inputValue("#pref-takeback"), "never", "remembered on the device");
  await page.selectOption("#pref-takeback", "always");
  await page.check("#pref-time");
  assert.deepEqual((await g2.bob.next(isEvent("preferences", "bronze"))).payload, { side: "bronze", takeback: true, more_time: false });
  assert.deepEqual((await g2.bob.next(isEvent("preferences", "bronze"))).payload, { side: "bronze", takeback: true, more_time: true });
  g2.bob.close();
  await page.context().close();
});

test("nit: an event the page cannot read costs one re-watch, not a loop; the game goes on", async () => {
  // a spectator whose connection turns one chat line into an unreadable event, every time the
  // server sends it (a replay too)
  const ctx = await browser.newContext({ viewport: WIDE, locale: "en-US" });
  const out = [];
  await ctx.routeWebSocket(/\/ws$/, (ws) => {
    const srv = ws.connectToServer();
    ws.onMessage((m) => {
      out.push(String(m));
      srv.send(m);
    });
    // events only: the snapshot that follows has the line as it is
    srv.onMessage((m) => {
      const s = String(m);
      ws.send(s.includes('"type":"event"') ? s.replace('"text":"unreadable"', '"text":17') : s);
    });
  });
  const page = problems.watch(await ctx.newPage(), "spectator-bad-event");
  const ann = await TcpPlayer.connect(server.tcpPort, "AnnB");
  ann.send({ type: "create_game", variant: VARIANT, time_control: null, color: "silver", public: false });
  const { code } = await ann.next((m) => m.type === "game_created");
  const bob = await TcpPlayer.connect(server.tcpPort, "BobB");
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot");
  ann.send({ type: "setup", game: code, setup: EXAMPLE.silver });
  await bob.next(isEvent("setup", "silver"));
  bob.send({ type: "setup", game: code, setup: EXAMPLE.bronze });
  await ann.next(isEvent("setup", "bronze"));
  await page.goto(`${server.base}/g/${code}`);
  await page.waitForSelector("#board [data-name='a1']");
  const watches = () => out.filter((m) => JSON.parse(m).type === "watch").length;
  const first = watches();
  ann.send({ type: "chat", game: code, text: "unreadable" });
  await ann.next(isEvent("chat"));
  ann.send({ type: "turn", game: code, turn: EXAMPLE.turns[0] });
  await ann.next(isEvent("turn", "silver"));
  bob.send({ type: "turn", game: code, turn: EXAMPLE.turns[1] });
  const last = await ann.next(isEvent("turn", "bronze"));
  await page.waitForFunction((v) => window.trunkfield.S.games.get(window.trunkfield.S.route.code)?.version >= v, last.version, { timeout: 5000 })
    .catch(async () => assert.fail(`the page stalled at version ${(await gameOf(page))?.version}, ${watches() - first} watches sent`));
  await sleep(1000);
  assert.ok(watches() - first <= 1, `${watches() - first} watches after one unreadable event`);
  assert.equal(await page.locator("#turn-log li").count(), 2, "both turns are shown");
  ann.close();
  bob.close();
  await ctx.close();
});

test("nit: an aborted game offers no rematch (a new game with the same settings stays)", async () => {
  const page = await newPlayer(browser, server.base, problems, "AnnA", WIDE);
  const bob = await TcpPlayer.connect(server.tcpPort, "BobA");
  bob.send({ type: "create_game", variant: VARIANT, time_control: TC, color: "silver", public: false });
  const { code } = await bob.next((m) => m.type === "game_created");
  await page.goto(`${server.base}/g/${code}`);
  await page.click("#join-seat");
  await bob.next(isEvent("join"));
  bob.send({ type: "abort", game: code });
  await page.waitForSelector("#result:not([hidden])", { timeout: 5000 });
  assert.equal(await page.getAttribute("#result", "data-reason"), "aborted");
  assert.match(await page.textContent("#result-why"), /BobA left it before it started/);
  assert.equal(await page.isVisible("#rematch-btn"), false, "no rematch of a game never played");
  assert.ok(await page.isVisible("#again-btn"), "a new game with the same settings is offered");
  // an offer from the other side (a client that sends one anyway) is not put to the player
  bob.send({ type: "rematch", game: code });
  await bob.next((m) => isEvent("rematch_offer")(m) || m.type === "error");
  await sleep(300);
  assert.equal(await page.isVisible("#rematch-answer"), false);
  assert.equal(await page.isVisible("#rematch-note"), false);
  bob.close();
  await page.context().close();
});

test("nit: on a flipped board the 'opponent away' note is under the away player's card", async () => {
  const page = await newPlayer(browser, server.base, problems, "AnnF", WIDE);
  const bob = await TcpPlayer.connect(server.tcpPort, "BobF");
  bob.send({ type: "create_game", variant: VARIANT, time_control: TC, color: "silver", public: false });
  const { code } = await bob.next((m) => m.type === "game_created");
  await page.goto(`${server.base}/g/${code}`);
  await page.click("#join-seat");
  await bob.next(isEvent("join"));
  bob.close();
  await page.waitForSelector("#away-note:not([hidden])", { timeout: 5000 });
  const under = async (slot) => {
    const [note, card] = await Promise.all([page.locator("#away-note").boundingBox(), page.locator(`#${slot}`).boundingBox()]);
    const gap = note.y - (card.y + card.height);
    return gap >= -2 && gap < 40;
  };
  assert.equal(await page.getAttribute("#card-top .pcard", "data-side"), "silver");
  assert.ok(await under("card-top"), "under the opponent's card, on top");
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press("f");
  await page.waitForSelector("#card-bottom .pcard[data-side='silver']");
  assert.ok(await page.isVisible("#away-note"));
  assert.ok(await under("card-bottom"), "flipped: under the opponent's card, now below the board");
  assert.equal(await under("card-top"), false, "not under the player's own card");
  await page.screenshot({ path: path.join(ART, "takeback-away-flipped.png") });
  await page.setViewportSize(PHONE);
  await sleep(150);
  assert.ok(await under("card-bottom"), "on a phone too");
  await page.setViewportSize(WIDE);
  await page.keyboard.press("f");
  await page.waitForSelector("#card-top .pcard[data-side='silver']");
  assert.ok(await under("card-top"), "turned back: on top again");
  await page.context().close();
});

// Stalling (PROTOCOL.md "Stalling"): the browser's player (silver) is far ahead, the opponent sits
// on its move past the limit (--stall-seconds 1 on a server of its own) and the server's judge
// calls the position lost. The game comes from `stall_judge --lost` (bench/stall_judge.cpp: the
// bot's level-4 turns for silver, random ones for bronze, until bronze is lost); silver's turns are
// sent by a second connection of the same player (its token), so the page only watches them.
test("stalling: the opponent sits on a lost position; the page offers the win and a draw, says why; the draw claimed", async () => {
  const record = JSON.parse(execFileSync(path.join(path.dirname(SERVER), "stall_judge"), ["--lost"]).toString());
  const stall = await startServer(["--stall-seconds", "1"]);
  try {
    const page = await newPlayer(browser, stall.base, problems, "AnnStall", WIDE);
    const bob = await TcpPlayer.connect(stall.tcpPort, "BobStall");
    bob.send({ type: "create_game", variant: VARIANT, time_control: null, color: "bronze", public: false });
    const { code } = await bob.next((m) => m.type === "game_created");
    await page.goto(`${stall.base}/g/${code}`);
    await page.click("#join-seat");
    await bob.next(isEvent("join"));
    const token = await page.evaluate(() => localStorage.getItem("trunkfield.token"));
    const ann = await TcpPlayer.connect(stall.tcpPort, null, token);
    ann.send({ type: "join_game", code }); // a seat already held: a watch of the game
    await ann.next((m) => m.type === "snapshot" && m.game === code);

    ann.send({ type: "setup", game: code, setup: record.setup.silver });
    await bob.next(isEvent("setup", "silver"));
    bob.send({ type: "setup", game: code, setup: record.setup.bronze });
    await ann.next(isEvent("setup", "bronze"));
    for (const [i, turn] of record.turns.entries()) {
      const [mover, other, side] = i % 2 === 0 ? [ann, bob, "silver"] : [bob, ann, "bronze"];
      mover.send({ type: "turn", game: code, turn });
      await other.next(isEvent("turn", side));
    }
    assert.equal(record.turns.length % 2, 1, "the record ends with bronze to move");
    // bronze sits: after a second the server judges its position lost
    await bob.next(isEvent("stalling", "bronze"), 15000);
    await page.waitForSelector("#claim-draw-btn:not([hidden])", { timeout: 5000 });
    assert.equal((await page.textContent("#claim-btn")).trim(), "Opponent stalling: claim the win");
    assert.ok(await page.isEnabled("#claim-btn"));
    assert.equal(await page.textContent("#status"),
      "BobStall (Bronze) is sitting on a lost position: claim the win or a draw below, or wait for the move.");
    await waitSaid(page, /BobStall \(Bronze\) is sitting on a lost position: you may claim the win or a draw/);
    await page.screenshot({ path: path.join(ART, "takeback-stalling-claim.png") });

    await page.click("#claim-draw-btn");
    const claim = await bob.next(isEvent("stall_claim"));
    assert.deepEqual(claim.payload, { side: "silver", draw: true });
    const over = await bob.next(isEvent("game_over"));
    assert.deepEqual([over.payload.winner, over.payload.reason], ["draw", "stalling"]);
    await page.waitForSelector("#claim-draw-btn", { state: "hidden" });
    await page.waitForSelector("#result:not([hidden])");
    assert.equal(await page.textContent("#result-head"), "Draw.");
    assert.equal(await page.textContent("#result-why"), "A draw was claimed from a player sitting on a lost position.");
    await page.screenshot({ path: path.join(ART, "takeback-stalling-over.png") });
    ann.close();
    bob.close();
    await page.context().close();
  } finally {
    stall.stop();
  }
});
