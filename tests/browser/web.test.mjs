// End-to-end test of the web client in headless Debian chromium (playwright-core, never a
// downloaded browser), against the real trunkfield-server:
// - static serving;
// - two players create (one shares the link) and join a small game and play it to the end by
//   clicking on the board, choosing among the moves the page offers; on the way: an illegal
//   click explained, keyboard selection and Escape, a guardian move with its cost shown first,
//   a burnt trunk, a refused turn rolled back, a connection drop, a reload, names and chat
//   that look like HTML; a third player on a phone viewport watches from the live list and sees
//   the same final score;
// - the spectator count reaches the players; the finished game opens in the replay viewer and
//   in the player's finished-games list; quick match; a game against the computer.
// Env: TF_SERVER_BIN (trunkfield-server), TF_WEB_ROOT (the build's web/), TF_ARTIFACTS (screenshots).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { ART, DESKTOP, PHONE, startServer, launchBrowser, PageProblems, sleep, cell, gameOf, version, waitMyTurn } from "./lib.mjs";

const XSS_NAME = "<img src=x onerror=__xss=1>";
const XSS_CHAT = "<img src=x onerror=__xss=2> <b>bold?</b>";

let srv, base, browser;
const problems = new PageProblems();

// A raw HTTP/1.1 request, so the target reaches the server exactly as written (no URL
// normalisation by a client library).
function rawGet(target) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), hostname, () => {
      s.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    let data = "";
    s.on("data", (d) => (data += d.toString("latin1")));
    s.on("end", () => resolve({ status: Number(data.split(" ")[1]), text: data }));
    s.on("error", reject);
  });
}

before(async () => {
  srv = await startServer();
  base = srv.base;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  srv?.stop();
  assert.deepEqual(problems.list, [], "no uncaught errors and no CSP violation in the pages");
});

test("static files: content types, game links, no traversal", async () => {
  const html = await (await fetch(base + "/")).text();
  const app = html.match(/src="(\/app\.[0-9a-f]{10}\.js)"/)?.[1];
  const css = html.match(/href="(\/style\.[0-9a-f]{10}\.css)"/)?.[1];
  const mjs = html.match(/href="(\/trunkfield-rules\.[0-9a-f]{10}\.mjs)"/)?.[1];
  const wasm = html.match(/href="(\/trunkfield-rules\.[0-9a-f]{10}\.wasm)"/)?.[1];
  assert.ok(app && css && mjs && wasm, "index.html names the hashed bundle, style sheet, rules module and .wasm");
  const types = {
    "/": "text/html", "/g/abc123": "text/html", [app]: "text/javascript", [mjs]: "text/javascript",
    [css]: "text/css", [wasm]: "application/wasm", "/trunkfield-rules.js": "text/javascript",
    "/package.json": "application/json", "/index.html?x=1": "text/html",
  };
  for (const [p, t] of Object.entries(types)) {
    const res = await fetch(base + p);
    assert.equal(res.status, 200, p);
    assert.ok(res.headers.get("content-type").startsWith(t), `${p}: ${res.headers.get("content-type")}`);
    const hashed = /\.[0-9a-f]{10}\./.test(p);
    assert.equal(res.headers.get("cache-control"), hashed ? "public, max-age=31536000, immutable" : "no-cache", p);
    const etag = res.headers.get("etag");
    const again = await fetch(base + p, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304, `${p} revalidation`);
  }
  assert.equal((await fetch(`${base}/nope.js`)).status, 404);
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  // The build folder above the web root holds CMakeCache.txt: none of these may reach it.
  for (const t of ["/../CMakeCache.txt", "/%2e%2e/CMakeCache.txt", "/..%2fCMakeCache.txt",
    "/img/../../CMakeCache.txt", "/img/%2E%2E/%2E%2E/CMakeCache.txt", "/..\\CMakeCache.txt",
    "/%2e%2e%5cCMakeCache.txt", "//etc/passwd", "/.%2e/CMakeCache.txt", "/%00", "/img/",
    "/g/../CMakeCache.txt", "/%zz", "x"]) {
    const r = await rawGet(t);
    assert.ok(r.status === 404 || r.status === 400, `${t} -> ${r.status}`);
    assert.ok(!r.text.includes("CMAKE_"), `${t} leaked a file`);
  }
});

// --- helpers driving the page -------------------------------------------------------------
let seed = 12345;
const rnd = (n) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};

async function newPlayer(name, viewport = DESKTOP) {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  problems.watch(page, name);
  await page.goto(base + "/");
  await page.waitForSelector(".conn-online");
  await page.fill("#name-input", name);
  await page.click("#name-save");
  await page.waitForFunction((n) => window.trunkfield.S.me?.name === n, name);
  await page.waitForSelector(".conn-online");
  return page;
}

// Waits until both pages have seen the same last event of the game (the server may add events
// of its own, e.g. a player's connection leaving and coming back).
async function synced(a, b, code) {
  for (let i = 0; i < 200; i++) {
    const [va, vb] = [await version(a, code), await version(b, code)];
    if (va === vb && va > 0) return;
    await sleep(100);
  }
  assert.fail("the two pages did not reach the same game version");
}

async function doSetup(page, elephants, guardians) {
  await page.waitForSelector("#send-btn:not([hidden])");
  for (const c of [...elephants, ...guardians]) await cell(page, c).click();
  await page.waitForSelector("#send-btn:not([disabled])");
  await page.click("#send-btn");
}

// The elephant part of a turn, chosen among the cells and facings the page offers.
async function chooseElephantMove(page, onSelect = null) {
  const movable = await page.$$("#board .cand.movable");
  if (movable.length === 0) return false; // no elephant move: the turn is a pass
  await movable[rnd(movable.length)].click();
  if (onSelect) await onSelect();
  for (let i = 0; i < 8 && (await page.isDisabled("#send-btn")); i++) {
    // the facing: the arrows on the board or the buttons next to it
    const facingVisible = await page.isVisible("#facing");
    const faces = facingVisible ? await page.$$(rnd(2) ? "#facing button:not([hidden])" : "#board .facing-arrow") : [];
    const next = await page.$$("#board .cand:not(.movable)");
    const options = faces.length + next.length;
    assert.ok(options > 0, "the page offers a way to continue the move");
    const k = rnd(options);
    if (k < faces.length) await faces[k].click();
    else await next[k - faces.length].click();
  }
  assert.ok(!(await page.isDisabled("#send-btn")), "the move is complete");
  return true;
}

async function playTurn(page, onSelect = null) {
  await chooseElephantMove(page, onSelect);
  await page.click("#send-btn");
}

// --- the main game ---------------------------------------------------------------------------
const shared = { code: null, score: null, turns: 0, spectatorCountSeen: null, ann: null, bob: null, spectator: null };

test("two players play a game to the end; a spectator, a drop and a reload follow", async () => {
  const ann = await newPlayer("Ann");
  const bob = await newPlayer(XSS_NAME);
  shared.ann = ann;
  shared.bob = bob;
  // create: 5x5, 2 elephants, 1 burnt, quiet 6, Ann plays silver
  await ann.selectOption("#cv-size", "5");
  await ann.selectOption("#cv-elephants", "2");
  await ann.selectOption("#cv-burnt", "1");
  await ann.fill("#cv-quiet", "6");
  await ann.selectOption("#cv-color", "silver");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  shared.code = code;
  await ann.waitForSelector("#status:has-text('Waiting for an opponent')");
  const link = await ann.inputValue("#share-link");
  assert.equal(link, `${base}/g/${code}`);

  // Bob sees the open game in the lobby (a pushed update); the creator's name is text
  await bob.waitForSelector(`#open-games li[data-code="${code}"]`);
  assert.equal(await bob.textContent(`#open-games li[data-code="${code}"] .who`), "Ann");
  await bob.screenshot({ path: path.join(ART, "lobby.png") });
  // The shared link opens the game with a Join button; the link also works pasted in the lobby.
  await bob.goto(link);
  await bob.waitForSelector("#join-seat:not([hidden])");
  assert.equal(await bob.textContent("#game-role"), "You are watching");
  await bob.click("#back-btn");
  await bob.fill("#join-code", link);
  await bob.click("#join-btn");
  await bob.waitForURL(new RegExp(`/g/${code}$`));
  await bob.waitForSelector("#game-role:has-text('You play bronze')");

  await doSetup(ann, ["b1", "d1"], ["Se", "SW"]);
  await bob.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Your setup"));
  await doSetup(bob, ["a2", "a4"], ["NE", "E5"]);
  // the name that looks like HTML is shown as text
  await ann.waitForSelector(".pcard.bronze .name");
  assert.equal(await ann.locator(".pcard.bronze .name").textContent(), XSS_NAME);

  const players = { silver: ann, bronze: bob };
  let spectator = null, reloaded = false, dropped = false, rolledBack = false, midShot = false;
  let explained = false, keyboard = false, guardianCost = false, burnt = false, chatted = false, lastSeen = false;
  let turns = 0;
  for (; turns < 300; turns++) {
    const st = await gameOf(ann);
    if (st.over) break;
    const page = players[st.toMove];
    const other = page === ann ? bob : ann;
    await waitMyTurn(page).catch(async (e) => {
      for (const [n, p] of [["ann", ann], ["bob", bob]])
        console.error(n, await p.evaluate(() => {
          const S = window.trunkfield.S;
          const G = S.games.get(S.route.code);
          return JSON.stringify({ conn: S.conn, me: S.me?.player_id, version: G?.version, toMove: G?.state?.to_move, phase: G?.state?.phase,
            pending: G?.pending, draft: G?.draft, history: G?.history?.length, error: G?.error, status: G?.status, result: G?.result,
            players: G?.players, statusText: document.querySelector("#status").textContent });
        }));
      throw e;
    });
    const me = { ...(await gameOf(page)), turnsPlayed: await page.evaluate((c) => window.trunkfield.S.games.get(c).state.turns_played, code) };
    if (me.over) break;
    const before = me.version;

    if (!explained && page === ann) {
      // A click the rules refuse is explained in the rules library's words.
      await cell(ann, "a2").click(); // a bronze elephant
      await ann.waitForSelector("#error:not([hidden])");
      assert.match(await ann.textContent("#error"), /^Not allowed: there is no silver elephant at a2/);
      explained = true;
    }
    if (!keyboard && page === ann && (await ann.$$("#board .cand.movable")).length) {
      // Keyboard: Enter chooses the focused cell, the arrows move the focus, Escape undoes.
      const name = await ann.getAttribute("#board .cand.movable", "data-name");
      await cell(ann, name).focus();
      await ann.keyboard.press("Enter");
      await ann.waitForFunction(() => window.trunkfield.S.games.get(window.trunkfield.S.route.code).draft.from);
      await ann.keyboard.press("ArrowUp");
      assert.notEqual(await ann.evaluate(() => document.activeElement.getAttribute("data-name")), name);
      await ann.keyboard.press("Escape");
      await ann.waitForFunction(() => !window.trunkfield.S.games.get(window.trunkfield.S.route.code).draft.from);
      keyboard = true;
    }
    if (!lastSeen && turns > 0) {
      // the opponent's last turn is highlighted
      assert.ok((await page.$$("#board .hl-last")).length > 0, "last turn highlighted");
      assert.equal(await page.locator("#turn-log .turn-btn.last").count(), 1);
      lastSeen = true;
    }

    if (turns === 6) {
      // The server refuses a turn (here: a stale version forced into the message): the page
      // rolls its prediction back to the server's position and says why; then play goes on.
      await page.evaluate(() => {
        const c = window.trunkfield.conn;
        const orig = c.send.bind(c);
        c.send = (m) => {
          if (m.type === "turn") {
            c.send = orig;
            m = { ...m, version: 0 };
          }
          orig(m);
        };
      });
      await playTurn(page);
      await page.waitForSelector("#error:has-text('refused')");
      await page.waitForFunction(() => {
        const S = window.trunkfield.S;
        const G = S.games.get(S.route.code);
        return !G.pending && !G.shown && G.draft && !G.draft.from;
      });
      // nothing was played (presence events of the drop above may still raise the version)
      assert.equal(await page.evaluate((c) => window.trunkfield.S.games.get(c).state.turns_played, code), me.turnsPlayed);
      rolledBack = true;
    }

    const shoot = !midShot && turns >= 4 && page === ann;
    const moved = await chooseElephantMove(page, shoot ? async () => {
      // the legal landing cells of the chosen elephant, from the WebAssembly rules
      assert.ok((await ann.$$("#board .cand:not(.movable)")).length > 0);
      await ann.screenshot({ path: path.join(ART, "midgame.png") });
      midShot = true;
    } : null);
    const after = await gameOf(page);
    if (!guardianCost && moved && !(await page.isVisible("#draft-captures")) && (await page.$$("#board .cand")).length) {
      // A guardian: its reachable ring cells show their cost; the draft shows the total before
      // sending; Undo takes the guardian move back.
      const held = await page.evaluate(() => {
        const S = window.trunkfield.S;
        const G = S.games.get(S.route.code);
        const side = ["silver", "bronze"].find((s) => G.players[s]?.id === S.me.player_id);
        return G.draftCache?.v?.state.players[side].trunks ?? 0;
      });
      if (held > 0) {
        const guardian = await page.getAttribute("#board .cand", "data-name");
        await cell(page, guardian).click();
        await page.waitForSelector("#status:has-text('cost in trunks')");
      }
      if (held > 0 && (await page.locator("#board .cand").count()) === 0) {
        await page.click("#undo-btn"); // this guardian is boxed in: take the choice back
      } else if (held > 0) {
        const labelled = page.locator("#board .cand").first();
        const target = await labelled.getAttribute("aria-label");
        assert.match(target, /costs \d+/);
        await labelled.click();
        await page.waitForSelector("#draft-cost");
        assert.match(await page.textContent("#draft-cost"), /^Guardian moves cost \d+ trunks?/);
        assert.match(await page.textContent("#draft-notation"), /[+-]\d/);
        await page.screenshot({ path: path.join(ART, "guardian-cost.png") });
        await page.click("#undo-btn"); // takes the guardian move back
        await page.waitForSelector("#draft-cost", { state: "detached" });
        await page.click("#undo-btn"); // and the choice of the guardian
        await page.waitForSelector("#send-btn:not([disabled])");
        guardianCost = true;
      }
    }
    if (!burnt && turns >= 2 && (await page.isVisible("#burnt-btn"))) {
      await page.click("#burnt-btn");
      const free = await page.$$("#board .cand");
      await free[rnd(free.length)].click();
      assert.match(await page.textContent("#draft-notation"), /\*[a-e][1-5]/);
      burnt = true;
      await page.click("#send-btn");
      await page.waitForFunction(([c, v]) => (window.trunkfield.S.games.get(c)?.version ?? 0) > v, [code, before]);
      assert.equal((await gameOf(page)).burnt, after.burnt + 1);
    } else {
      await page.click("#send-btn");
    }
    await ann.waitForFunction(([c, v]) => (window.trunkfield.S.games.get(c)?.version ?? 0) > v, [code, before]);
    await bob.waitForFunction(([c, v]) => (window.trunkfield.S.games.get(c)?.version ?? 0) > v, [code, before]);
    void other;

    if (turns === 1 && !spectator) {
      // a third player, on a phone, finds the game in the live list and watches it
      spectator = await newPlayer("Sam", PHONE);
      shared.spectator = spectator;
      await spectator.waitForSelector(`#live-games li[data-code="${code}"]`);
      assert.equal(await spectator.textContent(`#live-games li[data-code="${code}"] .who`), `Ann – ${XSS_NAME}`);
      await spectator.screenshot({ path: path.join(ART, "phone-lobby.png"), fullPage: true });
      await spectator.click(`#live-games li[data-code="${code}"] button.watch`);
      await spectator.waitForURL(new RegExp(`/g/${code}$`));
      await spectator.waitForSelector("#board svg");
      await spectator.waitForSelector("#game-role:has-text('You are watching')");
      assert.ok(Number(await spectator.getAttribute("#spectators", "data-count")) >= 1);
      await spectator.screenshot({ path: path.join(ART, "phone-game.png"), fullPage: true });
      // the players hear about the spectator (server event "spectators"); checked in its own test
      shared.spectatorCountSeen = await ann.waitForSelector('#spectators[data-count="1"]', { timeout: 3000 })
        .then(() => true, () => false);
    }
    if (turns === 2 && !chatted) {
      await ann.fill("#chat-input", XSS_CHAT);
      await ann.click("#chat-form button[type=submit]");
      for (const p of [bob, spectator]) {
        await p.waitForSelector("#chat-log .chat-line");
        assert.equal(await p.locator("#chat-log .chat-text").last().textContent(), XSS_CHAT);
        assert.equal(await p.locator("#chat-log .chat-name").last().textContent(), "Ann: ");
        assert.equal(await p.locator("#chat-log img, #chat-log b:not(.chat-name)").count(), 0);
      }
      chatted = true;
    }
    if (turns === 5 && !dropped) {
      // Ann's connection drops: the page reconnects with its token and catches up (since_version)
      await ann.evaluate(() => {
        window.__me = window.trunkfield.S.me;
        window.trunkfield.conn.drop();
      });
      await ann.waitForFunction(() => window.trunkfield.S.me !== window.__me); // welcomed again
      await ann.waitForSelector(".conn-online");
      await synced(ann, bob, code);
      dropped = true;
    }
    if (turns === 3 && !reloaded) {
      // Bob reloads the page: same token, the game resumes where it was
      await bob.reload();
      await bob.waitForFunction((c) => window.trunkfield?.S.games.get(c)?.state, code);
      await synced(ann, bob, code);
      assert.equal((await gameOf(bob)).side, "bronze");
      reloaded = true;
    }
  }
  shared.turns = turns;
  await ann.waitForSelector("#result:not([hidden])");
  await bob.waitForSelector("#result:not([hidden])");
  for (const [what, done] of Object.entries({ spectator, reloaded, dropped, rolledBack, midShot, explained, keyboard, chatted, lastSeen }))
    assert.ok(done, `the game lasted long enough for: ${what}`);
  await spectator.waitForSelector("#result:not([hidden])");
  const score = await ann.getAttribute("#result", "data-score");
  assert.match(score, /^silver:\d+ bronze:\d+$/);
  assert.equal(await bob.getAttribute("#result", "data-score"), score);
  assert.equal(await spectator.getAttribute("#result", "data-score"), score);
  shared.score = score;
  for (const p of [ann, bob, spectator]) assert.equal(await p.evaluate(() => window.__xss), undefined, "no injected script ran");
  await ann.screenshot({ path: path.join(ART, "gameover.png") });
  await spectator.screenshot({ path: path.join(ART, "phone-gameover.png") });
  console.log(`game ${code}: ${turns} turns, ${score}; guardian cost shown: ${guardianCost}, burnt trunk: ${burnt}`);
});

test("the players see the spectator count (server event 'spectators')", () => {
  assert.ok(shared.code, "needs the game above");
  assert.equal(shared.spectatorCountSeen, true, "the player's page did not show 1 watching within 3 s of the spectator joining");
});

test("the finished game opens in the replay viewer and in the finished-games list", async () => {
  assert.ok(shared.score, "needs the finished game above");
  const { ann, code } = shared;
  await ann.click("#result-replay");
  await ann.waitForURL(new RegExp(`/#replay/${code}$`));
  await ann.waitForSelector("#rp-body:not([hidden]), #rp-error:not([hidden])");
  assert.ok(await ann.isHidden("#rp-error"), `replay error: ${await ann.textContent("#rp-error")}`);
  // positions from the record with the WebAssembly rules: start + one per turn
  assert.equal(Number(await ann.getAttribute("#rp-range", "max")), shared.turns);
  assert.equal(await ann.locator("#rp-turns li").count(), shared.turns + 1);
  // it opens at the final position, with the result (issue 32, fault 9)
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), String(shared.turns));
  assert.ok(await ann.isDisabled("#rp-last"));
  await ann.waitForSelector("#rp-result:not([hidden])");
  assert.equal(await ann.getAttribute("#rp-result", "data-score"), shared.score);
  await ann.screenshot({ path: path.join(ART, "replay.png") });
  await ann.click("#rp-first");
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), "0");
  await ann.click("#rp-next");
  await ann.click("#rp-next");
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), "2");
  await ann.click("#rp-prev");
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), "1");
  await ann.locator("#rp-range").fill(String(shared.turns - 1)); // scrub
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), String(shared.turns - 1));
  await ann.keyboard.press("Home"); // the focused range input goes back to the start
  assert.equal(await ann.getAttribute("#rp-pos", "data-index"), "0");
  await ann.selectOption("#rp-speed", "400");
  await ann.click("#rp-play"); // autoplay
  await ann.waitForFunction(() => Number(document.querySelector("#rp-pos").dataset.index) >= 2);
  await ann.click("#rp-play"); // pause
  // the download is the server's record of this game
  const href = await ann.getAttribute("#rp-download", "href");
  assert.equal(href, `/api/games/${code}/record`);
  const rec = await (await fetch(base + href)).json();
  assert.equal(rec.turns.length, shared.turns);
  assert.equal(rec.variant.size, 5);
  // the player's finished games list it, with a Replay button
  await ann.click(".nav a[data-view=lobby]");
  await ann.waitForSelector(`#recent-games li[data-code="${code}"] button.replay`);
  assert.match(await ann.textContent(`#recent-games li[data-code="${code}"] .who`), /^vs /);
});

test("an open game can be cancelled by its creator", async () => {
  const { ann, bob } = shared;
  assert.ok(ann && bob, "needs the players above");
  await ann.goto(base + "/");
  await ann.waitForSelector(".conn-online");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  await bob.goto(base + "/");
  await bob.waitForSelector(`#open-games li[data-code="${code}"]`);
  await ann.click("#cancel-game");
  await ann.waitForSelector("#status:has-text('cancelled')");
  await bob.waitForSelector(`#open-games li[data-code="${code}"]`, { state: "detached" });
});

test("quick match pairs two players", async () => {
  const { ann, bob } = shared;
  assert.ok(ann && bob, "needs the players above");
  for (const p of [ann, bob]) {
    await p.goto(base + "/");
    await p.waitForSelector(".conn-online");
    await p.selectOption("#qm-variant", "tiny");
    await p.selectOption("#qm-time", "");
  }
  await ann.click("#qm-btn");
  await ann.waitForSelector("#qm-wait-text:has-text('Looking for an opponent')");
  await bob.click("#qm-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  await bob.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  assert.equal(new URL(ann.url()).pathname, new URL(bob.url()).pathname);
  await ann.waitForSelector("#game-role:has-text('You play')");
  await bob.waitForSelector("#game-role:has-text('You play')");
  assert.notEqual(await ann.textContent("#game-role"), await bob.textContent("#game-role"));
  // a draw offer declined, then a resignation (asked twice)
  await ann.click("#draw-btn");
  await bob.waitForSelector("#draw-answer:not([hidden])");
  await bob.click("#draw-decline");
  await ann.waitForSelector("#notice:has-text('declined the draw')");
  await bob.click("#resign-btn");
  await bob.waitForSelector("#resign-btn:has-text('Really resign')");
  await bob.click("#resign-btn");
  await ann.waitForSelector("#result:not([hidden])");
  assert.match(await ann.textContent("#result-head"), /wins with (silver|bronze)\. You win!$/);
  assert.equal(await ann.textContent("#result-why"), `${XSS_NAME} resigned.`);
});

test("a game against the computer starts at once", async () => {
  const { bob } = shared;
  assert.ok(bob, "needs a player above");
  await bob.goto(base + "/");
  await bob.waitForSelector(".conn-online");
  await bob.selectOption("#cv-opponent", "1");
  await bob.selectOption("#cv-size", "5");
  await bob.selectOption("#cv-elephants", "2");
  await bob.selectOption("#cv-color", "bronze");
  await bob.click("#create-btn");
  // Either the computer takes the other seat and plays silver's setup, or the page says why not.
  await bob.waitForSelector("#status:has-text('Your setup'), #lobby-error:not([hidden])", { timeout: 15000 });
  assert.ok(await bob.isHidden("#lobby-error"), `no computer opponent: ${await bob.textContent("#lobby-error")}`);
  // Bronze's setup must suit the computer's random one (rules §3: ring cells no guardian took,
  // no elephant on a crossing of all four guardians): guardians on two free corners, which
  // watch nothing, and elephants on start cells that silver's two guardians do not cross.
  const mine = await bob.evaluate(({ n, e }) => {
    const S = window.trunkfield.S;
    const st = S.games.get(S.route.code).state;
    const taken = new Set(st.guardians.map((g) => String(g.cell)));
    const guardians = [[n + 1, n + 1, "NE"], [0, n + 1, "NW"], [n + 1, 0, "SE"], [0, 0, "SW"]]
      .filter(([x, y]) => !taken.has(String([x, y]))).slice(0, 2).map((c) => c[2]);
    const cols = new Set(), rows = new Set();
    for (const { cell: [x, y] } of st.guardians) {
      if ((y === 0 || y === n + 1) && x >= 1 && x <= n) cols.add(x);
      if ((x === 0 || x === n + 1) && y >= 1 && y <= n) rows.add(y);
    }
    const elephants = [];
    for (let y = 2; y <= n && elephants.length < e; y++) if (!(cols.has(1) && rows.has(y))) elephants.push(`a${y}`);
    return { elephants, guardians };
  }, { n: 5, e: 2 });
  await doSetup(bob, mine.elephants, mine.guardians);
  // the computer (silver) answers with a turn; then it is Bob's turn
  await bob.waitForSelector("#turn-log .turn-btn.last", { timeout: 15000 });
  await waitMyTurn(bob);
  await playTurn(bob);
  await bob.waitForFunction(() => document.querySelectorAll("#turn-log li .num").length >= 3, null, { timeout: 15000 });
  await bob.screenshot({ path: path.join(ART, "computer.png") });
});
