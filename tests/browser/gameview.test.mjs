// The game view's items of issue 32 (fault 9: the replay opens at the end, help with the setup;
// the board flip; fault 3: the opponent away before the game started), one test each, against the
// real trunkfield-server in headless chromium (one server for the file). Each test observes the
// page as a player does and failed before its change. Opponents are scripted TCP clients.
// Screenshots on a desktop (1366 × 768) and a phone (390 × 844).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, PHONE, sleep, serverAndBrowser, PageProblems, TcpPlayer, fitsPhone, newPlayer, cell, EXAMPLE } from "./lib.mjs";

const WIDE = { width: 1366, height: 768 };
const VARIANT = { size: 9, elephants: 5, burnt: 3, quiet: 40 };
let server, browser;
const problems = new PageProblems();

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

// A screenshot on the desktop, then the same page on a phone (never wider than the phone).
async function shots(page, name) {
  await page.screenshot({ path: path.join(ART, `gameview-${name}.png`) });
  const size = page.viewportSize();
  await page.setViewportSize(PHONE);
  await fitsPhone(page, name);
  await page.screenshot({ path: path.join(ART, `gameview-${name}-phone.png`), fullPage: true });
  await page.setViewportSize(size);
}

// A game between two scripted players: both setups of the example game and its first two turns.
async function tcpGame(tag) {
  const ann = await TcpPlayer.connect(server.tcpPort, `Ann${tag}`);
  ann.send({ type: "create_game", variant: VARIANT, time_control: null, color: "silver", public: false });
  const { code } = await ann.next((m) => m.type === "game_created");
  const bob = await TcpPlayer.connect(server.tcpPort, `Bob${tag}`);
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot" && m.game === code);
  ann.send({ type: "setup", game: code, setup: EXAMPLE.silver });
  await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "silver");
  bob.send({ type: "setup", game: code, setup: EXAMPLE.bronze });
  await ann.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "bronze");
  for (const [p, q, side, turn] of [[ann, bob, "silver", EXAMPLE.turns[0]], [bob, ann, "bronze", EXAMPLE.turns[1]]]) {
    p.send({ type: "turn", game: code, turn });
    await q.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === side);
  }
  return { code, ann, bob };
}

// Bob resigns; resolves once the history API has the finished game.
async function finish({ code, ann, bob }) {
  bob.send({ type: "resign", game: code });
  await ann.next((m) => m.type === "event" && m.kind === "game_over");
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`${server.base}/api/games/${code}`);
    if (r.ok && (await r.json()).result) return;
    await sleep(100);
  }
  throw new Error("the finished game is not in the history API");
}

// Where two cells of a board are on the screen, the angle on the screen of the ring name `ring`
// (0: horizontal, -90: reading upwards, as the west and east names are), whether it is inside its
// cell, and whether the pieces' letters are upright.
const geometry = (page, board, ring) => page.evaluate(([b, name]) => {
  const box = (n) => document.querySelector(`${b} [data-name="${n}"]`).getBoundingClientRect();
  const a1 = box("a1");
  const i9 = box("i9");
  const cellBox = box(name);
  const label = [...document.querySelectorAll(`${b} .ring-name`)].find((e) => e.textContent === name);
  const m = label.getScreenCTM();
  const lb = label.getBoundingClientRect();
  const cx = lb.x + lb.width / 2;
  const cy = lb.y + lb.height / 2;
  return { a1Below: a1.y > i9.y, a1Left: a1.x < i9.x, angle: Math.round((Math.atan2(m.b, m.a) * 180) / Math.PI),
    inCell: cx > cellBox.left && cx < cellBox.right && cy > cellBox.top && cy < cellBox.bottom,
    letterUpright: [...document.querySelectorAll(`${b} .piece-letter`)].every((e) => e.getScreenCTM().a > 0.5) };
}, [board, ring]);

test("issue 32 fault 9a: the replay opens at the final position with the result; stepping back works", async () => {
  const g = await tcpGame("R");
  await finish(g);
  const page = await newPlayer(browser, server.base, problems, "Rita", WIDE);
  await page.goto(`${server.base}/#replay/${g.code}`);
  await page.waitForSelector("#rp-body:not([hidden])");
  assert.equal(await page.getAttribute("#rp-pos", "data-index"), "2", "the replay opens after the last turn");
  assert.ok(await page.isVisible("#rp-result"), "with the result shown");
  assert.match(await page.textContent("#rp-result"), /resign/i);
  assert.equal(await page.getAttribute("#rp-turns .turn-btn.current", "aria-current"), "step");
  assert.match(await page.textContent("#rp-turns .turn-btn.current"), /^2\./, "the last turn is the current one");
  assert.ok(await page.isDisabled("#rp-next"), "nothing after the end");
  await page.click("#rp-prev");
  assert.equal(await page.getAttribute("#rp-pos", "data-index"), "1");
  assert.equal(await page.isVisible("#rp-result"), false, "the result is for the final position only");
  await page.keyboard.press("Home");
  assert.equal(await page.getAttribute("#rp-pos", "data-index"), "0");
  await page.keyboard.press("End");
  assert.equal(await page.getAttribute("#rp-pos", "data-index"), "2");
  g.ann.close();
  g.bob.close();
  await page.context().close();
});

test("issue 32 fault 9b: 'Random setup' and 'My last setup' fill a legal draft; the player still sends it", async () => {
  const page = await newPlayer(browser, server.base, problems, "Sami", WIDE);
  const draft = () => page.evaluate(() => {
    const S = window.trunkfield.S;
    const d = S.games.get(S.route.code).draft;
    return { elephants: d.setupE, guardians: d.setupG };
  });
  const sorted = (s) => JSON.stringify({ elephants: [...s.elephants].map(String).sort(), guardians: [...s.guardians].map(String).sort() });
  // Sami creates a game as silver, Bob joins
  const newGame = async (tag) => {
    await page.goto(server.base);
    await page.waitForSelector("#conn.conn-online");
    await page.selectOption("#cv-size", "9");
    await page.selectOption("#cv-color", "silver");
    await page.click("#create-btn");
    await page.waitForURL(/\/g\/[a-z0-9]+$/);
    const code = new URL(page.url()).pathname.split("/")[2];
    const bob = await TcpPlayer.connect(server.tcpPort, `Bob${tag}`);
    bob.send({ type: "join_game", code });
    await bob.next((m) => m.type === "snapshot" && m.game === code);
    await page.waitForSelector("#setup-fill:not([hidden])");
    return { code, bob };
  };
  const first = await newGame("S1");
  assert.ok(await page.isDisabled("#setup-last"), "no earlier setup on this device");
  assert.ok(await page.isDisabled("#send-btn"));
  await page.click("#setup-random");
  assert.match(await page.textContent("#status"), /Placed: 5\/5 elephants, 2\/2 guardians/);
  assert.ok(await page.isEnabled("#send-btn"), "a whole setup, ready to send");
  const random1 = await draft();
  assert.equal(await page.locator("#board .elephant.drafted").count(), 5, "the elephants are drawn as a draft");
  // Undo takes the whole fill back, a second click draws again
  await page.click("#undo-btn");
  assert.deepEqual(await draft(), { elephants: [], guardians: [] });
  await page.click("#setup-random");
  await shots(page, "setup-buttons");
  await sleep(300);
  assert.equal(first.bob.log.some((m) => m.kind === "setup"), false, "nothing is sent before Send");
  const sent = await draft();
  await page.click("#send-btn");
  const ev = await first.bob.next((m) => (m.type === "event" && m.kind === "setup") || m.type === "error");
  assert.equal(ev.type, "event", `the random setup is legal: ${JSON.stringify(ev)}`);
  assert.equal(sorted(ev.payload.setup), sorted(sent));
  assert.ok(random1.elephants.every((c) => c[1] === 1 && c[0] >= 2), "elephants on silver's start row");
  first.bob.close();

  // the next game on a 9 × 9 board: "My last setup" is the one sent
  const second = await newGame("S2");
  assert.ok(await page.isEnabled("#setup-last"), "the setup sent last time is offered");
  await page.click("#setup-last");
  assert.equal(sorted(await draft()), sorted(sent));
  await page.click("#send-btn");
  const ev2 = await second.bob.next((m) => (m.type === "event" && m.kind === "setup") || m.type === "error");
  assert.equal(ev2.type, "event", JSON.stringify(ev2));
  assert.equal(sorted(ev2.payload.setup), sorted(sent));
  second.bob.close();

  // as bronze, after silver's setup (its guardians watch lines): a random setup is legal too
  for (let i = 0; i < 3; i++) {
    const cy = await TcpPlayer.connect(server.tcpPort, `Cy${i}`);
    cy.send({ type: "create_game", variant: VARIANT, time_control: null, color: "silver", public: false });
    const { code } = await cy.next((m) => m.type === "game_created");
    await page.goto(`${server.base}/g/${code}`);
    await page.click("#join-seat");
    await cy.next((m) => m.type === "event" && m.kind === "join");
    cy.send({ type: "setup", game: code, setup: EXAMPLE.silver });
    await page.waitForSelector("#setup-fill:not([hidden])");
    await page.click("#setup-random");
    const mine = await draft();
    assert.ok(mine.elephants.every((c) => c[0] === 1 && c[1] >= 2), `elephants on bronze's start column: ${JSON.stringify(mine)}`);
    await page.click("#send-btn");
    const r = await cy.next((m) => (m.type === "event" && m.kind === "setup" && m.payload.side === "bronze") || m.type === "error");
    assert.equal(r.type, "event", JSON.stringify(r));
    cy.close();
  }
  await page.context().close();
});

test("issue 32 board flip: spectators and the replay turn the board 180°, names upright; F does the same", async () => {
  const g = await tcpGame("F");
  const page = await newPlayer(browser, server.base, problems, "Vera", WIDE);
  await page.goto(`${server.base}/g/${g.code}`);
  await page.waitForSelector("#board [data-name='a1']");
  assert.ok(await page.isVisible("#flip-btn"), "a spectator has the button");
  let at = await geometry(page, "#board", "Sa");
  assert.ok(at.a1Below && at.a1Left, `silver's corner a1 at the bottom left: ${JSON.stringify(at)}`);
  assert.equal(await page.getAttribute("#card-bottom .pcard", "data-side"), "silver");
  await page.click("#flip-btn");
  await page.waitForSelector("#flip-btn[aria-pressed='true']");
  at = await geometry(page, "#board", "Sa");
  assert.ok(!at.a1Below && !at.a1Left, `flipped: a1 at the top right: ${JSON.stringify(at)}`);
  assert.ok(at.angle === 0 && at.inCell, `the ring's names are upright and on their cells: ${JSON.stringify(at)}`);
  assert.ok(at.letterUpright, "the pieces' letters are upright");
  assert.equal(await page.getAttribute("#card-bottom .pcard", "data-side"), "bronze", "bronze's card below the board");
  // the cells keep their names
  assert.match(await cell(page, "b1").getAttribute("aria-label"), /^b1/);
  await shots(page, "flipped-spectator");
  // the key F, not while typing in the chat
  await page.locator("#chat-input").press("f");
  assert.equal(await page.getAttribute("#flip-btn", "aria-pressed"), "true");
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press("f");
  await page.waitForSelector("#flip-btn[aria-pressed='false']");
  at = await geometry(page, "#board", "Sa");
  assert.ok(at.a1Below && at.a1Left, "back to silver at the bottom");
  await page.keyboard.press("f");
  await page.waitForSelector("#flip-btn[aria-pressed='true']");
  // the replay of the game, opened from the page: still flipped (the page visit remembers it)
  await finish(g);
  await page.waitForSelector("#result:not([hidden])");
  await page.click("#result-replay");
  await page.waitForSelector("#rp-body:not([hidden])");
  assert.equal(await page.getAttribute("#rp-flip", "aria-pressed"), "true");
  at = await geometry(page, "#rp-board", "W5");
  assert.ok(!at.a1Below && !at.a1Left && at.angle === -90 && at.inCell && at.letterUpright, `the replay's board is flipped too: ${JSON.stringify(at)}`);
  await shots(page, "replay-flipped");
  await page.click("#rp-flip");
  at = await geometry(page, "#rp-board", "W5");
  assert.ok(at.a1Below && at.a1Left && at.angle === -90 && at.inCell, JSON.stringify(at));
  // a player keeps their own side below
  const p2 = await newPlayer(browser, server.base, problems, "Walt", WIDE);
  const g2 = await TcpPlayer.connect(server.tcpPort, "Xan");
  g2.send({ type: "create_game", variant: VARIANT, time_control: null, color: "silver", public: false });
  const { code } = await g2.next((m) => m.type === "game_created");
  await p2.goto(`${server.base}/g/${code}`);
  await p2.click("#join-seat");
  await p2.waitForSelector("#card-bottom .pcard.own[data-side='bronze']");
  assert.equal(await p2.isVisible("#flip-btn"), false, "no button for a player");
  g2.close();
  g.ann.close();
  g.bob.close();
  await p2.context().close();
  await page.context().close();
});

test("issue 32 fault 3: the opponent away before the start is said next to its card; the player may leave without a result", async () => {
  // Dan opens a game and goes: a stale open game
  const dan = await TcpPlayer.connect(server.tcpPort, "Dan");
  dan.send({ type: "create_game", variant: VARIANT, time_control: null, color: "silver", public: true });
  const { code } = await dan.next((m) => m.type === "game_created");
  await dan.next((m) => m.type === "snapshot" && m.game === code);
  const token = dan.me.token;
  dan.close();
  await sleep(300);
  const page = await newPlayer(browser, server.base, problems, "Eve", WIDE);
  await page.goto(`${server.base}/g/${code}`);
  await page.click("#join-seat");
  await page.waitForSelector("#card-bottom .pcard.own");
  await page.waitForSelector("#away-note:not([hidden])", { timeout: 5000 });
  assert.match(await page.textContent("#away-note"), /opponent is away/i);
  assert.match(await page.textContent("#away-note"), /without a result/i);
  assert.ok(await page.isVisible("#abort-btn"), "the player may leave without a result");
  assert.equal(await page.isVisible("#claim-btn"), false, "no claim before the first turn");
  // the note sits by the opponent's card (top), above the board's bottom on a desktop
  const [noteBox, topCard] = await Promise.all([page.locator("#away-note").boundingBox(), page.locator("#card-top").boundingBox()]);
  assert.ok(noteBox.y >= topCard.y + topCard.height - 2 && noteBox.y - (topCard.y + topCard.height) < 40, "right below the opponent's card");
  await shots(page, "away");
  // Dan comes back (player_back): the note goes; he leaves again (player_left): it is back
  const dan2 = await TcpPlayer.connect(server.tcpPort, null, token);
  dan2.send({ type: "watch", code });
  await dan2.next((m) => m.type === "snapshot" && m.game === code);
  await page.waitForSelector("#away-note", { state: "hidden", timeout: 5000 });
  dan2.close();
  await page.waitForSelector("#away-note:not([hidden])", { timeout: 5000 });
  // French
  await page.selectOption("#lang-select", "fr");
  await page.waitForFunction(() => /adversaire est absent/i.test(document.querySelector("#away-note").textContent));
  assert.match(await page.textContent("#abort-btn"), /Quitter sans résultat/);
  await page.selectOption("#lang-select", "en");
  await page.waitForFunction(() => /opponent is away/i.test(document.querySelector("#away-note").textContent));
  // leaving: the server ends the game without a result
  await page.click("#abort-btn");
  await page.waitForSelector("#result:not([hidden])", { timeout: 5000 }).catch(async () => {
    throw new Error(`no result after 'Leave without a result' (the server needs the abort request): ${await page.textContent("#error")}`);
  });
  assert.equal(await page.getAttribute("#result", "data-reason"), "aborted");
  assert.match(await page.textContent("#result-head"), /no result/i);
  assert.match(await page.textContent("#result-why"), /You left the game before it started/);
  assert.ok(await page.isHidden("#away-note"), "no away note once the game is over");
  assert.ok(await page.isHidden("#abort-btn"));
  await page.screenshot({ path: path.join(ART, "gameview-away-left.png") });
  await page.context().close();
});

// Fault 8: the computer answered in ~40 ms, its move blurring with the player's. It now shows a
// move no sooner than a human-like moment after the position (--bot-pace 1, the default: a
// setup 0.8 s). Measured in the page: from the player's own setup to the computer's.
test("fault 8: the computer takes a human-like moment before its setup shows", async () => {
  const page = await newPlayer(browser, server.base, problems, "AnnPace", WIDE);
  await page.selectOption("#cv-opponent", "1");
  await page.selectOption("#cv-size", "7");
  await page.selectOption("#cv-color", "silver");
  await page.click("#create-btn");
  await page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  await page.waitForSelector("#setup-random:not([hidden])");
  await page.click("#setup-random");
  // The page stamps each side's setup as its state takes it (the phase moves on).
  await page.evaluate(() => {
    window.__setupAt = {};
    const tick = () => {
      const S = window.trunkfield.S;
      const G = S.games.get(S.route.code);
      const phase = G?.state?.phase;
      if (phase === "setup_bronze" && !window.__setupAt.silver) window.__setupAt.silver = performance.now();
      if (phase === "play" && !window.__setupAt.bronze) window.__setupAt.bronze = performance.now();
      if (!window.__setupAt.bronze) requestAnimationFrame(tick);
    };
    tick();
  });
  await page.click("#send-btn");
  await page.waitForFunction(() => window.__setupAt?.bronze, null, { timeout: 15000 });
  const at = await page.evaluate(() => window.__setupAt);
  const gap = at.bronze - at.silver;
  assert.ok(gap >= 600, `the computer's setup showed ${Math.round(gap)} ms after the player's`);
  await page.context().close();
});
