// The installable app that plays offline (issue 39): Chromium finds the web app manifest valid and
// the app installable; the service worker (client/web/app/sw.js, filled in by assemble.mjs)
// caches exactly the build's files and controls the page; the computer opponent's worker
// (botworker.<hash>.js, the name the app's bundle uses) answers setups and turns; a newer build's
// worker takes over and the page offers to reload; a server that does not answer leaves the page
// to the cache after the worker's wait; and with the server stopped and the browser offline,
// "/", a game's address and "/#how" still open, and the computer still plays. The real
// trunkfield-server serving a copy of the build's web/ (the test changes its sw.js), headless
// chromium with a profile of its own (an off-the-record context is never installable).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ART, DESKTOP, WEB_ROOT, PageProblems, launchPersistentBrowser, startServer } from "./lib.mjs";

const { Rules, RulesGame } = await import(pathToFileURL(path.join(WEB_ROOT, "trunkfield-rules.js")).href);
await Rules.load();

let server, context, page, profile, webRoot;
const problems = new PageProblems();

before(async () => {
  webRoot = fs.mkdtempSync(path.join(os.tmpdir(), "tf-pwa-web-"));
  fs.cpSync(WEB_ROOT, webRoot, { recursive: true });
  server = await startServer([], { webRoot });
  profile = fs.mkdtempSync(path.join(os.tmpdir(), "tf-pwa-profile-"));
  context = await launchPersistentBrowser(profile, { viewport: DESKTOP });
  page = context.pages()[0] ?? (await context.newPage());
  problems.watch(page, "pwa");
});

after(async () => {
  await context?.close();
  server?.stop();
  for (const dir of [profile, webRoot]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(problems.list, [], "no uncaught errors and no CSP violation in the pages");
});

// Every file of the build the page needs, as the service worker should list it: "/" for
// index.html, and every hashed file (not the .gz/.br copies, not the unbundled rules files).
function buildFiles(dir = WEB_ROOT, rel = "") {
  const out = rel ? [] : ["/"];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(...buildFiles(path.join(dir, e.name), r));
    else if (/\.[0-9a-f]{10}\.[a-z0-9]+$/.test(e.name)) out.push(r);
  }
  return out.sort();
}

const workerUrl = `/${fs.readdirSync(WEB_ROOT).find((f) => /^botworker\.[0-9a-f]{10}\.js$/.test(f))}`;

// Waits until the page's service worker registration has an active worker in the "activated"
// state (its activate handler done), for at most 15 s.
const activated = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error("no activated service worker within 15 s")), 15000);
  navigator.serviceWorker.ready.then(({ active }) => {
    if (active.state === "activated") return resolve();
    active.addEventListener("statechange", () => active.state === "activated" && resolve());
  });
}));

// A PNG's width and height (its IHDR chunk).
const pngSize = (buf) => [buf.readUInt32BE(16), buf.readUInt32BE(20)];

test("the manifest is valid and Chromium finds the app installable", async () => {
  await page.goto(server.base + "/");
  await page.waitForSelector("#conn.conn-online");
  const manifestUrl = await page.$eval('link[rel="manifest"]', (l) => l.href);
  assert.match(manifestUrl, /\/manifest\.[0-9a-f]{10}\.webmanifest$/);
  const res = await fetch(manifestUrl);
  assert.equal(res.headers.get("content-type"), "application/manifest+json");
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const manifest = await res.json();
  for (const k of ["name", "short_name", "description", "start_url", "scope", "display", "background_color", "theme_color", "lang"])
    assert.ok(manifest[k], `manifest.${k}`);
  assert.deepEqual([manifest.start_url, manifest.scope, manifest.display], ["/", "/", "standalone"]);
  const purposes = [];
  for (const icon of manifest.icons) {
    const r = await fetch(server.base + icon.src);
    assert.equal(r.status, 200, icon.src);
    assert.equal(r.headers.get("content-type"), "image/png", icon.src);
    assert.equal(pngSize(Buffer.from(await r.arrayBuffer())).join("x"), icon.sizes, icon.src);
    purposes.push(`${icon.sizes} ${icon.purpose}`);
  }
  assert.deepEqual(purposes.sort(), ["192x192 any", "512x512 any", "512x512 maskable"]);
  const touch = await page.$eval('link[rel="apple-touch-icon"]', (l) => l.href);
  assert.deepEqual(pngSize(Buffer.from(await (await fetch(touch)).arrayBuffer())), [180, 180]);
  const themes = await page.$$eval('meta[name="theme-color"]', (ms) => ms.map((m) => m.content));
  assert.ok(themes.includes(manifest.theme_color), "the page's theme colour is the manifest's");

  const cdp = await context.newCDPSession(page);
  const parsed = await cdp.send("Page.getAppManifest");
  assert.equal(parsed.url, manifestUrl);
  assert.deepEqual(parsed.errors, [], "Chromium's manifest parser found errors");
  const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
  assert.deepEqual(installabilityErrors, [], "Chromium does not find the app installable");
  await cdp.detach();
});

test("the service worker caches the build's files and controls the page after a reload", async () => {
  const sw = await fetch(server.base + "/sw.js");
  assert.equal(sw.status, 200);
  assert.match(sw.headers.get("content-type"), /^text\/javascript/);
  assert.equal(sw.headers.get("cache-control"), "no-cache", "sw.js is looked up at a fixed URL: never cached");
  // The app registers it (pwa.js) once the page has loaded.
  await activated(page);
  const cached = await page.evaluate(async () => {
    const names = (await caches.keys()).filter((k) => k.startsWith("trunkfield-"));
    const cache = await caches.open(names[0]);
    return { names, files: (await cache.keys()).map((r) => new URL(r.url).pathname).sort() };
  });
  assert.equal(cached.names.length, 1, `one cache: ${cached.names}`);
  assert.deepEqual(cached.files, buildFiles());
  assert.ok(cached.files.includes(workerUrl));

  await page.reload();
  await page.waitForSelector("#conn.conn-online");
  const controller = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL);
  assert.equal(controller, server.base + "/sw.js");
});

// Asks the computer opponent's worker, created from the page as the app creates it, for both
// setups and a few turns of a 9 x 9 game; the answers are checked with the rules in Node.
async function workerPlays(what) {
  const game = new RulesGame();
  const answers = [];
  const ask = (msg) => page.evaluate(async ({ url, msg }) => {
    window.botWorkerForTest ??= new Worker(url, { type: "module" });
    const w = window.botWorkerForTest;
    return new Promise((resolve, reject) => {
      w.onmessage = (ev) => resolve(ev.data);
      w.onerror = (ev) => reject(new Error(`worker error: ${ev.message}`));
      w.postMessage(msg);
    });
  }, { url: workerUrl, msg });
  try {
    for (let id = 1; id <= 6; id++) {
      const side = game.state().to_move;
      const r = await ask({ id, state: game.state(), level: 3, seed: id });
      assert.equal(r.id, id, `${what}: ${JSON.stringify(r)}`);
      const applied = id <= 2 ? game.applySetup(side, r.setup) : game.applyTurn(r.turn);
      assert.deepEqual(applied, { ok: true }, `${what}: answer ${id}: ${JSON.stringify(r)}`);
      answers.push(r);
    }
    assert.deepEqual(await ask({ id: 7, state: game.state(), level: 9, seed: 1 }),
      { id: 7, error: { code: "bad_format", message: "bot level 9 is out of range (1 to 5)" } });
    assert.equal((await ask({ id: 8, state: { phase: "nope" }, level: 3 })).error.code, "bad_format");
  } finally {
    game.dispose();
    await page.evaluate(() => {
      window.botWorkerForTest?.terminate();
      window.botWorkerForTest = undefined;
    });
  }
  return answers;
}

test("the computer opponent's worker (the name in the app's bundle) answers setups and turns", async () => {
  const appUrl = await page.$eval('script[type="module"]', (s) => s.src);
  const app = await (await fetch(appUrl)).text();
  assert.ok(app.includes(`"${workerUrl}"`), `the app's bundle names ${workerUrl}`);
  assert.ok(!app.includes('"/botworker.js"'), "no unhashed worker name is left in the app");
  await workerPlays("online");
});

test("a newer build's service worker takes over, and the page offers to reload", async () => {
  const cacheNames = () => page.evaluate(() => caches.keys());
  const [before] = await cacheNames();
  // A new build: the same files, another version (the compressed copies would be stale).
  const file = path.join(webRoot, "sw.js");
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/^const VERSION = .*$/m, 'const VERSION = "next";'));
  for (const ext of [".gz", ".br"]) fs.rmSync(file + ext, { force: true });
  assert.ok(await page.isHidden("#update-note"));
  await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r.update()));
  await page.waitForSelector("#update-note:not([hidden])");
  // The worker takes over as it activates, and deletes the older caches while it does.
  await activated(page);
  assert.deepEqual(await cacheNames(), ["trunkfield-next"], `the new cache replaced ${before}`);
  await page.click("#update-reload");
  await page.waitForSelector("#conn.conn-online");
  assert.ok(await page.isHidden("#update-note"), "a page loaded by the new worker has nothing to reload");
});

test("a server that does not answer: the cached page once the worker stops waiting", async () => {
  server.proc.kill("SIGSTOP");
  try {
    const t0 = Date.now();
    await page.goto(server.base + "/", { timeout: 20000 });
    await page.waitForSelector("#lobby:not([hidden])");
    const waited = Date.now() - t0;
    assert.ok(waited >= 3500 && waited < 12000, `the page came after ${waited} ms (the worker waits 4 s)`);
  } finally {
    server.proc.kill("SIGCONT");
  }
});

test("offline, with the server stopped: the lobby, a game's address and How to play open, and the computer plays", async () => {
  const online = await workerPlays("online, for comparison");
  const exited = new Promise((resolve) => server.proc.once("exit", resolve));
  server.proc.kill("SIGKILL");
  await exited;
  await context.setOffline(true);

  await page.goto(server.base + "/");
  await page.waitForSelector("#lobby:not([hidden])");
  await page.waitForFunction(() => window.trunkfield.rulesReady === true, null, { timeout: 10000 });
  await page.screenshot({ path: path.join(ART, "pwa-offline-lobby.png") });

  await page.goto(server.base + "/g/abcdef");
  await page.waitForFunction(() => window.trunkfield?.S.route.code === "abcdef");
  assert.ok(await page.isVisible(".topbar"));

  await page.goto(server.base + "/#how");
  await page.waitForSelector("#howto:not([hidden])");
  await page.reload();
  await page.waitForSelector("#howto:not([hidden])");
  await page.waitForFunction(() => window.trunkfield.rulesReady === true, null, { timeout: 10000 });

  // The same questions, the same answers: the worker and the WebAssembly come from the cache.
  assert.deepEqual(await workerPlays("offline"), online);
  // What the worker does not keep is not made up: the server's answers fail.
  const passBy = await page.evaluate(async () => {
    const tries = {};
    for (const p of ["/api/leaderboard", "/healthz", "/trunkfield-rules.js"])
      tries[p] = await fetch(p).then((r) => r.status, () => "failed");
    return tries;
  });
  assert.deepEqual(passBy, { "/api/leaderboard": "failed", "/healthz": "failed", "/trunkfield-rules.js": "failed" });
});
