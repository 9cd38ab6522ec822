// Vacation for correspondence games in the web client (issue 35; client/web/app/vacation.js, the
// game's cards in players.js; GET and POST /api/vacation, the game event "vacation" and the
// snapshot's "vacation" list), against the real trunkfield-server with a durable store and a
// "day" of two hours (--correspondence-day-seconds 7200; the budget: 30 such days).
// The card on the account's own page: off with 30.0 days left, "Start vacation" turns it on (the
// badge, since when and when it ends by itself, as the server says), kept after a reload, in
// French, no wider than a phone; "End vacation" turns it off. Nobody else's page has the card;
// no token is 401, a guest 403. A server with no days to give (--vacation-days 0) refuses in words
// (409 vacation_spent); one without a durable store (503 store_unavailable, stubbed: such a server
// has no accounts) says it keeps no vacations.
// A correspondence game of the page's account (silver) against a scripted TCP account (bronze):
// on silver's move Ann starts her vacation from her page in another tab: the TCP player gets the
// event (clocks.running null), both game pages show "On vacation" on silver's card (the opponent's
// live, then from the snapshot after a reload) and silver's clock stands; Ann still plays, and
// bronze's clock runs; her vacation ended, the badge goes from both pages.
// Screenshots (TF_ARTIFACTS): vacation-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DESKTOP, PHONE, serverAndBrowser, startServer, PageProblems, axeAudit, accountPage as newAccountPage, tcpAccount, newPlayer, shot,
  fitsPhone, cell, cellName, clickTurn, waitMyTurn, sleep, EXAMPLE } from "./lib.mjs";

const DAY_S = 7200;
let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--store", "sqlite", "--correspondence-day-seconds", String(DAY_S)]);

const text = (page, sel) => page.locator(sel).innerText();

// axe-core's WCAG 2.1 A/AA violations of the page as it stands (as correspondence.test.mjs runs
// it: the game page's turn list left out, for the reason given there).
const audit = (page, what) => axeAudit(page, what, ["#turn-log"]);
const accountPage = (username, viewport, srv = server) => newAccountPage(browser, srv, problems, username, viewport);

// GET or POST /api/vacation with the page's token (or none): {status, body}.
const api = (page, body = undefined, token = true) => page.evaluate(async ([b, withToken]) => {
  const headers = withToken ? { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } : {};
  const init = { headers };
  if (b !== undefined) Object.assign(init, { method: "POST", body: JSON.stringify(b) }, { headers: { ...headers, "Content-Type": "application/json" } });
  const r = await fetch("/api/vacation", init);
  return { status: r.status, body: await r.json().catch(() => null) };
}, [body, token]);

// The account's own page, its vacation card shown.
async function ownPage(page, username, base = server.base) {
  await page.goto(`${base}/@/${username}`);
  await page.waitForSelector("#pf-vac-body:not([hidden])");
}

test("the vacation card: start, the days left, kept, in French, on a phone, end", async () => {
  const ann = await accountPage("Ann_v", DESKTOP);
  await ownPage(ann, "Ann_v");
  assert.equal(await text(ann, "#pf-vac-h"), "Vacation");
  assert.equal(await text(ann, "#pf-vac-status"), "You are not on vacation.");
  assert.equal(await text(ann, "#pf-vac-left"), "30.0 days of vacation left this year (of 30.0; 0.0 used).");
  assert.ok(await ann.locator("#pf-vac-badge").isHidden());
  assert.ok(await ann.locator("#pf-vac-since").isHidden());
  assert.equal(await text(ann, "#pf-vac-toggle"), "Start vacation");
  const off = (await api(ann)).body;
  assert.equal(off.on, false);
  assert.equal(off.since, null);
  assert.equal(off.ends_at, null);
  assert.equal(off.budget_days, 30);
  await ann.locator("#pf-vac-card").scrollIntoViewIfNeeded();
  await shot(ann, "vacation-card-off-desktop");

  // Start vacation: the server's state, the badge, since when and when it ends by itself.
  await ann.click("#pf-vac-toggle");
  await ann.waitForSelector("#pf-vac-state[data-on=true]");
  assert.equal(await text(ann, "#pf-vac-status"), "You are on vacation.");
  assert.equal(await text(ann, "#pf-vac-badge"), "On vacation");
  assert.equal(await text(ann, "#pf-vac-toggle"), "End vacation");
  assert.match(await text(ann, "#pf-vac-left"), /^(30\.0|29\.9) days of vacation left this year \(of 30\.0; 0\.[01] used\)\.$/);
  assert.match(await text(ann, "#pf-vac-since"), /^On vacation since .+; it ends by itself on .+, when your days run out\.$/);
  const on = (await api(ann)).body;
  assert.equal(on.on, true);
  assert.equal(typeof on.since, "number");
  assert.ok(Math.abs(on.ends_at - on.since - 30 * DAY_S * 1000) < 60000, JSON.stringify(on));
  assert.ok(on.left_days <= 30 && on.left_days > 29.9, JSON.stringify(on));
  assert.ok(await ann.locator("#pf-vac-err").isHidden());
  await ann.locator("#pf-vac-card").scrollIntoViewIfNeeded();
  await shot(ann, "vacation-card-on-desktop");
  await audit(ann, "the vacation card, on");

  // Kept: the page asks the server again.
  await ann.reload();
  await ann.waitForSelector("#pf-vac-state[data-on=true]");
  assert.equal(await text(ann, "#pf-vac-toggle"), "End vacation");

  // In French.
  await ann.selectOption("#lang-select", "fr");
  await ann.waitForFunction(() => document.querySelector("#pf-vac-h").textContent === "Vacances");
  assert.equal(await text(ann, "#pf-vac-status"), "Vous êtes en vacances.");
  assert.equal(await text(ann, "#pf-vac-badge"), "En vacances");
  assert.equal(await text(ann, "#pf-vac-toggle"), "Terminer les vacances");
  assert.match(await text(ann, "#pf-vac-left"), /^(30,0|29,9) jours de vacances restants cette année \(sur 30,0 ; 0,[01] utilisé\)\.$/);
  assert.match(await text(ann, "#pf-vac-since"), /^En vacances depuis le .+ ; elles se terminent d'elles-mêmes le .+, quand vos jours sont épuisés\.$/);
  await ann.locator("#pf-vac-card").scrollIntoViewIfNeeded();
  await shot(ann, "vacation-card-on-french");
  await ann.selectOption("#lang-select", "en");
  await ann.waitForFunction(() => document.querySelector("#pf-vac-h").textContent === "Vacation");

  // A phone: the card no wider than the screen.
  await ann.setViewportSize(PHONE);
  await fitsPhone(ann, "the vacation card");
  const box = await ann.locator("#pf-vac-card").boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `the card: ${JSON.stringify(box)}`);
  await ann.locator("#pf-vac-card").scrollIntoViewIfNeeded();
  await shot(ann, "vacation-card-on-phone");
  await ann.setViewportSize(DESKTOP);

  // End vacation.
  await ann.click("#pf-vac-toggle");
  await ann.waitForSelector("#pf-vac-state[data-on=false]");
  assert.equal(await text(ann, "#pf-vac-status"), "You are not on vacation.");
  assert.equal(await text(ann, "#pf-vac-toggle"), "Start vacation");
  assert.ok(await ann.locator("#pf-vac-since").isHidden());
  assert.ok(await ann.locator("#pf-vac-badge").isHidden());
  const back = (await api(ann)).body;
  assert.equal(back.on, false);
  assert.ok(back.used_days >= 0 && back.used_days < 0.1 && Math.abs(back.used_days + back.left_days - 30) < 0.01, JSON.stringify(back));

  // Another account's page has no card; no token, a guest, a body that is not {"on": bool}.
  const bob = await accountPage("Bob_v", DESKTOP);
  await bob.goto(`${server.base}/@/Ann_v`);
  await bob.waitForSelector("#pf-body:not([hidden])");
  assert.ok(await bob.locator("#pf-vac-card").isHidden());
  assert.equal((await api(bob, undefined, false)).status, 401);
  assert.equal((await api(bob, { on: "yes" })).status, 400);
  const guest = await newPlayer(browser, server.base, problems, "Gus");
  const g = await api(guest);
  assert.equal(g.status, 403, JSON.stringify(g));
  assert.equal(g.body?.error, "account_required");
  await guest.goto(`${server.base}/@/Ann_v`);
  await guest.waitForSelector("#pf-body:not([hidden])");
  assert.ok(await guest.locator("#pf-vac-card").isHidden());
  for (const p of [ann, bob, guest]) await p.context().close();
});

test("no days left: the refusal in words; a server that keeps no vacations", async () => {
  const spent = await startServer(["--store", "sqlite", "--vacation-days", "0"]);
  try {
    const cy = await accountPage("Cy_v", DESKTOP, spent);
    await ownPage(cy, "Cy_v", spent.base);
    assert.equal(await text(cy, "#pf-vac-left"), "0.0 days of vacation left this year (of 0.0; 0.0 used).");
    assert.equal(await text(cy, "#pf-vac-note"), "You have used all your vacation days this year.");
    await cy.click("#pf-vac-toggle");
    await cy.waitForSelector("#pf-vac-err:not([hidden])");
    assert.equal(await text(cy, "#pf-vac-err"), "No vacation days left this year: your vacation cannot start. They come back on 1 January.");
    assert.equal(await cy.locator("#pf-vac-state").getAttribute("data-on"), "false");
    assert.equal(await text(cy, "#pf-vac-toggle"), "Start vacation");
    const r = await api(cy, { on: true });
    assert.equal(r.status, 409);
    assert.equal(r.body.error, "vacation_spent");
    await cy.locator("#pf-vac-card").scrollIntoViewIfNeeded();
    await shot(cy, "vacation-card-spent");
  await audit(cy, "the vacation card, refused");
    await cy.selectOption("#lang-select", "fr");
    await cy.waitForFunction(() => document.querySelector("#pf-vac-err").textContent.startsWith("Plus de jours de vacances cette année"));
    await cy.selectOption("#lang-select", "en");

    // A server without a durable store answers 503 store_unavailable (it has no accounts either,
    // so the answer is stubbed here): the card says so, without a button.
    await cy.route("**/api/vacation", (route) => route.fulfill({ status: 503, contentType: "application/json",
      body: JSON.stringify({ error: "store_unavailable", message: "this server keeps no accounts (--store memory)" }) }));
    await cy.reload();
    await cy.waitForSelector("#pf-vac-load-err:not([hidden])");
    assert.equal(await text(cy, "#pf-vac-load-err"), "This server keeps no vacations (it has no lasting storage).");
    assert.ok(await cy.locator("#pf-vac-body").isHidden());
    await cy.context().close();
  } finally {
    spent.stop();
  }
});

const vacationBadge = (page, side) => page.locator(`#game .pcard[data-side="${side}"] .pc-vacation`);

test("a correspondence game: on vacation on silver's move, the badge, the event, the clock stands", async () => {
  const ann = await accountPage("Ann_g", DESKTOP);
  const bob = await tcpAccount(server, "Bob_g"); // the scripted opponent, an account on TCP

  // Bob challenges Ann to 1 day per move; Ann (silver) accepts from the toast.
  bob.send({ type: "create_game", time_control: { days_per_move: 1 }, color: "bronze", public: false, to: "Ann_g", ref: "c" });
  const created = await bob.next((m) => m.type === "game_created" && m.ref === "c");
  const code = created.code;
  await ann.waitForSelector("#note-toast:not([hidden])");
  await ann.click("#note-accept");
  await ann.waitForURL(new RegExp(`/g/${code}$`));
  await ann.waitForFunction((c) => window.trunkfield.S.games.get(c)?.status === "playing", code);

  // The setups, silver's first turn (clicks), bronze's answer (TCP): silver to move, her clock runs.
  await ann.waitForSelector("#send-btn:not([hidden])");
  for (const c of [...EXAMPLE.silver.elephants, ...EXAMPLE.silver.guardians]) await cell(ann, cellName(c, 9)).click();
  await ann.click("#send-btn");
  await bob.next((m) => m.type === "event" && m.kind === "setup" && m.payload.side === "silver");
  bob.send({ type: "setup", game: code, setup: EXAMPLE.bronze });
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");
  bob.send({ type: "turn", game: code, turn: EXAMPLE.turns[1] });
  await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "bronze");
  await waitMyTurn(ann);
  await ann.waitForFunction((c) => window.trunkfield.S.games.get(c).clocks?.running === "silver", code);
  assert.equal(await ann.locator("#game .pc-vacation").count(), 0);

  // Bob watches in a browser too (his account's token).
  const bobPage = await (async () => {
    const ctx = await browser.newContext({ viewport: DESKTOP, locale: "en-US" });
    await ctx.addInitScript((tok) => localStorage.setItem("trunkfield.token", tok), bob.token);
    const p = await ctx.newPage();
    problems.watch(p, "Bob_g (browser)");
    await p.goto(`${server.base}/g/${code}`);
    await p.waitForFunction((c) => window.trunkfield.S.games.get(c)?.clocks?.running === "silver", code);
    return p;
  })();
  const versionBefore = await bobPage.evaluate((c) => window.trunkfield.S.games.get(c).version, code);

  // Ann starts her vacation from her own page, in another tab.
  const tab = await ann.context().newPage();
  problems.watch(tab, "Ann_g (profile)");
  await ownPage(tab, "Ann_g");
  await tab.click("#pf-vac-toggle");
  await tab.waitForSelector("#pf-vac-state[data-on=true]");

  // The TCP player gets the event: silver on vacation, no clock running.
  const ev = await bob.next((m) => m.type === "event" && m.kind === "vacation", 20000);
  assert.deepEqual(ev.payload, { side: "silver", on: true });
  assert.equal(ev.clocks?.running, null, JSON.stringify(ev));
  // Both pages: the badge on silver's card only, the event's version taken, silver's clock stands.
  for (const [p, who] of [[ann, "Ann"], [bobPage, "Bob"]]) {
    await vacationBadge(p, "silver").waitFor({ timeout: 15000 });
    assert.equal(await vacationBadge(p, "silver").innerText(), "On vacation", who);
    assert.equal(await vacationBadge(p, "bronze").count(), 0, who);
    const G = await p.evaluate((c) => { const G = window.trunkfield.S.games.get(c); return { version: G.version, running: G.clocks?.running ?? null, vacation: G.vacation }; }, code);
    assert.equal(G.version, ev.version, who);
    assert.equal(G.running, null, who);
    assert.deepEqual(G.vacation, ["silver"], who);
    assert.equal(await p.locator("#game .clock.running").count(), 0, `${who}: no clock runs`);
  }
  assert.equal(ev.version, versionBefore + 1);
  const stood = await ann.locator('#game .clock[data-side="silver"]').innerText();
  await sleep(1500);
  assert.equal(await ann.locator('#game .clock[data-side="silver"]').innerText(), stood, "silver's clock stands");
  await ann.bringToFront();
  await shot(ann, "vacation-game-own");
  await bobPage.bringToFront();
  await shot(bobPage, "vacation-game-opponent");
  await audit(bobPage, "the game with the opponent on vacation");

  // The opponent's page after a reload: the snapshot's "vacation" list.
  await bobPage.reload();
  await vacationBadge(bobPage, "silver").waitFor({ timeout: 15000 });
  // a phone: the badge fits on the card
  await bobPage.setViewportSize(PHONE);
  await fitsPhone(bobPage, "the game with a player on vacation");
  await shot(bobPage, "vacation-game-opponent-phone");
  await bobPage.setViewportSize(DESKTOP);
  // in French
  await bobPage.selectOption("#lang-select", "fr");
  await bobPage.waitForFunction(() => document.querySelector('#game .pcard[data-side="silver"] .pc-vacation')?.textContent === "En vacances");
  await bobPage.selectOption("#lang-select", "en");

  // Ann may still play: then bronze's clock runs as usual, and she stays on vacation.
  await ann.bringToFront();
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[2], 9);
  await ann.click("#send-btn");
  const turn = await bob.next((m) => m.type === "event" && m.kind === "turn" && m.payload.side === "silver");
  assert.equal(turn.clocks?.running, "bronze", JSON.stringify(turn.clocks));
  for (const p of [ann, bobPage]) {
    await p.waitForFunction((c) => window.trunkfield.S.games.get(c).clocks?.running === "bronze", code);
    assert.equal(await vacationBadge(p, "silver").count(), 1);
    assert.equal(await p.locator('#game .clock.running[data-side="bronze"]').count(), 1);
  }

  // Her vacation ended: the event, and the badge gone from both pages.
  await tab.bringToFront();
  await tab.click("#pf-vac-toggle");
  await tab.waitForSelector("#pf-vac-state[data-on=false]");
  const back = await bob.next((m) => m.type === "event" && m.kind === "vacation", 20000);
  assert.deepEqual(back.payload, { side: "silver", on: false });
  for (const p of [ann, bobPage]) {
    await p.waitForFunction(() => !document.querySelector("#game .pc-vacation"), null, { timeout: 15000 });
    assert.deepEqual(await p.evaluate((c) => window.trunkfield.S.games.get(c).vacation, code), []);
  }
  bob.close();
  for (const p of [ann, bobPage]) await p.context().close();
});
