// Access tokens for programs in the web client (issue 36; client/web/app/tokens.js; GET and POST
// /api/account/tokens, POST /api/account/tokens/revoke; proto/PROTOCOL.md "Access tokens"),
// against the real trunkfield-server with a durable store.
// The card on the account's own page: none at first; a token made with a name and two of the
// three rights is shown once, selected, and listed with its rights and dates; it works on the HTTP
// API for programs within its rights (its event stream opens; a challenge is 403 missing_scope);
// a reload lists it without its secret; a form without a name or without a right says so in
// words; Revoke takes it off the list and the server refuses it (401); in French; no wider than a
// phone; axe finds nothing. Nobody else's page has the card.
// Screenshots (TF_ARTIFACTS): tokens-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DESKTOP, PHONE, serverAndBrowser, PageProblems, axeAudit, accountPage as newAccountPage, shot, fitsPhone } from "./lib.mjs";

let server, browser;
const problems = new PageProblems();
serverAndBrowser(problems, (s, b) => ([server, browser] = [s, b]), ["--store", "sqlite"]);

const text = (page, sel) => page.locator(sel).innerText();
const accountPage = (username, viewport, opts) => newAccountPage(browser, server, problems, username, viewport, opts);

// A request of the HTTP API for programs with `token`: {status, body} (a stream: its status only).
const withToken = (page, path, token, body = undefined) => page.evaluate(async ([p, tok, b]) => {
  const init = { headers: { Authorization: `Bearer ${tok}` } };
  if (b !== undefined) Object.assign(init, { method: "POST", body: JSON.stringify(b) });
  const ctl = new AbortController();
  const r = await fetch(p, { ...init, signal: ctl.signal });
  const type = r.headers.get("content-type") ?? "";
  const out = { status: r.status, type, body: type.includes("ndjson") ? null : await r.json().catch(() => null) };
  ctl.abort();
  return out;
}, [path, token, body]);

test("the access tokens card: make one with its rights, shown once, used, listed, revoked", async () => {
  const ann = await accountPage("Ann_t", DESKTOP);
  await ann.goto(`${server.base}/@/Ann_t`);
  await ann.waitForSelector("#pf-tok-card:not([hidden])");
  await ann.waitForSelector("#pf-tok-empty:not([hidden])");
  assert.equal(await text(ann, "#pf-tok-h"), "Access tokens for programs");
  assert.equal(await text(ann, "#pf-tok-empty"), "You have no access tokens.");
  assert.ok(await ann.locator("#pf-tok-new").isHidden());
  assert.ok(await ann.isChecked("#pf-tok-read"));
  assert.ok(await ann.isChecked("#pf-tok-play"));
  assert.ok(!(await ann.isChecked("#pf-tok-challenge")));

  // Refused in words before it goes: no name, then no right.
  await ann.click("#pf-tok-create");
  assert.equal(await text(ann, "#pf-tok-err"), "Give the token a name.");
  await ann.fill("#pf-tok-label", "my engine");
  await ann.uncheck("#pf-tok-read");
  await ann.uncheck("#pf-tok-play");
  await ann.click("#pf-tok-create");
  assert.equal(await text(ann, "#pf-tok-err"), "Tick at least one right.");

  // Made: shown once, selected, listed with its rights.
  await ann.check("#pf-tok-read");
  await ann.check("#pf-tok-play");
  await ann.click("#pf-tok-create");
  await ann.waitForSelector("#pf-tok-new:not([hidden])");
  const token = await ann.inputValue("#pf-tok-value");
  assert.match(token, /^tfp_[0-9a-f]{48}$/);
  assert.ok(await ann.locator("#pf-tok-err").isHidden());
  assert.equal(await ann.evaluate(() => document.activeElement?.id), "pf-tok-value");
  assert.equal(await ann.inputValue("#pf-tok-label"), "");
  const row = ann.locator("#pf-tok-list li");
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator(".tok-name").innerText(), "my engine");
  assert.equal(await row.locator(".tok-rights").innerText(), "read · play");
  assert.match(await row.locator(".tok-dates").innerText(), /^made .+, last used never$/);
  await ann.locator("#pf-tok-card").scrollIntoViewIfNeeded();
  await shot(ann, "tokens-card-made-desktop");
  await axeAudit(ann, "the access tokens card");

  // The token works within its rights.
  const stream = await withToken(ann, "/api/stream/event", token);
  assert.equal(stream.status, 200);
  assert.match(stream.type, /application\/x-ndjson/);
  const chal = await withToken(ann, "/api/challenge/Ann_t", token, {});
  assert.equal(chal.status, 403);
  assert.equal(chal.body.error, "missing_scope");

  // Listed after a reload, its secret nowhere; used now.
  await ann.reload();
  await ann.waitForSelector("#pf-tok-list li");
  assert.ok(await ann.locator("#pf-tok-new").isHidden());
  assert.match(await ann.locator("#pf-tok-list li .tok-dates").innerText(), /^made .+, last used (?!never).+$/);
  assert.ok(!(await ann.content()).includes(token.slice(4)), "the secret is not on the page");

  // In French, and on a phone.
  const fr = await accountPage("Fay_t", PHONE, { locale: "fr-FR" });
  await fr.goto(`${server.base}/@/Fay_t`);
  await fr.waitForSelector("#pf-tok-empty:not([hidden])");
  assert.equal(await text(fr, "#pf-tok-h"), "Jetons d'accès pour programmes");
  assert.equal(await text(fr, "#pf-tok-create"), "Créer un jeton");
  await fr.fill("#pf-tok-label", "mon bot");
  await fr.check("#pf-tok-challenge");
  await fr.click("#pf-tok-create");
  await fr.waitForSelector("#pf-tok-new:not([hidden])");
  assert.equal(await fr.locator("#pf-tok-list li .tok-rights").innerText(), "lire · jouer · défier");
  await fitsPhone(fr, "the access tokens card in French");
  await fr.locator("#pf-tok-card").scrollIntoViewIfNeeded();
  await shot(fr, "tokens-card-fr-phone");

  // Nobody else's page has the card.
  await ann.goto(`${server.base}/@/Fay_t`);
  await ann.waitForSelector("#pf-since");
  assert.ok(await ann.locator("#pf-tok-card").isHidden());

  // Revoked: off the list, refused by the server.
  await ann.goto(`${server.base}/@/Ann_t`);
  await ann.waitForSelector("#pf-tok-list li");
  await ann.getByRole("button", { name: "Revoke the token my engine" }).click();
  await ann.waitForSelector("#pf-tok-empty:not([hidden])");
  assert.equal(await ann.locator("#pf-tok-list li").count(), 0);
  const gone = await withToken(ann, "/api/stream/event", token);
  assert.equal(gone.status, 401);
  for (const p of [ann, fr]) await p.context().close();
});
