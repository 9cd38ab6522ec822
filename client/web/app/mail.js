// E-mail for an account (GET and POST /api/account/mail with its token), on the account's own
// page (/@/NAME#mail; the account menu's "E-mail notifications" on a server that sends mail):
// the address and its state (verified, or not yet with "Send the link again"), a field to give,
// change or remove it, and which mails it wants, each box saved as soon as it changes: when it
// is its move in a correspondence game, when it is challenged, and all of it gathered in one
// mail a day (the digest). The boxes work once the address is verified; the server mails the
// link (GET /api/mail/verify?token=…), so the page asks again when the player comes back to it.
// A server without a mail relay (available: false) says it sends no e-mail, and nothing more.
import { $ } from "./dom.js";
import { t, lang, hasText } from "./i18n.js";
import { S, app } from "./state.js";
import { getMail, postMail } from "./api.js";
import { toast, renderAccount } from "./account.js";

const MAIL_PREFS = ["turns", "challenges", "digest"];
const MAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/; // the server has the last word
let mailSeq = 0;
let mailShownFor = null; // the page (S.profile) whose address #mail was scrolled to

// S.mail: {for (player id), data (the server's answer), loading, loaded, error (loading failed),
// busy (the change on its way: "address", "remove", "resend" or a box's name), fail ({where:
// "address" | "prefs", text}: the last change refused)}
const freshMail = (playerId = null) => ({ for: playerId, data: null, loading: false, loaded: false, error: null, busy: null, fail: null });
S.mail = freshMail();

const mailOwn = () => !!S.me?.account && S.profile?.data?.username?.toLowerCase() === S.me.account.username.toLowerCase();

// The settings as the server has them now (the account's own page asks on every visit).
export function loadMail() {
  if (!S.me?.account) return;
  if (S.mail.for !== S.me.player_id) S.mail = freshMail(S.me.player_id);
  const M = S.mail;
  if (M.busy) return;
  const seq = ++mailSeq;
  M.loading = true;
  getMail().then((d) => {
    if (seq !== mailSeq || M !== S.mail) return;
    M.data = d;
    M.loaded = true;
    M.error = null;
  }, (e) => {
    if (seq === mailSeq && M === S.mail) M.error = e.message;
  }).finally(() => {
    if (seq !== mailSeq || M !== S.mail) return;
    M.loading = false;
    renderAccount(); // the account menu's entry
    if (S.route.view === "profile") app.render();
  });
}

// A welcome: an account's settings are asked for at once (the account menu has "E-mail
// notifications" on a server that sends mail); a guest has none.
export function mailWelcome(m) {
  if (!m.account) S.mail = freshMail();
  else if (S.mail.for !== m.player_id || !S.mail.loaded) loadMail();
}

// The words of a refused change: the server's own message; in another language than English,
// ours for the codes we know.
function mailError(e) {
  const said = e.body?.message;
  const k = `mail.err.${e.code}`;
  if (e.code && hasText(k) && (lang() !== "en" || !said)) return t(k);
  return said ?? e.message;
}

// One change: `body` as POST /api/account/mail takes it; `busy` says which control waits for it.
function changeMail(body, busy) {
  const M = S.mail;
  if (!S.me?.account || M.busy || M.for !== S.me.player_id) return;
  M.busy = busy;
  M.fail = null;
  mailSeq++; // settings on their way are older than this answer
  app.render();
  postMail(body).then((d) => {
    if (M !== S.mail) return;
    M.data = d;
    M.loaded = true;
    M.loading = false; // a load on its way was dropped for this answer
    if (busy === "address") {
      $("pf-mail-input").value = ""; // the address is said above the field now
      toast(t("mail.sent", { address: d.address ?? "" }));
    } else if (busy === "resend") toast(t("mail.sentAgain", { address: d.address ?? "" }));
    else if (busy === "remove") toast(t("mail.removed"));
    else toast(t("mail.saved"));
  }, (e) => {
    if (M !== S.mail) return;
    M.fail = { where: MAIL_PREFS.includes(busy) ? "prefs" : "address", code: e.code, text: mailError(e) };
  }).finally(() => {
    if (M !== S.mail) return;
    M.busy = null;
    if (S.route.view === "profile") app.render();
  });
}

// ------------------------------------------------------------------ the card
export function renderMail() {
  const own = mailOwn();
  const card = $("pf-mail-card");
  card.hidden = !own;
  if (!own) return;
  if (S.mail.for !== S.me.player_id || (!S.mail.loaded && !S.mail.loading && !S.mail.error)) loadMail();
  const M = S.mail;
  const d = M.loaded ? M.data : null;
  $("pf-mail-loading").hidden = !!d || !M.loading;
  $("pf-mail-load-err").hidden = !!d || !M.error;
  $("pf-mail-load-err").textContent = !d && M.error ? t("mail.loadFailed", { reason: M.error }) : "";
  $("pf-mail-off").hidden = !d || d.available;
  $("pf-mail-body").hidden = !d?.available;
  const err = $("pf-mail-err");
  err.textContent = !M.fail ? "" : M.fail.where === "prefs" ? t("mail.failed", { reason: M.fail.text }) : M.fail.text;
  err.hidden = !M.fail;
  const input = $("pf-mail-input");
  if (M.fail?.where === "address" && M.fail.code !== "too_many") input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  if (location.hash === "#mail" && mailShownFor !== S.profile && d) {
    mailShownFor = S.profile;
    setTimeout(() => card.scrollIntoView({ block: "start" }), 0);
  }
  if (!d?.available) return;

  // a change on its way: the controls stay where they are (and keep the focus); others wait
  card.setAttribute("aria-busy", M.busy ? "true" : "false");
  const state = !d.address ? "none" : d.verified ? "verified" : "unverified";
  $("pf-mail-state").dataset.state = state;
  $("pf-mail-address").textContent = d.address ?? t("mail.none");
  const badge = $("pf-mail-badge");
  badge.hidden = state === "none";
  badge.className = `mail-badge ${state}`;
  badge.textContent = state === "none" ? "" : t(`mail.${state}`);
  $("pf-mail-note").textContent = t(`mail.note.${state}`);
  const resend = $("pf-mail-resend");
  resend.hidden = state !== "unverified";
  $("pf-mail-label").textContent = t(d.address ? "mail.newAddress" : "mail.address");
  mailSaveState();
  $("pf-mail-remove").hidden = !d.address;
  $("pf-mail-prefs").disabled = !d.verified;
  for (const k of MAIL_PREFS) {
    const box = $(`pf-mail-${k}`);
    if (M.busy !== k) box.checked = !!d[k]; // as the player set it while that is on its way
  }
  $("pf-mail-prefs-hint").textContent = t(d.verified ? "mail.prefsHint" : d.address ? "mail.prefsUnverified" : "mail.prefsNoAddress");
}

// Save is for an address, other than the one kept.
function mailSaveState() {
  const d = S.mail.data;
  const v = $("pf-mail-input").value.trim();
  $("pf-mail-save").disabled = !v || v === (d?.address ?? "");
}

// ------------------------------------------------------------------ setup
export function setupMail() {
  const input = $("pf-mail-input");
  $("pf-mail-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const address = input.value.trim();
    if (!address || address === (S.mail.data?.address ?? "")) return;
    if (address.length > 254 || !MAIL_SHAPE.test(address)) {
      S.mail.fail = { where: "address", code: "bad_address", text: t("mail.err.bad_address") };
      app.render();
      input.focus();
      return;
    }
    changeMail({ address }, "address");
  });
  input.addEventListener("input", () => {
    mailSaveState();
    if (S.mail.fail?.where === "address" && !S.mail.busy) {
      S.mail.fail = null; // a field's error goes once the player edits it
      renderMail();
    }
  });
  $("pf-mail-remove").addEventListener("click", () => changeMail({ address: null }, "remove"));
  $("pf-mail-resend").addEventListener("click", () => changeMail({ resend: true }, "resend"));
  for (const k of MAIL_PREFS)
    $(`pf-mail-${k}`).addEventListener("change", (ev) => {
      if (S.mail.busy) renderMail(); // back as the server has it: one change at a time
      else changeMail({ [k]: ev.target.checked }, k);
    });
  // Back from the mail's link (another tab): the address may be verified now.
  const recheck = () => {
    const d = S.mail.data;
    if (!document.hidden && S.route.view === "profile" && mailOwn() && d?.address && !d.verified) loadMail();
  };
  document.addEventListener("visibilitychange", recheck);
  window.addEventListener("focus", recheck);
}
