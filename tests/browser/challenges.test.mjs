// Challenges and notifications in the web client (proto/PROTOCOL.md "Challenges",
// "Notifications"), two accounts in two browser contexts against the real trunkfield-server with
// a durable store (--store sqlite: accounts and notifications need one): Ann challenges Bob from
// his player page; Bob's page shows the challenge at once in a toast, and accepting it there
// starts the game on both pages; Ann's bell counts "accepted". A second challenge: Bob declines
// it from the game page with the reason "later", Ann's page says so in words; after a reload
// Bob's bell lists both challenges, "Mark all read" drops the count (on the server too); a line
// of Ann's list opens its game and is read. Declining from the toast (the challenger is told), a
// challenge cancelled before the answer, a challenge to no account, the form in French.
// "Tell my followers when I start a game" on one's own page (POST {"announce"}): off, a follower
// is not told of a public game; on again, told. On this device: the bell's "Notify me on this
// device" asks the browser; a challenge arriving while the page is hidden is a system
// notification from the service worker; a game_over notification in words ("you lost").
// A program (tests/engine/random_engine.py, written from docs/ENGINE.md alone) plays as a bot
// account through `trunkfield bridge` (issue 36): Ann challenges it from its page (rated), the
// bridge takes it, Ann sets up and plays a turn by clicking, the engine answers, Ann resigns; the
// bot is marked BOT on the game page and the game is rated on Ann's page.
// Screenshots (TF_ARTIFACTS): challenge-*.png, bell-*.png (Ann on a desktop, Bob on a phone).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { DESKTOP, PHONE, serverAndBrowser, PageProblems, TcpPlayer, tcpAccount, accountPage as newAccountPage, shot, sleep,
  cell, cellName, clickTurn, waitMyTurn, EXAMPLE } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--store", "sqlite"]);

const text = (page, sel) => page.locator(sel).innerText();
const accountPage = (username, viewport) => newAccountPage(browser, server, problems, username, viewport);

// The game the page shows: {code, status, silver, bronze}.
const shownGame = (page) => page.evaluate(() => {
  const S = window.trunkfield.S;
  const G = S.games.get(S.route.code);
  return G ? { code: G.code, status: G.status, silver: G.players.silver?.name ?? null, bronze: G.players.bronze?.name ?? null } : null;
});
const unread = (page) => page.evaluate(() => window.trunkfield.S.notes.unread);
const serverUnread = (page) => page.evaluate(async () => {
  const r = await fetch("/api/notifications", { headers: { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } });
  return (await r.json()).unread;
});

// Ann challenges Bob from his page with the form's fields; resolves to the game's code.
async function challenge(ann, fields) {
  await ann.goto(`${server.base}/@/Bob_c`);
  await ann.waitForSelector("#pf-body:not([hidden])");
  await ann.click("#pf-challenge");
  await ann.waitForSelector("#challenge-dialog[open]");
  for (const [id, v] of Object.entries(fields.select ?? {})) await ann.selectOption(`#${id}`, v);
  if (fields.rated) await ann.check("#ch-rated");
  if (fields.shot) await shot(ann, fields.shot);
  await ann.click("#ch-send");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  await ann.waitForSelector("#challenge-dialog:not([open])", { state: "attached" });
  return new URL(ann.url()).pathname.split("/")[2];
}

let ann, bob;

test("a challenge from the player page, shown live to the challenged player, accepted from the toast", async () => {
  ann = await accountPage("Ann_c", DESKTOP);
  bob = await accountPage("Bob_c", PHONE);
  // an account's bell, no count yet; no Challenge button on one's own page
  assert.ok(await ann.locator("#bell-btn").isVisible());
  assert.ok(await ann.locator("#bell-count").isHidden());
  await ann.goto(`${server.base}/@/Ann_c`);
  await ann.waitForSelector("#pf-body:not([hidden])");
  assert.ok(await ann.locator("#pf-challenge").isHidden(), "nobody challenges themselves");

  const code = await challenge(ann, { select: { "ch-color": "silver", "ch-time": "300000/5000" }, rated: true, shot: "challenge-dialog-desktop" });
  await ann.waitForFunction(() => /Challenge sent to Bob_c — waiting for an answer/.test(document.querySelector("#status").textContent));
  assert.equal(await text(ann, "#cancel-game"), "Cancel the challenge");
  assert.ok(await ann.locator("#share-link").isHidden(), "a challenge has no link to share");
  assert.ok(await ann.locator("#challenge-box").isHidden(), "the challenger has no Accept");
  await shot(ann, "challenge-waiting-desktop");

  // Bob, in the lobby, is told at once.
  await bob.waitForSelector("#note-toast:not([hidden])");
  assert.equal(await text(bob, "#note-toast-text"), "Ann_c challenges you");
  assert.equal(await text(bob, "#note-toast-detail"), "Rated · Rapid · 9×9, 5 elephants, 3 burnt, quiet 40 · 5 min + 5 s · you play bronze");
  assert.equal(await bob.getAttribute("#note-toast", "data-game"), code);
  assert.deepEqual(await bob.locator("#note-toast button:visible").allInnerTexts(), ["Accept", "Decline", "Open", "×"]);
  assert.equal(await text(bob, "#bell-count"), "1");
  assert.equal(await bob.getAttribute("#bell-btn", "aria-label"), "Notifications: 1 unread");
  await shot(bob, "challenge-toast-phone");

  await bob.click("#note-accept");
  await bob.waitForURL(new RegExp(`/g/${code}$`));
  for (const p of [ann, bob])
    await p.waitForFunction((c) => {
      const G = window.trunkfield.S.games.get(c);
      return G?.status === "playing" && G.players.silver && G.players.bronze && G.state?.phase === "setup_silver";
    }, code);
  assert.deepEqual(await shownGame(ann), { code, status: "playing", silver: "Ann_c", bronze: "Bob_c" });
  assert.deepEqual(await shownGame(bob), { code, status: "playing", silver: "Ann_c", bronze: "Bob_c" });
  await ann.waitForSelector("#send-btn:not([hidden])"); // Ann sets up first
  assert.equal(await text(ann, "#game-rated"), "Rated · Rapid");
  assert.ok(await bob.locator("#note-toast").isHidden());
  await bob.waitForFunction(() => window.trunkfield.S.notes.unread === 0);
  assert.ok(await bob.locator("#bell-count").isHidden(), "the challenge acted on from the toast is read");
  // Ann's bell: "accepted" (no toast: her page is the game's)
  await ann.waitForFunction(() => document.querySelector("#bell-count").textContent === "1");
  assert.ok(await ann.locator("#note-toast").isHidden());
  assert.ok(await ann.locator("#status").innerText() !== "", "the game's own status");
  await shot(ann, "challenge-accepted-desktop");
});

test("a challenge declined with a reason; the bell's list after a reload; marking read", async () => {
  assert.ok(ann && bob, "needs the first test's pages");
  const first = new URL(bob.url()).pathname.split("/")[2];
  const code = await challenge(ann, { select: { "ch-size": "7", "ch-elephants": "3", "ch-burnt": "2", "ch-time": "" } });
  // Bob is on the first game's page: the toast comes there too; he closes it.
  await bob.waitForFunction((c) => document.querySelector("#note-toast")?.dataset.game === c && !document.querySelector("#note-toast").hidden, code);
  assert.match(await text(bob, "#note-toast-detail"), /^Casual · 7×7, 3 elephants, 2 burnt, quiet 40 · untimed · you play (silver|bronze)$/);
  assert.equal(await text(bob, "#bell-count"), "1");
  await bob.click("#note-close");
  assert.ok(await bob.locator("#note-toast").isHidden());
  assert.equal(await unread(bob), 1, "closing the toast leaves the notification unread");

  // He follows the challenge's link: who, the settings, Accept, Decline with a reason.
  await bob.goto(`${server.base}/g/${code}`);
  await bob.waitForSelector("#challenge-box:not([hidden])");
  assert.equal(await text(bob, "#ch-from"), "Ann_c challenges you");
  assert.match(await text(bob, "#ch-settings"), /^Casual · 7×7, 3 elephants, 2 burnt, quiet 40 · untimed · you play (silver|bronze)$/);
  assert.equal(await text(bob, "#game-role"), "You are challenged");
  assert.match(await text(bob, "#status"), /^Ann_c challenges you: accept or decline below\.$/);
  assert.ok(await bob.locator("#join-seat").isHidden(), "Accept is the way in");
  assert.deepEqual(await bob.locator("#ch-reason option").allInnerTexts(), ["No particular reason", "Later, please", "Too fast for me",
    "Too slow for me", "Not this time control", "Rated games only", "Casual games only", "Not this board"]);
  await bob.selectOption("#ch-reason", "later");
  await bob.locator("#challenge-box").scrollIntoViewIfNeeded();
  await shot(bob, "challenge-box-phone");
  await bob.click("#ch-decline");

  // Ann's page says it in words; Bob's too.
  await ann.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Bob_c declined your challenge"));
  assert.equal(await text(ann, "#status"), "Bob_c declined your challenge: This is not the right time for me, please ask again later.");
  assert.equal((await shownGame(ann)).status, "cancelled");
  assert.ok(await ann.locator("#share").isHidden());
  await shot(ann, "challenge-declined-desktop");
  await bob.waitForFunction(() => document.querySelector("#status").textContent === "You declined this challenge.");
  assert.ok(await bob.locator("#challenge-box").isHidden());
  await ann.waitForFunction(() => document.querySelector("#bell-count").textContent === "2");

  // After a reload, Bob's bell lists both challenges, the second one unread.
  await bob.reload();
  await bob.waitForFunction(() => window.trunkfield.S.notes?.loaded);
  assert.equal(await text(bob, "#bell-count"), "1");
  // the server keeps no declined challenge: its page says what became of it
  await bob.waitForFunction(() => document.querySelector("#status").textContent.startsWith("This challenge is no longer open"));
  assert.ok(await bob.locator("#missing-replay").isHidden());
  await bob.click("#bell-btn");
  await bob.waitForSelector("#bell-panel:not([hidden])");
  assert.equal(await bob.getAttribute("#bell-btn", "aria-expanded"), "true");
  const items = bob.locator("#bell-list li");
  assert.equal(await items.count(), 2);
  assert.deepEqual(await items.evaluateAll((ls) => ls.map((l) => [l.dataset.kind, l.classList.contains("unread"), l.querySelector("a").getAttribute("href")])),
    [["challenge", true, `/g/${code}`], ["challenge", false, `/g/${first}`]]);
  assert.equal(await items.first().locator(".note-text").innerText(), "Ann_c challenges you");
  assert.match(await items.first().locator(".note-detail").innerText(), /^Casual · 7×7/);
  assert.match(await items.nth(1).locator(".note-detail").innerText(), /^Rated · Rapid · 9×9/);
  assert.ok(await bob.locator("#bell-read-all").isEnabled());
  await shot(bob, "bell-list-phone");
  await bob.click("#bell-read-all");
  await bob.waitForFunction(() => window.trunkfield.S.notes.unread === 0);
  assert.ok(await bob.locator("#bell-count").isHidden());
  assert.equal(await bob.locator("#bell-list li.unread").count(), 0);
  assert.ok(await bob.locator("#bell-read-all").isDisabled());
  assert.equal(await bob.getAttribute("#bell-btn", "aria-label"), "Notifications");
  assert.equal(await serverUnread(bob), 0, "read on the server too");
  await bob.keyboard.press("Escape");
  assert.ok(await bob.locator("#bell-panel").isHidden());

  // Ann's list: declined (with the reason) and accepted; a line opens its game and is read.
  await ann.goto(`${server.base}/`);
  await ann.waitForFunction(() => window.trunkfield.S.notes?.loaded && window.trunkfield.S.route.view === "lobby");
  await ann.click("#bell-btn");
  await ann.waitForSelector("#bell-panel:not([hidden])");
  const mine = ann.locator("#bell-list li");
  assert.deepEqual(await mine.evaluateAll((ls) => ls.map((l) => l.dataset.kind)), ["challenge_declined", "challenge_accepted"]);
  assert.equal(await mine.first().locator(".note-text").innerText(), "Bob_c declined your challenge");
  assert.equal(await mine.first().locator(".note-detail").innerText(), "This is not the right time for me, please ask again later.");
  assert.equal(await mine.nth(1).locator(".note-text").innerText(), "Bob_c accepted your challenge");
  await shot(ann, "bell-list-desktop");
  await mine.first().locator("a").click();
  await ann.waitForURL(new RegExp(`/g/${code}$`));
  assert.ok(await ann.locator("#bell-panel").isHidden());
  await ann.waitForFunction(() => document.querySelector("#bell-count").textContent === "1");
  assert.equal(await serverUnread(ann), 1);
  await ann.context().close();
  await bob.context().close();
});

test("declined from the toast; a challenge gone meanwhile; a challenge to no account; in French", async () => {
  const zoe = await accountPage("Zoe_c", DESKTOP);
  const tom = await tcpAccount(server, "Tom_c");
  // a challenge declined from the toast: the challenger learns it, with the reason
  tom.send({ type: "create_game", to: "Zoe_c", time_control: null, color: "random", public: false, ref: "t1" });
  const first = await tom.next((m) => m.ref === "t1");
  await zoe.waitForSelector("#note-toast:not([hidden])");
  await zoe.click("#note-decline");
  const cancel = await tom.next((m) => m.type === "event" && m.kind === "cancel" && m.game === first.code);
  assert.equal(cancel.payload.declined, "generic");
  const told = await tom.next((m) => m.type === "notification");
  assert.equal(told.kind, "challenge_declined");
  await zoe.waitForFunction(() => /You declined Tom_c's challenge/.test(document.querySelector("#toast").textContent));
  assert.ok(await zoe.locator("#note-toast").isHidden());
  assert.equal(await unread(zoe), 0, "acted on from the toast: read");
  // a challenge cancelled before the answer: declining it says so, and nothing else breaks
  tom.send({ type: "create_game", to: "Zoe_c", time_control: null, color: "random", public: false, ref: "t2" });
  const second = await tom.next((m) => m.ref === "t2");
  await zoe.waitForFunction((c) => document.querySelector("#note-toast")?.dataset.game === c && !document.querySelector("#note-toast").hidden, second.code);
  tom.send({ type: "cancel_game", code: second.code });
  await tom.next((m) => m.type === "event" && m.kind === "cancel" && m.game === second.code);
  await zoe.click("#note-decline");
  await zoe.waitForFunction(() => document.querySelector("#toast").textContent === "This challenge is no longer open.");
  assert.ok(await zoe.locator("#lobby-error").isHidden());
  tom.close();

  // a player page that answers although no account has the name (the server refuses the challenge)
  await zoe.route("**/api/players/Ghost", (r) => r.fulfill({ status: 200, contentType: "application/json",
    body: JSON.stringify({ username: "Ghost", player_id: "pGhost", created_at: new Date().toISOString(), ratings: {}, history: {}, totals: {}, recent: [] }) }));
  await zoe.goto(`${server.base}/@/Ghost`);
  await zoe.waitForSelector("#pf-body:not([hidden])");
  await zoe.click("#pf-challenge");
  await zoe.click("#ch-send");
  await zoe.waitForSelector("#ch-error:not([hidden])");
  assert.equal(await text(zoe, "#ch-error"), "The challenge was not sent: there is no account named Ghost");
  assert.ok(await zoe.locator("#challenge-dialog").evaluate((d) => d.open), "the form stays open");
  await zoe.click("#ch-close");
  await zoe.selectOption("#lang-select", "fr");
  assert.equal(await text(zoe, "#pf-challenge"), "Défier");
  await zoe.click("#pf-challenge");
  assert.equal(await text(zoe, "#ch-h"), "Défier Ghost");
  assert.equal(await text(zoe, "#ch-send"), "Envoyer le défi");
  await shot(zoe, "challenge-dialog-fr-desktop");
  await zoe.context().close();
});

// The relations' answer as the server has it, for the page's account.
const relations = (page) => page.evaluate(async () => {
  const r = await fetch("/api/relations", { headers: { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } });
  return r.json();
});

test("'Tell my followers when I start a game' on one's own page, kept by the server", async () => {
  const eve = await accountPage("Eve_c", DESKTOP);
  assert.equal((await relations(eve)).announce, true, "yes by default");
  await eve.goto(`${server.base}/@/Eve_c`);
  await eve.waitForSelector("#pf-announce-card:not([hidden])");
  assert.equal((await text(eve, "#pf-announce-card label")).trim(), "Tell my followers when I start a game");
  assert.ok(await eve.locator("#pf-announce").isChecked());
  await eve.uncheck("#pf-announce");
  await eve.waitForFunction(() => /no longer be told/.test(document.querySelector("#toast").textContent));
  assert.equal((await relations(eve)).announce, false);
  // Gus follows Eve (told of her games); Eve (a second connection of hers) starts a public game
  // with Hal: Gus is not told
  const gus = await tcpAccount(server, "Gus_c");
  const hal = await tcpAccount(server, "Hal_c");
  const http = (tok, path, body) => fetch(`${server.base}${path}`, { method: body ? "POST" : "GET",
    headers: { Authorization: `Bearer ${tok}`, "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined }).then((r) => r.json());
  assert.equal((await http(gus.token, "/api/relations", { follow: "Eve_c" })).following[0].notify, true);
  const eveTcp = await TcpPlayer.connect(server.tcpPort, null, eve.token);
  const publicGame = async (ref) => {
    eveTcp.send({ type: "create_game", variant: { size: 7, elephants: 3, burnt: 2, quiet: 30 }, time_control: null, color: "silver", public: true, ref });
    const made = await eveTcp.next((m) => m.ref === ref);
    assert.equal(made.type, "game_created", JSON.stringify(made));
    hal.send({ type: "join_game", code: made.code });
    await hal.next((m) => m.type === "snapshot" && m.game === made.code);
    return made.code;
  };
  const gusNotes = () => http(gus.token, "/api/notifications").then((d) => d.notifications.map((n) => [n.kind, n.game]));
  await publicGame("g1");
  await sleep(700);
  assert.deepEqual(await gusNotes(), [], "Eve does not announce her games");
  // after a reload the box says what the server has
  await eve.reload();
  await eve.waitForSelector("#pf-announce-card:not([hidden])");
  await eve.waitForFunction(() => window.trunkfield.S.rel.loaded);
  assert.ok(!(await eve.locator("#pf-announce").isChecked()));
  await eve.check("#pf-announce");
  await eve.waitForFunction(() => window.trunkfield.S.rel.announce === true && !window.trunkfield.S.rel.busy);
  assert.equal((await relations(eve)).announce, true);
  const second = await publicGame("g2");
  let notes = [];
  for (let i = 0; i < 50 && !notes.length; i++, await sleep(100)) notes = await gusNotes();
  assert.deepEqual(notes, [["followed_game", second]], "announced again");
  for (const p of [gus, hal, eveTcp]) p.close();
  // another account's page has no such box
  (await tcpAccount(server, "Fay_c")).close();
  await eve.goto(`${server.base}/@/Fay_c`);
  await eve.waitForSelector("#pf-body:not([hidden])");
  assert.ok(await eve.locator("#pf-announce-card").isHidden());
  await eve.selectOption("#lang-select", "fr");
  await eve.goto(`${server.base}/@/Eve_c`);
  await eve.waitForSelector("#pf-announce-card:not([hidden])");
  assert.equal((await text(eve, "#pf-announce-card label")).trim(), "Prévenir mes abonnés quand je commence une partie");
  await eve.context().close();
});

test("on this device: asked from the bell's panel; a challenge while the page is hidden is a system notification; game_over in words", async () => {
  const bob = await accountPage("Bob_n", DESKTOP);
  const ctx = bob.context();
  // the service worker is there (pwa.js registers it once the page has loaded)
  await bob.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  // never asked on load: the panel offers it
  assert.equal(await bob.evaluate(() => Notification.permission), "default");
  await bob.click("#bell-btn");
  await bob.waitForSelector("#bell-push:not([hidden])");
  assert.equal(await text(bob, "#bell-push-btn"), "Notify me on this device");
  await shot(bob, "bell-push-desktop");
  await ctx.grantPermissions(["notifications"], { origin: server.base });
  await bob.click("#bell-push-btn");
  await bob.waitForSelector("#bell-push", { state: "hidden" });
  await bob.click("#bell-btn"); // closed
  await bob.waitForSelector("#bell-panel", { state: "hidden" });

  // the page hidden (as when another tab is in front)
  await bob.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  // spy on showNotification too: what the page asked for, whether or not the system shows it
  await bob.evaluate(() => navigator.serviceWorker.ready.then((reg) => {
    window.shown = [];
    const show = reg.showNotification.bind(reg);
    reg.showNotification = (title, opts) => {
      window.shown.push({ title, opts });
      return show(title, opts);
    };
  }));
  const tom = await tcpAccount(server, "Tom_n");
  tom.send({ type: "create_game", to: "Bob_n", time_control: null, color: "random", public: false, ref: "t1" });
  const made = await tom.next((m) => m.ref === "t1");
  await bob.waitForFunction(() => window.shown.length === 1);
  const asked = await bob.evaluate(() => window.shown[0]);
  assert.equal(asked.title, "Tom_n challenges you");
  assert.match(asked.opts.tag, /^tf-\d+$/);
  assert.deepEqual(asked.opts.data, { url: `/g/${made.code}` });
  const titles = await bob.waitForFunction(async () => {
    const got = (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => n.title);
    return got.length ? got : null;
  }, null, { timeout: 5000 }).then((h) => h.jsonValue());
  assert.deepEqual(titles, ["Tom_n challenges you"], "headless Chromium keeps the service worker's notifications");

  // a game of Bob's that ended while he was away, in words (his side asked of the history API)
  const tomSide = await bob.evaluate(async (c) => {
    const d = await (await fetch(`/api/games/${c}`)).json();
    return d.players.silver?.name === "Tom_n" ? "silver" : "bronze";
  }, made.code);
  await bob.evaluate(({ code, tomSide }) => window.trunkfield.deliver({ type: "notification", id: 990001, kind: "game_over", at: Date.now(), read: false,
    game: code, result: { over: true, reason: "resign", winner: tomSide, score: { silver: 3, bronze: 1 }, to_move: null }, opponent: { id: "x", name: "Tom_n" } }),
  { code: made.code, tomSide });
  await bob.evaluate(() => {
    delete document.visibilityState;
    delete document.hidden;
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await bob.click("#bell-btn");
  const line = bob.locator('#bell-list li[data-kind="game_over"]');
  await bob.waitForFunction(() => /you lost/.test(document.querySelector('#bell-list li[data-kind="game_over"]')?.textContent ?? ""));
  assert.match(await line.innerText(), /Your game against Tom_n is over: you lost/);
  assert.equal(await line.locator("a").getAttribute("href"), `/g/${made.code}`);
  const sys = await bob.evaluate(() => window.shown.at(-1));
  assert.equal(sys.opts.tag, "tf-990001");
  assert.deepEqual(sys.opts.data, { url: `/g/${made.code}` });
  await shot(bob, "bell-game-over-desktop");
  tom.close();
  // refused: the panel says so, with no button
  await bob.evaluate(() => Object.defineProperty(Notification, "permission", { configurable: true, get: () => "denied" }));
  await bob.click("#bell-btn");
  await bob.click("#bell-btn");
  await bob.waitForSelector("#bell-push:not([hidden])");
  assert.ok(await bob.locator("#bell-push-btn").isHidden());
  assert.match(await text(bob, "#bell-push-note"), /blocks notifications/);
  await ctx.close();
});

test("a program plays as a bot account through the bridge: challenged from its page, a rated game", async () => {
  const cli = process.env.TF_CLI_BIN;
  assert.ok(cli, "TF_CLI_BIN names the trunkfield client");
  const rando = await tcpAccount(server, "Rando_c");
  rando.close();
  const made = await fetch(`${server.base}/api/account/bot`, { method: "POST", headers: { Authorization: `Bearer ${rando.token}` } });
  assert.equal(made.status, 200);
  const engine = path.resolve("../engine/random_engine.py");
  const bridge = spawn(cli, ["bridge", "--server", `127.0.0.1:${server.tcpPort}`, "--engine", `/usr/bin/python3 ${engine} 7`,
    "--token", rando.token, "--games", "1"], { stdio: ["ignore", "pipe", "pipe"] });
  let said = "";
  bridge.stdout.on("data", (d) => (said += d));
  bridge.stderr.on("data", (d) => (said += d));
  const ended = new Promise((resolve) => bridge.on("exit", resolve));
  try {
    const ann = await accountPage("Ann_b", DESKTOP);
    await ann.goto(`${server.base}/@/Rando_c`);
    await ann.waitForSelector("#pf-body:not([hidden])");
    assert.equal(await ann.locator("#pf-name .bot-badge").innerText(), "BOT");
    await ann.click("#pf-challenge");
    await ann.waitForSelector("#challenge-dialog[open]");
    await ann.selectOption("#ch-color", "silver");
    await ann.selectOption("#ch-time", "300000/5000");
    await ann.check("#ch-rated");
    await ann.click("#ch-send");
    await ann.waitForURL(/\/g\/[a-z0-9]+$/);
    const code = new URL(ann.url()).pathname.split("/")[2];
    // The bridge takes it: Ann sets up first.
    await ann.waitForSelector("#send-btn:not([hidden])", { timeout: 20000 });
    await ann.waitForSelector("#game .pcard .bot-badge"); // the bot's seat is marked BOT
    assert.equal(await ann.locator("#game .pcard .bot-badge").count(), 1);
    for (const c of [...EXAMPLE.silver.elephants, ...EXAMPLE.silver.guardians]) await cell(ann, cellName(c, 9)).click();
    await ann.click("#send-btn");
    await waitMyTurn(ann, 30000);
    await clickTurn(ann, EXAMPLE.turns[0], 9);
    await ann.click("#send-btn");
    // The engine answers with a turn of its own.
    await waitMyTurn(ann, 30000);
    const turns = await ann.evaluate((c) => window.trunkfield.S.games.get(c).turns.length, code);
    assert.equal(turns, 2);
    await shot(ann, "challenge-bot-game-desktop");
    await ann.click("#resign-btn");
    await ann.click("#resign-btn");
    await ann.waitForSelector('#result-ratings[data-state="done"]', { timeout: 15000 });
    assert.equal(await ann.locator("#result-ratings .rating-line").count(), 2, "rated: both ratings changed");
    assert.equal(await Promise.race([ended, sleep(15000).then(() => "still running")]), 0, `the bridge ends after its game: ${said}`);
    const g = await (await fetch(`${server.base}/api/games/${code}`)).json();
    assert.equal(g.rated, true);
    assert.equal(g.players.bronze.bot, true);
    await ann.context().close();
  } finally {
    bridge.kill();
  }
});

test("a rated game against the computer is a challenge to its house bot, played at once; its rematch too", async () => {
  const ann = await accountPage("Ann_h", DESKTOP);
  await ann.goto(`${server.base}/`);
  await ann.waitForSelector("#create-form");
  await ann.selectOption("#cv-opponent", "1");
  await ann.selectOption("#cv-color", "silver");
  await ann.selectOption("#cv-time", "300000/5000");
  await ann.check("#cv-rated");
  assert.match(await text(ann, "#cv-rated-hint"), /Rated against the bot account Level1/);
  await shot(ann, "house-bot-lobby-desktop");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  // No acceptance to wait for: the server seats Level1, marked BOT, and Ann sets up.
  await ann.waitForSelector("#send-btn:not([hidden])", { timeout: 20000 });
  await ann.waitForSelector("#game .pcard .bot-badge");
  assert.deepEqual(await shownGame(ann), { code, status: "playing", silver: "Ann_h", bronze: "Level1" });
  for (const c of [...EXAMPLE.silver.elephants, ...EXAMPLE.silver.guardians]) await cell(ann, cellName(c, 9)).click();
  await ann.click("#send-btn");
  await waitMyTurn(ann, 30000);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await waitMyTurn(ann, 30000); // the house bot answered
  await shot(ann, "house-bot-game-desktop");
  await ann.click("#resign-btn");
  await ann.click("#resign-btn");
  await ann.waitForSelector('#result-ratings[data-state="done"]', { timeout: 15000 });
  assert.equal(await ann.locator("#result-ratings .rating-line").count(), 2, "rated: both ratings changed");
  const g = await (await fetch(`${server.base}/api/games/${code}`)).json();
  assert.equal(g.rated, true);
  assert.equal(g.players.bronze.name, "Level1");
  assert.equal(g.players.bronze.bot, true);
  // The rematch is taken at once: Level1 again, on the other side.
  await ann.click("#rematch-btn");
  await ann.waitForURL((u) => /\/g\/[a-z0-9]+$/.test(u.pathname) && !u.pathname.endsWith(code), { timeout: 15000 });
  await ann.waitForSelector("#game .pcard .bot-badge");
  const next = await shownGame(ann);
  assert.equal(next.silver, "Level1");
  assert.equal(next.bronze, "Ann_h");
  await ann.context().close();
});
