// E-mail for an account in the web client (client/web/app/mail.js; GET and POST
// /api/account/mail), against the real trunkfield-server and a real SMTP server: Debian's
// python3-aiosmtpd with its Debugging handler, which prints every message it receives.
// A player registers from the sign-in dialog and opens "E-mail notifications" from the account
// menu (on a server that sends mail; its own page, #mail): no address yet, the boxes off until
// there is a verified one. An address that is none is refused in words next to the field; a good
// one reads "Not verified" with "check your inbox" and "Send the link again", which sends a
// second mail. The link of the mail (quoted-printable text: soft breaks and =3D undone) opened in
// the page verifies it; back on the page it reads "Verified", the boxes work, the digest turned
// on and the turns mails off are kept after a reload; the words in French; the address removed.
// Resending until the server says too_many shows its message. A server started without
// --smtp-url says it sends no e-mail and shows no form, and its account menu has no entry for it;
// a guest and a request without a token are refused (403, 401). axe-core's WCAG 2.1 A/AA rules
// on each state. Screenshots (TF_ARTIFACTS): mail-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { SERVER, WEB_ROOT, DESKTOP, PHONE, PageProblems, axeAudit, launchBrowser, startServer, accountPage, newPlayer, shot, sleep } from "./lib.mjs";

const PYTHON = process.env.TF_PYTHON ?? "/usr/bin/python3"; // Debian's, which has aiosmtpd
const FROM = "trunkfield@test.example";
const problems = new PageProblems();
let browser, smtp, server;
const NO_SMTP = spawnSync(PYTHON, ["-c", "import aiosmtpd"]).status === 0 ? false : `no aiosmtpd for ${PYTHON} (Debian: python3-aiosmtpd)`;

// A port free just now (the SMTP server's; the HTTP port, which --public-url must name).
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// aiosmtpd on a free port, printing each message it receives; resolves once it accepts
// connections. {port, out() (all it printed), stop()}.
async function startSmtp() {
  const port = await freePort();
  const p = spawn(PYTHON, ["-u", "-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Debugging", "-l", `127.0.0.1:${port}`],
    { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  p.stdout.on("data", (d) => (out += d.toString()));
  p.stderr.on("data", (d) => (out += d.toString()));
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const c = net.connect(port, "127.0.0.1", () => {
        c.destroy();
        resolve(true);
      });
      c.on("error", () => resolve(false));
    });
    if (up) break;
    if (i > 100 || p.exitCode !== null) throw new Error(`aiosmtpd did not start: ${out}`);
    await sleep(100);
  }
  return { port, out: () => out, stop: () => p.kill("SIGTERM") };
}

// trunkfield-server as lib.mjs's startServer starts it, but on an HTTP port chosen first: the
// mails' links are built from --public-url, which must name it.
async function startMailServer(smtpPort) {
  const port = await freePort();
  const data = mkdtempSync(path.join(os.tmpdir(), "tf-browser-mail-"));
  const base = `http://127.0.0.1:${port}`;
  const args = ["--http-port", String(port), "--tcp-port", "0", "--bind", "127.0.0.1", "--log-level", "info", "--data", data,
    "--store", "sqlite", "--live-interval-ms", "0", "--web-root", WEB_ROOT,
    "--smtp-url", `smtp://127.0.0.1:${smtpPort}`, "--mail-from", FROM, "--public-url", base];
  const p = spawn(SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d.toString();
      if (/listening http=/.test(out)) resolve();
    };
    p.stdout.on("data", onData);
    p.stderr.on("data", onData);
    p.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
    setTimeout(() => reject(new Error(`no listening line: ${out}`)), 10000);
  });
  return { base, log: () => out, stop() {
    p.kill("SIGTERM");
    rmSync(data, { recursive: true, force: true });
  } };
}

before(async () => {
  if (!NO_SMTP) {
    smtp = await startSmtp();
    server = await startMailServer(smtp.port);
  }
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
  smtp?.stop();
  assert.deepEqual(problems.list, [], "no uncaught errors and no CSP violation in the pages");
});

// ------------------------------------------------------------------ the mails
// Quoted-printable text (RFC 2045) undone: the soft line breaks ("=" ending a line) joined, then
// each =XX a byte; the bytes read as UTF-8.
function unquote(qp) {
  const s = qp.replace(/=\r?\n/g, "");
  const bytes = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "=" && /^[0-9A-F]{2}$/i.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(s[i], "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

// The messages aiosmtpd printed so far: [{headers, text}], `text` the body as written (the
// quoted-printable undone).
function mails() {
  const list = [];
  const re = /---------- MESSAGE FOLLOWS ----------\r?\n([\s\S]*?)------------ END MESSAGE ------------/g;
  for (const [, m] of smtp.out().matchAll(re)) {
    const i = m.search(/\r?\n\r?\n/);
    const headers = m.slice(0, i);
    const body = m.slice(i).replace(/^\r?\n\r?\n/, "");
    list.push({ headers, text: /^Content-Transfer-Encoding:\s*quoted-printable/mi.test(headers) ? unquote(body) : body });
  }
  return list;
}
const mailsTo = (address) => mails().filter((m) => new RegExp(`^To:.*${address.replace(/[.+]/g, "\\$&")}`, "mi").test(m.headers));

// The `n`th mail to `address` (1: the first), once it came (20 s at most).
async function nthMailTo(address, n) {
  for (let i = 0; i < 200; i++) {
    const got = mailsTo(address);
    if (got.length >= n) return got[n - 1];
    await sleep(100);
  }
  throw new Error(`no mail number ${n} to ${address} within 20 s; aiosmtpd printed:\n${smtp.out().slice(-3000)}\nserver:\n${server.log().slice(-3000)}`);
}
const verifyLink = (mail) => {
  const m = /https?:\/\/\S+\/api\/mail\/verify\?token=[A-Za-z0-9_%.~-]+/.exec(mail.text);
  assert.ok(m, `a verification link in the mail:\n${mail.text}`);
  return m[0];
};

// ------------------------------------------------------------------ the page
const audit = axeAudit;

const text = (page, sel) => page.locator(sel).innerText();
const mailState = (page) => page.getAttribute("#pf-mail-state", "data-state");
const boxes = (page) => page.evaluate(() => Object.fromEntries(["turns", "challenges", "digest"].map((k) =>
  [k, document.getElementById(`pf-mail-${k}`).checked])));
const prefsOff = (page) => page.evaluate(() => document.getElementById("pf-mail-prefs").disabled);

// GET or POST /api/account/mail from the page, with its token (or `token`: "" for none).
const api = (page, body = undefined, token = undefined) => page.evaluate(async ([b, tok]) => {
  const t = tok ?? localStorage.getItem("trunkfield.token");
  const headers = { Accept: "application/json" };
  if (t) headers.Authorization = `Bearer ${t}`;
  if (b !== null) headers["Content-Type"] = "application/json";
  const r = await fetch("/api/account/mail", b === null ? { headers } : { method: "POST", headers, body: JSON.stringify(b) });
  return { status: r.status, body: await r.json().catch(() => null) };
}, [body ?? null, token ?? null]);

// Registers `username` from the header's dialog, as a player would.
async function register(page, username) {
  await page.click("#signin-btn");
  await page.waitForSelector("#account-dialog[open]");
  await page.click("#tab-register");
  await page.fill("#reg-user", username);
  await page.fill("#reg-pass", `${username}-secret`);
  await page.click("#reg-submit");
  await page.waitForFunction((u) => window.trunkfield.S.me?.account?.username === u, username);
  await page.waitForSelector("#account-dialog:not([open])", { state: "attached" });
}

// The account menu's "E-mail notifications": the account's own page, scrolled to the card.
async function openMailSettings(page, username) {
  await page.click("#account-btn");
  await page.waitForSelector("#account-menu:not([hidden])");
  assert.equal((await text(page, "#menu-mail")).trim(), "E-mail notifications");
  await page.click("#menu-mail");
  await page.waitForURL(new RegExp(`/@/${username}#mail$`));
  await page.waitForSelector("#pf-mail-card:not([hidden])");
}

test("an address verified by the mail's link; the mails chosen are kept", { skip: NO_SMTP }, async () => {
  const page = await newPlayer(browser, server.base, problems, null, DESKTOP);
  await register(page, "Mailer_a");
  await openMailSettings(page, "Mailer_a");
  await page.waitForSelector("#pf-mail-body:not([hidden])");
  assert.ok(await page.locator("#pf-mail-off").isHidden());
  assert.equal(await mailState(page), "none");
  assert.match(await text(page, "#pf-mail-address"), /No address yet/);
  assert.equal(await text(page, "#pf-mail-label"), "E-mail address");
  assert.ok(await page.locator("#pf-mail-remove").isHidden());
  assert.ok(await page.locator("#pf-mail-resend").isHidden());
  // the defaults, off until an address is verified
  assert.deepEqual(await boxes(page), { turns: true, challenges: true, digest: false });
  assert.ok(await prefsOff(page), "the boxes are off without an address");
  assert.match(await text(page, "#pf-mail-prefs-hint"), /Give an address and verify it first/);
  assert.ok(await page.locator("#pf-mail-save").isDisabled(), "nothing to save yet");
  const got = await api(page);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, { available: true, address: null, verified: false, turns: true, challenges: true, digest: false });
  await audit(page, "no address yet");

  // not an address: said next to the field, nothing sent
  await page.fill("#pf-mail-input", "ann at example");
  await page.click("#pf-mail-save");
  await page.waitForSelector("#pf-mail-err:not([hidden])");
  assert.equal(await text(page, "#pf-mail-err"), "That is not an e-mail address.");
  assert.equal(await page.getAttribute("#pf-mail-input", "aria-invalid"), "true");
  await page.fill("#pf-mail-input", "ann@mail.test.example");
  assert.ok(await page.locator("#pf-mail-err").isHidden(), "editing the field clears its error");
  // the server refuses one too (its own words)
  const bad = await api(page, { address: "no-at-sign" });
  assert.equal(bad.status, 400);
  assert.equal(bad.body?.error, "bad_address");
  assert.equal(typeof bad.body?.message, "string");

  await page.press("#pf-mail-input", "Enter");
  await page.waitForSelector('#pf-mail-state[data-state="unverified"]');
  assert.equal(await text(page, "#pf-mail-address"), "ann@mail.test.example");
  assert.equal(await text(page, "#pf-mail-badge"), "Not verified");
  assert.match(await text(page, "#pf-mail-note"), /Not verified yet — check your inbox/);
  assert.match(await text(page, "#toast"), /We sent a link to ann@mail\.test\.example/);
  assert.equal(await page.inputValue("#pf-mail-input"), "", "the field is for another address now");
  assert.equal(await text(page, "#pf-mail-label"), "New address");
  assert.ok(await page.locator("#pf-mail-resend").isVisible());
  assert.ok(await page.locator("#pf-mail-remove").isVisible());
  assert.ok(await prefsOff(page), "the boxes are off until the address is verified");
  assert.match(await text(page, "#pf-mail-prefs-hint"), /once your address is verified/);
  await shot(page, "mail-unverified");
  await audit(page, "an address not verified");

  const first = await nthMailTo("ann@mail.test.example", 1);
  assert.match(first.headers, new RegExp(`^From:.*${FROM.replace(/\./g, "\\.")}`, "mi"));
  const link1 = verifyLink(first);
  assert.ok(link1.startsWith(`${server.base}/api/mail/verify?token=`), `the link names --public-url: ${link1}`);

  // "Send the link again": a second mail
  await page.click("#pf-mail-resend");
  await page.waitForFunction(() => /sent again/.test(document.getElementById("toast").textContent));
  const link = verifyLink(await nthMailTo("ann@mail.test.example", 2));

  // the link, opened in the page; then back
  const res = await page.goto(link);
  assert.equal(res.status(), 200, await res.text());
  await page.goBack();
  await page.waitForSelector('#pf-mail-state[data-state="verified"]');
  assert.equal(await text(page, "#pf-mail-badge"), "Verified");
  assert.ok(await page.locator("#pf-mail-resend").isHidden());
  assert.ok(!(await prefsOff(page)), "the boxes work once verified");
  assert.match(await text(page, "#pf-mail-prefs-hint"), /saved as soon as you change it/);
  assert.equal((await api(page)).body.verified, true);

  // the boxes, each saved as it changes
  await page.check("#pf-mail-digest");
  await page.waitForFunction(() => document.getElementById("toast").textContent === "Saved." && !window.trunkfield.S.mail.busy);
  await page.uncheck("#pf-mail-turns");
  await page.waitForFunction(() => window.trunkfield.S.mail.data?.turns === false && !window.trunkfield.S.mail.busy);
  assert.deepEqual(await boxes(page), { turns: false, challenges: true, digest: true });
  await page.reload();
  await page.waitForSelector('#pf-mail-state[data-state="verified"]');
  assert.deepEqual(await boxes(page), { turns: false, challenges: true, digest: true }, "kept after a reload");
  const kept = (await api(page)).body;
  assert.deepEqual(kept, { available: true, address: "ann@mail.test.example", verified: true, turns: false, challenges: true, digest: true });
  await page.locator("#pf-mail-card").scrollIntoViewIfNeeded();
  await shot(page, "mail-verified");
  await shot(page, "mail-card", { clip: await page.locator("#pf-mail-card").boundingBox() });
  await audit(page, "a verified address");

  // in French
  await page.selectOption("#lang-select", "fr");
  assert.equal(await text(page, "#pf-mail-h"), "E-mail");
  assert.equal(await text(page, "#pf-mail-badge"), "Vérifiée");
  assert.match(await text(page, "#pf-mail-prefs legend"), /M'envoyer un e-mail/);
  assert.match(await text(page, "#pf-mail-digest + span"), /résumé quotidien/);
  await page.fill("#pf-mail-input", "pas une adresse");
  await page.click("#pf-mail-save");
  assert.equal(await text(page, "#pf-mail-err"), "Ce n'est pas une adresse e-mail.");
  await shot(page, "mail-fr");
  await page.fill("#pf-mail-input", "");
  await page.selectOption("#lang-select", "en");

  // removed: no more mail, the boxes off again
  await page.click("#pf-mail-remove");
  await page.waitForSelector('#pf-mail-state[data-state="none"]');
  assert.match(await text(page, "#toast"), /Address removed/);
  assert.ok(await prefsOff(page));
  assert.equal((await api(page)).body.address, null);
  await page.context().close();
});

test("resending too often: the server's words (a phone, dark)", { skip: NO_SMTP }, async () => {
  const page = await newPlayer(browser, server.base, problems, null, PHONE);
  await register(page, "Mailer_b");
  await page.goto(`${server.base}/@/Mailer_b#mail`);
  await page.waitForSelector("#pf-mail-body:not([hidden])");
  await page.fill("#pf-mail-input", "bea@mail.test.example");
  await page.click("#pf-mail-save");
  await page.waitForSelector('#pf-mail-state[data-state="unverified"]');
  let refused = null;
  for (let i = 0; i < 12 && !refused; i++) {
    await page.click("#pf-mail-resend");
    await page.waitForFunction(() => !window.trunkfield.S.mail.busy);
    refused = await page.evaluate(() => window.trunkfield.S.mail.fail);
  }
  assert.ok(refused, "the server says too_many within 12 resends");
  assert.equal(refused.code, "too_many");
  const said = (await api(page, { resend: true })).body;
  assert.equal(said.error, "too_many");
  assert.equal(await text(page, "#pf-mail-err"), said.message, "the server's message, as it is");
  assert.equal(await page.getAttribute("#pf-mail-err", "role"), "alert");
  await page.emulateMedia({ colorScheme: "dark" });
  await page.locator("#pf-mail-card").scrollIntoViewIfNeeded();
  await shot(page, "mail-too-many-phone-dark");
  await audit(page, "too many mails, on a phone, dark");
  await page.context().close();
});

test("a guest and no token are refused", { skip: NO_SMTP }, async () => {
  const page = await newPlayer(browser, server.base, problems, "Guesty", DESKTOP);
  const guest = await api(page);
  assert.equal(guest.status, 403);
  assert.equal(guest.body?.error, "account_required");
  const none = await api(page, undefined, "");
  assert.equal(none.status, 401);
  assert.ok(await page.locator("#menu-mail").isHidden());
  await page.context().close();
});

test("a server without --smtp-url sends no e-mail", async () => {
  const plain = await startServer(["--store", "sqlite"]);
  try {
    const page = await accountPage(browser, plain, problems, "Nomail_c");
    await page.goto(`${plain.base}/@/Nomail_c#mail`);
    await page.waitForSelector("#pf-mail-off:not([hidden])");
    assert.equal(await text(page, "#pf-mail-off"), "This server sends no e-mail.");
    assert.ok(await page.locator("#pf-mail-body").isHidden(), "no form");
    assert.equal((await api(page)).body?.available, false);
    await page.click("#account-btn");
    assert.ok(await page.locator("#menu-mail").isHidden(), "no \"E-mail notifications\" in the account menu");
    await page.keyboard.press("Escape");
    await page.locator("#pf-mail-card").scrollIntoViewIfNeeded();
    await shot(page, "mail-unavailable");
    await audit(page, "no e-mail on this server");
    await page.context().close();
  } finally {
    plain.stop();
  }
});
