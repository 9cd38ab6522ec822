// The server's history API on the HTTP port (JSON): finished and live games, one game with its
// record, and the record/notation downloads.
//   GET /api/games?status=&player=&limit=&before=  -> {games: [summary], next: cursor | null}
//   GET /api/games/CODE                            -> summary + {record: {variant, setup, turns}}
//   GET /api/games/CODE/record | /notation          -> downloads
//   GET /api/leaderboard?category=&limit=           -> {category, players: [{rank, username, rating,
//                                                      deviation, games, provisional, last_played}]}
//   GET /api/players/NAME                           -> {username, player_id, created_at, ratings,
//                                                      history, totals, recent}
// And the Puzzle API (puzzles.js): GET /api/puzzles/next | daily | ID, POST /api/puzzles/ID/answer,
// GET /api/puzzles/mine.
// And the games an account is playing (playing.js): GET /api/playing.
// And the notifications of an account (notices.js): GET /api/notifications, POST
// /api/notifications/read; its follows, blocks and mutes (relations.js): GET and POST
// /api/relations; reports (report.js): POST /api/reports; and the moderators' API (moderation.js):
// GET /api/mod/reports, POST /api/mod/actions, GET /api/mod/audit; the account's e-mail address
// and the mails it wants (mail.js): GET and POST /api/account/mail; its vacation for
// correspondence games (vacation.js): GET and POST /api/vacation; its access tokens for programs
// (tokens.js): GET and POST /api/account/tokens, POST /api/account/tokens/revoke; tournaments
// (tournaments.js): GET /api/tournaments, GET /api/tournament/ID, POST /api/tournament and
// /api/tournament/ID/join | withdraw.
// Failures are thrown as ApiError with a message fit to show (HTTP status and the server's words)
// and the server's error code (`code`: "busy", "no_puzzle", …; null when it gave none).
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(message, status, code = null, body = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.body = body; // the server's error object, as it came
  }
}

// The player's token goes with every request: the history API shows a player its own private
// games, and nobody else's.
// `payload`: an object sent as JSON with POST; without it, a GET.
async function requestJson(path, payload = undefined) {
  let res;
  const headers = { Accept: "application/json" };
  const token = localStorage.getItem("trunkfield.token");
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { headers };
  if (payload !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(payload);
  }
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(t("api.unreachable", { reason: e.message }), 0);
  }
  const body = await res.text();
  let data = null;
  try {
    data = JSON.parse(body);
  } catch {
    data = null;
  }
  if (!res.ok) {
    const why = data?.message ?? (res.status === 404 ? t("api.notFound") : res.statusText);
    throw new ApiError(`HTTP ${res.status}: ${why}`, res.status, typeof data?.error === "string" ? data.error : null, data);
  }
  if (data === null || typeof data !== "object") throw new ApiError(t("api.notJson"), res.status);
  return data;
}

const getJson = (path) => requestJson(path);
const postJson = (path, body) => requestJson(path, body);

export function listGames({ status, player, limit, before } = {}) {
  const q = new URLSearchParams();
  if (status) q.set("status", status);
  if (player) q.set("player", player);
  if (limit) q.set("limit", String(limit));
  if (before) q.set("before", String(before));
  const qs = q.toString();
  return getJson(`/api/games${qs ? `?${qs}` : ""}`).then((d) => {
    if (!Array.isArray(d.games)) throw new ApiError(t("api.notJson"), 200);
    return { games: d.games, next: d.next ?? null };
  });
}

export function getGame(code) {
  return getJson(`/api/games/${encodeURIComponent(code)}`);
}

export const recordUrl = (code) => `/api/games/${encodeURIComponent(code)}/record`;
export const notationUrl = (code) => `/api/games/${encodeURIComponent(code)}/notation`;

export function getLeaderboard(category, limit = 50, bots = false) {
  const q = new URLSearchParams({ category, limit: String(limit), bots: String(bots) });
  return getJson(`/api/leaderboard?${q}`).then((d) => {
    if (!Array.isArray(d.players)) throw new ApiError(t("api.notJson"), 200);
    return d;
  });
}

export function getPlayer(name) {
  return getJson(`/api/players/${encodeURIComponent(name)}`);
}

// ------------------------------------------------------------------ puzzles
// A puzzle as readers see it: {id, position, solver, solver_turns, themes, rating, deviation,
// plays, solved, source: {game, turn}, tried} (and `day` for the daily one).
export function nextPuzzle(theme = null) {
  return getJson(`/api/puzzles/next${theme ? `?${new URLSearchParams({ theme })}` : ""}`);
}
export const dailyPuzzle = () => getJson("/api/puzzles/daily");
export const getPuzzle = (id) => getJson(`/api/puzzles/${encodeURIComponent(id)}`);

// The solver's turns so far, judged: {verdict, reply, done, solved, and once done line, rated,
// rating, puzzle_rating, at}.
export const answerPuzzle = (id, turns) => postJson(`/api/puzzles/${encodeURIComponent(id)}/answer`, { turns });

// The reader's attempts and puzzle rating: {rating: {rating, deviation, games, provisional} | null, attempts}.
export const myPuzzles = (limit = 20) => getJson(`/api/puzzles/mine?limit=${limit}`);

// ------------------------------------------------------------------ games being played
// The account's games being played, those where it is its move first, soonest deadline first:
// {your_move, games: [{code, variant, time_control, rated, side, opponent, to_move, your_move,
// move_by (epoch ms, 0: none), turns}]}.
export function listPlaying() {
  return getJson("/api/playing").then((d) => {
    if (!Array.isArray(d.games)) throw new ApiError(t("api.notJson"), 200);
    return { yourMove: Number(d.your_move) || 0, games: d.games };
  });
}

// ------------------------------------------------------------------ notifications
// The account's notifications, newest first: {unread, notifications: [{id, kind, at, read, ...}]}.
export function listNotifications(limit = 30) {
  return getJson(`/api/notifications?limit=${limit}`).then((d) => {
    if (!Array.isArray(d.notifications)) throw new ApiError(t("api.notJson"), 200);
    return { unread: Number(d.unread) || 0, notifications: d.notifications };
  });
}
// Marks notifications read: `ids` (an array of ids) or "all". Answers {unread}.
export const markNotificationsRead = (ids) => postJson("/api/notifications/read", ids === "all" ? { all: true } : { ids });

// ------------------------------------------------------------------ follow, block and mute
// The account's relations (relations.js): {following: [{name, notify, online, playing, since}],
// blocked: [{name, since}], muted: [{name, since}], announce}; POST {"announce": true|false} too. POST {"follow": NAME[, "notify": false]},
// {"unfollow"}, {"block"}, {"unblock"}, {"mute"}, {"unmute"} answers the new lists the same way
// (a server without mutes sends no "muted": none then).
function relationLists(d) {
  if (!Array.isArray(d.following) || !Array.isArray(d.blocked)) throw new ApiError(t("api.notJson"), 200);
  if (!Array.isArray(d.muted)) d.muted = [];
  return d;
}
export const getRelations = () => getJson("/api/relations").then(relationLists);
export const postRelation = (body) => postJson("/api/relations", body).then(relationLists);

// ------------------------------------------------------------------ e-mail
// The account's e-mail settings (mail.js): {available, address, verified, turns, challenges,
// digest}; POST any of {"address": TEXT | null, "turns", "challenges", "digest", "resend": true}
// answers the same. Errors: bad_request, bad_address, mail_unavailable (503), too_many (429).
function mailSettings(d) {
  if (typeof d.available !== "boolean") throw new ApiError(t("api.notJson"), 200);
  return d;
}
// The account's access tokens (tokens.js): {tokens: [{id, label, scopes, created, last_used}]};
// a new one's answer holds `token`, this once.
export const getTokens = () => getJson("/api/account/tokens");
export const makeToken = (label, scopes) => postJson("/api/account/tokens", { label, scopes });
export const revokeToken = (id) => postJson("/api/account/tokens/revoke", { id });
export const getMail = () => getJson("/api/account/mail").then(mailSettings);
export const postMail = (body) => postJson("/api/account/mail", body).then(mailSettings);

// ------------------------------------------------------------------ vacation
// The account's vacation (vacation.js): {on, since (epoch ms | null), budget_days, used_days,
// left_days, ends_at (epoch ms | null: when the days run out if left on)}; POST {"on": true |
// false} answers the same after the change. Errors: vacation_spent (409), bad_request,
// account_required (403), store_unavailable (503).
function vacationState(d) {
  if (typeof d?.on !== "boolean" || typeof d.left_days !== "number") throw new ApiError(t("api.notJson"), 200);
  return d;
}
export const getVacation = () => getJson("/api/vacation").then(vacationState);
export const postVacation = (body) => postJson("/api/vacation", body).then(vacationState);

// ------------------------------------------------------------------ reports and moderation
// A report of account `player` (report.js): {player, reason, text, game?}. Answers {id}.
export const postReport = (body) => postJson("/api/reports", body).then((d) => {
  if (!Number.isFinite(d.id)) throw new ApiError(t("api.notJson"), 200);
  return d;
});

// The moderators' API (moderation.js). Reports, newest first: {reports: [...]}; `status` open or
// handled.
export function listReports(status = "open", limit = 50) {
  const q = new URLSearchParams({ status, limit: String(limit) });
  return getJson(`/api/mod/reports?${q}`).then((d) => {
    if (!Array.isArray(d.reports)) throw new ApiError(t("api.notJson"), 200);
    return d.reports;
  });
}
// An action on an account: {player, action, minutes?, report?, note?}. Answers the audit entry.
export const modAction = (body) => postJson("/api/mod/actions", body);
// The audit log, newest first: [{id, at, moderator, action, player, report, minutes, note}].
export function listAudit(limit = 100) {
  return getJson(`/api/mod/audit?limit=${limit}`).then((d) => {
    if (!Array.isArray(d.entries)) throw new ApiError(t("api.notJson"), 200);
    return d.entries;
  });
}

// ------------------------------------------------------------------ tournaments
// PROTOCOL.md "Tournaments". The list: {tournaments: [summary]} (public ones being played, about to
// start or finished in the last 7 days, and the viewer's private ones); one: the summary with
// `standings`, `games` (and a Swiss's `byes`). Making one answers {id, link}; joining {ok, joined:
// "joined" | "back" | "already"}; withdrawing {ok}. Refusals carry the server's `code`
// (too_many_tournaments, wrong_password, tournament_full, ...).
export function getTournaments() {
  return getJson("/api/tournaments").then((d) => {
    if (!Array.isArray(d.tournaments)) throw new ApiError(t("api.notJson"), 200);
    return d.tournaments;
  });
}
export function getTournament(id) {
  return getJson(`/api/tournament/${encodeURIComponent(id)}`).then((d) => {
    if (!Array.isArray(d.standings) || !Array.isArray(d.games)) throw new ApiError(t("api.notJson"), 200);
    return d;
  });
}
export const createTournament = (settings) => postJson("/api/tournament", settings);
export const joinTournament = (id, password = null) => postJson(`/api/tournament/${encodeURIComponent(id)}/join`, password ? { password } : {});
export const withdrawTournament = (id) => postJson(`/api/tournament/${encodeURIComponent(id)}/withdraw`, {});
export const tournamentReportUrl = (id) => `/api/tournament/${encodeURIComponent(id)}/report`;
