// What players expect of the web client (issue 20), in headless chromium against the real
// trunkfield-server: motion and sound for the opponent's turns, the title on your turn, a
// premove, Enter and drag, browsing earlier positions, the result box's rematch and "play
// again", French, the phone layout, How to play and its practice, chat, the security headers
// and the loading order (the lobby before the rules). Tests that need a server feature not
// there yet were skipped; the server has them all now.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, PHONE, DESKTOP, serverAndBrowser, PageProblems, TcpPlayer, newPlayer, exampleGame, tcpTurn,
  clickTurn, waitMyTurn, gameOf, cell, EXAMPLE, sleep } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; img-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

const hooks = (page) => page.evaluate(() => ({ motion: window.trunkfield.motion.map((m) => m.kind),
  sounds: window.trunkfield.sounds.map((s) => s.kind), muted: window.trunkfield.sounds.map((s) => s.muted) }));
const silverTurn = (bob) => bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");

// No crossing anywhere at the start: silver's guardians on Sd (column d) and NW, bronze's on SE
// and E5 (row 5: crossing d5, empty).
const OPEN = {
  silver: { elephants: [[2, 1], [3, 1], [5, 1], [7, 1], [8, 1]], guardians: [[4, 0], [0, 10]] },
  bronze: { elephants: [[1, 2], [1, 3], [1, 4], [1, 7], [1, 9]], guardians: [[10, 0], [10, 5]] },
};

test("the opponent's turns move on the board and sound; the title says when it is your turn", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnM");
  const { code, bob } = await exampleGame(ann, server, { setups: OPEN });
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9); // b1-d1:N jumps c1
  await ann.keyboard.press("Enter"); // Enter sends the turn
  await silverTurn(bob);
  assert.ok((await hooks(ann)).sounds.includes("move"), "the own turn sounds when sent");
  // Bob: a3 jumps over a4 to a5 (a4 turns around)
  await tcpTurn(bob, code, { elephant: { from: [1, 3], path: [[1, 5]], facing: "E" } });
  await ann.waitForFunction(() => window.trunkfield.motion.some((m) => m.kind === "turnaround"));
  await ann.screenshot({ path: path.join(ART, "motion-jump.png") });
  await waitMyTurn(ann);
  await clickTurn(ann, { elephant: { from: [5, 1], path: [[5, 2]] } }, 9); // e1-e2 collects
  await ann.keyboard.press("Enter");
  await silverTurn(bob);
  assert.doesNotMatch(await ann.title(), /Your turn/);
  // the tab goes to the background; Bob collects b2 and moves his guardian SE -> E1: row 1 and
  // silver's column d cross at d1, where Ann's elephant stands
  await ann.evaluate(() => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await tcpTurn(bob, code, { elephant: { from: [1, 2], path: [[2, 2]] }, guardians: [{ from: [10, 0], dir: "ccw", steps: 1 }] });
  await ann.waitForFunction(() => window.trunkfield.motion.some((m) => m.kind === "capture"));
  const h = await hooks(ann);
  for (const k of ["move", "turnaround", "collect", "guardian", "capture"]) assert.ok(h.motion.includes(k), `${k}: ${JSON.stringify(h.motion)}`);
  assert.ok(h.sounds.includes("capture"), JSON.stringify(h.sounds));
  await ann.screenshot({ path: path.join(ART, "motion-capture.png") });
  await waitMyTurn(ann);
  await ann.waitForFunction(() => window.trunkfield.titleFlashing === true);
  assert.match(await ann.title(), /Your turn/);
  bob.send({ type: "resign", game: code });
  await ann.waitForFunction(() => window.trunkfield.sounds.some((s) => s.kind === "end"));
  bob.close();
  await ann.context().close();
});

test("sounds can be muted, and the choice is remembered", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnS");
  assert.equal(await ann.getAttribute("#mute-btn", "aria-pressed"), "false");
  await ann.click("#mute-btn");
  await ann.reload();
  await ann.waitForSelector("#conn.conn-online");
  assert.equal(await ann.getAttribute("#mute-btn", "aria-pressed"), "true");
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  await ann.waitForFunction(() => window.trunkfield.sounds.length >= 2);
  const h = await hooks(ann);
  assert.ok(h.muted.every((m) => m === true), "every sound was asked for muted");
  bob.close();
  await ann.context().close();
});

test("a low clock sounds once, and the game ends on time with the loser named", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnT");
  await ann.evaluate(() => {
    window.trunkfield.S.lastCreate = null;
    window.trunkfield.conn.send({ type: "create_game", time_control: { initial_ms: 6000, increment_ms: 0 }, color: "silver", public: false });
  });
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  const bob = await TcpPlayer.connect(server.tcpPort, "BobT");
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot");
  await ann.waitForSelector("#send-btn:not([hidden])");
  for (const c of ["b1", "c1", "e1", "g1", "h1", "Sa", "W5"]) await cell(ann, c).click();
  await ann.click("#send-btn");
  await bob.next((m) => m.type === "event" && m.kind === "setup");
  bob.send({ type: "setup", game: code, setup: EXAMPLE.bronze });
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await tcpTurn(bob, code, EXAMPLE.turns[1]); // Ann's 6 s run now
  await ann.waitForFunction(() => window.trunkfield.sounds.some((s) => s.kind === "lowtime"), null, { timeout: 10000 });
  await ann.waitForSelector(".pcard.silver .clock.low");
  await ann.waitForSelector("#result:not([hidden])", { timeout: 15000 });
  assert.match(await ann.textContent("#result-why"), /^AnnT ran out of time\.$/);
  assert.equal((await hooks(ann)).sounds.filter((s) => s === "lowtime").length, 1);
  bob.close();
  await ann.context().close();
});

test("a premove is sent when the opponent's turn arrives, or cancelled when it became illegal", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnP");
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.keyboard.press("Enter");
  await silverTurn(bob);
  // while Bob thinks: e1-e2 (collect), kept as a premove
  await ann.waitForSelector("#status[data-phase=premove]");
  await clickTurn(ann, { elephant: { from: [5, 1], path: [[5, 2]] } }, 9);
  assert.match(await ann.textContent("#send-btn"), /premove/i);
  await ann.keyboard.press("Enter");
  await ann.waitForSelector("#board .hl-premove");
  await ann.screenshot({ path: path.join(ART, "premove.png") });
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  const ev = await silverTurn(bob); // played without a click
  assert.deepEqual(ev.payload.turn.elephant, { from: [5, 1], path: [[5, 2]] });
  await ann.waitForSelector("#notice:has-text('Premove e1-e2 played')");
  // a premove onto a1 (c1-b1-a1:E), then Bob's a2-a1 takes the cell: it is cancelled
  await ann.waitForSelector("#status[data-phase=premove]");
  await clickTurn(ann, { elephant: { from: [3, 1], path: [[2, 1], [1, 1]], facing: "E" } }, 9);
  await ann.keyboard.press("Enter");
  await tcpTurn(bob, code, { elephant: { from: [1, 2], path: [[1, 1]], facing: "E" } });
  await ann.waitForSelector("#notice:has-text('cancelled')");
  assert.equal((await gameOf(ann)).toMove, "silver", "nothing was sent: it is Ann's turn");
  bob.close();
  await ann.context().close();
});

test("a path can be dragged: press on the elephant, move through the cells, release", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnD");
  const { bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  const centre = async (name) => {
    const b = await cell(ann, name).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  // g1 -> f1 -> f2 (collects the trunk on f2): one gesture
  await ann.mouse.move(...(await centre("g1")));
  await ann.mouse.down();
  for (const c of ["f1", "f2"]) await ann.mouse.move(...(await centre(c)), { steps: 6 });
  await ann.mouse.up();
  assert.match(await ann.textContent("#draft-notation"), /^Turn: g1-f1-f2$/);
  await ann.click("#send-btn");
  await silverTurn(bob);
  bob.close();
  await ann.context().close();
});

test("earlier positions can be browsed from the turn list and with the arrow keys", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnB");
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await silverTurn(bob);
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  await waitMyTurn(ann);
  const at = () => ann.getAttribute("#board", "data-browse");
  const c1 = () => ann.getAttribute('#board [data-piece="e:3,1"]', "data-facing").catch(() => null);
  assert.equal(await at(), "live");
  await ann.click('#turn-log .turn-btn[data-index="1"]');
  assert.equal(await at(), "1");
  await ann.waitForSelector("#browse-bar:not([hidden])");
  assert.equal(await c1(), "S", "after turn 1 c1 faces south");
  await ann.keyboard.press("ArrowLeft");
  assert.equal(await at(), "0");
  assert.equal(await c1(), "N", "before it, c1 faced north");
  await ann.screenshot({ path: path.join(ART, "browse.png") });
  await ann.keyboard.press("ArrowRight");
  await ann.keyboard.press("ArrowRight");
  assert.equal(await at(), "live", "past the last turn is the live position");
  await ann.keyboard.press("Home");
  assert.equal(await at(), "0");
  await ann.click("#browse-live");
  assert.equal(await at(), "live");
  assert.ok(await ann.isVisible("#send-btn"), "back to live, the turn can be played");
  bob.close();
  await ann.context().close();
});

test("after a game: 'Rematch' offers one; 'New game, same settings' works", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnR");
  const { code, bob } = await exampleGame(ann, server);
  bob.send({ type: "resign", game: code });
  await ann.waitForSelector("#result:not([hidden])");
  await ann.click("#rematch-btn");
  const offer = await bob.next((m) => m.type === "event" && m.kind === "rematch_offer");
  assert.equal(offer.payload.side, "silver");
  await ann.click("#again-btn");
  await ann.waitForURL((u) => /\/g\/[A-Za-z0-9_-]+$/.test(u.pathname) && !u.pathname.endsWith(code));
  await ann.waitForSelector("#status:has-text('Waiting for an opponent')");
  const g = await gameOf(ann);
  assert.equal(g.side, "silver", "the same colour");
  bob.close();
  await ann.context().close();
});

test("a rematch offer (the events the server will send) can be accepted or declined", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnRO");
  const { code, bob } = await exampleGame(ann, server);
  bob.send({ type: "resign", game: code });
  await ann.waitForSelector("#result:not([hidden])");
  const sent = await ann.evaluateHandle(() => {
    const out = [];
    const c = window.trunkfield.conn;
    const orig = c.send.bind(c);
    c.send = (m) => (m.type.startsWith("rematch") ? out.push(m) : orig(m));
    return out;
  });
  const offer = (kind, payload) => ann.evaluate(([c, k, p]) => window.trunkfield.deliver({ type: "event", game: c, kind: k, payload: p,
    version: window.trunkfield.S.games.get(c).version, clocks: null }), [code, kind, payload]);
  await offer("rematch_offer", { side: "bronze" });
  await ann.waitForSelector("#rematch-answer:not([hidden])");
  assert.match(await ann.textContent("#rematch-note"), /Bob offers a rematch/);
  await ann.click("#rematch-decline");
  assert.deepEqual(await sent.jsonValue(), [{ type: "rematch_decline", game: code }]);
  assert.match(await ann.textContent("#rematch-note"), /You declined/);
  await offer("rematch_offer", { side: "bronze" });
  await ann.click("#rematch-accept");
  assert.deepEqual((await sent.jsonValue()).at(-1), { type: "rematch", game: code });
  // the server pairs them as for a quick match: `matched`, then the new game's snapshot
  const other = await TcpPlayer.connect(server.tcpPort, "Host");
  other.send({ type: "create_game", time_control: null, color: "silver", public: false });
  const { code: next } = await other.next((m) => m.type === "game_created");
  await ann.evaluate((n) => window.trunkfield.deliver({ type: "matched", code: n, link: `/g/${n}`, side: "bronze" }), next);
  await ann.waitForURL(new RegExp(`/g/${next}$`));
  bob.close();
  other.close();
  await ann.context().close();
});

test("a rematch offered by one player and accepted by the other starts a new game, colours swapped", async () => {
    const ann = await newPlayer(browser, server.base, problems, "AnnRM");
    const bob = await newPlayer(browser, server.base, problems, "BobRM");
    const sam = await newPlayer(browser, server.base, problems, "SamRM");
    await ann.selectOption("#cv-size", "5");
    await ann.selectOption("#cv-color", "silver");
    await ann.click("#create-btn");
    await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    const code = new URL(ann.url()).pathname.split("/")[2];
    await bob.goto(`${server.base}/g/${code}`);
    await bob.click("#join-seat");
    await sam.goto(`${server.base}/g/${code}`);
    await sam.waitForSelector("#board svg");
    await ann.waitForSelector("#resign-btn:not([hidden])");
    await ann.click("#resign-btn");
    await ann.click("#resign-btn");
    await bob.waitForSelector("#result:not([hidden])");
    await ann.click("#rematch-btn");
    await bob.waitForSelector("#rematch-answer:not([hidden])");
    await bob.click("#rematch-accept");
    for (const p of [ann, bob]) await p.waitForURL((u) => !u.pathname.endsWith(code));
    assert.equal(new URL(ann.url()).pathname, new URL(bob.url()).pathname);
    // `matched` moves the page to the new game; its snapshot follows (PROTOCOL.md "Rematch").
    for (const p of [ann, bob])
      await p.waitForFunction(() => {
        const S = window.trunkfield.S;
        return !!S.games.get(S.route.code)?.state;
      });
    assert.equal((await gameOf(ann)).side, "bronze");
    assert.equal((await gameOf(bob)).side, "silver");
    await sam.waitForSelector("#rematch-next:not([hidden])");
    for (const p of [ann, bob, sam]) await p.context().close();
  });

test("against the computer: 'Play again' starts a new game with the same settings", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnC");
  await ann.selectOption("#cv-opponent", "1");
  await ann.selectOption("#cv-size", "7");
  await ann.selectOption("#cv-elephants", "3");
  await ann.selectOption("#cv-color", "silver");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const first = new URL(ann.url()).pathname;
  await ann.waitForSelector("#resign-btn:not([hidden])");
  await ann.click("#resign-btn");
  await ann.click("#resign-btn");
  await ann.waitForSelector("#result:not([hidden])");
  assert.match(await ann.textContent("#result-why"), /AnnC resigned/);
  assert.equal(await ann.textContent("#again-btn"), "Play again");
  await ann.click("#again-btn");
  await ann.waitForURL((u) => u.pathname !== first && /\/g\//.test(u.pathname));
  await ann.waitForFunction(() => {
    const S = window.trunkfield.S;
    const G = S.games.get(S.route.code);
    return G?.state && G.players.bronze?.id?.startsWith("bot") && G.state.variant.size === 7 && G.state.variant.elephants === 3;
  });
  assert.equal((await gameOf(ann)).side, "silver");
  await ann.context().close();
});

test("a double click on Create makes one game, against a player or the computer", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnDbl");
  const mine = () => ann.evaluate(async () => {
    const S = window.trunkfield.S;
    const token = localStorage.getItem("trunkfield.token");
    const r = await fetch(`/api/games?player=${S.me.player_id}`, { headers: { Authorization: `Bearer ${token}` } });
    return (await r.json()).games.length;
  });
  await ann.selectOption("#cv-opponent", "");
  await ann.dblclick("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  await sleep(500); // a second game would be made by now
  assert.equal(await mine(), 1);
  await ann.goto(server.base + "/");
  await ann.waitForSelector("#conn.conn-online");
  await ann.selectOption("#cv-opponent", "1");
  await ann.dblclick("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  await sleep(500);
  assert.equal(await mine(), 2);
  await ann.context().close();
});

test("the client in French: chosen from the browser's language, with the rules' reasons translated", async () => {
  const ann = await newPlayer(browser, server.base, problems, "Anne", DESKTOP, { locale: "fr-FR" });
  assert.equal(await ann.textContent(".nav a[data-view=lobby]"), "Salon");
  assert.equal(await ann.getAttribute("html", "lang"), "fr");
  assert.equal(await ann.textContent("#qm-btn"), "Trouver un adversaire");
  await ann.fill("#join-code", "zzzzzz");
  await ann.click("#join-btn");
  await ann.waitForSelector("#lobby-error:not([hidden])");
  assert.equal(await ann.textContent("#lobby-error"), "cette partie n'existe pas (elle s'est peut-être terminée il y a un moment)");
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  assert.match(await ann.textContent("#status"), /^À vous/);
  await cell(ann, "a2").click(); // bronze's elephant
  await ann.waitForSelector("#error:not([hidden])");
  assert.equal(await ann.textContent("#error"), "Pas permis : ce n'est pas un de vos éléphants");
  await ann.screenshot({ path: path.join(ART, "french-game.png") });
  bob.send({ type: "resign", game: code });
  await ann.waitForSelector("#result:not([hidden])");
  assert.equal(await ann.textContent("#result-why"), "Bob a abandonné.");
  await ann.goto(`${server.base}/#how`);
  await ann.waitForSelector("[data-diagram=capture] svg");
  assert.equal(await ann.textContent("#how-h"), "Comment jouer à Trunkfield");
  await ann.screenshot({ path: path.join(ART, "french-how.png"), fullPage: true });
  // the switch: English, remembered
  await ann.selectOption("#lang-select", "en");
  assert.equal(await ann.textContent("#how-h"), "How to play Trunkfield");
  await ann.reload();
  await ann.waitForSelector("#conn.conn-online");
  assert.equal(await ann.textContent(".nav a[data-view=lobby]"), "Lobby");
  bob.close();
  await ann.context().close();
});

test("on a phone the clocks and both players are right above and below the board, cells are big, Send in reach", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnPh", PHONE);
  await ann.selectOption("#cv-size", "7");
  await ann.selectOption("#cv-elephants", "3");
  await ann.selectOption("#cv-color", "silver");
  await ann.selectOption("#cv-time", "300000/5000");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  const bob = await TcpPlayer.connect(server.tcpPort, "BobPh");
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot");
  await ann.waitForSelector("#send-btn:not([hidden])");
  for (const c of ["b1", "d1", "f1", "Sa", "W4"]) await cell(ann, c).click();
  await ann.click("#send-btn");
  await bob.next((m) => m.type === "event" && m.kind === "setup");
  bob.send({ type: "setup", game: code, setup: { elephants: [[1, 2], [1, 3], [1, 6]], guardians: [[8, 8], [8, 0]] } });
  await waitMyTurn(ann);
  await cell(ann, "b1").click(); // an elephant chosen: the draft and Send are in play
  await ann.evaluate(() => window.scrollTo(0, 0));
  // positions on the page (not the viewport, which a click may have scrolled)
  const box = (sel) => ann.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y + scrollY, width: r.width, height: r.height };
  });
  const [top, board, bottom, status, send] = await Promise.all(["#card-top", "#board svg", "#card-bottom", "#status", "#send-btn"].map(box));
  const cellPx = board.width / 9;
  assert.ok(cellPx >= 40, `cells are ${cellPx.toFixed(1)} px`);
  assert.ok(Math.abs(top.y + top.height - board.y) < 12, "the opponent's card is right above the board");
  assert.ok(Math.abs(bottom.y - (board.y + board.height)) < 12, "the player's card is right below the board");
  assert.ok(await ann.locator("#card-top .clock").count() === 1 && await ann.locator("#card-bottom .clock").count() === 1, "both clocks on the cards");
  assert.ok(status.y > bottom.y && send.y > status.y, "status then Send below the cards");
  assert.ok(send.y + send.height <= 844, `Send is on the first screen (bottom at ${send.y + send.height})`);
  await ann.screenshot({ path: path.join(ART, "phone-7x7.png"), fullPage: true });
  bob.close();
  await ann.context().close();
});

test("How to play is drawn with the game's own board, and its practice is checked by the rules", async () => {
  const sam = await newPlayer(browser, server.base, problems, "SamH", PHONE);
  await sam.goto(`${server.base}/#how`);
  await sam.waitForSelector("[data-diagram=exit] svg.board-svg");
  assert.equal(await sam.locator("#howto img").count(), 0, "no separate pictures");
  assert.equal(await sam.locator("#howto .diagram svg.board-svg").count(), 5);
  const board = "#practice-board";
  // 1. move: b1 -> c1, facing east
  await clickTurn(sam, { elephant: { from: [2, 1], path: [[3, 1]], facing: "E" } }, 5, board);
  await sam.click("#practice-send");
  await sam.waitForSelector("#practice-feedback[data-solved='1']");
  // 5. capture: d1-d2, then the guardian W5 -> W4
  await sam.click('#practice-tabs [data-lesson="capture"]');
  await clickTurn(sam, { elephant: { from: [4, 1], path: [[4, 2]] }, guardians: [{ from: [0, 5], dir: "ccw", steps: 1 }] }, 5, board);
  await sam.waitForSelector(`${board} .capture-mark`);
  await sam.click("#practice-send");
  await sam.waitForSelector("#practice-feedback[data-solved='1']");
  await sam.locator("#practice").screenshot({ path: path.join(ART, "practice-capture.png") });
  // 6. exit, with a move the rules refuse first (c4 cannot step onto the trunk on d4 sideways)
  await sam.click('#practice-tabs [data-lesson="exit"]');
  await cell(sam, "c4", board).click();
  await cell(sam, "d4", board).click();
  await sam.waitForSelector("#practice-feedback:not([hidden])");
  await sam.click("#practice-reset");
  await clickTurn(sam, { elephant: { from: [3, 4], path: [[3, 5], [3, 6]] } }, 5, board);
  await sam.click("#practice-send");
  await sam.waitForSelector("#practice-feedback[data-solved='1']");
  // 3. collect, done wrongly: a sideways move is legal but not the lesson
  await sam.click('#practice-tabs [data-lesson="collect"]');
  await clickTurn(sam, { elephant: { from: [3, 1], path: [[4, 1]], facing: "N" } }, 5, board);
  await sam.click("#practice-send");
  await sam.waitForSelector("#practice-feedback[data-solved='0']");
  await sam.context().close();
});

test("chat can be hidden, and stays hidden", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnCh");
  const { code, bob } = await exampleGame(ann, server);
  bob.send({ type: "chat", game: code, text: "hello" });
  await ann.waitForSelector("#chat-log .chat-line");
  await ann.click("#chat-toggle");
  assert.ok(await ann.isHidden("#chat-log"));
  await ann.reload();
  await ann.waitForSelector("#board svg");
  assert.ok(await ann.isHidden("#chat-log"), "hidden after a reload");
  bob.send({ type: "chat", game: code, text: "again" });
  await ann.waitForSelector("#chat-toggle:has-text('1 new')");
  await ann.click("#chat-toggle");
  await ann.waitForSelector("#chat-log .chat-line:has-text('again')");
  bob.close();
  await ann.context().close();
});

test("spectators talk in a room of their own", async () => {
  const ann = await newPlayer(browser, server.base, problems, "AnnSR");
  const { code, bob } = await exampleGame(ann, server);
  const sam = await newPlayer(browser, server.base, problems, "SamSR", DESKTOP, { path: `/g/${code}` });
  const tom = await newPlayer(browser, server.base, problems, "TomSR", DESKTOP, { path: `/g/${code}` });
  await sam.fill("#chat-input", "between us");
  await sam.click("#chat-form button[type=submit]");
  await tom.waitForSelector("#chat-log .chat-line.spect-room");
  await sleep(500);
  assert.equal(await ann.locator("#chat-log .chat-line").count(), 0, "the players do not see the spectators' room");
  bob.close();
  for (const p of [ann, sam, tom]) await p.context().close();
});

test("visitors without a name get distinct guest names", async () => {
  const a = await newPlayer(browser, server.base, problems, null);
  const b = await newPlayer(browser, server.base, problems, null);
  const na = await a.evaluate(() => window.trunkfield.S.me.name);
  const nb = await b.evaluate(() => window.trunkfield.S.me.name);
  assert.match(na, /^guest-/);
  assert.notEqual(na, nb);
  await a.context().close();
  await b.context().close();
});

test("every answer carries the security headers; text comes compressed", async () => {
  for (const p of ["/", "/g/abcdef", "/healthz", "/api/games", "/nope"]) {
    const res = await fetch(server.base + p);
    assert.equal(res.headers.get("content-security-policy"), CSP, p);
    assert.equal(res.headers.get("referrer-policy"), "no-referrer", p);
  }
  const html = await (await fetch(server.base + "/")).text();
  const app = html.match(/src="(\/app\.[0-9a-f]{10}\.js)"/)[1];
  for (const [enc, want] of [["br, gzip", "br"], ["gzip", "gzip"], ["identity", null]]) {
    const r = await fetch(server.base + app, { headers: { "Accept-Encoding": enc } });
    assert.equal(r.headers.get("content-encoding"), want, enc);
    assert.equal(r.headers.get("vary"), "Accept-Encoding");
    assert.ok((await r.text()).includes("Trunkfield web client"), "decoded, it is the bundle");
  }
});

test("the lobby works before the rules are loaded; a game waits for them", async () => {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  let release;
  const held = new Promise((r) => (release = r));
  await ctx.route(/trunkfield-rules\.[0-9a-f]{10}\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  const page = problems.watch(await ctx.newPage(), "slow");
  await page.goto(server.base + "/");
  await page.waitForSelector("#lobby:not([hidden]) #qm-btn");
  await page.waitForSelector("#conn.conn-online");
  assert.equal(await page.evaluate(() => window.trunkfield.rulesReady), false, "the rules are still on their way");
  await page.click("#create-btn"); // the lobby works: a game is created...
  await page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  await page.waitForSelector("#status:has-text('Loading the rules')"); // ...and waits for the rules
  release();
  await page.waitForSelector("#board svg");
  await page.waitForSelector("#status:has-text('Waiting for an opponent')");
  await ctx.close();
});
