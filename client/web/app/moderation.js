// The moderators' page, /mod (proto/PROTOCOL.md "Reports and moderation"; GET /api/mod/reports,
// POST /api/mod/actions, GET /api/mod/audit with the account's token; the account menu links to
// it for an account whose welcome lists the role "moderator").
// - Reports: the open ones, newest first (or, pressed, the handled ones), each with who reported
//   whom and why, the reporter's words, the game (a link to /g/CODE, which replays it) and its
//   players' chat as the moderators see it (lines hidden by a restriction marked so), the
//   reported account's standing (chat muted until, shadowed, closed, warnings) and how many
//   reports it has had; and the actions on that account: warn (the note is the warning the
//   player reads), mute the chat for an hour, a day or a week, unmute, shadow, unshadow, close
//   (asked first), reopen, dismiss. An action on an open report handles it (the reporter is
//   told); the list is read again after each.
// - Audit log: every action and every role granted or revoked, newest first.
// Anyone else is told the page is for moderators (the server answers them 403 anyway).
import { $, h } from "./dom.js";
import { t, fmtDate, lang, hasText } from "./i18n.js";
import { S, app } from "./state.js";
import { listReports, modAction, listAudit } from "./api.js";
import { toast } from "./account.js";
import { playerLink } from "./ratings.js";
import { REPORT_REASONS } from "./report.js";

export const MUTE_CHOICES = [60, 1440, 10080]; // minutes: an hour, a day, a week
const GAME_CODE = /^[A-Za-z0-9]{1,16}$/;
let modSeq = 0;
let auditSeq = 0;

export const isModerator = () => Array.isArray(S.me?.account?.roles) && S.me.account.roles.includes("moderator");

// S.mod: {for (player id), tab ("reports" | "audit"), status ("open" | "handled"), reports, loading,
// loaded, error, denied, busy (the report id or player name an action is on its way for),
// errors (report id or player name -> the words of its last refused action), notice (what the
// last action did to its report), audit: {list, loading, loaded, error}}
const freshMod = (playerId = null) => ({ for: playerId, tab: "reports", status: "open", reports: [], loading: false, loaded: false,
  error: null, denied: false, busy: null, errors: new Map(), notice: null,
  audit: { list: [], loading: false, loaded: false, error: null } });
S.mod = freshMod();

const nameOf = (p) => (typeof p === "string" ? p : typeof p?.name === "string" ? p.name : typeof p?.username === "string" ? p.username : "");
const epoch = (x) => (typeof x === "number" ? x : typeof x === "string" ? Date.parse(x) : NaN);
const when = (x) => {
  const ms = epoch(x);
  return Number.isFinite(ms) ? fmtDate(new Date(ms).toISOString()) : "";
};

// A duration in words: "1 hour", "3 days", "1 week", "90 minutes".
export function durationText(min) {
  if (!Number.isFinite(min) || min <= 0) return "";
  if (min % 10080 === 0) return t("dur.weeks", { n: min / 10080 });
  if (min % 1440 === 0) return t("dur.days", { n: min / 1440 });
  if (min % 60 === 0) return t("dur.hours", { n: min / 60 });
  return t("dur.minutes", { n: min });
}

// ------------------------------------------------------------------ loading
const mine = (M) => M === S.mod && S.me?.player_id === M.for;

function deniedBy(M, e) {
  if (e.status === 403 || e.status === 401) {
    M.denied = true;
    return true;
  }
  return false;
}

export function loadReports() {
  const M = S.mod;
  if (!isModerator() || M.for !== S.me.player_id) return;
  const seq = ++modSeq;
  M.loading = true;
  const status = M.status;
  listReports(status, 50).then((list) => {
    if (seq !== modSeq || !mine(M)) return;
    M.reports = list.filter((r) => r && typeof r === "object" && Number.isFinite(r.id));
    M.loaded = true;
    M.error = null;
    M.denied = false;
  }, (e) => {
    if (seq !== modSeq || !mine(M)) return;
    if (!deniedBy(M, e)) M.error = t("mod.error", { reason: e.message });
  }).finally(() => {
    if (seq !== modSeq || !mine(M)) return;
    M.loading = false;
    if (S.route.view === "mod") app.render();
  });
}

function loadAudit() {
  const M = S.mod;
  if (!isModerator() || M.for !== S.me.player_id) return;
  const A = M.audit;
  const seq = ++auditSeq;
  A.loading = true;
  listAudit(100).then((list) => {
    if (seq !== auditSeq || !mine(M)) return;
    A.list = list.filter((e) => e && typeof e === "object");
    A.loaded = true;
    A.error = null;
  }, (e) => {
    if (seq !== auditSeq || !mine(M)) return;
    if (!deniedBy(M, e)) A.error = t("mod.error", { reason: e.message });
  }).finally(() => {
    if (seq !== auditSeq || !mine(M)) return;
    A.loading = false;
    if (S.route.view === "mod") app.render();
  });
}

// The page is shown (app.js route), or the player changed (a welcome): its lists as they are now.
export function openMod() {
  if (!S.me) return; // the welcome calls again
  if (S.mod.for !== S.me.player_id) S.mod = freshMod(S.me.player_id);
  if (!isModerator()) return;
  if (S.mod.tab === "audit") loadAudit();
  else loadReports();
}
export function modWelcome() {
  if (S.mod.for !== S.me?.player_id) {
    S.mod = freshMod(S.me?.player_id ?? null);
    closeModConfirm(); // about the previous player's page
  }
  if (S.route.view === "mod") openMod();
}

// ------------------------------------------------------------------ actions
// One action on account `player`: {action, minutes?, note?}; `report`: the report it handles (an
// open one), else null.
function act(player, action, { minutes = null, note = "", report = null } = {}) {
  const M = S.mod;
  if (M.busy) return;
  const body = { player, action };
  if (minutes) body.minutes = minutes;
  if (note) body.note = note;
  if (report) body.report = report;
  const key = report ?? player;
  M.busy = key;
  M.errors.delete(key);
  M.notice = null;
  app.render();
  modAction(body).then(() => {
    if (!mine(M)) return;
    toast(t(`mod.done.${action}`, { name: player, time: durationText(minutes) }));
    // the report leaves the open ones: said where the player looks, with where it went
    if (report) M.notice = t(action === "dismiss" ? "mod.dismissedNote" : "mod.handledNote", { id: report, name: player });
  }, (e) => {
    if (!mine(M)) return;
    if (deniedBy(M, e)) return;
    M.errors.set(key, t("mod.failed", { reason: e.message }));
  }).finally(() => {
    if (!mine(M)) return;
    M.busy = null;
    loadReports();
    if (M.audit.loaded) loadAudit();
    app.render();
  });
}

// Closing an account is asked first (like a block).
function openModConfirm(player, report, note) {
  const dlg = $("mod-confirm");
  dlg.dataset.player = player;
  dlg.dataset.report = report ? String(report) : "";
  dlg.dataset.note = note;
  $("mod-confirm-h").textContent = t("mod.confirmClose", { name: player });
  if (!dlg.open) dlg.showModal();
  setTimeout(() => $("mod-confirm-cancel").focus(), 0); // the safe choice first
}
function closeModConfirm() {
  const dlg = $("mod-confirm");
  if (dlg?.open) dlg.close();
}

// ------------------------------------------------------------------ drawing
const reasonText = (r) => (REPORT_REASONS.includes(r) ? t(`report.reason.${r}`) : String(r ?? ""));

// The reported account's standing as short tags: [{cls, text}].
function standingTags(st) {
  const out = [];
  const until = epoch(st?.chat_muted_until);
  if (Number.isFinite(until) && until > Date.now()) out.push({ cls: "muted", text: t("mod.mutedUntil", { date: when(until) }) });
  if (st?.shadow) out.push({ cls: "shadow", text: t("mod.shadowed") });
  if (st?.closed) out.push({ cls: "closed", text: t("mod.closed") });
  const w = Number(st?.warnings) || 0;
  out.push({ cls: w ? "warned" : "plain", text: t("mod.warnings", { n: w }) });
  return out;
}

function gameLink(code) {
  const a = h("a", { href: `/g/${code}`, class: "mr-game", text: t("mod.game", { code }) });
  a.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate(`/g/${code}`);
  });
  return a;
}

function chatList(r) {
  const lines = Array.isArray(r.chat) ? r.chat : [];
  if (!lines.length) return h("p", { class: "hint mr-chat none", text: r.game ? t("mod.noChat") : t("mod.noGame") });
  const hidden = lines.filter((c) => c?.hidden).length;
  return h("details", { class: "mr-chat", open: true },
    h("summary", { text: hidden ? t("mod.chatHidden", { n: lines.length, hidden }) : t("mod.chat", { n: lines.length }) }),
    h("ol", { class: "mr-lines" }, ...lines.map((c) => h("li", { class: `mr-line${c?.hidden ? " hidden-line" : ""}`, "data-version": c?.version ?? "" },
      h("b", { class: "mr-from", text: `${nameOf(c?.from) || "?"}: ` }),
      h("span", { class: "mr-said", text: String(c?.text ?? "") }),
      c?.hidden ? h("span", { class: "mr-tag", text: t("mod.hiddenLine") }) : null))));
}

// The actions on the report's account (`r.player`), the report handled with them while open.
function actionsOf(r) {
  const M = S.mod;
  const player = nameOf(r.player);
  const open = r.status !== "handled";
  const report = open ? r.id : null;
  const st = r.standing ?? {};
  const until = epoch(st.chat_muted_until);
  const muted = Number.isFinite(until) && until > Date.now();
  const busy = !!M.busy;
  const id = `mr-${r.id}`;
  const note = h("input", { id: `${id}-note`, class: "mr-note", maxlength: 2000, autocomplete: "off", "aria-describedby": `${id}-note-hint` });
  const minutes = h("select", { id: `${id}-minutes`, class: "mr-minutes", "aria-label": t("mod.muteFor") },
    ...MUTE_CHOICES.map((m) => h("option", { value: m, text: t("mod.forDuration", { time: durationText(m) }) })));
  const errorKey = report ?? player;
  const err = M.errors.get(errorKey) ?? "";
  const errorLine = h("p", { class: "field-error mr-error", role: "alert", hidden: !err, text: err });
  const button = (action, cls = "") => h("button", { type: "button", class: `small mr-${action}${cls ? ` ${cls}` : ""}`, "data-action": action,
    text: t(`mod.action.${action}`), disabled: busy, onclick: () => {
      const text = note.value.trim();
      if (action === "warn" && !text) {
        errorLine.textContent = t("mod.noteFirst");
        errorLine.hidden = false;
        note.focus();
        return;
      }
      if (action === "close") return openModConfirm(player, report, text);
      act(player, action, { minutes: action === "mute" ? Number(minutes.value) : null, note: text, report });
    } });
  return h("div", { class: "mr-actions", role: "group", "aria-label": t("mod.actionsFor", { name: player }) },
    h("label", { for: `${id}-note`, class: "mr-label", text: t("mod.note") }), note,
    h("p", { id: `${id}-note-hint`, class: "hint mr-note-hint", text: t("mod.noteHint") }),
    h("div", { class: "row mr-buttons" },
      button("warn"),
      h("span", { class: "mr-mute-group" }, button("mute"), minutes),
      muted ? button("unmute") : null,
      button(st.shadow ? "unshadow" : "shadow"),
      st.closed ? button("reopen") : button("close", "danger"),
      open ? button("dismiss") : null),
    errorLine);
}

function reportItem(r) {
  const player = nameOf(r.player);
  const reporter = nameOf(r.reporter);
  const open = r.status !== "handled";
  const code = typeof r.game === "string" && GAME_CODE.test(r.game) ? r.game.toLowerCase() : null;
  const text = String(r.text ?? "").trim();
  const handled = open ? null : h("p", { class: "mr-handled", text: t(r.outcome === "no_action" ? "mod.handledNone" : "mod.handledAction",
    { name: nameOf(r.handled_by) || "?", date: when(r.handled_at) }) });
  return h("li", { class: `card mod-report ${open ? "open" : "handled"}`, "data-id": r.id, "data-player": player, "data-status": open ? "open" : "handled" },
    h("div", { class: "mr-head" },
      h("h2", { class: "small-h", text: t("mod.reportTitle", { id: r.id, reason: reasonText(r.reason) }) }),
      h("span", { class: `badge ${open ? "playing" : "done"}`, text: t(open ? "mod.statusOpen" : "mod.statusHandled") }),
      h("span", { class: "hint mr-at", text: when(r.at) })),
    h("p", { class: "mr-who" },
      h("span", { class: "mr-k", text: `${t("mod.reported")} ` }), playerLink({ name: player }, { rated: true, cls: "mr-player" }),
      h("span", { class: "mr-k", text: ` · ${t("mod.by")} ` }), playerLink({ name: reporter }, { rated: true, cls: "mr-reporter" }),
      code ? h("span", { class: "mr-k", text: " · " }) : null, code ? gameLink(code) : null),
    h("ul", { class: "mr-standing", "aria-label": t("mod.standingOf", { name: player }) },
      ...standingTags(r.standing).map((x) => h("li", { class: `tag ${x.cls}`, text: x.text })),
      h("li", { class: "tag reports", text: t("mod.reportCount", { n: Number(r.reports) || 0 }) })),
    handled,
    text ? h("blockquote", { class: "mr-text", text }) : h("p", { class: "hint mr-text none", text: t("mod.noText") }),
    chatList(r),
    actionsOf(r));
}

function renderReports() {
  const M = S.mod;
  for (const [id, st] of [["mod-open", "open"], ["mod-handled", "handled"]]) $(id).setAttribute("aria-pressed", M.status === st ? "true" : "false");
  $("mod-loading").hidden = !(M.loading && !M.loaded);
  $("mod-error").hidden = !M.error;
  $("mod-error").textContent = M.error ?? "";
  $("mod-empty").hidden = !M.loaded || M.reports.length > 0;
  $("mod-empty").textContent = t(M.status === "open" ? "mod.emptyOpen" : "mod.emptyHandled");
  $("mod-note").hidden = !M.notice;
  $("mod-note").textContent = M.notice ?? "";
  // redrawn when it changed only: a note being typed and a button with the focus stay meanwhile
  const ul = $("mod-list");
  const sig = `${lang()}|${M.status}|${M.busy ?? ""}|${[...M.errors].join(",")}|${JSON.stringify(M.reports)}`;
  if (ul.dataset.sig === sig) return;
  const focused = ul.contains(document.activeElement) ? document.activeElement : null;
  const keep = focused ? { id: focused.closest("[data-id]")?.dataset.id, action: focused.dataset.action, cls: focused.className } : null;
  ul.dataset.sig = sig;
  ul.replaceChildren(...M.reports.map(reportItem));
  if (keep?.id) {
    const li = ul.querySelector(`li[data-id="${keep.id}"]`);
    (keep.action ? li?.querySelector(`[data-action="${keep.action}"]`) : null)?.focus();
  }
}

// An audit entry's action in words: the moderators' actions, and the operator's roles granted or
// revoked ("grant moderator", "revoke moderator").
function auditAction(action) {
  const role = /^(grant|revoke) (\w+)$/.exec(action);
  if (role) return t(`mod.did.${role[1]}`, { role: hasText(`role.${role[2]}`) ? t(`role.${role[2]}`) : role[2] });
  return hasText(`mod.did.${action}`) ? t(`mod.did.${action}`) : action;
}

function auditRow(e) {
  const mins = Number(e.minutes);
  const action = typeof e.action === "string" ? e.action : "?";
  const what = [auditAction(action),
    Number.isFinite(mins) && mins > 0 ? durationText(mins) : null].filter(Boolean).join(" · ");
  const player = nameOf(e.player);
  return h("tr", { "data-action": action, "data-player": player },
    h("td", { class: "au-at", text: when(e.at) }),
    h("td", { class: "au-mod", text: nameOf(e.moderator) }),
    h("td", { class: "au-action", text: what }),
    h("td", { class: "au-player" }, player ? playerLink({ name: player }, { rated: true }) : ""),
    h("td", { class: "au-report", text: Number.isFinite(e.report) ? `#${e.report}` : "—" }),
    h("td", { class: "au-note", text: String(e.note ?? "") }));
}

function renderAudit() {
  const A = S.mod.audit;
  $("mod-audit-loading").hidden = !(A.loading && !A.loaded);
  $("mod-audit-error").hidden = !A.error;
  $("mod-audit-error").textContent = A.error ?? "";
  $("mod-audit-empty").hidden = !A.loaded || A.list.length > 0;
  $("mod-audit-table").hidden = !A.loaded || !A.list.length;
  const body = $("mod-audit-rows");
  const sig = `${lang()}|${JSON.stringify(A.list)}`;
  if (body.dataset.sig === sig) return;
  body.dataset.sig = sig;
  body.replaceChildren(...A.list.map(auditRow));
}

export function renderMod() {
  const M = S.mod;
  const allowed = isModerator() && !M.denied;
  $("mod-wait").hidden = !!S.me;
  $("mod-denied").hidden = !S.me || allowed;
  $("mod-body").hidden = !S.me || !allowed;
  if (!allowed) return;
  const reports = M.tab === "reports";
  $("mod-tab-reports").setAttribute("aria-selected", reports ? "true" : "false");
  $("mod-tab-audit").setAttribute("aria-selected", reports ? "false" : "true");
  $("mod-tab-reports").classList.toggle("active", reports);
  $("mod-tab-audit").classList.toggle("active", !reports);
  $("mod-tab-reports").tabIndex = reports ? 0 : -1;
  $("mod-tab-audit").tabIndex = reports ? -1 : 0;
  $("mod-reports").hidden = !reports;
  $("mod-audit").hidden = reports;
  if (reports) renderReports();
  else renderAudit();
}

// ------------------------------------------------------------------ setup
function showModTab(tab, focus = false) {
  S.mod.tab = tab;
  if (tab === "audit") loadAudit();
  else loadReports();
  app.render();
  if (focus) $(tab === "audit" ? "mod-tab-audit" : "mod-tab-reports").focus();
}

export function setupMod() {
  $("mod-tab-reports").addEventListener("click", () => showModTab("reports"));
  $("mod-tab-audit").addEventListener("click", () => showModTab("audit"));
  // the tabs' keys: left and right arrows move between them
  for (const id of ["mod-tab-reports", "mod-tab-audit"])
    $(id).addEventListener("keydown", (ev) => {
      if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
      ev.preventDefault();
      showModTab(S.mod.tab === "audit" ? "reports" : "audit", true);
    });
  for (const [id, st] of [["mod-open", "open"], ["mod-handled", "handled"]])
    $(id).addEventListener("click", () => {
      if (S.mod.status === st) return;
      S.mod.status = st;
      S.mod.reports = [];
      S.mod.loaded = false;
      S.mod.errors.clear();
      S.mod.notice = null;
      loadReports();
      app.render();
    });
  $("mod-refresh").addEventListener("click", () => {
    S.mod.notice = null;
    loadReports();
  });
  $("mod-audit-refresh").addEventListener("click", loadAudit);
  const dlg = $("mod-confirm");
  for (const id of ["mod-confirm-close", "mod-confirm-cancel"]) $(id).addEventListener("click", () => dlg.close());
  dlg.addEventListener("click", (ev) => {
    if (ev.target === dlg) dlg.close(); // the backdrop
  });
  $("mod-confirm-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const player = dlg.dataset.player;
    const report = Number(dlg.dataset.report) || null;
    dlg.close();
    if (player) act(player, "close", { note: dlg.dataset.note ?? "", report });
  });
}
