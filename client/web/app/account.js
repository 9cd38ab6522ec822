// Accounts in the page (protocol: register, login, logout, change_password; each answered by a
// `welcome` with the request's ref or an `error` with it): the header's control ("Sign in" for a
// guest; the username with a menu for an account: profile, blocked and muted players (on the
// profile page: relations.js), e-mail where the server sends it (mail.js), the moderators' page
// for a moderator (moderation.js), change password, sign out, sign out everywhere), the sign-in
// dialog with its register and sign-in forms, the change-password dialog, and their errors in
// words next to the field they are about.
//
// The token: every welcome's token replaces the stored one (net.js), so after a login the page
// keeps the account's new token, and after a logout the new guest's. Registering keeps the
// guest's player (and so its games): the server answers with the same token.
import { $, flash } from "./dom.js";
import { t } from "./i18n.js";
import { S, app } from "./state.js";
import { profileUrl } from "./ratings.js";

// The request in flight: {ref, kind: "login" | "register" | "logout" | "logout_all" | "password"}.
let pending = null;
let seq = 0;

const NAME_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const chars = (s) => [...s].length;

export const isSignedIn = () => !!S.me?.account;

// ------------------------------------------------------------------ the header's control
export function renderAccount() {
  const acct = S.me?.account ?? null;
  $("signin-btn").hidden = !!acct || !S.me;
  $("account-box").hidden = !acct;
  if (acct) {
    $("account-name").textContent = acct.username;
    $("menu-profile").href = profileUrl(acct.username);
    $("menu-blocked").href = `${profileUrl(acct.username)}#blocked`;
    $("menu-mail").href = `${profileUrl(acct.username)}#mail`;
    // on a server that sends mail (mail.js asks it at the welcome)
    $("menu-mail").hidden = !(S.mail?.for === S.me.player_id && S.mail.data?.available);
    // welcome.account.roles: the moderators' page is in the menu of a moderator
    $("menu-mod").hidden = !(Array.isArray(acct.roles) && acct.roles.includes("moderator"));
  } else closeMenu();
}

function openMenu() {
  $("account-menu").hidden = false;
  $("account-btn").setAttribute("aria-expanded", "true");
  $("account-menu").querySelector("[role=menuitem]")?.focus();
}
function closeMenu(focusButton = false) {
  if ($("account-menu").hidden) return;
  $("account-menu").hidden = true;
  $("account-btn").setAttribute("aria-expanded", "false");
  if (focusButton) $("account-btn").focus();
}

export function toast(text) {
  flash($("toast"), text, 4000);
}

// ------------------------------------------------------------------ the dialogs
function fieldError(id, text) {
  const e = $(`${id}-err`);
  e.textContent = text ?? "";
  e.hidden = !text;
  const hint = $(`${id}-hint`); // the error says it better
  if (hint) hint.hidden = !!text;
  const input = $(id);
  if (input) {
    if (text) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

const FIELDS = {
  login: ["login-user", "login-pass", "login"],
  register: ["reg-user", "reg-pass", "register"],
  password: ["pw-old", "pw-new", "pw"],
};
function clearErrors(form) {
  for (const id of FIELDS[form]) fieldError(id, "");
}

function showTab(which) {
  const login = which === "login";
  $("login-form").hidden = !login;
  $("register-form").hidden = login;
  $("tab-login").setAttribute("aria-selected", login ? "true" : "false");
  $("tab-register").setAttribute("aria-selected", login ? "false" : "true");
  $("tab-login").classList.toggle("active", login);
  $("tab-register").classList.toggle("active", !login);
  $("acct-h").textContent = login ? t("acct.signInTitle") : t("acct.registerTitle");
  clearErrors("login");
  clearErrors("register");
  setTimeout(() => $(login ? "login-user" : "reg-user").focus(), 0);
}

export function openSignIn(tab = "login") {
  const d = $("account-dialog");
  if (!d.open) d.showModal();
  showTab(tab);
}

function openPassword() {
  for (const id of ["pw-old", "pw-new"]) $(id).value = "";
  $("pw-user").value = S.me?.account?.username ?? ""; // for password managers
  clearErrors("password");
  $("password-dialog").showModal();
  setTimeout(() => $("pw-old").focus(), 0);
}

function setBusy(kind, busy) {
  const ids = { login: "login-submit", register: "reg-submit", password: "pw-submit" };
  if (ids[kind]) $(ids[kind]).disabled = busy;
}

function request(kind, msg) {
  if (pending) return;
  pending = { ref: `acct-${++seq}-${Date.now().toString(36)}`, kind };
  setBusy(kind, true);
  app.conn.send({ ...msg, ref: pending.ref });
}

// Checks what the server would refuse anyway, so the player learns it without a round trip.
function checkUsername(id, value) {
  if (!value) return fieldError(id, t("acct.err.usernameEmpty")), false;
  if (chars(value) < 3 || chars(value) > 20 || !NAME_SHAPE.test(value)) return fieldError(id, t("acct.err.bad_username")), false;
  return true;
}
function checkNewPassword(id, value) {
  if (chars(value) < 8 || chars(value) > 128) return fieldError(id, t("acct.err.weak_password")), false;
  return true;
}

// ------------------------------------------------------------------ answers
// A welcome: the answer to the pending request when its ref says so. Returns the request's kind
// (or null when the welcome answers none of them).
export function accountWelcome(m, prev = null) {
  if (!pending || m.ref !== pending.ref) {
    // signed out by another device (sign out everywhere, a new password: bad_token) or by a
    // moderator who closed the account (account_closed): the token is void
    const why = app.conn?.signedOut ?? "";
    if (app.conn) app.conn.signedOut = null;
    if (prev?.account && !m.account && !m.ref) toast(t(why === "account_closed" ? "acct.closedNow" : "acct.signedOutElsewhere"));
    return null;
  }
  const { kind } = pending;
  pending = null;
  setBusy(kind, false);
  if (kind === "login" || kind === "register") {
    $("account-dialog").close();
    for (const id of ["login-pass", "reg-pass"]) $(id).value = "";
    toast(t(kind === "login" ? "acct.welcomeBack" : "acct.registered", { name: m.account?.username ?? m.name }));
  } else if (kind === "password") {
    $("password-dialog").close();
    toast(t("acct.passwordChanged"));
  } else {
    toast(t(kind === "logout_all" ? "acct.signedOutAll" : "acct.signedOut"));
  }
  return kind;
}

// The server's words for an account error, in the player's language.
function errorWords(m) {
  if (m.code === "too_many_attempts") {
    const min = Number(/(\d+)\s*minute/.exec(m.message ?? "")?.[1]);
    return min ? t("acct.err.tooManyMinutes", { n: min }) : t("acct.err.too_many_attempts");
  }
  const k = `acct.err.${m.code}`;
  const w = t(k);
  return w === k ? (m.message ?? m.code) : w;
}

// An error answering the pending request: shown next to its field. True when it was one.
export function accountError(m) {
  if (!pending || !m.ref || m.ref !== pending.ref) return false;
  const { kind } = pending;
  pending = null;
  setBusy(kind, false);
  const words = errorWords(m);
  if (kind === "login") {
    if (m.code === "bad_username") fieldError("login-user", words);
    else fieldError("login", words);
  } else if (kind === "register") {
    if (m.code === "bad_username" || m.code === "username_taken") {
      // a name of the right shape that the server refuses is a reserved one
      const reserved = m.code === "bad_username" && NAME_SHAPE.test($("reg-user").value) && chars($("reg-user").value) >= 3;
      fieldError("reg-user", reserved ? t("acct.err.reserved") : words);
    } else if (m.code === "weak_password") fieldError("reg-pass", words);
    else fieldError("register", words);
  } else if (kind === "password") {
    if (m.code === "bad_credentials") fieldError("pw-old", t("acct.err.wrongCurrent"));
    else if (m.code === "weak_password") fieldError("pw-new", words);
    else fieldError("pw", words);
  } else {
    toast(t("acct.err.signOut", { reason: words }));
  }
  return true;
}

// The connection dropped with a request in flight: its answer is lost; the player may try again.
export function accountConnectionLost() {
  if (!pending) return;
  const { kind, ref } = pending;
  pending = null;
  setBusy(kind, false);
  if (app.conn) app.conn.queue = app.conn.queue.filter((q) => q.ref !== ref); // not sent after all
  const where = { login: "login", register: "register", password: "pw" }[kind];
  if (where) fieldError(where, t("acct.err.connection"));
  else toast(t("acct.err.connection"));
}

// ------------------------------------------------------------------ setup
export function setupAccount() {
  $("signin-btn").addEventListener("click", () => openSignIn("login"));
  $("account-btn").addEventListener("click", (ev) => {
    ev.stopPropagation();
    if ($("account-menu").hidden) openMenu();
    else closeMenu();
  });
  document.addEventListener("click", (ev) => {
    if (!ev.target.closest?.("#account-box")) closeMenu();
  });
  $("account-menu").addEventListener("keydown", (ev) => {
    const items = [...$("account-menu").querySelectorAll("[role=menuitem]")].filter((e) => !e.hidden);
    const i = items.indexOf(document.activeElement);
    if (ev.key === "Escape") {
      ev.preventDefault();
      closeMenu(true);
    } else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      items[(i + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length].focus();
    } else if (ev.key === "Tab") closeMenu();
  });
  $("menu-profile").addEventListener("click", (ev) => {
    ev.preventDefault();
    closeMenu();
    if (S.me?.account) app.navigate(profileUrl(S.me.account.username));
  });
  $("menu-blocked").addEventListener("click", (ev) => {
    ev.preventDefault();
    closeMenu();
    if (S.me?.account) app.navigate(`${profileUrl(S.me.account.username)}#blocked`);
  });
  $("menu-mail").addEventListener("click", (ev) => {
    ev.preventDefault();
    closeMenu();
    if (S.me?.account) app.navigate(`${profileUrl(S.me.account.username)}#mail`);
  });
  $("menu-mod").addEventListener("click", (ev) => {
    ev.preventDefault();
    closeMenu();
    app.navigate("/mod");
  });
  $("menu-password").addEventListener("click", () => {
    closeMenu();
    openPassword();
  });
  $("menu-signout").addEventListener("click", () => {
    closeMenu();
    request("logout", { type: "logout", everywhere: false });
  });
  $("menu-signout-all").addEventListener("click", () => {
    closeMenu();
    request("logout_all", { type: "logout", everywhere: true });
  });

  $("tab-login").addEventListener("click", () => showTab("login"));
  $("tab-register").addEventListener("click", () => showTab("register"));
  $("to-register").addEventListener("click", () => showTab("register"));
  $("to-login").addEventListener("click", () => showTab("login"));
  for (const id of ["acct-close", "pw-close", "pw-cancel"])
    $(id).addEventListener("click", () => $(id).closest("dialog").close());
  // a click on the backdrop (outside the dialog's box) closes it
  for (const id of ["account-dialog", "password-dialog"])
    $(id).addEventListener("click", (ev) => {
      if (ev.target === $(id)) $(id).close();
    });

  $("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    clearErrors("login");
    const username = $("login-user").value.trim();
    const password = $("login-pass").value;
    if (!username) return fieldError("login-user", t("acct.err.usernameEmpty"));
    if (!password) return fieldError("login-pass", t("acct.err.passwordEmpty"));
    request("login", { type: "login", username, password });
  });
  $("register-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    clearErrors("register");
    const username = $("reg-user").value.trim();
    const password = $("reg-pass").value;
    const ok = checkUsername("reg-user", username) & checkNewPassword("reg-pass", password);
    if (ok) request("register", { type: "register", username, password });
  });
  $("password-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    clearErrors("password");
    const password = $("pw-old").value;
    const new_password = $("pw-new").value;
    if (!password) return fieldError("pw-old", t("acct.err.passwordEmpty"));
    if (checkNewPassword("pw-new", new_password)) request("password", { type: "change_password", password, new_password });
  });
  // A field's error goes once the player edits it.
  for (const id of ["login-user", "login-pass", "reg-user", "reg-pass", "pw-old", "pw-new"])
    $(id).addEventListener("input", () => fieldError(id, ""));
}
