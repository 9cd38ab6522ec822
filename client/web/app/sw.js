// The service worker: the app opens and plays against the computer without a network, and the
// installed app starts from the device. Registered by pwa.js as "/sw.js" (never a hashed name:
// the browser looks for updates at that URL), scope "/".
//
// A template: client/web/assemble.mjs fills in VERSION and FILES for each build. A new build
// means a new sw.js, so the browser installs it beside the old one: it caches that build's files
// in its own cache, then takes over at once and deletes the older caches (pwa.js tells the page,
// which may offer a reload).
//
// What it answers (same-origin GET only; /ws, /api/..., /metrics, the health checks and any other
// file not listed pass by untouched: the server stays the only source of games and accounts):
// - page loads (navigations: "/", "/g/CODE", "/@/NAME", "/players"): the network first, so an
//   online page is always the server's; without an answer within NAVIGATION_WAIT_MS or at all,
//   the cached "/" (one page serves every address);
// - hashed files (app.<hash>.js, ...): the cache first, since a hashed name never changes content;
// - other listed files: the network first, the cache when it fails.
// The cached "/" is the one this worker installed, never refreshed from later page loads: it
// names exactly the hashed files in this cache, which a newer index.html might not.
//
// It also shows the page's system notifications (notices.js: showNotification, with data.url the
// game's address or "/"): a click brings a window of the app to the front and has it open that
// address (pwa.js: the message "tf-open"), or opens a new window when there is none.

// Filled in by assemble.mjs; these values (the sources served unassembled) cache nothing.
const VERSION = "unassembled";
const FILES = [];

const CACHE = `trunkfield-${VERSION}`;
const NAVIGATION_WAIT_MS = 4000;
const HASHED = /\.[0-9a-f]{10}\.[a-z0-9]+$/;
const PASS_BY = /^\/(ws|metrics|healthz|readyz)$|^\/api\//; // the server's own answers

self.addEventListener("install", (ev) => {
  ev.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // "reload": from the server, not from the browser's HTTP cache (a stale index.html there
    // would name files of an older build).
    await cache.addAll(FILES.map((f) => new Request(f, { cache: "reload" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith("trunkfield-") && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

// The cached copy of `path` (the server varies files by Accept-Encoding; the cache holds one).
async function cached(path) {
  return (await caches.open(CACHE)).match(path, { ignoreVary: true });
}

async function navigation(request) {
  const network = fetch(request);
  network.catch(() => {}); // when the cache answers, nobody waits for this one
  const late = new Promise((resolve) => setTimeout(resolve, NAVIGATION_WAIT_MS, null));
  try {
    const r = await Promise.race([network, late]);
    if (r) return r;
  } catch {
    // no network: the cache below
  }
  return (await cached("/")) ?? network;
}

async function networkFirst(request, path) {
  try {
    return await fetch(request);
  } catch (e) {
    const r = await cached(path);
    if (r) return r;
    throw e;
  }
}

self.addEventListener("notificationclick", (ev) => {
  const n = ev.notification;
  n.close();
  const path = typeof n.data?.url === "string" && /^\/(g\/[A-Za-z0-9]{1,16})?$/.test(n.data.url) ? n.data.url : "/";
  const url = new URL(path, self.location.origin).href;
  ev.waitUntil((async () => {
    const wins = (await self.clients.matchAll({ type: "window", includeUncontrolled: true }))
      .filter((c) => new URL(c.url).origin === self.location.origin);
    const win = wins.find((c) => c.url === url) ?? wins.find((c) => c.focused) ?? wins[0];
    if (!win) return self.clients.openWindow(url);
    if (win.url !== url) win.postMessage({ type: "tf-open", url: path });
    return win.focus();
  })());
});

self.addEventListener("fetch", (ev) => {
  const request = ev.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || PASS_BY.test(url.pathname)) return;
  if (request.mode === "navigate") return ev.respondWith(navigation(request));
  if (!FILES.includes(url.pathname) || url.search) return;
  if (HASHED.test(url.pathname))
    return ev.respondWith(cached(url.pathname).then((r) => r ?? fetch(request)));
  ev.respondWith(networkFirst(request, url.pathname));
});
