// Mute, reports and moderation in the web client (proto/PROTOCOL.md "Follow and block" (Mute) and
// "Reports and moderation"), three accounts in browser contexts against the real trunkfield-server
// (SQLite store): Ann and Bob play a game; Ann is rude in its chat. Bob reports her from the game
// page (the game attached; "Thank you, report #1 sent"), mutes her from her page (her later lines
// are not shown to him, the versions still agree) and unmutes her from the list on his own page.
// Mira, made a moderator by the operator's `trunkfield-server accounts grant` run against the same
// data folder while the server runs, finds "Moderation" in her account menu: /mod lists the report
// with the game's chat and Ann's standing. She shadows Ann (the report is handled: Bob is told;
// Ann still sees her own line, Bob gets none and his game goes on), mutes her for an hour (Ann's
// chat says until when), warns her (Ann's toast and bell), dismisses a second report of Bob's
// (told: no action), closes Ann's account after a confirmation (Ann's page is signed out; signing
// in says the account is closed) and reopens it; the audit log lists every action. A guest is
// shown no Report and no Mute; a player who is no moderator is told /mod is not for them.
// Screenshots (TF_ARTIFACTS): moderation-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { DESKTOP, PHONE, SERVER, serverAndBrowser, PageProblems, tcpAccount, accountPage as newAccountPage, newPlayer, shot, version } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
// No house bots: the audit log checked whole below has only what this test did.
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--store", "sqlite", "--no-house-bots"]);

const text = (page, sel) => page.locator(sel).innerText();
const accountPage = (username, viewport) => newAccountPage(browser, server, problems, username, viewport);

// An account given the moderator role by the operator (the server running meanwhile), then opened
// in a page: its welcome lists the role.
async function moderatorPage(username, viewport = DESKTOP) {
  const a = await tcpAccount(server, username);
  a.close();
  const out = execFileSync(SERVER, ["accounts", "grant", username, "moderator", "--data", server.data], { stdio: ["ignore", "pipe", "pipe"] }).toString();
  assert.match(out, new RegExp(`${username} is now moderator`));
  const ctx = await browser.newContext({ viewport, locale: "en-US" });
  await ctx.addInitScript((tok) => localStorage.setItem("trunkfield.token", tok), a.token);
  const page = await ctx.newPage();
  problems.watch(page, username);
  await page.goto(server.base);
  await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
  return page;
}

// The bodies of the page's POSTs to `path`, as sent.
function postsOf(page, path) {
  const bodies = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === path) bodies.push(JSON.parse(r.postData()));
  });
  return bodies;
}

// The game's chat as the page holds it: [{name, text, mine}].
const chatOf = (page, code) => page.evaluate((c) => (window.trunkfield.S.games.get(c)?.chat ?? []).map((l) => ({ name: l.name, text: l.text, mine: l.mine })), code);

// A chat line said on the game page, back from the server (or refused).
async function say(page, line) {
  await page.fill("#chat-input", line);
  await page.press("#chat-input", "Enter");
  await page.waitForFunction((t) => {
    const S = window.trunkfield.S;
    const G = S.games.get(S.route.code);
    return G.chat.some((c) => c.mine && c.text === t) || G.chatOut.some((c) => c.text === t && c.state === "refused");
  }, line);
}

// Both pages hold the game at the same version (a line one of them may not read still took one).
async function sameVersion(a, b, code) {
  const v = await version(a, code);
  await b.waitForFunction(([c, want]) => window.trunkfield.S.games.get(c)?.version === want, [code, v]);
  return v;
}

// The page's own API call, with its token.
const api = (page, path) => page.evaluate(async (p) => {
  const r = await fetch(p, { headers: { Authorization: `Bearer ${localStorage.getItem("trunkfield.token")}` } });
  return { status: r.status, body: await r.json() };
}, path);

const card = (page, id) => page.locator(`#mod-list li[data-id="${id}"]`);

let ann, bob, mira, code, reportId;

test("a report from the game page, with the game; Bob mutes Ann and unmutes her from his own page", async () => {
  mira = await moderatorPage("Mira_m");
  ann = await accountPage("Ann_m");
  bob = await accountPage("Bob_m");
  const reports = postsOf(bob, "/api/reports");
  const rel = postsOf(bob, "/api/relations");

  // Ann creates a game, Bob takes the other seat
  await ann.selectOption("#cv-color", "silver");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\/[a-z0-9]+$/);
  code = new URL(ann.url()).pathname.split("/")[2];
  await bob.goto(`${server.base}/g/${code}`);
  await bob.click("#join-seat");
  await ann.waitForFunction(() => {
    const G = window.trunkfield.S.games.get(window.trunkfield.S.route.code);
    return G?.status === "playing" && G.players.bronze;
  });
  await say(ann, "You play like a potato, idiot.");
  await bob.waitForFunction((c) => window.trunkfield.S.games.get(c)?.chat.some((l) => l.text === "You play like a potato, idiot."), code);

  // Bob's chat: Report Ann_m in its head, a flag beside her line; none beside his own
  await bob.waitForSelector("#report-opp:not([hidden])");
  assert.equal(await text(bob, "#report-opp"), "Report Ann_m");
  await bob.waitForSelector("#chat-log .chat-report");
  assert.equal(await bob.locator("#chat-log .chat-report").count(), 1);
  assert.equal(await bob.getAttribute("#chat-log .chat-report", "aria-label"), "Report Ann_m for this chat");
  assert.ok(await ann.locator("#chat-log .chat-report").count() === 0, "no flag beside one's own line");
  await ann.waitForSelector("#report-opp:not([hidden])");
  assert.equal(await text(ann, "#report-opp"), "Report Bob_m");

  // the flag opens the dialog with "Abuse in chat" chosen; cancelled, nothing is sent
  await bob.click("#chat-log .chat-report");
  await bob.waitForSelector("#report-dialog[open]");
  assert.equal(await bob.inputValue("#report-reason"), "abuse");
  await bob.click("#report-cancel");

  // the opponent's button: the reason to choose, the game attached
  await bob.click("#report-opp");
  await bob.waitForSelector("#report-dialog[open]");
  assert.equal(await text(bob, "#report-h"), "Report Ann_m");
  assert.equal(await bob.inputValue("#report-reason"), "");
  assert.equal(await bob.evaluate(() => document.activeElement.id), "report-reason");
  assert.ok(await bob.isChecked("#report-game"));
  assert.equal(await text(bob, "#report-game-text"), `About game ${code} (moderators read its chat and replay it)`);
  await bob.click("#report-send");
  assert.equal(await text(bob, "#report-reason-err"), "Choose a reason.");
  assert.deepEqual(reports, [], "nothing sent without a reason");
  await bob.selectOption("#report-reason", "abuse");
  assert.ok(await bob.locator("#report-reason-err").isHidden());
  await bob.fill("#report-text", "She insults me in the chat of every game.");
  assert.equal(await text(bob, "#report-count"), "41 / 2000 characters");
  await shot(bob, "moderation-report-dialog-desktop");
  await bob.click("#report-send");
  await bob.waitForSelector("#report-done:not([hidden])");
  const done = await text(bob, "#report-done-text");
  assert.match(done, /^Thank you, report #\d+ sent\.$/);
  reportId = Number(/#(\d+)/.exec(done)[1]);
  assert.deepEqual(reports, [{ player: "Ann_m", reason: "abuse", text: "She insults me in the chat of every game.", game: code }]);
  assert.equal(await bob.evaluate(() => document.activeElement.id), "report-ok");
  await shot(bob, "moderation-report-sent-desktop");
  await bob.click("#report-ok");
  assert.ok(!(await bob.locator("#report-dialog").evaluate((d) => d.open)));

  // Bob mutes Ann from her page: Challenge, Follow, Mute, Block, Report
  await bob.goto(`${server.base}/@/Ann_m`);
  await bob.waitForSelector("#pf-rel:not([hidden])");
  assert.deepEqual(await bob.locator(".profile-head button:visible").allInnerTexts(), ["Challenge", "Follow", "Mute", "Block", "Report"]);
  assert.equal(await bob.getAttribute("#pf-mute", "aria-pressed"), "false");
  await shot(bob, "moderation-profile-buttons-desktop");
  await bob.click("#pf-mute");
  await bob.waitForFunction(() => document.querySelector("#pf-mute").textContent === "Unmute");
  assert.equal(await bob.getAttribute("#pf-mute", "aria-pressed"), "true");
  assert.equal(await text(bob, "#toast"), "You muted Ann_m: their chat lines are hidden from you. They are not told.");
  assert.deepEqual(rel, [{ mute: "Ann_m" }]);
  assert.deepEqual((await api(bob, "/api/relations")).body.muted.map((m) => m.name), ["Ann_m"]);

  // back on the game (a fresh snapshot: its chat leaves her lines out): Ann's next line is not his
  await bob.goto(`${server.base}/g/${code}`);
  await bob.waitForFunction((c) => window.trunkfield.S.games.get(c)?.state, code);
  assert.deepEqual(await chatOf(bob, code), [], "the snapshot's chat leaves out a muted author's lines");
  await say(ann, "Muted, are you? Coward.");
  const v = await sameVersion(ann, bob, code);
  assert.ok(!(await chatOf(bob, code)).some((l) => l.text.startsWith("Muted")), "Bob does not get the line");
  assert.ok((await chatOf(ann, code)).some((l) => l.mine && l.text === "Muted, are you? Coward."), "Ann does, as ever");
  assert.ok(v >= 4, `the hidden line took a version (${v})`);

  // Bob's own page: muted players beside the blocked ones, with Unmute
  await bob.click("#account-btn");
  assert.equal(await text(bob, "#menu-blocked"), "Blocked and muted players");
  assert.ok(await bob.locator("#menu-mod").isHidden(), "no Moderation for a player who is no moderator");
  await bob.click("#menu-blocked");
  await bob.waitForSelector("#pf-muted li");
  assert.deepEqual(await bob.locator("#pf-muted li").evaluateAll((ls) => ls.map((l) => l.dataset.name)), ["Ann_m"]);
  assert.match(await bob.locator("#pf-muted li .what").innerText(), /^muted on /);
  assert.equal(await bob.getAttribute("#pf-muted li .unmute", "aria-label"), "Unmute Ann_m");
  assert.equal(await text(bob, "#pf-blocked-empty"), "You have blocked nobody.");
  const boxes = await bob.evaluate(() => ["pf-blocked-card", "pf-muted-card"].map((id) => document.getElementById(id).getBoundingClientRect().top));
  assert.equal(boxes[0], boxes[1], "the two lists side by side on a desktop");
  await bob.locator("#pf-muted-card").scrollIntoViewIfNeeded();
  await shot(bob, "moderation-muted-list-desktop");
  await bob.click("#pf-muted li .unmute");
  await bob.waitForSelector("#pf-muted-empty:not([hidden])");
  assert.equal(await text(bob, "#toast"), "You unmuted Ann_m: you see their chat lines again.");
  assert.deepEqual(rel, [{ mute: "Ann_m" }, { unmute: "Ann_m" }]);

  // his lines again
  await bob.goto(`${server.base}/g/${code}`);
  await bob.waitForFunction((c) => window.trunkfield.S.games.get(c)?.state, code);
  await say(ann, "Fine, hello again.");
  await bob.waitForFunction((c) => window.trunkfield.S.games.get(c)?.chat.some((l) => l.text === "Fine, hello again."), code);
});

test("guests see no Report and no Mute; /mod is for moderators", async () => {
  assert.ok(ann && bob && code, "needs the first test's pages");
  const guest = await newPlayer(browser, server.base, problems, "Gus", DESKTOP, { path: `/g/${code}` });
  await guest.waitForFunction((c) => window.trunkfield.S.games.get(c)?.chat.length > 0, code);
  assert.ok(await guest.locator("#report-opp").isHidden());
  assert.equal(await guest.locator("#chat-log .chat-report").count(), 0);
  await guest.goto(`${server.base}/@/Ann_m`);
  await guest.waitForSelector("#pf-body:not([hidden])");
  assert.ok(await guest.locator("#pf-report").isHidden());
  assert.ok(await guest.locator("#pf-mute").isHidden());
  await guest.goto(`${server.base}/mod`);
  await guest.waitForSelector("#mod:not([hidden])");
  assert.equal(await text(guest, "#mod-denied"), "This page is for moderators.");
  assert.ok(await guest.locator("#mod-body").isHidden());
  await guest.context().close();
  // an account that is no moderator: the same words (the server says 403 too)
  await bob.goto(`${server.base}/mod`);
  await bob.waitForSelector("#mod-denied:not([hidden])");
  assert.equal((await api(bob, "/api/mod/reports")).status, 403);
  await bob.goto(`${server.base}/g/${code}`);
  await bob.waitForFunction((c) => window.trunkfield.S.games.get(c)?.state, code);
});

test("the moderators' page: the report with the chat; shadow, mute, warn, dismiss, close, reopen; the audit log", async () => {
  assert.ok(ann && bob && mira && reportId, "needs the first test's pages");
  const actions = postsOf(mira, "/api/mod/actions");
  // the account menu has Moderation for her
  await mira.click("#account-btn");
  assert.deepEqual(await mira.locator("#account-menu [role=menuitem]:visible").allInnerTexts(),
    ["Profile", "Blocked and muted players", "Moderation", "Change password", "Sign out", "Sign out everywhere"]);
  await mira.click("#menu-mod");
  await mira.waitForURL(/\/mod$/);
  await mira.waitForSelector(`#mod-list li[data-id="${reportId}"]`);
  assert.equal(await mira.title(), "Trunkfield — moderation");
  const r = card(mira, reportId);
  assert.equal(await r.locator("h2").innerText(), `#${reportId} · Abuse in chat`);
  assert.equal(await r.getAttribute("data-status"), "open");
  assert.equal(await r.locator(".mr-player").innerText(), "Ann_m");
  assert.equal(await r.locator(".mr-player").getAttribute("href"), "/@/Ann_m");
  assert.equal(await r.locator(".mr-reporter").innerText(), "Bob_m");
  assert.equal(await r.locator(".mr-game").getAttribute("href"), `/g/${code}`);
  assert.equal(await r.locator(".mr-text").innerText(), "She insults me in the chat of every game.");
  assert.deepEqual(await r.locator(".mr-line").evaluateAll((ls) => ls.map((l) => l.textContent)),
    ["Ann_m: You play like a potato, idiot.", "Ann_m: Muted, are you? Coward.", "Ann_m: Fine, hello again."]);
  assert.deepEqual(await r.locator(".mr-standing li").allInnerTexts(), ["no warning", "1 report in all"]);
  assert.deepEqual(await r.locator(".mr-buttons button").allInnerTexts(), ["Warn", "Mute", "Shadow", "Close account", "Dismiss"]);
  assert.deepEqual(await r.locator(".mr-minutes option").allInnerTexts(), ["for 1 hour", "for 1 day", "for 1 week"]);
  await shot(mira, "moderation-page-desktop", { fullPage: true });
  await mira.setViewportSize(PHONE);
  await shot(mira, "moderation-page-phone", { fullPage: true });
  await mira.setViewportSize(DESKTOP);

  // shadow, from the report: handled (Bob is told), listed under Handled now
  await r.locator(".mr-note").fill("Insults in chat");
  await r.locator(".mr-shadow").click();
  await mira.waitForSelector("#mod-empty:not([hidden])");
  assert.equal(await text(mira, "#mod-empty"), "No open report. Well done.");
  assert.equal(await text(mira, "#mod-note"), `Report #${reportId} is handled: it is listed under Handled now, where you may still act on Ann_m.`);
  assert.deepEqual(actions, [{ player: "Ann_m", action: "shadow", note: "Insults in chat", report: reportId }]);
  await bob.waitForSelector('#note-toast[data-kind="report_handled"]:not([hidden])');
  assert.equal(await text(bob, "#note-toast-text"), `Your report #${reportId} about Ann_m was handled`);
  assert.equal(await text(bob, "#note-toast-detail"), "A moderator took action. Thank you for reporting.");
  assert.deepEqual(await bob.locator("#note-toast button:visible").allInnerTexts(), ["×"]);
  await shot(bob, "moderation-report-handled-toast-desktop");

  // Ann's line, shadowed: hers alone; Bob's version moves on, his game too
  await say(ann, "Nobody hears me now?");
  await sameVersion(ann, bob, code);
  assert.ok((await chatOf(ann, code)).some((l) => l.mine && l.text === "Nobody hears me now?"), "Ann sees her own line");
  assert.ok(await ann.locator("#chat-log .chat-line.refused").count() === 0);
  assert.ok(!(await chatOf(bob, code)).some((l) => l.text === "Nobody hears me now?"), "Bob gets no line");
  await ann.fill("#typed-input", "b1 c1 e1 g1 h1 SW NW"); // the game goes on after the hidden lines
  await ann.press("#typed-input", "Enter");
  await bob.waitForFunction((c) => window.trunkfield.S.games.get(c)?.state?.phase === "setup_bronze", code);
  await sameVersion(ann, bob, code);

  // the handled reports: Ann shadowed; mute her for an hour
  await mira.click("#mod-handled");
  await mira.waitForSelector(`#mod-list li[data-id="${reportId}"]`);
  const h = card(mira, reportId);
  assert.equal(await h.getAttribute("data-status"), "handled");
  assert.match(await h.locator(".mr-handled").innerText(), /^Handled by Mira_m on .*: action taken\.$/);
  assert.deepEqual(await h.locator(".mr-standing li").allInnerTexts(), ["shadowed", "no warning", "1 report in all"]);
  assert.deepEqual(await h.locator(".mr-buttons button").allInnerTexts(), ["Warn", "Mute", "Unshadow", "Close account"]);
  assert.ok(await h.locator(".mr-line.hidden-line").count() >= 1, "the shadowed line is marked hidden");
  assert.equal(await h.locator(".mr-line.hidden-line .mr-tag").first().innerText(), "HIDDEN");
  await h.locator(".mr-minutes").selectOption("60");
  await h.locator(".mr-mute").click();
  await mira.waitForFunction(() => /cannot chat for 1 hour/.test(document.querySelector("#toast").textContent));
  assert.equal(await text(mira, "#toast"), "Ann_m cannot chat for 1 hour.");
  assert.deepEqual(actions.at(-1), { player: "Ann_m", action: "mute", minutes: 60 });
  await mira.waitForFunction((id) => document.querySelector(`#mod-list li[data-id="${id}"] .mr-unmute`), reportId);
  assert.match(await h.locator(".mr-standing li").first().innerText(), /^chat muted until /);

  // Ann's chat: refused; under the input, until when (the server's "until 2026-12-05 23:46 UTC",
  // in the page's time zone)
  await say(ann, "Can I still talk?");
  await ann.waitForSelector("#chat-muted:not([hidden])");
  assert.equal((await ann.locator("#chat-log .chat-line.refused .chat-why").innerText()).trim(), "— not sent: a moderator muted your chat");
  const until = await ann.evaluate(() => {
    const m = /until (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d) UTC/.exec(window.trunkfield.S.games.get(window.trunkfield.S.route.code).chatMuted.message);
    return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5])).toLocaleString("en", { dateStyle: "medium", timeStyle: "short" });
  });
  assert.equal(await text(ann, "#chat-muted"), `A moderator muted your chat until ${until}.`);
  assert.equal(await ann.getAttribute("#chat-input", "aria-describedby"), "chat-muted");
  await ann.locator("#chat-card").scrollIntoViewIfNeeded();
  await shot(ann, "moderation-chat-muted-desktop");

  // warn: the note is the warning; none, and she is asked for one
  await h.locator(".mr-warn").click();
  assert.equal(await h.locator(".mr-error").innerText(), "Write the warning in the note first: the player reads it.");
  assert.equal(await mira.evaluate(() => document.activeElement.className), "mr-note");
  await h.locator(".mr-note").fill("Please keep the chat polite.");
  await h.locator(".mr-warn").click();
  await mira.waitForFunction(() => document.querySelector("#toast").textContent === "Ann_m was warned.");
  await ann.waitForSelector('#note-toast[data-kind="warning"]:not([hidden])');
  assert.equal(await text(ann, "#note-toast-text"), "A moderator warned you");
  assert.equal(await text(ann, "#note-toast-detail"), "Please keep the chat polite.");
  await shot(ann, "moderation-warning-toast-desktop");
  await ann.waitForTimeout(10500); // a warning stays until it is closed
  assert.ok(await ann.locator("#note-toast").isVisible());
  assert.equal(await text(ann, "#bell-count"), "1");
  await ann.click("#note-close");
  await ann.waitForFunction(() => window.trunkfield.S.notes.unread === 0);
  await ann.click("#bell-btn");
  await ann.waitForSelector('#bell-list li[data-kind="warning"]');
  assert.equal(await ann.locator('#bell-list li[data-kind="warning"] .note-detail').innerText(), "Please keep the chat polite.");
  await ann.keyboard.press("Escape");
  await mira.waitForFunction((id) => /1 warning/.test(document.querySelector(`#mod-list li[data-id="${id}"] .mr-standing`)?.textContent ?? ""), reportId);

  // a second report, from Ann's page without a game: dismissed; Bob is told no action was taken
  await bob.goto(`${server.base}/@/Ann_m`);
  await bob.waitForSelector("#pf-report:not([hidden])");
  await bob.click("#pf-report");
  await bob.waitForSelector("#report-dialog[open]");
  assert.ok(await bob.locator("#report-game-field").isHidden(), "no game from a player's page");
  await bob.selectOption("#report-reason", "cheating");
  await bob.setViewportSize(PHONE);
  await shot(bob, "moderation-report-dialog-phone");
  await bob.setViewportSize(DESKTOP);
  await bob.click("#report-send");
  await bob.waitForSelector("#report-done:not([hidden])");
  const second = Number(/#(\d+)/.exec(await text(bob, "#report-done-text"))[1]);
  assert.ok(second > reportId);
  await bob.click("#report-ok");
  await mira.click("#mod-open");
  await mira.waitForSelector(`#mod-list li[data-id="${second}"]`);
  const d = card(mira, second);
  assert.equal(await d.locator(".mr-text").innerText(), "The reporter wrote nothing.");
  assert.equal(await d.locator(".mr-chat").innerText(), "No game attached.");
  assert.match((await d.locator(".mr-standing li").allInnerTexts()).join(" | "), /^chat muted until .+ \| shadowed \| 1 warning \| 2 reports in all$/);
  await d.locator(".mr-dismiss").click();
  await mira.waitForSelector("#mod-empty:not([hidden])");
  assert.equal(await text(mira, "#mod-note"), `Report #${second} was dismissed: it is listed under Handled now.`);
  assert.deepEqual(actions.at(-1), { player: "Ann_m", action: "dismiss", report: second });
  await bob.waitForFunction((id) => document.querySelector("#note-toast-text")?.textContent === `Your report #${id} about Ann_m was handled`, second);
  assert.equal(await text(bob, "#note-toast-detail"), "A moderator looked into it and took no action.");

  // close, asked first; Ann's page is signed out; signing in says why it cannot
  await mira.click("#mod-handled");
  await mira.waitForSelector(`#mod-list li[data-id="${reportId}"] .mr-close`);
  await card(mira, reportId).locator(".mr-close").click();
  await mira.waitForSelector("#mod-confirm[open]");
  assert.equal(await text(mira, "#mod-confirm-h"), "Close Ann_m's account?");
  assert.equal(await mira.evaluate(() => document.activeElement.id), "mod-confirm-cancel");
  await shot(mira, "moderation-close-confirm-desktop");
  await mira.click("#mod-confirm-cancel");
  assert.ok(!actions.some((a) => a.action === "close"), "cancelled: nothing sent");
  await card(mira, reportId).locator(".mr-close").click();
  await mira.click("#mod-confirm-ok");
  await mira.waitForFunction(() => document.querySelector("#toast").textContent === "Ann_m's account is closed.");
  assert.deepEqual(actions.at(-1), { player: "Ann_m", action: "close" });
  await ann.waitForFunction(() => window.trunkfield.S.me && !window.trunkfield.S.me.account);
  await ann.waitForFunction(() => document.querySelector("#toast").textContent === "A moderator closed this account: you are signed out and play as a guest now.");
  await ann.waitForSelector("#signin-btn:not([hidden])");
  await ann.click("#signin-btn");
  await ann.fill("#login-user", "Ann_m");
  await ann.fill("#login-pass", "Ann_m-secret");
  await ann.click("#login-submit");
  await ann.waitForSelector("#login-err:not([hidden])");
  assert.equal(await text(ann, "#login-err"), "This account was closed by a moderator: it cannot sign in.");
  await shot(ann, "moderation-login-closed-desktop");
  await mira.waitForFunction((id) => document.querySelector(`#mod-list li[data-id="${id}"] .mr-reopen`), reportId);
  assert.match(await card(mira, reportId).locator(".mr-standing").innerText(), /account closed/);
  await shot(mira, "moderation-page-handled-desktop", { fullPage: true });

  // reopened: she signs in again
  await card(mira, reportId).locator(".mr-reopen").click();
  await mira.waitForFunction(() => document.querySelector("#toast").textContent === "Ann_m's account is open again.");
  await ann.click("#login-submit");
  await ann.waitForFunction(() => window.trunkfield.S.me?.account?.username === "Ann_m");

  // the audit log: every action, newest first, and the role granted by the operator
  await mira.click("#mod-tab-audit");
  await mira.waitForSelector("#mod-audit-rows tr");
  assert.equal(await mira.getAttribute("#mod-tab-audit", "aria-selected"), "true");
  const rows = await mira.locator("#mod-audit-rows tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(1).map((td) => td.textContent)));
  assert.deepEqual(rows, [
    ["Mira_m", "account reopened", "Ann_m", "—", ""],
    ["Mira_m", "account closed", "Ann_m", "—", ""],
    ["Mira_m", "report dismissed", "Ann_m", `#${second}`, ""],
    ["Mira_m", "warned", "Ann_m", "—", "Please keep the chat polite."],
    ["Mira_m", "muted · 1 hour", "Ann_m", "—", ""],
    ["Mira_m", "shadowed", "Ann_m", `#${reportId}`, "Insults in chat"],
    ["(operator)", "made moderator", "Mira_m", "—", ""],
  ]);
  await shot(mira, "moderation-audit-desktop", { fullPage: true });
  // the arrow keys move between the tabs
  await mira.focus("#mod-tab-audit");
  await mira.keyboard.press("ArrowLeft");
  assert.equal(await mira.evaluate(() => document.activeElement.id), "mod-tab-reports");
  await mira.waitForSelector("#mod-reports:not([hidden])");

  // in French
  await mira.selectOption("#lang-select", "fr");
  await mira.waitForSelector(`#mod-list li[data-id="${reportId}"]`);
  assert.deepEqual(await mira.locator("#mod [role=tab]").allInnerTexts(), ["Signalements", "Journal"]);
  assert.equal(await card(mira, reportId).locator("h2").innerText(), `n° ${reportId} · Propos abusifs`);
  await shot(mira, "moderation-page-fr-desktop", { fullPage: true });
  for (const p of [ann, bob, mira]) await p.context().close();
});
