// Shared pieces of the browser tests and the load benchmark: the real trunkfield-server on free
// ports, Debian's headless chromium (playwright-core, never a downloaded browser), pages that
// fail the test on an uncaught error or a Content-Security-Policy violation, and a line-based
// TCP client of the protocol that scripts an opponent move by move.
// Env: TF_SERVER_BIN (trunkfield-server), TF_WEB_ROOT (the build's web/), TF_ARTIFACTS
// (screenshots), TF_CHROMIUM (default /usr/bin/chromium).
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { chromium } from "playwright-core";

export const SERVER = process.env.TF_SERVER_BIN;
export const WEB_ROOT = process.env.TF_WEB_ROOT;
export const ART = process.env.TF_ARTIFACTS ?? path.resolve("artifacts");
export const CHROMIUM = process.env.TF_CHROMIUM ?? "/usr/bin/chromium";
mkdirSync(ART, { recursive: true });

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts trunkfield-server on free ports with a fresh data folder, serving `webRoot`; `prepare`
// is called with the folder before (to import puzzles, say). Resolves to
// {proc, base: "http://127.0.0.1:PORT", tcpPort, stop()}.
export function startServer(extraArgs = [], { webRoot = WEB_ROOT, prepare = null } = {}) {
  const data = mkdtempSync(path.join(os.tmpdir(), "tf-browser-"));
  if (prepare) prepare(data);
  return new Promise((resolve, reject) => {
    const args = ["--http-port", "0", "--tcp-port", "0", "--bind", "127.0.0.1", "--log-level", "info",
      "--data", data, "--live-interval-ms", "0", ...extraArgs];
    if (webRoot) args.push("--web-root", webRoot);
    const p = spawn(SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const onData = (d) => {
      out += d.toString();
      if (out.length > 200000) out = out.slice(-100000);
      const m = out.match(/listening http=([\d.]+):(\d+) tcp=[\d.]+:(\d+)/);
      if (m) resolve({
        proc: p, base: `http://${m[1]}:${m[2]}`, tcpPort: Number(m[3]), data,
        stop() {
          p.kill("SIGCONT");
          p.kill("SIGTERM");
          rmSync(data, { recursive: true, force: true });
        },
        log: () => out,
      });
    };
    p.stdout.on("data", onData);
    p.stderr.on("data", onData);
    p.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
    setTimeout(() => reject(new Error(`no listening line: ${out}`)), 10000);
  });
}

const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--no-first-run", "--autoplay-policy=no-user-gesture-required"];

export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

// Chromium with a profile in `userDataDir`: the one context it has is not off the record, as
// every newContext() of launchBrowser() is (Chromium never offers to install a web app there).
export function launchPersistentBrowser(userDataDir, options = {}) {
  return chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options });
}

// Collects what must fail a test: uncaught page errors and CSP violations (Chromium reports
// them on the console as errors mentioning the Content Security Policy).
// A test file's server and browser, started before its tests and stopped after them; the file's
// pages must have raised no uncaught error and no CSP violation (collected in `problems`).
// `set` receives both once they run; `opts` go to startServer.
export function serverAndBrowser(problems, set, serverArgs = [], opts = {}) {
  let server, browser;
  before(async () => {
    server = await startServer(serverArgs, opts);
    browser = await launchBrowser();
    set(server, browser);
  });
  after(async () => {
    await browser?.close();
    server?.stop();
    assert.deepEqual(problems.list, [], "no uncaught errors and no CSP violation in the pages");
  });
}

// The puzzles of tests/fixtures/puzzles.jsonl (9 on the 7 × 7 board: {id, position, line, themes,
// ...}), imported into a data folder before the server starts there (`prepare` of startServer).
export const PUZZLE_FIXTURE = fileURLToPath(new URL("../fixtures/puzzles.jsonl", import.meta.url));
export const fixturePuzzles = () => readFileSync(PUZZLE_FIXTURE, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
export function importPuzzles(dataDir) {
  execFileSync(SERVER, ["puzzles", "import", PUZZLE_FIXTURE, "--data", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
}

// A turn of the puzzle's solver that is surely wrong: the one the engine (RulesGame: the
// WebAssembly rules module's class) finds worst for the solver, never one leading where the
// solution's first turn leads.
export function wrongTurn(RulesGame, puzzle) {
  const g = RulesGame.fromPosition(puzzle.position);
  try {
    const solver = g.state().to_move;
    const sol = g.clone();
    sol.applyTurn(puzzle.line[0]);
    const right = sol.position();
    sol.dispose();
    let worst = null;
    for (const m of g.legalMoves()) {
      const turn = { elephant: m, burnt: null, guardians: [] };
      const c = g.clone();
      try {
        if (c.applyTurn(turn).error || c.position() === right) continue;
        const st = c.state();
        const win = st.over ? (st.winner === solver ? 100 : st.winner === "draw" ? 50 : 0)
          : solver === "silver" ? c.analyse(8000, 2).win : 100 - c.analyse(8000, 2).win;
        if (!worst || win < worst.win) worst = { turn, win };
      } finally {
        c.dispose();
      }
    }
    return worst.turn;
  } finally {
    g.dispose();
  }
}

// A registered account on a TCP connection (the connection is that account from then on);
// its token in `.token`.
export async function tcpAccount(server, username) {
  const p = await TcpPlayer.connect(server.tcpPort, null);
  p.send({ type: "register", username, password: `${username}-secret`, ref: "r" });
  const w = await p.next((m) => m.ref === "r");
  assert.equal(w.type, "welcome", JSON.stringify(w));
  p.token = w.token;
  return p;
}

// A page signed in to a new account (registered over TCP; the page is handed its token), on the
// lobby once its notifications are loaded. `opts.locale`: the browser's language.
export async function accountPage(browser, server, problems, username, viewport = DESKTOP, opts = {}) {
  const a = await tcpAccount(server, username);
  a.close();
  const ctx = await browser.newContext({ viewport, locale: opts.locale ?? "en-US" });
  await ctx.addInitScript((tok) => localStorage.setItem("trunkfield.token", tok), a.token);
  const page = await ctx.newPage();
  page.token = a.token;
  problems.watch(page, username);
  await page.goto(server.base);
  await page.waitForSelector("#conn.conn-online");
  await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
  await page.waitForFunction(() => window.trunkfield.S.notes?.loaded);
  return page;
}

// A screenshot of the page as it stands, in TF_ARTIFACTS/NAME.png (the pointer moved away: no hover).
export async function shot(page, name, opts = {}) {
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(ART, `${name}.png`), ...opts });
}

// After a resize to the phone: the page, once its layout has settled (the board is redrawn for the
// new width on the next frames, later under load), is no wider than the phone. The assertion names
// the widest element that sticks out, so a failure says what to fix.
export async function fitsPhone(page, name) {
  const settled = await page
    .waitForFunction((w) => document.documentElement.scrollWidth <= w, PHONE.width, { timeout: 3000 })
    .then(() => true, () => false);
  if (settled) return;
  const { wide, culprit } = await page.evaluate((w) => {
    let culprit = "";
    let right = w;
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > right) {
        right = r.right;
        culprit = `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : ""} (right edge ${Math.round(r.right)} px)`;
      }
    }
    return { wide: document.documentElement.scrollWidth, culprit };
  }, PHONE.width);
  assert.ok(false, `${name}: the page is wider than the phone (${wide} px): ${culprit || "no element past the edge"}`);
}

// axe-core's WCAG 2.1 A/AA violations of the page as it stands, asserted to be none (the list
// names each rule, its impact and where). `exclude`: selectors left out of the audit.
const AXE = readFileSync(new URL("./node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
export async function axeAudit(page, what, exclude = []) {
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE);
  const r = await page.evaluate((ex) => window.axe.run(ex.length ? { exclude: ex.map((sel) => [sel]) } : document,
    { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }), exclude);
  const found = r.violations.map((v) => `${v.id} (${v.impact}) on ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}: ` +
    `${v.nodes[0].failureSummary.replace(/\s+/g, " ")}`);
  assert.deepEqual(found, [], `${what}: axe-core found violations`);
}

export class PageProblems {
  constructor() {
    this.list = [];
  }
  watch(page, name) {
    page.on("pageerror", (e) => {
      console.error(`[${name}] page error:`, e);
      this.list.push(`${name}: ${e.message}`);
    });
    page.on("console", (m) => {
      const t = m.text();
      if (/Content Security Policy|Content-Security-Policy/i.test(t)) {
        console.error(`[${name}] CSP violation: ${t}`);
        this.list.push(`${name}: CSP: ${t}`);
      }
    });
    return page;
  }
}

// A protocol client on the TCP port (one JSON message per line), for scripted opponents.
export class TcpPlayer {
  static async connect(port, name, token = null) {
    const p = new TcpPlayer();
    await new Promise((resolve, reject) => {
      p.sock = net.connect(port, "127.0.0.1", resolve);
      p.sock.on("error", reject);
    });
    p.buf = "";
    p.msgs = [];
    p.log = [];
    p.waiters = [];
    p.sock.on("data", (d) => {
      p.buf += d.toString();
      let i;
      while ((i = p.buf.indexOf("\n")) >= 0) {
        const line = p.buf.slice(0, i);
        p.buf = p.buf.slice(i + 1);
        if (!line.trim()) continue;
        const m = JSON.parse(line);
        p.log.push(m);
        const w = p.waiters.find((x) => x.pred(m));
        if (w) {
          p.waiters.splice(p.waiters.indexOf(w), 1);
          clearTimeout(w.t);
          w.resolve(m);
        } else p.msgs.push(m);
      }
    });
    const hello = { type: "hello", version: 1 };
    if (name) hello.name = name;
    if (token) hello.token = token;
    p.send(hello);
    p.me = await p.next((m) => m.type === "welcome");
    return p;
  }
  send(m) {
    this.sock.write(JSON.stringify(m) + "\n");
  }
  // The first message (already received or coming) matching pred, consumed.
  next(pred, timeout = 10000) {
    const i = this.msgs.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.msgs.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      w.t = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`TcpPlayer: no matching message within ${timeout} ms; last: ${JSON.stringify(this.log.slice(-4)).slice(0, 1500)}`));
      }, timeout);
      this.waiters.push(w);
    });
  }
  close() {
    this.sock.destroy();
  }
}

// ------------------------------------------------------------------ driving the page
const LETTERS = "abcdefghijklm";
export function cellName([x, y], n) {
  const c = (i) => LETTERS[i - 1];
  if (x >= 1 && x <= n && y >= 1 && y <= n) return `${c(x)}${y}`;
  if (x === 0 && y === 0) return "SW";
  if (x === 0 && y === n + 1) return "NW";
  if (x === n + 1 && y === n + 1) return "NE";
  if (x === n + 1 && y === 0) return "SE";
  if (y === 0) return `S${c(x)}`;
  if (y === n + 1) return `N${c(x)}`;
  if (x === 0) return `W${y}`;
  return `E${y}`;
}
export function ringOrder(n) {
  const r = [];
  for (let y = 0; y <= n + 1; y++) r.push([0, y]);
  for (let x = 1; x <= n + 1; x++) r.push([x, n + 1]);
  for (let y = n; y >= 0; y--) r.push([n + 1, y]);
  for (let x = n; x >= 1; x--) r.push([x, 0]);
  return r;
}
export function arrival(g, n) {
  const ring = ringOrder(n);
  const i = ring.findIndex((c) => c[0] === g.from[0] && c[1] === g.from[1]);
  const L = ring.length;
  return ring[g.dir === "cw" ? (i + g.steps) % L : (((i - g.steps) % L) + L) % L];
}

export const cell = (page, name, board = "#board") => page.locator(`${board} [data-name="${name}"]`);

// A fresh browser context and page on the lobby, with a saved display name (null: none).
export async function newPlayer(browser, base, problems, name, viewport = DESKTOP, opts = {}) {
  const ctx = await browser.newContext({ viewport, locale: opts.locale ?? "en-US", ...(opts.context ?? {}) });
  if (name) await ctx.addInitScript((n) => {
    if (!localStorage.getItem("trunkfield.name")) localStorage.setItem("trunkfield.name", n);
  }, name);
  const page = await ctx.newPage();
  problems.watch(page, name ?? "guest");
  const seen = recordTraffic(page);
  await page.goto(base + (opts.path ?? "/"));
  await waitOnline(page, seen);
  if (name) await page.waitForFunction((n) => window.trunkfield.S.me?.name === n, name);
  return page;
}

// What a page loaded and said, kept to explain a page that never comes online.
function recordTraffic(page) {
  const seen = [];
  const keep = (line) => { seen.push(`${new Date().toISOString().slice(11, 23)} ${line}`); if (seen.length > 40) seen.shift(); };
  page.on("console", (m) => keep(`console.${m.type()}: ${m.text()}`));
  page.on("requestfailed", (r) => keep(`failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
  page.on("response", (r) => { if (r.status() >= 400) keep(`${r.status()}: ${r.url()}`); });
  page.on("websocket", (ws) => {
    keep(`websocket ${ws.url()} opened`);
    ws.on("close", () => keep("websocket closed"));
    ws.on("socketerror", (e) => keep(`websocket error: ${e}`));
  });
  return seen;
}

// Waits for the connection badge to say online; on a timeout the error says what the page saw
// (its badge, the requests that failed, the WebSocket's life), not only that it waited.
async function waitOnline(page, seen) {
  try {
    await page.waitForSelector("#conn.conn-online");
  } catch (e) {
    const badge = await page.evaluate(() => {
      const c = document.getElementById("conn");
      return c ? `${c.className} "${c.textContent}"` : "no #conn";
    }).catch((x) => `unreadable: ${x.message}`);
    e.message += `\nbadge: ${badge}\nwhat the page saw:\n  ${seen.join("\n  ")}`;
    throw e;
  }
}

export const gameOf = (page) => page.evaluate(() => {
  const S = window.trunkfield.S;
  const G = S.games.get(S.route.code);
  if (!G?.state) return null;
  const side = ["silver", "bronze"].find((s) => G.players[s]?.id === S.me?.player_id) ?? null;
  return { code: G.code, side, version: G.version, phase: G.state.phase, toMove: G.state.to_move, over: !!G.result,
    pending: !!G.pending, burnt: G.state.burnt.length, score: G.state.score, turns: (G.turns ?? []).length,
    trunks: side ? G.state.players[side].trunks : 0 };
});
export const version = (page, code) => page.evaluate((c) => window.trunkfield.S.games.get(c)?.version ?? -1, code);

// Waits until the signed-in player of `page` may play a turn (nothing pending, nothing drafted).
export async function waitMyTurn(page, timeout = 15000) {
  await page.waitForFunction(() => {
    const S = window.trunkfield.S;
    const G = S.games.get(S.route.code);
    return G?.result || (S.rulesReady !== false && G?.state?.phase === "play" && !G.pending &&
      G.players[G.state.to_move]?.id === S.me.player_id && G.draft && !G.draft.from && !G.history.length);
  }, null, { timeout });
}

// Builds `turn` (canonical JSON) on the board by clicking, as a player would: the elephant, each
// cell of its path, the facing arrow, the burnt trunk, each guardian and its target.
export async function clickTurn(page, turn, n, board = "#board") {
  const name = (c) => cellName(c, n);
  const e = turn.elephant;
  if (e) {
    await cell(page, name(e.from), board).click();
    for (const c of e.path) await cell(page, name(c), board).click();
    if (e.facing) {
      const arrow = page.locator(`${board} .facing-arrow[data-facing="${e.facing}"]`);
      if (await arrow.count()) await arrow.click();
      else await page.click(`#facing button[data-facing="${e.facing}"]`); // the panel's buttons
    }
  }
  if (turn.burnt) {
    await page.click(board === "#board" ? "#burnt-btn" : ".burnt-btn");
    await cell(page, name(turn.burnt), board).click();
  }
  for (const g of turn.guardians ?? []) {
    await cell(page, name(g.from), board).click();
    await cell(page, name(arrival(g, n)), board).click();
  }
}

// The example game of docs/RULES.md (§8), 9 × 9: setups and its first turns.
export const EXAMPLE = {
  silver: { elephants: [[2, 1], [3, 1], [5, 1], [7, 1], [8, 1]], guardians: [[1, 0], [0, 5]] },
  bronze: { elephants: [[1, 2], [1, 3], [1, 4], [1, 7], [1, 9]], guardians: [[10, 0], [10, 8]] },
  turns: [
    { elephant: { from: [2, 1], path: [[4, 1]], facing: "N" } },            // b1-d1:N jumps c1, which turns south
    { elephant: { from: [1, 3], path: [[2, 3]] } },                         // a3-b3 collects
    { elephant: { from: [4, 1], path: [[4, 2]] }, guardians: [{ from: [0, 5], dir: "ccw", steps: 1 }] }, // d1-d2 W5-1 captures a4
  ],
};

// A game of `page`'s player (silver, created from the lobby) against a scripted TCP opponent
// (bronze) that joins it; both setups of the example game are made. Resolves to {code, bob}.
export async function exampleGame(page, server, { size = 9, tc = "", name = "Bob", setups = EXAMPLE } = {}) {
  await page.selectOption("#cv-size", String(size));
  await page.selectOption("#cv-color", "silver");
  if (tc) await page.selectOption("#cv-time", tc);
  await page.click("#create-btn");
  await page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
  const code = new URL(page.url()).pathname.split("/")[2];
  const bob = await TcpPlayer.connect(server.tcpPort, name);
  bob.send({ type: "join_game", code });
  await bob.next((m) => m.type === "snapshot" && m.game === code);
  await page.waitForSelector("#send-btn:not([hidden])");
  if (size === 9) {
    for (const c of [...setups.silver.elephants, ...setups.silver.guardians]) await cell(page, cellName(c, 9)).click();
    await page.click("#send-btn");
    await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "silver");
    bob.send({ type: "setup", game: code, setup: setups.bronze });
    await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "bronze");
  }
  return { code, bob };
}

// The TCP opponent plays `turn` in game `code` once it is its move; resolves to the event.
export async function tcpTurn(bob, code, turn) {
  bob.send({ type: "turn", game: code, turn });
  const r = await bob.next((m) => (m.type === "event" && m.kind === "turn" && m.payload.side === "bronze") || (m.type === "error"));
  if (r.type === "error") throw new Error(`the scripted turn was refused: ${JSON.stringify(r)}`);
  return r;
}

// A whole game of the rules' own bot against itself (RulesGame: the WebAssembly rules module's
// class), deterministic for a seed: `levels` by side, for the setups and every turn. Returns
// {record, start (the state after the setups), result (a game_over payload)}.
export function botGame(RulesGame, seed, { variant = { size: 7, elephants: 3, burnt: 2, quiet: 30 }, levels = { silver: 1, bronze: 5 } } = {}) {
  const g = new RulesGame(variant);
  const record = { variant: g.state().variant, setup: {}, turns: [] };
  try {
    for (const side of ["silver", "bronze"]) {
      const { setup } = g.botMove(levels[side], seed);
      assert.ok(setup);
      assert.ok(g.applySetup(side, setup).ok);
      record.setup[side] = setup;
    }
    const start = g.state();
    while (!g.state().over) {
      const st = g.state();
      const { turn } = g.botMove(levels[st.to_move], seed + record.turns.length);
      assert.ok(g.applyTurn(turn).ok);
      record.turns.push(turn);
    }
    const st = g.state();
    return { record, start, result: { over: true, reason: st.reason, score: st.score, winner: st.winner, to_move: null } };
  } finally {
    g.dispose();
  }
}
