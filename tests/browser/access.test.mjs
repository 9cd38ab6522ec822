// The game page's keyboard play, screen-reader announcements and zen mode (issue 32: faults 4
// and 5, zen mode), one test each, against the real trunkfield-server in headless chromium (one
// server for the file). Each observes the page as a player does: where the focus is
// (document.activeElement) after keys pressed, what the live region says after a scripted TCP
// opponent's doings, what zen mode leaves on the screen. Each failed before its fix.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, PHONE, serverAndBrowser, PageProblems, TcpPlayer, newPlayer, exampleGame, tcpTurn, clickTurn, waitMyTurn,
  cell, EXAMPLE } from "./lib.mjs";

const WIDE = { width: 1366, height: 768 };
let server, browser;
const problems = new PageProblems();

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

const silverTurn = (bob) => bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");

// Where the focus is: a board cell's name ("d1"), else the element ("BUTTON#send-btn", "BODY#").
const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a?.closest?.("#board [data-cell]")?.getAttribute("data-name") ?? `${a?.tagName}#${a?.id ?? ""}`;
});

// Presses Tab until the focus is on `selector` (at most `max` times); resolves to the count.
async function tabTo(page, selector, max = 12) {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return i;
  }
  throw new Error(`${selector} not reached with ${max} Tabs (focus on ${await focused(page)})`);
}

async function keys(page, ...list) {
  for (const k of list) await page.keyboard.press(k);
}

test("issue 32.4: a setup and turns played from the keyboard alone; the focus goes back to the board after each action", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnK", WIDE);
  await ann.selectOption("#cv-size", "9");
  await ann.selectOption("#cv-color", "silver");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  const bob = await TcpPlayer.connect(server.tcpPort, "Bob");
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot" && m.game === code);
  await ann.waitForSelector("#send-btn:not([hidden])");

  // The setup with the arrows, Enter and Space: elephants b1 c1 e1 g1 h1, guardians Sa and W5.
  await cell(ann, "b1").focus();
  await keys(ann, "Enter", "ArrowRight", "Enter", "ArrowRight", "ArrowRight", "Enter", "ArrowRight", "ArrowRight", "Enter",
    "ArrowRight", "Enter");
  assert.equal(await focused(ann), "h1");
  await keys(ann, "ArrowDown", ...Array(7).fill("ArrowLeft"), "Enter");
  assert.equal(await focused(ann), "Sa");
  await keys(ann, "ArrowLeft", ...Array(5).fill("ArrowUp"), "Space", "Space"); // W5 placed and taken back with Space
  assert.equal(await focused(ann), "W5");
  const draft = () => ann.evaluate(() => {
    const G = window.trunkfield.S.games.get(window.trunkfield.S.route.code);
    return { e: G.draft.setupE.length, g: G.draft.setupG.length, pending: !!G.pending };
  });
  assert.deepEqual(await draft(), { e: 5, g: 1, pending: false }, "Space toggles a piece");
  await ann.keyboard.press("Enter"); // the last piece, with Enter
  assert.deepEqual(await draft(), { e: 5, g: 2, pending: false }, "Enter places the last piece");
  // the setup is complete: Enter on the last piece sends it (it used to take the guardian back)
  await ann.keyboard.press("Enter");
  const setup = await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "silver", 5000)
    .catch(async () => assert.fail(`Enter on a complete setup did not send it: ${JSON.stringify(await draft())}`));
  assert.deepEqual(setup.payload.setup, EXAMPLE.silver);
  bob.send({ type: "setup", game: code, setup: EXAMPLE.bronze });
  await waitMyTurn(ann);
  assert.equal(await focused(ann), "W5", "the focus stays on the board");

  // b1-d1:N: the elephant and its landing cell with Enter, the facing from the panel's buttons
  await keys(ann, ...Array(4).fill("ArrowDown"), "ArrowRight", "ArrowRight", "Enter", "ArrowRight", "ArrowRight", "Enter");
  assert.equal(await focused(ann), "d1");
  await ann.waitForSelector("#facing:not([hidden])");
  // the facing from the board itself: Shift+arrow as the arrow points, or a compass letter
  const facing = () => ann.evaluate(() => window.trunkfield.S.games.get(window.trunkfield.S.route.code).draft.facing);
  await ann.keyboard.press("Shift+ArrowDown");
  assert.equal(await facing(), "S", "Shift+ArrowDown on the board faces south");
  assert.equal(await focused(ann), "d1");
  await ann.waitForSelector("#facing", { state: "hidden" });
  await ann.keyboard.press("Escape");
  await ann.waitForSelector("#facing:not([hidden])");
  await ann.keyboard.press("w");
  assert.equal(await facing(), "W", "the letter W faces west");
  await ann.keyboard.press("Escape");
  await ann.waitForSelector("#facing:not([hidden])");
  assert.equal(await focused(ann), "d1", "Escape leaves the focus on the board");
  const toFacing = await tabTo(ann, "#facing button[data-facing=N]");
  await ann.keyboard.press("Enter");
  assert.equal(await focused(ann), "d1", "after a facing is chosen the focus is back on the board");
  const toSend = await tabTo(ann, "#send-btn");
  await ann.screenshot({ path: path.join(ART, "access-keyboard-send.png") });
  await ann.keyboard.press("Enter");
  const sent = await silverTurn(bob);
  assert.deepEqual(sent.payload.turn.elephant, EXAMPLE.turns[0].elephant);
  assert.equal(await focused(ann), "d1", "after Send the focus is back on the board");
  console.log(`Tabs from the board: ${toFacing} to the facing, ${toSend} to Send`);

  // d1-d2 W5-1: the burnt trunk's switch and Undo hand the focus back to the board as well
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  await waitMyTurn(ann);
  assert.equal(await focused(ann), "d1");
  await keys(ann, "Enter", "ArrowUp", "Enter"); // d1, d2 (collects the trunk)
  await ann.waitForSelector("#burnt-btn");
  await tabTo(ann, "#burnt-btn");
  await ann.keyboard.press("Enter");
  assert.equal(await focused(ann), "d2", "after the burnt trunk's switch the focus is on the board");
  assert.equal(await ann.getAttribute("#burnt-btn", "aria-pressed"), "true");
  await tabTo(ann, "#undo-btn");
  await ann.keyboard.press("Enter");
  assert.equal(await focused(ann), "d2", "after Undo the focus is on the board");
  assert.equal(await ann.getAttribute("#burnt-btn", "aria-pressed"), "false", "Undo took the burnt trunk's switch back");
  await keys(ann, ...Array(4).fill("ArrowLeft"), ...Array(3).fill("ArrowUp"), "Enter", "ArrowDown", "Enter"); // W5 to W4
  assert.equal(await focused(ann), "W4");
  await ann.keyboard.press("Enter");
  const third = await silverTurn(bob);
  assert.deepEqual(third.payload.turn.elephant, EXAMPLE.turns[2].elephant);
  assert.deepEqual(third.payload.turn.guardians, EXAMPLE.turns[2].guardians);
  assert.deepEqual(third.payload.captures, [{ side: "bronze", cell: [1, 4] }]);

  // a draw offered from the keyboard: the button goes, the focus is on the board
  await tabTo(ann, "#draw-btn", 30);
  await ann.keyboard.press("Enter");
  await bob.next((m) => m.type === "event" && m.kind === "draw_offer");
  await ann.waitForSelector("#draw-btn", { state: "hidden" });
  assert.equal(await focused(ann), "W4", "after offering a draw the focus is on the board");
  bob.close();
  await ann.context().close();
});

test("issue 32.5: a live region says the opponent's moves and the game's events in the page's language; the turn list is named", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnS", WIDE);
  const { code, bob } = await exampleGame(ann, server);
  const said = () => ann.evaluate(() => document.querySelector("#announce")?.textContent ?? "");
  const waitSaid = (re) => ann.waitForFunction((src) => new RegExp(src).test(document.querySelector("#announce")?.textContent ?? ""),
    re.source, { timeout: 5000 }).catch(async () => assert.fail(`the live region does not say ${re}: "${await said()}"`));
  // a polite live region, read by screen readers but not shown
  const region = await ann.evaluate(() => {
    const e = document.querySelector("#announce");
    const r = e?.getBoundingClientRect();
    return e && { live: e.getAttribute("aria-live"), role: e.getAttribute("role"), w: r.width, h: r.height, in: !!e.closest("#game") };
  });
  assert.ok(region, "the game page has a live region");
  assert.equal(region.live, "polite");
  assert.ok(region.w <= 1 && region.h <= 1 && region.in, JSON.stringify(region));
  await waitSaid(/Bob \(Bronze\) placed the pieces\./);
  // the opponent's turn in words; the player's own turn is not said
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  await waitSaid(/Bronze \(Bob\) played: elephant a3 to b3, collected 1 trunk\./);
  assert.doesNotMatch(await said(), /Silver \(AnnS\) played/);
  // the turn list has a name, and each turn says itself in words with its notation
  assert.equal(await ann.getAttribute("#turn-log", "aria-label"), "Turns played");
  assert.equal(await ann.getAttribute("#turn-log .turn-btn[data-index='1']", "aria-label"), "1. Silver: elephant b1 to d1, facing north (b1-d1:N)");
  assert.equal(await ann.getAttribute("#turn-log .turn-btn[data-index='2']", "aria-label"), "2. Bronze: elephant a3 to b3, collected 1 trunk (a3-b3)");
  bob.send({ type: "draw_offer", game: code });
  await waitSaid(/Bob \(Bronze\) offers a draw\./);
  await ann.screenshot({ path: path.join(ART, "access-announce.png") });

  // in French from now on: Ann captures a4, Bob leaves, comes back and resigns
  await ann.selectOption("#lang-select", "fr");
  await clickTurn(ann, EXAMPLE.turns[2], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  assert.equal(await ann.getAttribute("#turn-log .turn-btn[data-index='3']", "aria-label"),
    "3. Argent : éléphant de d1 à d2, 1 tronc ramassé, gardien de W5 à W4, capture : bronze a4 (d1-d2 W5-1)");
  assert.equal(await ann.getAttribute("#turn-log", "aria-label"), "Tours joués");
  const token = bob.me.token;
  bob.close();
  await waitSaid(/Bob \(Bronze\) a quitté la partie\./);
  const bob2 = await TcpPlayer.connect(server.tcpPort, "Bob", token);
  bob2.send({ type: "watch", code });
  await waitSaid(/Bob \(Bronze\) est de retour\./);
  bob2.send({ type: "resign", game: code });
  await waitSaid(/Partie terminée\. AnnS gagne avec argent\. .*Bob a abandonné\. Score final : Argent \d+ – \d+ Bronze/);
  bob2.close();
  await ann.context().close();
});

test("issue 32 zen mode: Z or the button leaves the board and the clocks; remembered; Esc leaves it; on a desktop and a phone", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnZ", WIDE);
  const { code, bob } = await exampleGame(ann, server, { tc: "300000/5000" });
  await waitMyTurn(ann);
  const seen = (page) => page.evaluate(() => {
    const vis = (sel) => [...document.querySelectorAll(sel)].some((e) => e.checkVisibility());
    const box = (sel) => {
      const r = document.querySelector(sel)?.getBoundingClientRect();
      return r && { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height), bottom: Math.round(r.bottom) };
    };
    return { zen: document.querySelector("#game").classList.contains("zen"), chat: vis("#chat-card"), turns: vis("#turns-card"),
      stats: vis("#game .pc-stats"), topbar: vis(".topbar"), head: vis("#game-code"), status: vis("#status"), actions: vis("#actions"),
      board: box("#board svg"), clocks: [...document.querySelectorAll("#game .clock")].filter((e) => e.checkVisibility()).map((e) => {
        const r = e.getBoundingClientRect();
        return { side: e.dataset.side, bottom: Math.round(r.bottom), right: Math.round(r.right) };
      }), names: [...document.querySelectorAll("#game .pc-who .name")].filter((e) => e.checkVisibility()).map((e) => e.textContent),
      pressed: document.querySelector("#zen-btn")?.getAttribute("aria-pressed") };
  });
  const before = await seen(ann);
  assert.equal(before.zen, false);
  assert.ok(before.chat && before.turns && before.stats && before.topbar, JSON.stringify(before));
  // the key Z (the focus on the page, not in a text field)
  await ann.keyboard.press("z");
  const zen = await seen(ann);
  assert.equal(zen.zen, true, "Z turns zen mode on");
  for (const k of ["chat", "turns", "stats", "topbar", "head", "status", "actions"]) assert.equal(zen[k], false, `zen hides ${k}`);
  assert.equal(zen.clocks.length, 2, "both clocks stay");
  assert.deepEqual(zen.names.sort(), ["AnnZ", "Bob"], "the names stay");
  assert.equal(zen.pressed, "true");
  assert.ok(zen.board.h >= 480 && zen.board.bottom <= WIDE.height, `a big board, all of it in the window: ${JSON.stringify(zen.board)}`);
  for (const c of zen.clocks) assert.ok(c.bottom <= WIDE.height && c.right <= WIDE.width, `the clocks in the window: ${JSON.stringify(zen.clocks)}`);
  await ann.screenshot({ path: path.join(ART, "access-zen-desktop.png") });
  // a turn is still played in zen mode (Send stays), and zen mode is remembered after a reload
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await ann.reload();
  await ann.waitForSelector("#board svg");
  await ann.waitForFunction(() => document.querySelector("#game .clock"));
  assert.equal((await seen(ann)).zen, true, "zen mode is remembered");
  assert.equal((await seen(ann)).chat, false);
  // Esc leaves it; the button turns it on and off; a Z typed in the chat is text
  await ann.keyboard.press("Escape");
  const out = await seen(ann);
  assert.ok(!out.zen && out.chat && out.turns && out.topbar, `Esc leaves zen mode: ${JSON.stringify(out)}`);
  await ann.click("#zen-btn");
  assert.equal((await seen(ann)).zen, true, "the button turns it on");
  await ann.click("#zen-btn");
  assert.equal((await seen(ann)).zen, false, "and off");
  await ann.click("#chat-input");
  await ann.keyboard.type("zz");
  assert.equal((await seen(ann)).zen, false, "Z in a text field is a letter");
  assert.equal(await ann.inputValue("#chat-input"), "zz");

  // on a phone: a spectator of the same game
  const ctx = await browser.newContext({ viewport: PHONE, locale: "en-US" });
  const cy = problems.watch(await ctx.newPage(), "cy-phone");
  await cy.goto(`${server.base}/g/${code}`);
  await cy.waitForSelector("#board svg");
  await cy.waitForFunction(() => document.querySelectorAll("#game .clock").length === 2);
  await cy.screenshot({ path: path.join(ART, "access-phone-normal.png") });
  await cy.click("#zen-btn");
  const ph = await seen(cy);
  assert.equal(ph.zen, true);
  assert.ok(!ph.chat && !ph.turns && !ph.topbar && !ph.stats, JSON.stringify(ph));
  assert.equal(ph.clocks.length, 2);
  assert.ok(ph.board.w >= PHONE.width - 16 && ph.board.bottom <= PHONE.height, `the board across the phone: ${JSON.stringify(ph.board)}`);
  for (const c of ph.clocks) assert.ok(c.bottom <= PHONE.height, JSON.stringify(ph.clocks));
  await cy.screenshot({ path: path.join(ART, "access-zen-phone.png") });
  await ctx.close();
  bob.close();
  await ann.context().close();
});
