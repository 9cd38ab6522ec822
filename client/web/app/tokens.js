// Access tokens for programs (GET and POST /api/account/tokens, POST /api/account/tokens/revoke
// with the account's session token), on the account's own page: the tokens it made (their
// names, scopes, when made and last used; each with Revoke), and a form to make one with a name
// and its scopes (read: the streams; play: a game's moves; challenge: challenges). A new token
// is shown once, selected to be copied: the server keeps only its hash.
import { $ } from "./dom.js";
import { t, lang, hasText } from "./i18n.js";
import { S, app } from "./state.js";
import { getTokens, makeToken, revokeToken } from "./api.js";
import { toast } from "./account.js";

const TOKEN_SCOPES = ["read", "play", "challenge"];
let tokenSeq = 0;

// S.tokens: {for (player id), list, loading, error, busy, fail, fresh (the token just made)}
const freshTokens = (playerId = null) => ({ for: playerId, list: null, loading: false, error: null, busy: false, fail: null, fresh: null });
S.tokens = freshTokens();

const tokensOwn = () => !!S.me?.account && S.profile?.data?.username?.toLowerCase() === S.me.account.username.toLowerCase();

function loadTokens() {
  if (!S.me?.account) return;
  if (S.tokens.for !== S.me.player_id) S.tokens = freshTokens(S.me.player_id);
  const T = S.tokens;
  const n = ++tokenSeq;
  T.loading = true;
  getTokens().then((d) => {
    if (n !== tokenSeq || T !== S.tokens) return;
    T.list = d.tokens;
    T.error = null;
  }, (e) => {
    if (n === tokenSeq && T === S.tokens) T.error = e.message;
  }).finally(() => {
    if (n !== tokenSeq || T !== S.tokens) return;
    T.loading = false;
    if (S.route.view === "profile") app.render();
  });
}

const tokenWords = (e) => {
  const k = `tokens.err.${e.code}`;
  return e.code && hasText(k) && (lang() !== "en" || !e.body?.message) ? t(k) : e.body?.message ?? e.message;
};

const tokenDay = (iso) => {
  const dt = new Date(iso);
  return Number.isNaN(dt.getTime()) ? "" : dt.toLocaleDateString(lang(), { dateStyle: "medium" });
};

export function renderTokens() {
  const card = $("pf-tok-card");
  card.hidden = !tokensOwn();
  if (card.hidden) return;
  const T = S.tokens;
  if (T.for !== S.me.player_id || (!T.list && !T.loading && !T.error)) loadTokens();
  card.setAttribute("aria-busy", T.busy ? "true" : "false");
  $("pf-tok-load-err").hidden = !T.error;
  $("pf-tok-load-err").textContent = T.error ? t("tokens.loadFailed", { reason: T.error }) : "";
  $("pf-tok-empty").hidden = !T.list || T.list.length > 0;
  $("pf-tok-list").replaceChildren(...(T.list ?? []).map((tok) => {
    const li = document.createElement("li");
    li.dataset.id = tok.id;
    const name = document.createElement("span");
    name.className = "tok-name";
    name.textContent = tok.label;
    const scopes = document.createElement("span");
    scopes.className = "tok-rights";
    scopes.textContent = tok.scopes.map((s) => t(`tokens.scope.${s}.short`)).join(" · ");
    const dates = document.createElement("span");
    dates.className = "tok-dates";
    dates.textContent = t("tokens.dates", { made: tokenDay(tok.created), used: tok.last_used ? tokenDay(tok.last_used) : t("tokens.never") });
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "danger small";
    revoke.textContent = t("tokens.revoke");
    revoke.setAttribute("aria-label", t("tokens.revokeNamed", { name: tok.label }));
    revoke.disabled = T.busy;
    revoke.addEventListener("click", () => revokeOne(tok));
    li.append(name, scopes, dates, revoke);
    return li;
  }));
  const err = $("pf-tok-err");
  err.hidden = !T.fail;
  err.textContent = T.fail ?? "";
  $("pf-tok-create").disabled = T.busy;
  $("pf-tok-new").hidden = !T.fresh;
  $("pf-tok-value").value = T.fresh ?? "";
}

function revokeOne(tok) {
  const T = S.tokens;
  if (T.busy) return;
  T.busy = true;
  T.fail = null;
  app.render();
  revokeToken(tok.id).then(() => {
    toast(t("tokens.revoked", { name: tok.label }));
    if (T.list) T.list = T.list.filter((x) => x.id !== tok.id);
  }, (e) => { T.fail = tokenWords(e); }).finally(() => {
    T.busy = false;
    if (S.route.view === "profile") app.render();
  });
}

export function setupTokens() {
  $("pf-tok-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const T = S.tokens;
    if (T.busy) return;
    const label = $("pf-tok-label").value.trim();
    const scopes = TOKEN_SCOPES.filter((s) => $(`pf-tok-${s}`).checked);
    if (!label || !scopes.length) {
      T.fail = t(!label ? "tokens.needLabel" : "tokens.needScope");
      app.render();
      (!label ? $("pf-tok-label") : $("pf-tok-read")).focus();
      return;
    }
    T.busy = true;
    T.fail = null;
    T.fresh = null;
    app.render();
    makeToken(label, scopes).then((d) => {
      T.fresh = d.token;
      $("pf-tok-label").value = "";
      const shown = { ...d };
      delete shown.token; // kept in T.fresh only, shown in its own field
      T.list = [shown, ...(T.list ?? [])];
      toast(t("tokens.made", { name: d.label }));
    }, (e) => { T.fail = tokenWords(e); }).finally(() => {
      T.busy = false;
      if (S.route.view === "profile") app.render();
      if (T.fresh) {
        const v = $("pf-tok-value");
        v.focus();
        v.select();
      }
    });
  });
  $("pf-tok-value").addEventListener("focus", (ev) => ev.target.select());
}
