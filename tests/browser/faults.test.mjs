// The faults of issue 20, one test each, against the real trunkfield-server in headless chromium.
// Each test failed on the client before its fix (see the commit that fixed it); they observe
// the page as a player does (what is drawn where, what the lists say), not how it is built.
// The opponent is a scripted TCP client playing the example game of docs/RULES.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, PHONE, DESKTOP, serverAndBrowser, PageProblems, TcpPlayer, newPlayer, exampleGame, tcpTurn,
  clickTurn, waitMyTurn, gameOf, cell, EXAMPLE, sleep } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

// Ann (silver, browser) against Bob (bronze, TCP) in the example game, after its first two turns:
// b1-d1:N (c1 jumped: it faces south now) and a3-b3. Ann is to move.
async function afterTwoTurns(name, viewport = DESKTOP) {
  const ann = await newPlayer(browser, server.base, problems, name, viewport);
  const { code, bob } = await exampleGame(ann, server);
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");
  await tcpTurn(bob, code, EXAMPLE.turns[1]);
  await waitMyTurn(ann);
  return { ann, bob, code };
}

// The facing marker of the elephant on `cell` and every shape painted above it that overlaps
// it (later in the SVG, not part of the same piece).
function coveredFacing(page, cellName) {
  return page.evaluate((name) => {
    const svg = document.querySelector("#board svg");
    const cellEl = svg.querySelector(`[data-name="${name}"]`);
    const cb = cellEl.getBoundingClientRect();
    const centre = [cb.x + cb.width / 2, cb.y + cb.height / 2];
    const pieces = [...svg.querySelectorAll(".elephant")].filter((e) => {
      const b = e.getBoundingClientRect();
      return Math.abs(b.x + b.width / 2 - centre[0]) < cb.width / 2 && Math.abs(b.y + b.height / 2 - centre[1]) < cb.height / 2;
    });
    const piece = pieces.at(-1);
    const marker = piece?.querySelector(".nose, .facing");
    if (!marker) return { error: `no facing marker on ${name}` };
    const mb = marker.getBoundingClientRect();
    const all = [...svg.querySelectorAll("circle, rect, path, polyline, line, ellipse, polygon, text")];
    const after = all.slice(all.indexOf(marker) + 1).filter((e) => !piece.contains(e));
    const over = after.filter((e) => {
      const b = e.getBoundingClientRect();
      const style = getComputedStyle(e);
      if (style.display === "none" || style.visibility === "hidden" || Number(style.opacity) === 0) return false;
      return b.width > 0 && b.x < mb.right && b.right > mb.x && b.y < mb.bottom && b.bottom > mb.y;
    });
    return { size: Math.min(mb.width, mb.height), covered: over.map((e) => `${e.tagName}.${e.getAttribute("class") ?? ""}`) };
  }, cellName);
}

test("fault 1: an elephant's facing is never covered by highlights, and is big enough on a phone", async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const { ann, bob } = await afterTwoTurns(viewport === PHONE ? "Ann1p" : "Ann1", viewport);
    // c1 was jumped and faces south; it can move, so it is marked as movable
    const r = await coveredFacing(ann, "c1");
    assert.ok(!r.error, r.error);
    await ann.screenshot({ path: path.join(ART, `fault1-facing-${viewport === PHONE ? "phone" : "desktop"}.png`) });
    assert.deepEqual(r.covered, [], "the facing of c1 is painted over by highlights");
    assert.ok(r.size >= (viewport === PHONE ? 5 : 8), `the facing marker is only ${r.size.toFixed(1)} px`);
    assert.equal(await ann.getAttribute('#board [data-piece="e:3,1"]', "data-facing"), "S");
    bob.close();
    await ann.context().close();
  }
});

test("fault 2: capture notes are the same after a reload and for a spectator who comes later", async () => {
  const { ann, bob, code } = await afterTwoTurns("Ann2");
  await clickTurn(ann, EXAMPLE.turns[2], 9); // d1-d2 W5-1 captures bronze's a4
  await ann.click("#send-btn");
  await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");
  const third = async (p) => {
    const item = p.locator("#turn-log li:has(.num)").nth(2); // the third turn
    await item.waitFor();
    return item.textContent();
  };
  assert.match(await third(ann), /a4/, "seen live");
  await ann.reload();
  await ann.waitForSelector("#board svg");
  assert.match(await third(ann), /a4/, "after a reload");
  const sam = await newPlayer(browser, server.base, problems, "Sam2", PHONE, { path: `/g/${code}` });
  assert.match(await third(sam), /a4/, "for a spectator joining later");
  await sam.screenshot({ path: path.join(ART, "fault2-spectator-captures.png"), fullPage: true });
  bob.close();
  await ann.context().close();
  await sam.context().close();
});

test("fault 3: a dead connection is noticed, and a turn sent meanwhile is sent again and confirmed", async () => {
  const { ann, bob, code } = await afterTwoTurns("Ann3");
  server.proc.kill("SIGSTOP"); // the server stops answering, its sockets stay open
  try {
    await clickTurn(ann, EXAMPLE.turns[2], 9);
    await ann.click("#send-btn");
    await ann.waitForSelector("#conn:not(.conn-online)", { timeout: 20000 });
    const status = await ann.textContent("#status");
    assert.doesNotMatch(status, /waiting for the server to confirm/i, "the status says the turn is stuck, not just waiting");
  } finally {
    server.proc.kill("SIGCONT");
  }
  await ann.waitForSelector("#conn.conn-online", { timeout: 20000 });
  await ann.waitForFunction((c) => {
    const G = window.trunkfield.S.games.get(c);
    return !G.pending && G.state.turns_played === 3;
  }, code, { timeout: 20000 });
  await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");
  assert.equal((await gameOf(ann)).toMove, "bronze");
  // the browser says the network is gone: "offline" at once, back online when it returns
  await ann.context().setOffline(true);
  await ann.waitForSelector("#conn.conn-offline", { timeout: 5000 });
  await ann.context().setOffline(false);
  await ann.waitForSelector("#conn.conn-online", { timeout: 20000 });
  bob.close();
  await ann.context().close();
});

test("fault 4: guardians are not offered when no trunk can pay for their move", async () => {
  const { ann, bob } = await afterTwoTurns("Ann4");
  assert.equal((await gameOf(ann)).trunks, 0);
  // e1-f1:N collects nothing: the turn could go on with guardian moves only if Ann held trunks
  await clickTurn(ann, { elephant: { from: [5, 1], path: [[6, 1]], facing: "N" } }, 9);
  await ann.waitForSelector("#send-btn:not([disabled])");
  for (const g of ["Sa", "W5"])
    assert.equal(await cell(ann, g).evaluate((e) => e.classList.contains("cand")), false, `guardian ${g} is offered with 0 trunks`);
  // clicking one anyway says why, and leaves the turn ready to send
  await cell(ann, "W5").click();
  await ann.waitForSelector("#error:not([hidden])");
  assert.ok(!(await ann.isDisabled("#send-btn")), "Send stays available");
  bob.close();
  await ann.context().close();
});

test("fault 5: presence goes to the player cards, never into the turn list", async () => {
  const { ann, bob, code } = await afterTwoTurns("Ann5");
  const sam = await newPlayer(browser, server.base, problems, "Sam5", DESKTOP, { path: `/g/${code}` });
  await sam.waitForSelector("#turn-log li:nth-child(2)");
  const token = bob.me.token;
  const away = (p, v) => p.waitForFunction(([c, want]) => !!window.trunkfield.S.games.get(c)?.away?.bronze === want, [code, v]);
  const turnList = async (p) => {
    const items = await p.$$eval("#turn-log li", (lis) => lis.map((li) => li.textContent));
    assert.equal(items.length, 2, `the turn list holds the 2 turns only: ${JSON.stringify(items)}`);
    assert.ok(items.every((t) => !/back|lost|connect|left|joined/i.test(t)), JSON.stringify(items));
  };
  bob.close(); // Bob's only connection goes: his seat is away
  await away(sam, true);
  await away(ann, true);
  await turnList(sam);
  await sam.waitForSelector('.pcard.bronze [data-presence="away"]');
  await ann.waitForSelector('.pcard.bronze [data-presence="away"]');
  const bob2 = await TcpPlayer.connect(server.tcpPort, null, token);
  bob2.send({ type: "watch", code, since_version: 0 });
  await away(sam, false);
  await sam.waitForSelector('.pcard.bronze [data-presence="here"]');
  await ann.reload(); // and Ann reloads her page
  await ann.waitForSelector("#board svg");
  await sleep(500);
  for (const p of [sam, ann]) await turnList(p);
  bob2.close();
  await ann.context().close();
  await sam.context().close();
});

test("fault 6: the result says who won and why, with the final score, next to the board", async () => {
  const { ann, bob, code } = await afterTwoTurns("Ann6");
  bob.send({ type: "resign", game: code });
  const shown = await ann.waitForSelector("#result:not([hidden]), #banner:not([hidden])");
  const text = await shown.textContent();
  assert.match(text, /Bob resigned/);
  assert.match(text, /Ann6 wins with silver\./);
  assert.match(text, /Silver 0 – 1 Bronze/);
  assert.ok(await ann.$eval("#result", (e) => !!e.closest(".game-grid")), "the result is part of the game screen, next to the board");
  const box = await ann.$eval("#result", (e) => ({ ...e.getBoundingClientRect().toJSON(), vh: innerHeight }));
  assert.ok(box.y >= 0 && box.bottom <= box.vh, "the result is visible without scrolling");
  // the other endings, as the rules and the server report them
  const endings = [
    [{ reason: "herd", winner: "silver", score: { silver: 9, bronze: 2 } }, /Bronze's herd has left the field/, (st) => (st.players.bronze.on_field = 0)],
    [{ reason: "time", winner: "bronze", score: { silver: 3, bronze: 1 } }, /Ann6 ran out of time/],
    [{ reason: "agreement", winner: "draw", score: { silver: 1, bronze: 1 } }, /agreed to a draw/],
    [{ reason: "trunks", winner: "silver", score: { silver: 5, bronze: 4 } }, /No trunk is left/],
    [{ reason: "abandon", winner: "silver", score: { silver: 0, bronze: 0 } }, /Bob left the game/],
    [{ reason: "aborted", winner: null, score: { silver: 0, bronze: 0 } }, /aborted/],
  ];
  for (const [result, re, tweak] of endings) {
    await ann.evaluate(([c, r, tw]) => {
      const G = window.trunkfield.S.games.get(c);
      G.result = { over: true, to_move: null, ...r };
      if (tw) G.state.players.bronze.on_field = 0;
      window.trunkfield.app.render();
    }, [code, result, !!tweak]);
    assert.match(await ann.textContent("#result"), re, result.reason);
  }
  await ann.context().close();
});

test("fault 7: while a turn is pending no stale selection or draft path is drawn", async () => {
  const { ann, bob } = await afterTwoTurns("Ann7");
  // hold Ann's turn on its way for a while
  await ann.evaluate(() => {
    const c = window.trunkfield.conn;
    const orig = c.send.bind(c);
    c.send = (m) => {
      if (m.type === "turn") {
        c.send = orig;
        return setTimeout(() => orig(m), 1500);
      }
      return orig(m);
    };
  });
  await clickTurn(ann, { elephant: { from: [7, 1], path: [[6, 1], [6, 2]] } }, 9); // g1-f1-f2 collects f2
  await ann.click("#send-btn");
  assert.equal((await gameOf(ann)).pending, true);
  const stale = await ann.$$eval("#board .draft-path, #board .ghost, #board .hl-selected, #board .facing-arrow", (els) => els.length);
  await ann.screenshot({ path: path.join(ART, "fault7-pending.png") });
  assert.equal(stale, 0, "selection, draft path or ghost drawn over the predicted position");
  assert.ok(await ann.$$eval("#board .hl-last", (els) => els.length) > 0, "the turn sent is shown as the last move");
  await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");
  bob.close();
  await ann.context().close();
});

test("fault 8: the live list shows the players' presence and hides games both players left", async () => {
  const sam = await newPlayer(browser, server.base, problems, "Sam8");
  const live = (code, away) => ({ code, variant: { size: 9, elephants: 5, burnt: 3, quiet: 40 }, time_control: null,
    players: { silver: { id: "p1", name: `Ann-${code}` }, bronze: { id: "p2", name: `Bob-${code}` } }, turns: 4, to_move: "silver",
    score: { silver: 1, bronze: 0 }, spectators: 0, status: "playing", ...(away ? { away } : {}) });
  // the list as the server will send it (proto: live entries gain "away"). The server's own
  // lists (sent on connecting, and whenever a game changes) replace it: it is set, drawn and read
  // in one step of the page, again until the lobby is on screen.
  const games = [live("aaaaaa", { silver: true, bronze: false }), live("bbbbbb", { silver: true, bronze: true }), live("cccccc", null)];
  const seen = await (await sam.waitForFunction((games) => {
    window.trunkfield.S.live = games;
    window.trunkfield.app.render();
    const li = (code) => document.querySelector(`#live-games li[data-code="${code}"]`);
    if (!li("aaaaaa")) return null;
    return { both: !!li("bbbbbb"), who: li("aaaaaa").querySelector(".who").textContent,
      away: li("aaaaaa").querySelectorAll("[data-side=silver] .presence.away").length,
      plain: li("cccccc")?.querySelector(".who")?.textContent };
  }, games)).jsonValue();
  assert.equal(seen.both, false, "a game both players left is listed");
  assert.match(seen.who, /Ann-aaaaaa \(away\) – Bob-aaaaaa$/);
  assert.equal(seen.away, 1);
  // without the field (today's server) nothing is claimed
  assert.equal(seen.plain, "Ann-cccccc – Bob-cccccc");
  await sam.screenshot({ path: path.join(ART, "fault8-live-presence.png") });
  await sam.context().close();
});

test("fault 8, with the server: a game both players left leaves the live list", async () => {
  const sam = await newPlayer(browser, server.base, problems, "Sam8s");
  const a = await TcpPlayer.connect(server.tcpPort, "A8");
  const b = await TcpPlayer.connect(server.tcpPort, "B8");
  a.send({ type: "create_game", time_control: null, color: "silver", public: true, variant: { size: 5, elephants: 2, burnt: 1, quiet: 20 } });
  const { code } = await a.next((m) => m.type === "game_created");
  b.send({ type: "join_game", code });
  await b.next((m) => m.type === "snapshot");
  await sam.waitForSelector(`#live-games li[data-code="${code}"]`);
  a.close();
  await sam.waitForSelector(`#live-games li[data-code="${code}"] [data-side=silver] .presence.away`);
  b.close();
  await sam.waitForSelector(`#live-games li[data-code="${code}"]`, { state: "detached" });
  await sam.context().close();
});
