// Load benchmark of the web client (not a test: it times things). Starts trunkfield-server on
// the build's web/ folder and opens the lobby and a game link in a fresh headless chromium
// profile under Chromium's own network throttling (DevTools presets "Fast 3G" and "Slow 3G"
// through CDP), then once more with a warm cache. Prints one JSON line per run and a summary.
//
//   TF_SERVER_BIN=build/bin/trunkfield-server TF_WEB_ROOT=build/web node tests/browser/load-bench.mjs [RUNS]
//
// Times are measured in the page (performance.now(), from navigation start):
//   lobby    the lobby is shown and its buttons work (the first usable screen)
//   online   the WebSocket connection is welcomed (the lobby lists can fill)
//   rules    the WebAssembly rules are ready (needed for a board)
//   board    on /g/CODE: the board of a game is drawn
import { launchBrowser, startServer, TcpPlayer } from "./lib.mjs";

const RUNS = Number(process.argv[2] ?? 3);
const PROFILES = {
  "Fast 3G": { latency: 562.5, downloadThroughput: 180000, uploadThroughput: 84375 },
  "Slow 3G": { latency: 2000, downloadThroughput: 50000, uploadThroughput: 50000 },
};

// Runs in the page before its scripts: notes when the screens become usable.
function marks() {
  window.__marks = {};
  const note = (k) => {
    if (!(k in window.__marks)) window.__marks[k] = performance.now();
  };
  const check = () => {
    const lobby = document.getElementById("lobby");
    if (lobby && !lobby.hidden) note("lobby");
    if (document.querySelector(".conn-online")) note("online");
    if (document.querySelector("#board svg")) note("board");
    if (window.trunkfield?.rulesReady ?? (window.trunkfield && lobby && !lobby.hidden)) note("rules");
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
}

async function visit(context, url, profile, waitFor) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, ...PROFILES[profile] });
  const reqs = new Map();
  cdp.on("Network.responseReceived", (e) => {
    if (e.type !== "WebSocket" && !e.response.url.startsWith("data:")) reqs.set(e.requestId, { url: e.response.url, status: e.response.status, bytes: 0,
      enc: e.response.headers["content-encoding"] ?? e.response.headers["Content-Encoding"] ?? "" });
  });
  cdp.on("Network.loadingFinished", (e) => {
    const r = reqs.get(e.requestId);
    if (r) r.bytes = e.encodedDataLength;
  });
  await page.addInitScript(marks);
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForFunction((keys) => keys.every((k) => k in (window.__marks ?? {})), waitFor, { timeout: 120000 });
  await page.waitForLoadState("networkidle");
  const m = await page.evaluate(() => window.__marks);
  await page.close();
  const list = [...reqs.values()];
  return { marks: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round(v)])),
    requests: list.length, kib: Math.round(list.reduce((a, r) => a + r.bytes, 0) / 102.4) / 10, list };
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

const server = await startServer();
const browser = await launchBrowser();
const host = await TcpPlayer.connect(server.tcpPort, "host");
host.send({ type: "create_game", time_control: null, color: "silver", public: true });
const created = await host.next((m) => m.type === "game_created");
const results = [];
try {
  for (const profile of Object.keys(PROFILES)) {
    for (let i = 0; i < RUNS; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const cold = await visit(ctx, `${server.base}/`, profile, ["lobby", "online", "rules"]);
      const warm = await visit(ctx, `${server.base}/`, profile, ["lobby", "online", "rules"]);
      await ctx.close();
      const ctx2 = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const game = await visit(ctx2, `${server.base}/g/${created.code}`, profile, ["board"]);
      await ctx2.close();
      const r = { profile, run: i + 1, cold: { ...cold, list: undefined }, warm: { ...warm, list: undefined },
        game: { ...game, list: undefined } };
      if (i === 0 && profile === "Fast 3G") r.coldRequests = cold.list.map((x) => `${x.status} ${x.enc || "identity"} ${x.bytes} ${x.url.replace(server.base, "")}`);
      console.log(JSON.stringify(r));
      results.push(r);
    }
  }
  console.log("\nsummary (medians):");
  for (const profile of Object.keys(PROFILES)) {
    const rs = results.filter((r) => r.profile === profile);
    const med = (f) => median(rs.map(f));
    console.log(`${profile}: cold lobby ${med((r) => r.cold.marks.lobby)} ms, online ${med((r) => r.cold.marks.online)} ms, ` +
      `rules ${med((r) => r.cold.marks.rules)} ms, ${med((r) => r.cold.requests)} requests, ${med((r) => r.cold.kib)} KiB; ` +
      `warm lobby ${med((r) => r.warm.marks.lobby)} ms, ${med((r) => r.warm.requests)} requests, ${med((r) => r.warm.kib)} KiB; ` +
      `game link board ${med((r) => r.game.marks.board)} ms`);
  }
} finally {
  host.close();
  await browser.close();
  server.stop();
}
