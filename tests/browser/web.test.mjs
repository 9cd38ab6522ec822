// End-to-end test of the web client in headless Debian chromium (playwright-core, never a
// downloaded browser): static serving, then two players create, join and play a small game to
// the end by clicking on the board, a spectator joins mid-game, a player reloads mid-game.
// Env: TF_SERVER_BIN (trunkfield-server), TF_WEB_ROOT (the build's web/), TF_ARTIFACTS (screenshots).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { chromium } from "playwright-core";

const SERVER = process.env.TF_SERVER_BIN;
const WEB_ROOT = process.env.TF_WEB_ROOT;
const ART = process.env.TF_ARTIFACTS ?? path.resolve("artifacts");
const CHROMIUM = process.env.TF_CHROMIUM ?? "/usr/bin/chromium";
mkdirSync(ART, { recursive: true });

let server, base, browser;

function startServer() {
  return new Promise((resolve, reject) => {
    const args = ["--http-port", "0", "--tcp-port", "0", "--bind", "127.0.0.1", "--log-level", "info"];
    if (WEB_ROOT) args.push("--web-root", WEB_ROOT);
    const p = spawn(SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const onData = (d) => {
      out += d.toString();
      const m = out.match(/listening http=([\d.]+):(\d+) tcp=/);
      if (m) resolve({ proc: p, base: `http://${m[1]}:${m[2]}` });
    };
    p.stdout.on("data", onData);
    p.stderr.on("data", onData);
    p.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
    setTimeout(() => reject(new Error(`no listening line: ${out}`)), 10000);
  });
}

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
  const r = await startServer();
  server = r.proc;
  base = r.base;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  server?.kill("SIGTERM");
});

test("static files: content types, game links, no traversal", async () => {
  const types = {
    "/": "text/html", "/g/abc123": "text/html", "/app.js": "text/javascript",
    "/trunkfield-rules.js": "text/javascript", "/trunkfield-rules.mjs": "text/javascript",
    "/style.css": "text/css", "/favicon.svg": "image/svg+xml", "/package.json": "application/json",
    "/img/board.svg": "image/svg+xml", "/index.html?x=1": "text/html",
  };
  for (const [p, t] of Object.entries(types)) {
    const res = await fetch(base + p);
    assert.equal(res.status, 200, p);
    assert.ok(res.headers.get("content-type").startsWith(t), `${p}: ${res.headers.get("content-type")}`);
    assert.equal(res.headers.get("cache-control"), "no-cache");
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

async function newPlayer(name, viewport = { width: 1280, height: 800 }) {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.error(`[${name}] page error:`, e));
  await page.goto(base + "/");
  await page.fill("#name-input", name);
  await page.click("#name-save");
  await page.waitForSelector("#me:has-text('" + name + "')");
  await page.waitForSelector(".conn-online");
  return page;
}

const version = (page, code) => page.evaluate((c) => window.trunkfield.S.games.get(c)?.version ?? -1, code);
const phaseOf = (page) => page.evaluate(() => {
  const S = window.trunkfield.S;
  const G = S.games.get(S.current);
  if (!G?.state) return null;
  const side = ["silver", "bronze"].find((s) => G.players[s]?.id === S.me.player_id);
  return { side, phase: G.state.phase, toMove: G.state.to_move, over: !!G.result, pending: !!G.pending };
});

// Waits until both pages have seen the same last event of the game (the server may add events
// of its own, e.g. a player's connection leaving and coming back).
async function synced(a, b, code) {
  for (let i = 0; i < 200; i++) {
    const [va, vb] = [await version(a, code), await version(b, code)];
    if (va === vb && va > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail("the two pages did not reach the same game version");
}

async function clickCell(page, name) {
  await page.click(`#board [data-name="${name}"]`);
}

async function doSetup(page, elephants, guardians) {
  await page.waitForFunction(() => document.querySelector("#send-btn") && !document.querySelector("#send-btn").hidden);
  for (const c of [...elephants, ...guardians]) await clickCell(page, c);
  await page.waitForSelector("#send-btn:not([disabled])");
  await page.click("#send-btn");
}

// One turn, elephant move only, chosen among the candidates the page offers.
async function playTurn(page, onSelect = null) {
  const cands = await page.$$("#board .cand");
  if (cands.length === 0) {
    // no elephant move: pass
    await page.click("#send-btn");
    return;
  }
  await cands[rnd(cands.length)].click();
  if (onSelect) await onSelect();
  for (let i = 0; i < 8; i++) {
    if (!(await page.isDisabled("#send-btn"))) break;
    const faces = await page.$$("#facing button:not([hidden])");
    const facingVisible = await page.isVisible("#facing");
    const next = await page.$$("#board .cand:not(.movable)");
    const options = (facingVisible ? faces.length : 0) + next.length;
    assert.ok(options > 0, "the page offers a way to continue the move");
    const k = rnd(options);
    if (facingVisible && k < faces.length) await faces[k].click();
    else await next[k - (facingVisible ? faces.length : 0)].click();
  }
  await page.click("#send-btn");
}

test("two players play a game to the end; a spectator and a reload follow", async () => {
  const ann = await newPlayer("Ann");
  const bob = await newPlayer("Bob <b>&amp;</b>");
  // create: 5x5, 2 elephants, 1 burnt, quiet 6, Ann plays silver
  await ann.selectOption("#cv-size", "5");
  await ann.selectOption("#cv-elephants", "2");
  await ann.selectOption("#cv-burnt", "1");
  await ann.fill("#cv-quiet", "6");
  await ann.selectOption("#cv-color", "silver");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  await ann.waitForSelector("#status:has-text('Waiting for an opponent')");

  // Bob sees the open game in the lobby (pushed update) and joins from the list
  await bob.waitForSelector(`#open-games li[data-code="${code}"]`);
  // the name is shown as text, never as HTML
  assert.equal(await bob.textContent(`#open-games li[data-code="${code}"] .who`), "Ann");
  await bob.screenshot({ path: path.join(ART, "lobby.png") });
  await bob.click(`#open-games li[data-code="${code}"] button.join`);
  await bob.waitForURL(new RegExp(`/g/${code}$`));

  await doSetup(ann, ["b1", "d1"], ["Se", "SW"]);
  await bob.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Your setup"));
  await doSetup(bob, ["a2", "a4"], ["NE", "E5"]);
  assert.equal(await bob.locator(".player.bronze .name").textContent(), "Bob <b>&amp;</b>");

  const players = { silver: ann, bronze: bob };
  let spectator = null, reloaded = false, turns = 0, midShot = false, rolledBack = false;
  for (; turns < 300; turns++) {
    const st = await phaseOf(ann);
    if (st.over) break;
    const page = players[st.toMove];
    await page.waitForFunction(() => {
      const S = window.trunkfield.S;
      const G = S.games.get(S.current);
      return G?.result || (G?.state?.phase === "play" && !G.pending &&
        G.players[G.state.to_move]?.id === S.me.player_id && G.draft && !G.draft.from);
    });
    if ((await phaseOf(page)).over) break;
    const before = await version(page, code);
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
      await page.waitForSelector("#error:not([hidden])");
      assert.match(await page.textContent("#error"), /refused/);
      await page.waitForFunction(() => {
        const S = window.trunkfield.S;
        const G = S.games.get(S.current);
        return !G.pending && !G.shown && G.draft && !G.draft.from;
      });
      assert.equal(await version(page, code), before);
      rolledBack = true;
    }
    const shoot = !midShot && turns >= 4 && page === ann;
    await playTurn(page, shoot ? async () => {
      // the legal landing cells of the selected elephant, from the WebAssembly rules
      assert.ok((await ann.$$("#board .cand:not(.movable)")).length > 0);
      await ann.screenshot({ path: path.join(ART, "midgame.png") });
      midShot = true;
    } : null);
    await ann.waitForFunction(([c, v]) => (window.trunkfield.S.games.get(c)?.version ?? 0) > v, [code, before]);
    await bob.waitForFunction(([c, v]) => (window.trunkfield.S.games.get(c)?.version ?? 0) > v, [code, before]);

    if (turns === 2 && !spectator) {
      // a third player opens the shared link mid-game and watches
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
      spectator = await ctx.newPage();
      await spectator.goto(`${base}/g/${code}`);
      await spectator.waitForSelector("#spectators:has-text('watching')");
      await spectator.waitForSelector("#board svg");
      await spectator.screenshot({ path: path.join(ART, "spectator-phone.png"), fullPage: true });
    }
    if (turns === 5) {
      // Ann's connection drops: the page reconnects with its token and catches up (since_version)
      await ann.evaluate(() => window.trunkfield.conn.drop());
      await ann.waitForSelector(".conn-offline, .conn-connecting");
      await ann.waitForSelector(".conn-online");
      await synced(ann, bob, code);
    }
    if (turns === 3 && !reloaded) {
      // Bob reloads the page: same token, the game resumes where it was
      await bob.reload();
      await bob.waitForFunction((c) => window.trunkfield?.S.games.get(c)?.state, code);
      await synced(ann, bob, code);
      assert.equal((await phaseOf(bob)).side, "bronze");
      reloaded = true;
    }
  }
  await ann.waitForSelector("#banner:not([hidden])");
  await bob.waitForSelector("#banner:not([hidden])");
  assert.ok(spectator, "the game lasted long enough for a spectator");
  assert.ok(reloaded, "the game lasted long enough for a reload");
  assert.ok(rolledBack, "the game lasted long enough for a refused turn");
  assert.ok(midShot, "a mid-game screenshot was taken");
  await spectator.waitForSelector("#banner:not([hidden])");
  const score = await ann.getAttribute("#banner", "data-score");
  assert.match(score, /^silver:\d+ bronze:\d+$/);
  assert.equal(await bob.getAttribute("#banner", "data-score"), score);
  assert.equal(await spectator.getAttribute("#banner", "data-score"), score);
  await ann.screenshot({ path: path.join(ART, "gameover.png") });
  await bob.screenshot({ path: path.join(ART, "gameover-bronze.png") });
  console.log(`game ${code}: ${turns} turns, ${score}`);
});
