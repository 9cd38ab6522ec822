// Reporting an account to the moderators (proto/PROTOCOL.md "Reports and moderation"; POST
// /api/reports with the account's token). One dialog, opened from the Report button of another
// account's page (profile.js), from the opponent's Report button on a game page and from the
// flag beside a chat line's author (gamescreen.js): the reason (cheating, abuse in chat,
// stalling, sandbagging, other), what happened in the reporter's words (2,000 characters at
// most) and, from a game's page, that game (attached unless unticked: the moderators then read
// its chat and replay it). The answer names the report ("Thank you, report #12 sent"); the
// reporter is told later when it is handled (notices.js: report_handled). Accounts only: a guest
// is shown no Report button.
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";
import { postReport } from "./api.js";

export const REPORT_REASONS = ["cheating", "abuse", "stalling", "sandbagging", "other"];
const TEXT_MAX = 2000;
const textLength = (s) => [...s].length;
let reportSeq = 0; // the report in flight (a late answer to an older one is dropped)

// Whether the page's player may report account `name` (an account, not itself).
export const canReport = (name) => !!S.me?.account && !!name && String(name).toLowerCase() !== S.me.account.username.toLowerCase();

function reportFormError(text) {
  $("report-err").textContent = text ?? "";
  $("report-err").hidden = !text;
}
function reasonError(text) {
  $("report-reason-err").textContent = text ?? "";
  $("report-reason-err").hidden = !text;
  if (text) $("report-reason").setAttribute("aria-invalid", "true");
  else $("report-reason").removeAttribute("aria-invalid");
}

function renderReportCount() {
  const n = textLength($("report-text").value);
  const c = $("report-count");
  c.textContent = t("report.count", { n, max: TEXT_MAX });
  c.classList.toggle("over", n > TEXT_MAX);
}

// Opens the dialog about account `name`; `game`: the code of the game it is about (null: none);
// `reason`: the one chosen already (a chat line's flag: abuse), else the player chooses.
export function openReport(name, game = null, reason = null) {
  if (!canReport(name)) return;
  const d = $("report-dialog");
  reportSeq++; // an answer still on its way is about the previous report
  d.dataset.name = name;
  d.dataset.game = game ?? "";
  $("report-h").textContent = t("report.title", { name });
  $("report-form").hidden = false;
  $("report-done").hidden = true;
  $("report-reason").value = REPORT_REASONS.includes(reason) ? reason : "";
  $("report-text").value = "";
  $("report-game-field").hidden = !game;
  $("report-game").checked = !!game;
  $("report-game-text").textContent = game ? t("report.aboutGame", { code: game }) : "";
  $("report-send").disabled = false;
  reportFormError("");
  reasonError("");
  renderReportCount();
  if (!d.open) d.showModal();
  setTimeout(() => $(reason ? "report-text" : "report-reason").focus(), 0);
}

// The words of a refused report.
function reportRefusal(e, name, game) {
  if (e.code === "too_many") return t("report.err.too_many");
  if (e.code === "unknown_player") return t("report.err.unknown_player", { name });
  if (e.code === "no_such_game") return t("report.err.no_such_game", { code: game });
  if (e.code === "account_required" || e.code === "unauthorized") return t("report.err.account_required");
  return t("report.failed", { reason: e.message });
}

function sendReport() {
  const d = $("report-dialog");
  const name = d.dataset.name;
  const reason = $("report-reason").value;
  const text = $("report-text").value.trim();
  reportFormError("");
  reasonError("");
  if (!REPORT_REASONS.includes(reason)) {
    reasonError(t("report.err.reason"));
    $("report-reason").focus();
    return;
  }
  if (textLength(text) > TEXT_MAX) {
    reportFormError(t("report.err.long", { max: TEXT_MAX }));
    $("report-text").focus();
    return;
  }
  const body = { player: name, reason, text };
  const game = d.dataset.game && $("report-game").checked ? d.dataset.game : null;
  if (game) body.game = game;
  const seq = ++reportSeq;
  $("report-send").disabled = true;
  postReport(body).then((r) => {
    if (seq !== reportSeq) return;
    $("report-form").hidden = true;
    $("report-done").hidden = false;
    $("report-done-text").textContent = t("report.sent", { id: r.id });
    setTimeout(() => $("report-ok").focus(), 0);
  }, (e) => {
    if (seq !== reportSeq) return;
    reportFormError(reportRefusal(e, name, game));
  }).finally(() => {
    if (seq === reportSeq) $("report-send").disabled = false;
  });
}

export function setupReport() {
  const d = $("report-dialog");
  const close = () => {
    reportSeq++;
    d.close();
  };
  for (const id of ["report-close", "report-cancel", "report-ok"]) $(id).addEventListener("click", close);
  d.addEventListener("click", (ev) => {
    if (ev.target === d) close(); // the backdrop
  });
  $("report-text").addEventListener("input", renderReportCount);
  $("report-reason").addEventListener("change", () => reasonError(""));
  $("report-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sendReport();
  });
  $("pf-report").addEventListener("click", () => S.profile?.data && openReport(S.profile.data.username));
}

// The player page's Report button: an account, on another account's page.
export function renderReportButton(profile) {
  $("pf-report").hidden = !canReport(profile?.username);
}
