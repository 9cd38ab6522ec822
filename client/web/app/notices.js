// An account's notifications (proto/PROTOCOL.md "Notifications"): the bell in the top bar with the
// number of unread ones, and its list (GET /api/notifications with the account's token, loaded
// after each welcome): a line per notification, each a link to its game that marks it read
// (POST /api/notifications/read), and "Mark all read". The server pushes new ones live
// (`{"type":"notification"}`): the count goes up, and a challenge shows at once, wherever the
// player is in the app, in a toast with Accept, Decline and Open; the challenger's "accepted" and
// "declined" show there too when the page is not the game's, and so does a followed account
// starting a game ("NAME started a game", with Watch: relations.js). A moderator's warning
// (kind warning, with its note) shows in the toast until closed, and a report of the player's
// that was handled (kind report_handled: report, player, outcome) for a while. A game of the
// player's that ended while it had no connection to it (kind game_over: game, result, opponent)
// says "Your game against NAME is over: you won" (the side is the game's, asked of the history
// API once). In a correspondence game, the player's move while it had no connection watching the
// game (kind your_turn: game, opponent, move_by) says "Your turn against NAME" and the deadline;
// it, game_over and challenge_accepted refresh the player's games being played (playing.js). A
// game a tournament paired (kind tournament_game: game, side, opponent, tournament, round) says
// "Your game against NAME in TOURNAMENT is ready", with Open.
// Guests have no bell.
//
// On this device: while the page is hidden, a notification that arrives live is shown by the
// system too (the service worker's showNotification; a click opens its game: sw.js), once the
// player allowed it with the panel's "Notify me on this device" (never asked unprompted).
import { $, h, SideName } from "./dom.js";
import { t, fmtDate, lang } from "./i18n.js";
import { S, app } from "./state.js";
import { listNotifications, markNotificationsRead, getGame } from "./api.js";
import { svgEl } from "./board.js";
import { toast } from "./account.js";
import { challengeSettings, declineWords, acceptChallenge, declineChallenge } from "./challenge.js";
import { followedStarted } from "./relations.js";
import { reloadPlayingSoon } from "./playing.js";

const NOTE_KINDS = ["challenge", "challenge_accepted", "challenge_declined", "followed_game", "game_over", "your_turn", "tournament_game"];
const PLAYING_KINDS = ["your_turn", "game_over", "challenge_accepted", "tournament_game"]; // news about the games being played
const GAMELESS_KINDS = ["warning", "report_handled"]; // about no game: shown on any page
const NOTE_CODE = /^[A-Za-z0-9]{1,16}$/;
let notesSeq = 0;
let toastNote = null; // the notification in the toast
let noteToastTimer = null;

const freshNotes = (playerId = null) => ({ for: playerId, unread: 0, list: [], loading: false, loaded: false, error: null });
S.notes = freshNotes();

// ------------------------------------------------------------------ the list
// What the server sends, kept when it can be shown: {id, kind, at, read, game, ...}.
function readNote(n) {
  if (!n || typeof n !== "object" || !Number.isFinite(n.id) || typeof n.kind !== "string") return null;
  return { ...n, read: !!n.read, game: typeof n.game === "string" && NOTE_CODE.test(n.game) ? n.game.toLowerCase() : null };
}

export function loadNotes() {
  const N = S.notes;
  if (!S.me?.account) return;
  const seq = ++notesSeq;
  N.loading = true;
  renderNotes();
  listNotifications(30).then((d) => {
    if (seq !== notesSeq || N !== S.notes) return;
    const got = d.notifications.map(readNote).filter(Boolean);
    const ids = new Set(got.map((n) => n.id));
    const top = got.length ? got[0].id : -Infinity;
    // live ones that came while the list was on its way
    const extra = N.list.filter((n) => !ids.has(n.id) && n.id > top);
    N.list = [...extra, ...got];
    N.unread = d.unread + extra.filter((n) => !n.read).length;
    N.error = null;
    N.loaded = true;
  }, (e) => {
    if (seq === notesSeq && N === S.notes) N.error = t("notes.error", { reason: e.message });
  }).finally(() => {
    if (seq !== notesSeq || N !== S.notes) return;
    N.loading = false;
    app.render(); // the page too: a game page may say what a notification tells (challenge.js)
  });
}

// A welcome: an account's list is loaded (again: live ones may have been missed while the
// connection was down); a guest has none.
export function notesWelcome(m) {
  if (!m.account) {
    S.notes = freshNotes();
    closeBell();
    hideNoteToast();
    return renderNotes();
  }
  if (S.notes.for !== m.player_id) {
    S.notes = freshNotes(m.player_id);
    closeBell();
    hideNoteToast();
  }
  loadNotes();
}

// Marks `ids` (or "all") read, at once on the page, then on the server, whose count is the truth.
function markNotesRead(ids) {
  const N = S.notes;
  const which = ids === "all" ? N.list.filter((n) => !n.read) : N.list.filter((n) => ids.includes(n.id) && !n.read);
  for (const n of which) n.read = true;
  N.unread = ids === "all" ? 0 : Math.max(0, N.unread - which.length);
  renderNotes();
  if (ids !== "all" && !ids.length) return;
  markNotificationsRead(ids).then((d) => {
    if (N === S.notes && Number.isFinite(d?.unread)) N.unread = d.unread;
  }, (e) => {
    if (N === S.notes) N.error = t("notes.error", { reason: e.message });
  }).finally(() => {
    if (N === S.notes) renderNotes();
  });
}

// The player's side in game_over notes' games: code → "silver" | "bronze" | null (not seated, or
// the game not found), asked of the history API once per code (undefined while on its way).
const noteSides = new Map();
function noteSide(n) {
  const code = n.game;
  if (!code) return null;
  if (noteSides.has(code)) return noteSides.get(code);
  noteSides.set(code, undefined);
  getGame(code).then((d) => {
    const me = S.me?.player_id;
    const opp = n.opponent;
    const p = d?.players ?? {};
    const isOpp = (x) => !!(x && opp && ((opp.id && x.id === opp.id) || (opp.name && x.name === opp.name)));
    const side = ["silver", "bronze"].find((s) => (me && p[s]?.id === me) || isOpp(p[s === "silver" ? "bronze" : "silver"]));
    noteSides.set(code, side ?? null);
  }, () => noteSides.set(code, null)).finally(() => {
    $("bell-list").dataset.sig = ""; // redrawn with the words now known
    if (toastNote?.game === code) $("note-toast-text").textContent = noteWords(toastNote).text;
    renderNotes();
  });
  return undefined;
}

// A game_over notification's result: "you won", "you lost", "you drew" (or "Silver won" while the
// side is not known).
function gameOverWords(n) {
  const r = n.result && typeof n.result === "object" ? n.result : {};
  let result;
  if (r.winner === "draw") result = t("notes.drew");
  else if (r.winner === "silver" || r.winner === "bronze") {
    const side = noteSide(n);
    result = side ? t(side === r.winner ? "notes.won" : "notes.lost") : t("notes.sideWon", { side: SideName(r.winner) });
  } else result = t("result.noResult");
  const name = n.opponent && typeof n.opponent.name === "string" ? n.opponent.name : null;
  const sc = r.score;
  return {
    text: name ? t("notes.gameOver", { name, result }) : t("notes.gameOverAlone", { result }),
    detail: sc && Number.isFinite(sc.silver) && Number.isFinite(sc.bronze) ? t("result.score", { silver: sc.silver, bronze: sc.bronze }) : "",
  };
}

// A notification in words: {text, detail}.
function noteWords(n) {
  const who = (p) => String(p?.name ?? "?");
  if (n.kind === "challenge") return { text: t("notes.challenge", { name: who(n.from) }), detail: challengeSettings(n) };
  if (n.kind === "challenge_accepted") return { text: t("notes.accepted", { name: who(n.by) }), detail: "" };
  if (n.kind === "challenge_declined") return { text: t("notes.declined", { name: who(n.by) }), detail: declineWords(n.reason) };
  if (n.kind === "followed_game") return { text: t("notes.followed", { name: who(n.player) }), detail: "" };
  if (n.kind === "game_over") return gameOverWords(n);
  if (n.kind === "your_turn") {
    const name = n.opponent && typeof n.opponent.name === "string" ? n.opponent.name : null;
    return { text: name ? t("notes.yourTurn", { name }) : t("notes.yourTurnAlone"),
      detail: Number.isFinite(n.move_by) && n.move_by > 0 ? t("notes.moveBy", { date: fmtDate(new Date(n.move_by).toISOString()) }) : "" };
  }
  if (n.kind === "tournament_game")
    return { text: t("notes.tournamentGame", { name: who(n.opponent), tournament: String(n.tournament?.name ?? "?") }),
      detail: Number.isFinite(n.round) ? t("notes.round", { n: n.round }) : "" };
  if (n.kind === "warning") return { text: t("notes.warning"), detail: String(n.note ?? "") };
  if (n.kind === "report_handled") {
    const name = typeof n.player === "string" ? n.player : who(n.player);
    return { text: t("notes.reportHandled", { id: n.report ?? "?", name }),
      detail: t(n.outcome === "no_action" ? "notes.noAction" : "notes.actionTaken") };
  }
  return { text: t("notes.other"), detail: "" };
}

function noteItem(n) {
  const w = noteWords(n);
  const when = Number.isFinite(n.at) ? fmtDate(new Date(n.at).toISOString()) : "";
  const body = [
    n.read ? null : h("span", { class: "sr-only", text: `${t("notes.unread")}: ` }),
    h("span", { class: "note-text", text: w.text }),
    w.detail ? h("span", { class: "note-detail", text: w.detail }) : null,
    when ? h("span", { class: "note-time", text: when }) : null,
  ];
  const link = n.game
    ? h("a", { class: "note-link", href: `/g/${n.game}`, onclick: (ev) => {
      if (!n.read) markNotesRead([n.id]);
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
      ev.preventDefault();
      closeBell();
      app.navigate(`/g/${n.game}`);
    } }, ...body)
    : h("span", { class: "note-link" }, ...body);
  return h("li", { class: `note${n.read ? "" : " unread"}`, "data-id": n.id, "data-kind": n.kind }, link);
}

// ------------------------------------------------------------------ the bell
function bellIcon() {
  const svg = svgEl("svg", { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true", class: "bell-icon" });
  svgEl("path", { d: "M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z", class: "bell-body" }, svg);
  svgEl("path", { d: "M10 20.5a2 2 0 0 0 4 0", class: "bell-clapper" }, svg);
  return svg;
}

export function renderNotes() {
  const N = S.notes;
  const acct = !!S.me?.account;
  $("bell-box").hidden = !acct;
  if (!acct) return;
  const b = $("bell-btn");
  const count = $("bell-count");
  count.textContent = N.unread > 99 ? "99+" : String(N.unread);
  count.hidden = N.unread <= 0;
  b.dataset.unread = String(N.unread);
  b.setAttribute("aria-label", N.unread > 0 ? t("notes.labelUnread", { n: N.unread }) : t("notes.label"));
  b.title = b.getAttribute("aria-label");
  // the challenge's own page says it all: no toast over it
  if (toastNote && S.route.view === "game" && S.route.code === toastNote.game) hideNoteToast();
  if ($("bell-panel").hidden) return;
  $("bell-loading").hidden = !(N.loading && !N.loaded);
  $("bell-error").hidden = !N.error;
  $("bell-error").textContent = N.error ?? "";
  $("bell-empty").hidden = !N.loaded || N.list.length > 0;
  $("bell-read-all").disabled = N.unread <= 0;
  // redrawn when it changed only: a line with the focus stays while the page redraws
  const list = $("bell-list");
  const sig = `${lang()}|${N.list.map((n) => `${n.id}${n.read ? "r" : "u"}`).join(",")}`;
  if (list.dataset.sig !== sig) {
    list.replaceChildren(...N.list.map(noteItem));
    list.dataset.sig = sig;
  }
  renderPush();
}

// ------------------------------------------------------------------ on this device
// System notifications need the Notification API, a service worker and a secure page.
const pushSupported = () => "Notification" in window && "serviceWorker" in navigator && window.isSecureContext;

// The panel's "Notify me on this device": offered while the browser has not been asked; once
// refused, the panel says how to allow it; once allowed (or unsupported), nothing.
function renderPush() {
  const perm = pushSupported() ? Notification.permission : "granted";
  $("bell-push").hidden = perm === "granted";
  $("bell-push-btn").hidden = perm !== "default";
  const note = $("bell-push-note");
  note.hidden = perm === "granted";
  note.textContent = perm === "denied" ? t("notes.pushDenied") : t("notes.pushHint");
}

function askPush() {
  if (!pushSupported() || Notification.permission !== "default") return renderPush();
  const btn = $("bell-push-btn");
  btn.disabled = true;
  let asked;
  try {
    asked = Promise.resolve(Notification.requestPermission());
  } catch (e) {
    asked = Promise.reject(e);
  }
  asked.catch(() => {}).finally(() => {
    btn.disabled = false;
    renderPush();
    // the button is gone now: the focus goes back to the bell
    if (btn.hidden && ($("bell-box").contains(document.activeElement) || document.activeElement === document.body)) $("bell-btn").focus();
  });
}

// A notification that came live while the page is hidden, shown by the system (when allowed).
function systemNote(n) {
  if (document.visibilityState !== "hidden" || !pushSupported() || Notification.permission !== "granted") return;
  const w = noteWords(n);
  // a game's "your turn" replaces the one before it
  const tag = n.kind === "your_turn" && n.game ? `tf-turn-${n.game}` : `tf-${n.id}`;
  navigator.serviceWorker.ready.then((reg) => reg.showNotification(w.text, {
    body: w.detail, tag, renotify: tag !== `tf-${n.id}`, data: { url: n.game ? `/g/${n.game}` : "/" }, icon: "/icons/icon-192.png",
  })).catch((e) => console.warn("trunkfield: no system notification:", e.message));
}

// A correspondence game that became the player's move while this page watches it (so the server,
// which tells only players with no connection to the game, sends no your_turn): the same system
// notification, when the page is hidden (playing.js finds such games in /api/playing).
function systemTurnNote(g) {
  systemNote({ id: 0, kind: "your_turn", game: g.code, opponent: g.opponent ?? null, move_by: g.move_by, read: false });
}

function openBell() {
  $("bell-panel").hidden = false;
  $("bell-btn").setAttribute("aria-expanded", "true");
  loadNotes();
  renderNotes();
}
function closeBell(focusButton = false) {
  if ($("bell-panel").hidden) return;
  $("bell-panel").hidden = true;
  $("bell-btn").setAttribute("aria-expanded", "false");
  if (focusButton) $("bell-btn").focus();
}

// ------------------------------------------------------------------ live ones, and the toast
export function onNotification(m) {
  const n = readNote(m);
  const N = S.notes;
  if (!n || !S.me?.account || N.list.some((x) => x.id === n.id)) return;
  N.list = [n, ...N.list].sort((a, b) => b.id - a.id);
  if (!n.read) N.unread++;
  // a game's newer "your turn" makes its older ones read (the server does the same)
  if (n.kind === "your_turn")
    for (const x of N.list)
      if (x !== n && x.kind === "your_turn" && x.game === n.game && x.id < n.id && !x.read) {
        x.read = true;
        N.unread = Math.max(0, N.unread - 1);
      }
  if (n.kind === "followed_game") followedStarted(String(n.player?.name ?? ""), n.game);
  if (PLAYING_KINDS.includes(n.kind)) reloadPlayingSoon(0);
  if (NOTE_KINDS.includes(n.kind) && n.game && !(S.route.view === "game" && S.route.code === n.game)) showNoteToast(n);
  else if (GAMELESS_KINDS.includes(n.kind)) showNoteToast(n);
  renderNotes();
  systemNote(n);
}

function showNoteToast(n) {
  toastNote = n;
  clearTimeout(noteToastTimer);
  const box = $("note-toast");
  box.hidden = false;
  box.dataset.kind = n.kind;
  box.dataset.game = n.game ?? "";
  const w = noteWords(n);
  $("note-toast-text").textContent = w.text;
  $("note-toast-detail").textContent = w.detail;
  $("note-toast-detail").hidden = !w.detail;
  const challenge = n.kind === "challenge";
  $("note-accept").hidden = !challenge;
  $("note-decline").hidden = !challenge;
  const followed = n.kind === "followed_game";
  $("note-watch").hidden = !followed;
  $("note-open").hidden = n.kind === "challenge_declined" || followed || !n.game;
  // a challenge waits for its answer, a warning until it is closed; other news goes after a while
  if (!challenge && n.kind !== "warning") noteToastTimer = setTimeout(hideNoteToast, 10000);
}
function hideNoteToast() {
  toastNote = null;
  clearTimeout(noteToastTimer);
  $("note-toast").hidden = true;
}

// The toast's buttons act on its notification, which is read then.
function toastAction(f) {
  return () => {
    const n = toastNote;
    if (!n) return;
    hideNoteToast();
    if (!n.read) markNotesRead([n.id]);
    f(n);
  };
}

export function setupNotes() {
  app.turnNote = systemTurnNote; // for playing.js, which notices.js imports
  $("bell-btn").prepend(bellIcon());
  $("bell-btn").addEventListener("click", (ev) => {
    ev.stopPropagation();
    if ($("bell-panel").hidden) openBell();
    else closeBell();
  });
  $("bell-read-all").addEventListener("click", () => {
    markNotesRead("all");
    $("bell-btn").focus(); // the button is disabled now: the focus would be lost
  });
  // Esc closes the list wherever the focus is (back on the bell when it was in the list)
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || $("bell-panel").hidden) return;
    const inside = $("bell-box").contains(document.activeElement) || document.activeElement === document.body;
    ev.preventDefault();
    ev.stopImmediatePropagation(); // the game page's Esc (undo, leave zen…) is not meant
    closeBell(inside);
  });
  document.addEventListener("click", (ev) => {
    if (!ev.target.closest?.("#bell-box")) closeBell();
  });
  $("bell-push-btn").addEventListener("click", askPush);
  $("note-accept").addEventListener("click", toastAction((n) => acceptChallenge(n.game)));
  $("note-decline").addEventListener("click", toastAction((n) => {
    declineChallenge(n.game, "generic");
    toast(t("challenge.declinedToast", { name: String(n.from?.name ?? "?") }));
  }));
  $("note-open").addEventListener("click", toastAction((n) => app.navigate(`/g/${n.game}`)));
  $("note-watch").addEventListener("click", toastAction((n) => app.navigate(`/g/${n.game}`)));
  $("note-close").addEventListener("click", () => {
    // a warning or a handled report, closed, has been read (a challenge waits for its answer)
    const n = toastNote;
    if (n && GAMELESS_KINDS.includes(n.kind) && !n.read) markNotesRead([n.id]);
    hideNoteToast();
  });
}
