// Following and blocking in the web client (proto/PROTOCOL.md "Follow and block"), three accounts
// in browser contexts against the real trunkfield-server with a durable store (--store sqlite)
// and two more over TCP: Ann follows Bob from his player page (told of his games), Cy follows him
// without being told; Ann's lobby panel "Following" shows Bob online and Fay (not connected)
// offline. Bob plays a public game against Dan (both over TCP): Ann's panel shows Watch, her page
// shows "Bob_r started a game — Watch" in a toast and in the bell's list; Cy, following quietly,
// is not told. Bob blocks Cy from Cy's page (asked first): Bob's page has no Challenge then, Cy's
// follow has ended, Cy's challenge and follow are refused in words; Bob unblocks Cy from the list
// on his own page (the account menu's "Blocked players") and Cy's challenge goes through; the
// buttons and the panel in French. Screenshots (TF_ARTIFACTS): relations-*.png,
// the player page's buttons and the Following panel, on a desktop and on a phone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DESKTOP, PHONE, serverAndBrowser, PageProblems, TcpPlayer, tcpAccount, accountPage as newAccountPage, shot } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--store", "sqlite"]);

const text = (page, sel) => page.locator(sel).innerText();
const accountPage = (username, viewport) => newAccountPage(browser, server, problems, username, viewport);

// GET /api/relations with the page's token, as the server answers it now.
const relations = (page) => page.evaluate(async () => {
  const r = await fetch("/api/relations", { headers: { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } });
  return r.json();
});
// The bodies of the page's POST /api/relations, as sent.
function postsOf(page) {
  const bodies = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/relations") bodies.push(JSON.parse(r.postData()));
  });
  return bodies;
}
// A player's page once its follow and block buttons are there.
async function playerPage(page, name) {
  await page.goto(`${server.base}/@/${name}`);
  await page.waitForSelector("#pf-body:not([hidden])");
  await page.waitForSelector("#pf-rel:not([hidden])");
}
// The Following panel's lines: [name, state, Watch's href or null].
const panel = (page) => page.locator("#following-list li").evaluateAll((ls) => ls.map((l) =>
  [l.dataset.name, l.dataset.state, l.querySelector(".fl-watch")?.getAttribute("href") ?? null]));

let ann, bob, cy, dan, annPosts, cyPosts;

test("follow from the player page; the lobby's Following panel, online and offline", async () => {
  ann = await accountPage("Ann_r", DESKTOP);
  bob = await accountPage("Bob_r", PHONE);
  cy = await accountPage("Cy_r", DESKTOP);
  dan = await tcpAccount(server, "Dan_r"); // online, over TCP: Bob's opponent later
  (await tcpAccount(server, "Fay_r")).close(); // an account not connected
  annPosts = postsOf(ann);
  cyPosts = postsOf(cy);

  // nothing followed yet: the panel says how it fills
  await ann.waitForSelector("#following-card:not([hidden])");
  await ann.waitForSelector("#following-empty:not([hidden])");
  assert.match(await text(ann, "#following-empty"), /^You follow nobody yet/);

  // Bob's page: Challenge, Follow (told of his games by default), Block
  await playerPage(ann, "Bob_r");
  assert.deepEqual(await ann.locator(".profile-head button:visible").allInnerTexts(), ["Challenge", "Follow", "Mute", "Block", "Report"]);
  assert.equal(await text(ann, "#pf-notify-field"), "Notify me of their games");
  assert.ok(await ann.isChecked("#pf-notify"));
  assert.ok(await ann.locator("#pf-challenge").isEnabled());
  await shot(ann, "relations-profile-desktop");
  await ann.click("#pf-follow");
  await ann.waitForFunction(() => document.querySelector("#pf-follow").textContent === "Unfollow");
  assert.deepEqual(annPosts, [{ follow: "Bob_r" }]);
  await ann.waitForFunction(() => document.querySelector("#toast").textContent === "You follow Bob_r now: you will be told when they start a game.");
  assert.ok(await ann.isChecked("#pf-notify"));
  await shot(ann, "relations-profile-following-desktop");
  // and Fay, who is not connected
  await playerPage(ann, "Fay_r");
  await ann.click("#pf-follow");
  await ann.waitForFunction(() => document.querySelector("#pf-follow").textContent === "Unfollow");

  // one's own page: no Follow, no Block; the blocked players instead
  await ann.goto(`${server.base}/@/Ann_r`);
  await ann.waitForSelector("#pf-blocked-card:not([hidden])");
  assert.ok(await ann.locator("#pf-rel").isHidden());
  assert.equal(await text(ann, "#pf-blocked-empty"), "You have blocked nobody.");

  // Cy follows Bob without being told of his games
  await playerPage(cy, "Bob_r");
  await cy.uncheck("#pf-notify");
  assert.deepEqual(cyPosts, [], "the box alone changes nothing before following");
  await cy.click("#pf-follow");
  await cy.waitForFunction(() => document.querySelector("#pf-follow").textContent === "Unfollow");
  assert.deepEqual(cyPosts, [{ follow: "Bob_r", notify: false }]);
  assert.equal(await text(cy, "#toast"), "You follow Bob_r now, without being told of their games.");
  assert.ok(!(await cy.isChecked("#pf-notify")));
  const cyRel = await relations(cy);
  assert.deepEqual(cyRel.following.map((f) => [f.name, f.notify]), [["Bob_r", false]]);
  // the box, following: on and off again, each a follow with the new choice
  await cy.check("#pf-notify");
  await cy.waitForFunction(() => document.querySelector("#toast").textContent === "You will be told when Bob_r starts a game.");
  await cy.uncheck("#pf-notify");
  await cy.waitForFunction(() => document.querySelector("#toast").textContent === "You will no longer be told when Bob_r starts a game.");
  assert.deepEqual(cyPosts.slice(1), [{ follow: "Bob_r" }, { follow: "Bob_r", notify: false }]);
  assert.deepEqual((await relations(cy)).following.map((f) => [f.name, f.notify]), [["Bob_r", false]]);

  // Ann's lobby: Bob online (his page is open), Fay offline; Bob first
  await ann.goto(`${server.base}/`);
  await ann.waitForSelector("#following-list li");
  await ann.waitForFunction(() => document.querySelectorAll("#following-list li").length === 2);
  assert.deepEqual(await panel(ann), [["Bob_r", "online", null], ["Fay_r", "offline", null]]);
  assert.equal(await text(ann, "#following-count"), "1 of 2 online");
  assert.deepEqual(await ann.locator("#following-list li").first().locator(".fl-state, .fl-name, button").allInnerTexts(),
    ["Bob_r", "online", "Challenge"]);
  const dots = await ann.locator("#following-list .presence .dot").evaluateAll((ds) => ds.map((d) => getComputedStyle(d).backgroundColor));
  assert.equal(dots[0], "rgb(26, 127, 55)", "a green dot for Bob");
  assert.equal(dots[1], "rgb(156, 163, 175)", "a grey dot for Fay");
  await ann.locator("#following-card").scrollIntoViewIfNeeded();
  await shot(ann, "relations-following-desktop");
  // the Challenge shortcut opens the challenge form for that player
  await ann.locator('#following-list li[data-name="Bob_r"] .fl-challenge').click();
  await ann.waitForSelector("#challenge-dialog[open]");
  assert.equal(await text(ann, "#ch-h"), "Challenge Bob_r");
  await ann.click("#ch-close");
  // the name is a link to the player's page
  assert.equal(await ann.locator('#following-list li[data-name="Fay_r"] a.fl-name').getAttribute("href"), "/@/Fay_r");
});

test("a followed account's public game: Watch in the panel, a toast, the bell; a quiet follower is not told", async () => {
  assert.ok(ann && bob && cy && dan, "needs the first test's pages");
  // Bob (a second connection of his, over TCP) creates a public game; Dan takes the other seat
  const bobTcp = await TcpPlayer.connect(server.tcpPort, null, bob.token);
  bobTcp.send({ type: "create_game", variant: { size: 7, elephants: 3, burnt: 2, quiet: 30 }, time_control: null, color: "silver", public: true, ref: "g1" });
  const created = await bobTcp.next((m) => m.ref === "g1");
  assert.equal(created.type, "game_created", JSON.stringify(created));
  const code = created.code;
  dan.send({ type: "join_game", code });
  await dan.next((m) => m.type === "snapshot" && m.game === code);

  // Ann, in the lobby: the toast, then Watch in the panel
  await ann.waitForSelector("#note-toast:not([hidden])");
  assert.equal(await text(ann, "#note-toast-text"), "Bob_r started a game");
  assert.equal(await ann.getAttribute("#note-toast", "data-kind"), "followed_game");
  assert.equal(await ann.getAttribute("#note-toast", "data-game"), code);
  assert.deepEqual(await ann.locator("#note-toast button:visible").allInnerTexts(), ["Watch", "×"]);
  await ann.waitForFunction(() => document.querySelector('#following-list li[data-name="Bob_r"]')?.dataset.state === "playing");
  assert.deepEqual((await panel(ann))[0], ["Bob_r", "playing", `/g/${code}`]);
  assert.equal(await ann.locator('#following-list li[data-name="Bob_r"] .fl-state').innerText(), "playing now");
  assert.equal(await ann.locator('#following-list li[data-name="Bob_r"] .fl-watch').getAttribute("aria-label"), "Watch Bob_r's game");
  await shot(ann, "relations-toast-desktop");
  // the server says so too (the panel asks again a moment after the notification)
  let rel = null;
  for (let i = 0; i < 50; i++) {
    rel = await relations(ann);
    if (rel.following.find((f) => f.name === "Bob_r")?.playing === code) break;
    await ann.waitForTimeout(100);
  }
  assert.deepEqual(rel.following.map((f) => [f.name, f.online, f.playing, f.notify]),
    [["Bob_r", true, code, true], ["Fay_r", false, null, true]], "GET /api/relations: Bob online and playing the game");
  await ann.waitForTimeout(1800); // the panel's second look: it keeps the game
  assert.deepEqual((await panel(ann))[0], ["Bob_r", "playing", `/g/${code}`]);
  await ann.locator("#following-card").scrollIntoViewIfNeeded();
  await shot(ann, "relations-following-playing-desktop");

  // the bell lists it
  assert.equal(await text(ann, "#bell-count"), "1");
  await ann.click("#bell-btn");
  await ann.waitForSelector("#bell-list li");
  const line = ann.locator("#bell-list li").first();
  assert.equal(await line.getAttribute("data-kind"), "followed_game");
  assert.equal(await line.locator(".note-text").innerText(), "Bob_r started a game");
  assert.equal(await line.locator("a").getAttribute("href"), `/g/${code}`);
  await ann.keyboard.press("Escape");

  // Cy follows quietly: no notification
  const cyNotes = await cy.evaluate(async () => {
    const r = await fetch("/api/notifications", { headers: { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } });
    return (await r.json()).notifications.map((n) => n.kind);
  });
  assert.deepEqual(cyNotes, []);
  assert.ok(await cy.locator("#note-toast").isHidden());

  // Watch, from the toast: Ann watches the game
  await ann.click("#note-watch");
  await ann.waitForURL(new RegExp(`/g/${code}$`));
  await ann.waitForFunction((c) => window.trunkfield.S.games.get(c)?.status === "playing", code);
  assert.ok(await ann.locator("#note-toast").isHidden());
  await ann.waitForFunction(() => window.trunkfield.S.notes.unread === 0);

  // the panel on a phone, Watch and all
  await ann.goto(`${server.base}/`);
  await ann.setViewportSize(PHONE);
  await ann.waitForSelector('#following-list li[data-state="playing"]');
  await ann.locator("#following-card").scrollIntoViewIfNeeded();
  await shot(ann, "relations-following-phone");
  await playerPage(ann, "Bob_r");
  await shot(ann, "relations-profile-phone");
  await ann.setViewportSize(DESKTOP);
  bobTcp.close();
});

test("a block from the player page: asked first, both ways; unblocked from the list on one's own page", async () => {
  assert.ok(ann && bob && cy, "needs the first test's pages");
  const bobPosts = postsOf(bob);
  // Bob, on Cy's page (a phone): Block asks first and says what it does
  await playerPage(bob, "Cy_r");
  await bob.click("#pf-block");
  await bob.waitForSelector("#block-dialog[open]");
  assert.equal(await text(bob, "#block-h"), "Block Cy_r?");
  assert.match(await text(bob, "#block-explain"), /^Neither of you will be able to challenge the other .* quick match will never pair you, and neither of you will see the other's chat/);
  assert.equal(await bob.evaluate(() => document.activeElement.id), "block-cancel", "the safe choice has the focus");
  await shot(bob, "relations-block-dialog-phone");
  // Cancel: nothing happens
  await bob.click("#block-cancel");
  assert.deepEqual(bobPosts, []);
  await bob.click("#pf-block");
  await bob.waitForSelector("#block-dialog[open]");
  await bob.click("#block-confirm");
  await bob.waitForFunction(() => document.querySelector("#pf-block").textContent === "Unblock");
  assert.deepEqual(bobPosts, [{ block: "Cy_r" }]);
  assert.equal(await text(bob, "#toast"), "You blocked Cy_r.");
  assert.ok(await bob.locator("#pf-follow").isHidden(), "no following someone blocked");
  assert.ok(await bob.locator("#pf-notify-field").isHidden());
  assert.ok(await bob.locator("#pf-challenge").isDisabled(), "no challenging someone blocked");
  assert.equal(await text(bob, "#pf-block-note"), "You blocked Cy_r: no challenges and no pairing between you, and neither of you sees the other's chat.");
  assert.equal(await bob.getAttribute("#pf-challenge", "aria-describedby"), "pf-block-note");
  await shot(bob, "relations-blocked-phone");
  assert.deepEqual((await relations(bob)).blocked.map((b) => b.name), ["Cy_r"]);

  // Cy's follow of Bob ended with the block
  assert.deepEqual((await relations(cy)).following, []);
  // Cy, on Bob's page: a challenge is refused, in words; so is following him again
  await playerPage(cy, "Bob_r");
  assert.equal(await text(cy, "#pf-follow"), "Follow");
  await cy.click("#pf-challenge");
  await cy.waitForSelector("#challenge-dialog[open]");
  await cy.click("#ch-send");
  await cy.waitForSelector("#ch-error:not([hidden])");
  assert.equal(await text(cy, "#ch-error"), "The challenge was not sent: Bob_r cannot be challenged by you: one of you has blocked the other");
  await shot(cy, "relations-challenge-refused-desktop");
  await cy.click("#ch-close");
  await cy.click("#pf-follow");
  await cy.waitForSelector("#pf-rel-error:not([hidden])");
  assert.equal(await text(cy, "#pf-rel-error"), "You cannot follow Bob_r: one of you has blocked the other.");
  assert.equal(await text(cy, "#pf-follow"), "Follow");
  await shot(cy, "relations-follow-refused-desktop");

  // Bob's own page lists Cy, with Unblock: the account menu's "Blocked players" shows it
  await bob.click("#account-btn");
  await bob.click("#menu-blocked");
  await bob.waitForURL(/\/@\/Bob_r#blocked$/);
  await bob.waitForSelector("#pf-blocked li");
  await bob.waitForFunction(() => {
    const r = document.querySelector("#pf-blocked-card").getBoundingClientRect();
    return r.top >= 0 && r.top < innerHeight;
  });
  assert.deepEqual(await bob.locator("#pf-blocked li").evaluateAll((ls) => ls.map((l) => l.dataset.name)), ["Cy_r"]);
  assert.match(await bob.locator("#pf-blocked li .what").innerText(), /^blocked on /);
  assert.equal(await bob.getAttribute("#pf-blocked li .unblock", "aria-label"), "Unblock Cy_r");
  assert.ok(await bob.locator("#pf-blocked-empty").isHidden());
  await bob.locator("#pf-blocked-card").scrollIntoViewIfNeeded();
  await shot(bob, "relations-blocked-list-phone");
  await bob.click("#pf-blocked li .unblock");
  await bob.waitForSelector("#pf-blocked-empty:not([hidden])");
  assert.equal(await bob.locator("#pf-blocked li").count(), 0);
  assert.equal(await text(bob, "#toast"), "You unblocked Cy_r.");
  assert.deepEqual(bobPosts, [{ block: "Cy_r" }, { unblock: "Cy_r" }]);

  // Cy's challenge goes through now
  await cy.click("#pf-challenge");
  await cy.waitForSelector("#challenge-dialog[open]");
  assert.ok(await cy.locator("#ch-error").isHidden(), "the form's old error is gone");
  await cy.click("#ch-send");
  await cy.waitForURL(/\/g\/[a-z0-9]+$/);
  await cy.waitForFunction(() => /Challenge sent to Bob_r/.test(document.querySelector("#status").textContent));
  await bob.waitForSelector("#note-toast:not([hidden])");
  assert.equal(await text(bob, "#note-toast-text"), "Cy_r challenges you");
  await cy.click("#cancel-game");

  // in French: the buttons and the panel
  await cy.selectOption("#lang-select", "fr");
  await playerPage(cy, "Bob_r");
  assert.deepEqual(await cy.locator(".profile-head button:visible").allInnerTexts(), ["Défier", "Suivre", "Masquer", "Bloquer", "Signaler"]);
  assert.equal(await text(cy, "#pf-notify-field"), "Me prévenir de ses parties");
  await cy.click("#pf-follow");
  await cy.waitForFunction(() => document.querySelector("#pf-follow").textContent === "Ne plus suivre");
  await cy.goto(`${server.base}/`);
  await cy.waitForSelector("#following-list li");
  assert.equal(await text(cy, "#following-h"), "Joueurs suivis");
  assert.match(await cy.locator("#following-list li .fl-state").innerText(), /^(en ligne|en partie)$/);
  await cy.locator("#following-card").scrollIntoViewIfNeeded();
  await shot(cy, "relations-following-fr-desktop");
  for (const p of [ann, bob, cy]) await p.context().close();
  dan.close();
});
