// Vacation for correspondence games (GET and POST /api/vacation with the account's token; issue
// 35), on the account's own page (/@/NAME#vacation), beside its e-mail: whether the account is on
// vacation, the days left this calendar year (one decimal), since when and when it ends by itself
// (the budget spent), and "Start vacation" / "End vacation". While on vacation the player's clock
// stands in every correspondence game where it is their move (the games' "vacation" events say
// so to both players: players.js shows it on the card). A refusal (vacation_spent: no days left)
// is said under the button. A server without a durable store has no vacations (store_unavailable).
import { $ } from "./dom.js";
import { t, lang, hasText, fmtDate } from "./i18n.js";
import { S, app } from "./state.js";
import { getVacation, postVacation } from "./api.js";
import { toast } from "./account.js";

let vacSeq = 0;
let vacShownFor = null; // the page (S.profile) whose card #vacation was scrolled to

// S.vacation: {for (player id), data (the server's answer), at (when it came: Date.now()),
// loading, loaded, error (loading failed: the ApiError), busy (a change on its way), fail (the
// last change refused: the ApiError)}
const freshVacation = (playerId = null) => ({ for: playerId, data: null, at: 0, loading: false, loaded: false, error: null, busy: false, fail: null });
S.vacation = freshVacation();

const vacationOwn = () => !!S.me?.account && S.profile?.data?.username?.toLowerCase() === S.me.account.username.toLowerCase();

// The words of a failure: ours for the codes we know, else the server's.
function vacationError(e) {
  const k = `vacation.err.${e.code}`;
  if (e.code && hasText(k)) return t(k);
  return e.body?.message ?? e.message;
}

// The state as the server has it now (the account's own page asks on every visit).
export function loadVacation() {
  if (!S.me?.account) return;
  if (S.vacation.for !== S.me.player_id) S.vacation = freshVacation(S.me.player_id);
  const V = S.vacation;
  if (V.busy) return;
  const seq = ++vacSeq;
  V.loading = true;
  getVacation().then((d) => {
    if (seq !== vacSeq || V !== S.vacation) return;
    V.data = d;
    V.at = Date.now();
    V.loaded = true;
    V.error = null;
  }, (e) => {
    if (seq === vacSeq && V === S.vacation) V.error = e;
  }).finally(() => {
    if (seq !== vacSeq || V !== S.vacation) return;
    V.loading = false;
    if (S.route.view === "profile") app.render();
  });
}

function changeVacation(on) {
  const V = S.vacation;
  if (!S.me?.account || V.busy || V.for !== S.me.player_id) return;
  V.busy = true;
  V.fail = null;
  vacSeq++; // a load on its way is older than this answer
  app.render();
  postVacation({ on }).then((d) => {
    if (V !== S.vacation) return;
    V.data = d;
    V.at = Date.now();
    V.loaded = true;
    V.loading = false;
    V.error = null;
    toast(t(d.on ? "vacation.started" : "vacation.ended"));
  }, (e) => {
    if (V !== S.vacation) return;
    V.fail = e;
    // the server's word on the days left (vacation_spent): as it has them now
    if (e.code === "vacation_spent") setTimeout(loadVacation, 0);
  }).finally(() => {
    if (V !== S.vacation) return;
    V.busy = false;
    if (S.route.view === "profile") app.render();
  });
}

// 12.5 → "12.5" ("12,5" in French): days with one decimal.
const days = (n) => (Math.max(0, n) || 0).toLocaleString(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });

// The days used and left as the server counted them when it answered (its "days" may be shorter
// than ours: --correspondence-day-seconds; the page asks again on every visit).
const daysOf = (d) => ({ left: Math.max(0, Number(d.left_days) || 0), used: Math.max(0, Number(d.used_days) || 0) });

// ------------------------------------------------------------------ the card
export function renderVacation() {
  const own = vacationOwn();
  const card = $("pf-vac-card");
  card.hidden = !own;
  if (!own) return;
  if (S.vacation.for !== S.me.player_id || (!S.vacation.loaded && !S.vacation.loading && !S.vacation.error)) loadVacation();
  const V = S.vacation;
  const d = V.loaded ? V.data : null;
  $("pf-vac-loading").hidden = !!d || !V.loading;
  const loadErr = $("pf-vac-load-err");
  loadErr.hidden = !!d || !V.error;
  loadErr.textContent = !d && V.error ? (V.error.code === "store_unavailable" ? vacationError(V.error) : t("vacation.loadFailed", { reason: vacationError(V.error) })) : "";
  $("pf-vac-body").hidden = !d;
  if (location.hash === "#vacation" && vacShownFor !== S.profile && d) {
    vacShownFor = S.profile;
    setTimeout(() => card.scrollIntoView({ block: "start" }), 0);
  }
  if (!d) return;

  card.setAttribute("aria-busy", V.busy ? "true" : "false");
  const { left, used } = daysOf(d);
  const state = $("pf-vac-state");
  state.dataset.on = d.on ? "true" : "false";
  $("pf-vac-status").textContent = t(d.on ? "vacation.on" : "vacation.off");
  const badge = $("pf-vac-badge");
  badge.hidden = !d.on;
  badge.textContent = d.on ? t("vacation.badge") : "";
  $("pf-vac-left").textContent = t("vacation.left", { n: left, u: used, left: days(left), budget: days(Number(d.budget_days) || 0), used: days(used) });
  const since = $("pf-vac-since");
  since.hidden = !d.on;
  since.textContent = !d.on ? ""
    : d.ends_at ? t("vacation.sinceEnds", { since: fmtDate(d.since ? new Date(d.since) : null) || "—", ends: fmtDate(new Date(d.ends_at)) })
      : t("vacation.since", { since: fmtDate(d.since ? new Date(d.since) : null) || "—" });
  const spent = !d.on && left <= 0;
  $("pf-vac-note").textContent = t(spent ? "vacation.note.spent" : d.on ? "vacation.note.on" : "vacation.note.off");
  const btn = $("pf-vac-toggle");
  btn.textContent = t(d.on ? "vacation.end" : "vacation.start");
  btn.className = d.on ? "small" : "primary small";
  btn.dataset.on = d.on ? "true" : "false";
  btn.disabled = V.busy;
  const err = $("pf-vac-err");
  err.hidden = !V.fail;
  err.textContent = V.fail ? vacationError(V.fail) : ""; // in the page's language now
}

// ------------------------------------------------------------------ setup
export function setupVacation() {
  $("pf-vac-toggle").addEventListener("click", () => {
    const d = S.vacation.data;
    if (d) changeVacation(!d.on);
  });
}
