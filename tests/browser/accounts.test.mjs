// Accounts and ratings in the web client, in headless Debian chromium against the real
// trunkfield-server: registering from the sign-in dialog (with the errors in words next to their
// field, the guest's games kept), signing out and in again (a new token stored each time),
// changing the password, signing out everywhere; two accounts play a rated game to its end and
// both pages show the ratings and their change; the player page and the leaderboard.
// Screenshots (TF_ARTIFACTS): account-*.png, rated-*.png, profile-*.png, leaderboard-*.png, on
// a desktop and a phone-width viewport.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ART, DESKTOP, PHONE, serverAndBrowser, PageProblems, TcpPlayer, newPlayer, cell, cellName, clickTurn,
  waitMyTurn, gameOf, EXAMPLE, sleep } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
const shot = async (page, name) => {
  await page.mouse.move(0, 0); // no hover on what is looked at
  await page.screenshot({ path: path.join(ART, `${name}.png`) });
};

serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]));

const me = (page) => page.evaluate(() => {
  const m = window.trunkfield.S.me;
  return { id: m?.player_id, name: m?.name, token: m?.token, account: m?.account ?? null,
    stored: localStorage.getItem("trunkfield.token") };
});
const text = (page, sel) => page.locator(sel).innerText();

// Registers `username` from the header's dialog, as a player would.
async function register(page, username, password) {
  await page.click("#signin-btn");
  await page.waitForSelector("#account-dialog[open]");
  await page.click("#tab-register");
  await page.fill("#reg-user", username);
  await page.fill("#reg-pass", password);
  await page.click("#reg-submit");
  await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
  await page.waitForSelector("#account-dialog:not([open])", { state: "attached" });
}

async function openMenu(page) {
  await page.click("#account-btn");
  await page.waitForSelector("#account-menu:not([hidden])");
}

test("register, sign out, sign in again; errors in words next to their field", async () => {
  // Someone holds "Bobby" already (a TCP client registers it).
  const other = await TcpPlayer.connect(server.tcpPort, "x");
  other.send({ type: "register", username: "Bobby", password: "bobby-secret", ref: "r1" });
  assert.equal((await other.next((m) => m.ref === "r1")).type, "welcome");
  other.close();

  const page = await newPlayer(browser, server.base, problems, "Annika");
  assert.equal(await text(page, "#signin-btn"), "Sign in");
  assert.ok(await page.locator("#account-box").isHidden());
  // A guest's game: it stays the player's once registered.
  await page.selectOption("#cv-size", "5");
  await page.click("#create-btn");
  await page.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(page.url()).pathname.split("/")[2];
  await page.click("#back-btn");
  await page.waitForSelector(`#my-games li[data-code="${code}"]`);
  const guest = await me(page);
  assert.equal(guest.account, null);

  // The create form's Rated switch is off for a guest, with a way to sign in.
  assert.ok(await page.locator("#cv-rated").isDisabled());
  assert.match(await text(page, "#cv-rated-hint"), /Sign in to play rated/);

  await page.click("#cv-rated-hint .linkish");
  await page.waitForSelector("#account-dialog[open]");
  assert.equal(await text(page, "#acct-h"), "Sign in to Trunkfield");
  await page.click("#tab-register");
  assert.equal(await text(page, "#acct-h"), "Create an account");
  // Checked in the page first: the shape of the name, the length of the password.
  await page.fill("#reg-user", "a b");
  await page.fill("#reg-pass", "short");
  await page.click("#reg-submit");
  assert.match(await text(page, "#reg-user-err"), /3 to 20 letters/);
  assert.match(await text(page, "#reg-pass-err"), /8 to 128 characters/);
  assert.equal(await page.getAttribute("#reg-user", "aria-invalid"), "true");
  await shot(page, "account-dialog-errors-desktop");
  // Then by the server: a taken name (in any letter case), a reserved one.
  await page.fill("#reg-user", "bobby");
  assert.ok(await page.locator("#reg-user-err").isHidden(), "editing a field clears its error");
  await page.fill("#reg-pass", "annika-secret");
  await page.click("#reg-submit");
  await page.waitForSelector("#reg-user-err:not([hidden])");
  assert.equal(await text(page, "#reg-user-err"), "This username is taken: choose another one.");
  await page.fill("#reg-user", "admin");
  await page.click("#reg-submit");
  await page.waitForFunction(() => document.querySelector("#reg-user-err").textContent.includes("reserved"));
  assert.equal((await me(page)).account, null);

  await page.fill("#reg-user", "Annika");
  await shot(page, "account-dialog-register-desktop");
  await page.click("#reg-submit");
  await page.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Annika");
  await page.waitForSelector("#toast:not([hidden])");
  assert.match(await text(page, "#toast"), /Welcome, Annika/);
  assert.ok(!(await page.locator("#account-dialog").evaluate((d) => d.open)));
  const acct = await me(page);
  assert.equal(acct.id, guest.id, "registering keeps the player");
  assert.equal(acct.stored, acct.token);
  assert.equal(await text(page, "#account-name"), "Annika");
  assert.ok(await page.locator("#signin-btn").isHidden());
  assert.ok(await page.locator("#name-form").isHidden(), "an account's name is its username");
  assert.ok(await page.locator(`#my-games li[data-code="${code}"]`).isVisible(), "the guest's game is still the player's");
  assert.ok(await page.locator("#cv-rated").isDisabled(), "5 x 5 is not rated");
  await page.selectOption("#cv-size", "9");
  assert.ok(await page.locator("#cv-rated").isDisabled(), "9 x 9 with 3 elephants is not the standard game");
  assert.match(await text(page, "#cv-rated-hint"), /Only the standard 9×9 and small 7×7/);
  await page.selectOption("#cv-elephants", "5");
  assert.ok(await page.locator("#cv-rated").isEnabled());
  assert.match(await text(page, "#cv-rated-hint"), /Counts for your Untimed rating/);
  await page.selectOption("#cv-time", "300000/5000");
  assert.match(await text(page, "#cv-rated-hint"), /Rapid rating/);
  await page.selectOption("#cv-opponent", "2");
  assert.ok(await page.locator("#cv-rated").isEnabled(), "rated against the computer: its house bot");
  assert.match(await text(page, "#cv-rated-hint"), /Rated against the bot account Level2: counts for your Rapid rating/);
  await page.selectOption("#cv-opponent", "");
  assert.ok(await page.locator("#qm-rated").isEnabled());
  await page.selectOption("#qm-variant", "tiny");
  assert.ok(await page.locator("#qm-rated").isDisabled());
  assert.match(await text(page, "#qm-rated-hint"), /Only the standard 9×9 and small 7×7/);
  await page.selectOption("#qm-variant", "small");
  assert.match(await text(page, "#qm-rated-hint"), /Rapid 7×7 rating/);
  await shot(page, "account-lobby-rated-desktop");

  // The menu: profile, blocked and muted players, change password, sign out, sign out everywhere
  // (Moderation only for a moderator).
  await openMenu(page);
  assert.deepEqual(await page.locator("#account-menu [role=menuitem]:visible").allInnerTexts(),
    ["Profile", "Blocked and muted players", "Change password", "Sign out", "Sign out everywhere"]);
  await shot(page, "account-menu-desktop");
  await page.keyboard.press("Escape");
  assert.ok(await page.locator("#account-menu").isHidden());

  // Sign out: a new guest, with its own token.
  await openMenu(page);
  await page.click("#menu-signout");
  await page.waitForFunction(() => window.trunkfield.S.me && !window.trunkfield.S.me.account);
  const out = await me(page);
  assert.notEqual(out.id, acct.id);
  assert.notEqual(out.token, acct.token);
  assert.equal(out.stored, out.token);
  assert.equal(await text(page, "#signin-btn"), "Sign in");
  assert.match(await text(page, "#toast"), /Signed out/);
  assert.ok(await page.locator(`#my-games li[data-code="${code}"]`).isHidden(), "the account's games are not the guest's");

  // Sign in again: a wrong password first, then the right one.
  await page.click("#signin-btn");
  await page.fill("#login-user", "annika");
  await page.fill("#login-pass", "not the password");
  await page.click("#login-submit");
  await page.waitForSelector("#login-err:not([hidden])");
  assert.equal(await text(page, "#login-err"), "Wrong username or password.");
  await shot(page, "account-dialog-signin-desktop");
  await page.fill("#login-pass", "annika-secret");
  await page.click("#login-submit");
  await page.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Annika");
  const back = await me(page);
  assert.equal(back.id, acct.id);
  assert.notEqual(back.token, acct.token, "a login hands out a new token");
  assert.notEqual(back.token, out.token);
  assert.equal(back.stored, back.token, "the page keeps the new token");
  await page.waitForSelector(`#my-games li[data-code="${code}"]`);
  // The token is the account: a reload is still signed in.
  await page.reload();
  await page.waitForSelector("#conn.conn-online");
  await page.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Annika");
  assert.equal(await text(page, "#account-name"), "Annika");

  // Change the password: the current one must be right, the new one long enough.
  await openMenu(page);
  await page.click("#menu-password");
  await page.waitForSelector("#password-dialog[open]");
  await page.fill("#pw-old", "wrong-wrong");
  await page.fill("#pw-new", "annika-new-secret");
  await page.click("#pw-submit");
  await page.waitForSelector("#pw-old-err:not([hidden])");
  assert.equal(await text(page, "#pw-old-err"), "The current password is wrong.");
  await page.fill("#pw-old", "annika-secret");
  await page.fill("#pw-new", "short");
  await page.click("#pw-submit");
  assert.match(await text(page, "#pw-new-err"), /8 to 128/);
  await shot(page, "account-password-desktop");
  await page.fill("#pw-new", "annika-new-secret");
  await page.click("#pw-submit");
  await page.waitForSelector("#password-dialog:not([open])", { state: "attached" });
  await page.waitForFunction(() => /Password changed/.test(document.querySelector("#toast").textContent));
  assert.equal((await me(page)).account.username, "Annika");

  // Sign out everywhere: another device signed in to the account becomes a guest too.
  const phone = await newPlayer(browser, server.base, problems, null, PHONE);
  await phone.click("#signin-btn");
  await phone.fill("#login-user", "Annika");
  await phone.fill("#login-pass", "annika-new-secret");
  await shot(phone, "account-dialog-signin-phone");
  await phone.click("#login-submit");
  await phone.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Annika");
  await shot(phone, "account-signed-in-phone");
  await openMenu(phone);
  await shot(phone, "account-menu-phone");
  await phone.keyboard.press("Escape");
  await openMenu(page);
  await page.click("#menu-signout-all");
  await page.waitForFunction(() => window.trunkfield.S.me && !window.trunkfield.S.me.account);
  await phone.waitForFunction(() => window.trunkfield.S.me && !window.trunkfield.S.me.account, null, { timeout: 15000 });
  assert.ok(await phone.locator("#signin-btn").isVisible());
  await phone.waitForFunction(() => /You were signed out/.test(document.querySelector("#toast").textContent));
  assert.ok(await phone.locator("#lobby-error").isHidden(), "the toast says it; no error about the token");
  const after = await me(phone);
  assert.equal(after.stored, after.token, "the new guest's token replaced the revoked one");
  await shot(phone, "account-guest-phone");
  await page.context().close();
  await phone.context().close();
});

// ------------------------------------------------------------------ a rated game
let rated = null; // {code, ann, bob} for the tests after

test("two accounts play a rated game to its end; both pages show the ratings and their change", async () => {
  const ann = await newPlayer(browser, server.base, problems, null, DESKTOP);
  const bob = await newPlayer(browser, server.base, problems, null, PHONE);
  await register(ann, "ann_r", "ann-secret-1");
  await register(bob, "bob-r", "bob-secret-1");
  const watcher = await newPlayer(browser, server.base, problems, "Sam");

  // Ann creates a rated standard game; Bob sees it with her rating in the lobby.
  await ann.selectOption("#cv-color", "silver");
  await ann.check("#cv-rated");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  const code = new URL(ann.url()).pathname.split("/")[2];
  const open = bob.locator(`#open-games li[data-code="${code}"]`);
  await open.waitFor();
  assert.match(await open.locator(".who").innerText(), /^ann_r \(1500\?\)$/);
  assert.match(await open.locator(".what").innerText(), /^Rated · 9×9, 5 elephants, 3 burnt, quiet 40 · untimed · /);
  assert.equal(await open.getAttribute("data-rated"), "1");
  await shot(bob, "rated-lobby-open-phone");
  await watcher.locator(`#open-games li[data-code="${code}"]`).waitFor();
  await watcher.locator("#open-games").scrollIntoViewIfNeeded();
  await shot(watcher, "rated-lobby-open-desktop");
  // a guest's Join on a rated game asks to sign in first
  await watcher.locator(`#open-games li[data-code="${code}"] .join`).click();
  await watcher.waitForSelector("#account-dialog[open]");
  await watcher.click("#acct-close");
  await open.locator(".join").click();
  await bob.waitForURL(new RegExp(`/g/${code}$`));

  // Both seats show their rating as the game began, on both pages (the creator's page gets the
  // joiner's from a snapshot: the join event has none).
  await ann.waitForSelector("#send-btn:not([hidden])");
  for (const p of [ann, bob]) {
    await p.waitForSelector("#board svg");
    await p.waitForFunction(() => document.querySelectorAll("#game .pcard .rating").length === 2);
    const names = await p.locator("#game .pcard .pc-who").allInnerTexts();
    assert.deepEqual(names.map((n) => n.replace(/\s+/g, " ").trim()).sort(), ["ann_r (1500?)", "bob-r (1500?)"]);
    assert.equal(await text(p, "#game-rated"), "Rated · Untimed");
    // an account's name links to its page
    assert.deepEqual((await p.locator("#game .pcard a.player-link").evaluateAll((as) => as.map((a) => a.getAttribute("href")))).sort(),
      ["/@/ann_r", "/@/bob-r"]);
  }

  // The setups and two turns by clicking, then Ann resigns.
  for (const c of [...EXAMPLE.silver.elephants, ...EXAMPLE.silver.guardians]) await cell(ann, cellName(c, 9)).click();
  await ann.click("#send-btn");
  await bob.waitForSelector("#send-btn:not([hidden])");
  for (const c of [...EXAMPLE.bronze.elephants, ...EXAMPLE.bronze.guardians]) await cell(bob, cellName(c, 9)).click();
  await bob.click("#send-btn");
  await waitMyTurn(ann);
  await clickTurn(ann, EXAMPLE.turns[0], 9);
  await ann.click("#send-btn");
  await waitMyTurn(bob);
  await clickTurn(bob, EXAMPLE.turns[1], 9);
  await bob.click("#send-btn");
  await waitMyTurn(ann);
  await watcher.waitForSelector(`#live-games li[data-code="${code}"]`);
  const live = watcher.locator(`#live-games li[data-code="${code}"]`);
  assert.equal(await live.locator(".rating").count(), 2);
  assert.match(await live.innerText(), /ann_r \(1500\?\)[\s\S]*bob-r \(1500\?\)/);
  assert.match(await live.locator(".what").innerText(), /^Rated · 9×9/);
  for (const p of [ann, bob]) await p.evaluate(() => (document.getElementById("toast").hidden = true));
  await bob.evaluate(() => window.scrollTo(0, 0));
  await shot(ann, "rated-game-desktop");
  await shot(bob, "rated-game-phone");
  await ann.click("#resign-btn");
  await ann.click("#resign-btn");

  // The result with the rating change, on both pages: Bob won, Ann lost.
  for (const p of [ann, bob]) {
    await p.waitForSelector('#result-ratings[data-state="done"]', { timeout: 15000 });
    await p.locator("#result-ratings").scrollIntoViewIfNeeded();
  }
  const diffs = async (p) => Object.fromEntries(await p.locator("#result-ratings .rating-line").evaluateAll((ls) =>
    ls.map((l) => [l.dataset.side, Number(l.querySelector(".rating-diff").dataset.diff)])));
  const a = await diffs(ann);
  const b = await diffs(bob);
  assert.deepEqual(a, b);
  assert.ok(a.silver < 0 && a.bronze > 0, JSON.stringify(a));
  const annLine = ann.locator("#result-ratings .rating-line").first();
  assert.equal(await annLine.getAttribute("data-side"), "silver", "the player's own line first");
  assert.match(await annLine.innerText(), new RegExp(`^ann_r\\s+1500\\? → \\d+\\? −${-a.silver}$`));
  assert.ok(await annLine.locator(".rating-diff.down").isVisible());
  assert.match(await bob.locator("#result-ratings .rating-line").first().innerText(), new RegExp(`^bob-r\\s+1500\\? → \\d+\\? \\+${a.bronze}$`));
  assert.ok(await bob.locator("#result-ratings .rating-diff.up").first().isVisible());
  assert.match(await text(ann, "#result-ratings .rl-title"), /^Ratings · Untimed$/);
  // The cards have the change next to the rating too.
  assert.equal(await ann.locator("#game .pcard.silver .rating-diff").innerText(), `−${-a.silver}`);
  assert.equal(await ann.locator("#game .pcard.bronze .rating-diff").innerText(), `+${a.bronze}`);
  await shot(ann, "rated-result-desktop");
  await shot(bob, "rated-result-phone");

  // After a reload the snapshot of the finished game carries them.
  await bob.reload();
  await bob.waitForSelector('#result-ratings[data-state="done"]');
  assert.deepEqual(await diffs(bob), a);
  rated = { code, ann, bob, diffs: a };
  await watcher.context().close();
});

test("the player page: ratings, history chart, results by colour, recent games linking to the game", async () => {
  assert.ok(rated, "needs the rated game");
  const { code, ann, bob, diffs } = rated;
  // From the game screen: the opponent's name goes to the player's page.
  await ann.locator("#game .pcard.bronze a.player-link").click();
  await ann.waitForURL(/\/@\/bob-r$/);
  await ann.waitForSelector("#pf-body:not([hidden])");
  assert.equal(await text(ann, "#pf-name"), "bob-r");
  const card = ann.locator('#pf-ratings .rating-card[data-category="untimed"]');
  assert.equal(Number(await card.locator(".rc-rating").getAttribute("data-rating")), 1500 + diffs.bronze);
  assert.match(await card.innerText(), /Untimed[\s\S]*\d+\?[\s\S]*1 rated game/);
  assert.equal(await ann.locator("#pf-chart svg .chart-dot").count(), 1);
  assert.equal(await text(ann, "#pf-chart-title"), "Rating history · Untimed");
  assert.equal(await ann.locator("#pf-totals tbody tr:nth-child(2) td.wins").innerText(), "1", "won once as bronze");
  assert.equal(await ann.locator("#pf-totals tfoot td.losses").innerText(), "0");
  const recent = ann.locator(`#pf-recent li[data-code="${code}"]`);
  assert.match(await recent.innerText(), /won[\s\S]*vs ann_r[\s\S]*Bronze · Rated · Untimed/i);
  assert.equal(await recent.locator("a.button").getAttribute("href"), `/g/${code}`);
  assert.equal(await ann.title(), "Trunkfield — bob-r");
  await shot(ann, "profile-desktop");

  // Her own page from the menu; a recent game opens the game.
  await openMenu(ann);
  await ann.click("#menu-profile");
  await ann.waitForURL(/\/@\/ann_r$/);
  await ann.waitForFunction(() => document.querySelector("#pf-name").textContent === "ann_r" && !document.querySelector("#pf-body").hidden);
  assert.equal(await ann.locator("#pf-totals tbody tr:nth-child(1) td.losses").innerText(), "1", "lost once as silver");
  await ann.locator(`#pf-recent li[data-code="${code}"] a.button`).click();
  await ann.waitForURL(new RegExp(`/g/${code}$`));
  await ann.waitForSelector("#result:not([hidden])");

  await bob.goto(`${server.base}/@/bob-r`);
  await bob.waitForSelector("#pf-body:not([hidden])");
  await sleep(200);
  await shot(bob, "profile-phone");
  // A name nobody has.
  await bob.goto(`${server.base}/@/nobody-here`);
  await bob.waitForSelector("#pf-error:not([hidden])");
  assert.equal(await text(bob, "#pf-error"), "There is no player named nobody-here.");

  // A page with a longer history (the server's answer for a player with 30 rated games) draws
  // the whole line.
  const fixture = profileFixture();
  await bob.route("**/api/players/Veteran", (r) => r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(fixture) }));
  await bob.goto(`${server.base}/@/Veteran`);
  await bob.waitForSelector("#pf-chart svg");
  assert.equal(await bob.locator("#pf-chart .chart-dot").count(), 30);
  assert.equal(await bob.locator("#pf-ratings .rating-card").count(), 3);
  await sleep(200);
  await shot(bob, "profile-rich-phone");
  await ann.route("**/api/players/Veteran", (r) => r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(fixture) }));
  await ann.goto(`${server.base}/@/Veteran`);
  await ann.waitForSelector("#pf-chart svg");
  await sleep(200);
  await shot(ann, "profile-rich-desktop");
});

test("the leaderboard: a tab per category, established ratings only, names link to player pages", async () => {
  assert.ok(rated, "needs the rated game");
  const { ann, bob } = rated;
  await ann.click('.nav a[data-view="leaderboard"]');
  await ann.waitForURL(/\/players$/);
  await ann.waitForFunction(() => !window.trunkfield.S.board?.loading);
  assert.equal(await text(ann, "#lb-title"), "Leaderboard · Blitz");
  assert.equal(await ann.locator("#lb-tabs .tab").count(), 15, "people or bots, twelve game categories and the puzzles");
  assert.equal(await ann.locator("#lb-tabs .tab.active[data-category]").getAttribute("data-category"), "blitz");
  assert.equal(await ann.locator("#lb-tabs .tab.active[data-bots]").getAttribute("data-bots"), "false", "people's board first");
  // After one game both ratings are provisional: nobody is listed yet.
  await ann.click('#lb-tabs .tab[data-category="untimed"]');
  await ann.waitForURL(/\/players\?category=untimed$/);
  await ann.waitForFunction(() => window.trunkfield.S.board?.cat === "untimed" && !window.trunkfield.S.board.loading);
  assert.ok(await ann.locator("#lb-empty").isVisible());
  assert.ok(await ann.locator("#lb-table").isHidden());

  // A busy category (the server's answer stubbed): ranks, names as links, ratings.
  const players = Array.from({ length: 14 }, (_, i) => ({ rank: i + 1, username: i === 3 ? "ann_r" : `player${i + 1}${i % 4 ? "" : "_long-name"}`,
    rating: 2210 - i * 37, deviation: 60 + i, games: 240 - i * 11, provisional: false, last_played: new Date(Date.now() - i * 86400000).toISOString() }));
  for (const p of [ann, bob]) await p.route("**/api/leaderboard?*", (r) => {
    const cat = new URL(r.request().url()).searchParams.get("category");
    r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ category: cat, players }) });
  });
  await ann.click('#lb-tabs .tab[data-category="small_rapid"]');
  await ann.waitForURL(/\/players\?category=small_rapid$/);
  await ann.waitForSelector("#lb-table:not([hidden])");
  assert.equal(await text(ann, "#lb-title"), "Leaderboard · Rapid 7×7");
  assert.equal(await ann.locator("#lb-rows tr").count(), 14);
  assert.equal(await ann.locator("#lb-rows tr.me").getAttribute("data-username"), "ann_r", "the player's own line stands out");
  assert.equal(await ann.locator("#lb-rows tr:first-child .lb-rating").innerText(), "2210");
  assert.equal(await ann.locator("#lb-rows tr:first-child a.player-link").getAttribute("href"), "/@/player1_long-name");
  await shot(ann, "leaderboard-desktop");
  await bob.goto(`${server.base}/players?category=blitz`);
  await bob.waitForSelector("#lb-table:not([hidden])");
  await shot(bob, "leaderboard-phone");
  // Back and forward keep the tab in the address.
  await ann.goBack();
  await ann.waitForFunction(() => window.trunkfield.S.board?.cat === "untimed");
  await ann.goForward();
  await ann.waitForFunction(() => window.trunkfield.S.board?.cat === "small_rapid");
  // The bot accounts' board (PROTOCOL.md "Bot accounts"): the same category, names marked BOT.
  await ann.click('#lb-tabs .tab[data-bots="true"]');
  await ann.waitForURL(/\/players\?category=small_rapid&bots=true$/);
  await ann.waitForFunction(() => window.trunkfield.S.board?.bots && !window.trunkfield.S.board.loading);
  assert.equal(await text(ann, "#lb-title"), "Bot leaderboard · Rapid 7×7");
  assert.equal(await ann.locator("#lb-rows .bot-badge").count(), 14, "every name marked BOT");
  assert.equal(await ann.locator('#lb-tabs .tab[data-category="puzzle"]').count(), 0, "bots solve no puzzles");
  await shot(ann, "leaderboard-bots-desktop");
  await ann.click('#lb-tabs .tab[data-bots="false"]');
  await ann.waitForURL(/\/players\?category=small_rapid$/);
  await ann.waitForFunction(() => !window.trunkfield.S.board?.bots && !window.trunkfield.S.board.loading);
  assert.equal(await ann.locator("#lb-rows .bot-badge").count(), 0);
  // A bot's page says so by its name.
  const robo = { ...profileFixture(), username: "Robo", bot: true };
  await ann.route("**/api/players/Robo", (r) => r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(robo) }));
  await ann.goto(`${server.base}/@/Robo`);
  await ann.waitForSelector("#pf-name .bot-badge");
  assert.equal(await text(ann, "#pf-name"), "BOT Robo");
  await ann.goto(`${server.base}/players?category=small_rapid`);
  await ann.waitForSelector("#lb-table:not([hidden])");
  await ann.locator('#lb-rows tr[data-username="player2"] a.player-link').click();
  await ann.waitForURL(/\/@\/player2$/);
  await ann.context().close();
  await bob.context().close();
});

test("the account words are in French too", async () => {
  const page = await newPlayer(browser, server.base, problems, "Zoé", DESKTOP, { locale: "fr-FR" });
  assert.equal(await text(page, "#signin-btn"), "Se connecter");
  assert.equal(await text(page, '.nav a[data-view="leaderboard"]'), "Joueurs");
  assert.match(await text(page, "#cv-rated-hint"), /Connectez-vous pour jouer des parties classées/);
  await page.click("#signin-btn");
  await page.click("#tab-register");
  await page.fill("#reg-user", "-x");
  await page.fill("#reg-pass", "court");
  await page.click("#reg-submit");
  assert.match(await text(page, "#reg-user-err"), /3 à 20 lettres/);
  assert.match(await text(page, "#reg-pass-err"), /8 à 128 caractères/);
  await shot(page, "account-dialog-fr-desktop");
  await page.context().close();
});

// What GET /api/players/NAME answers for a player with 30 rated blitz games.
function profileFixture() {
  const history = [];
  let r = 1500;
  const t0 = Date.now() - 40 * 86400000;
  for (let i = 0; i < 30; i++) {
    r += Math.round(Math.sin(i * 1.3) * 40 + (i < 12 ? 25 : 4));
    history.push({ at: new Date(t0 + i * 1.3 * 86400000).toISOString(), rating: r, game: `g${String(i).padStart(4, "0")}` });
  }
  const summary = (i, side, winner) => ({ code: `g${String(29 - i).padStart(4, "0")}`, status: "over", rated: true,
    variant: { size: 9, elephants: 5, burnt: 3, quiet: 40 }, time_control: { initial_ms: 180000, increment_ms: 2000 },
    players: { silver: side === "silver" ? { id: "pV", name: "Veteran" } : { id: `o${i}`, name: `rival${i}` },
      bronze: side === "bronze" ? { id: "pV", name: "Veteran" } : { id: `o${i}`, name: `rival${i}` } },
    bot: null, turns: 30 + i, result: { over: true, reason: "herd", winner, score: { silver: 9, bronze: 7 }, to_move: null },
    created_at: history[29 - i].at, finished_at: history[29 - i].at });
  return {
    username: "Veteran", player_id: "pV", created_at: new Date(t0 - 86400000).toISOString(),
    ratings: {
      blitz: { rating: r, deviation: 62, games: 30, provisional: false, last_played: history.at(-1).at },
      rapid: { rating: 1580, deviation: 180, games: 3, provisional: true, last_played: history[5].at },
      small_untimed: { rating: 1432, deviation: 230, games: 2, provisional: true, last_played: history[2].at },
    },
    history: { blitz: history, rapid: history.slice(0, 3).map((h, i) => ({ ...h, rating: 1500 + i * 30 })) },
    totals: { silver: { wins: 9, draws: 2, losses: 6 }, bronze: { wins: 8, draws: 1, losses: 9 } },
    recent: [summary(0, "silver", "silver"), summary(1, "bronze", "silver"), summary(2, "silver", "draw"), summary(3, "bronze", "bronze")],
  };
}
