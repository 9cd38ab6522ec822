// The server's history API on the HTTP port (JSON): finished and live games, one game with its
// record, and the record/notation downloads.
//   GET /api/games?status=&player=&limit=&before=  -> {games: [summary], next: cursor | null}
//   GET /api/games/CODE                            -> summary + {record: {variant, setup, turns}}
//   GET /api/games/CODE/record | /notation          -> downloads
//   GET /api/leaderboard?category=&limit=           -> {category, players: [{rank, username, rating,
//                                                      deviation, games, provisional, last_played}]}
//   GET /api/players/NAME                           -> {username, player_id, created_at, ratings,
//                                                      history, totals, recent}
// Failures are thrown as ApiError with a message fit to show (HTTP status and the server's words).
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

// The player's token goes with every request: the history API shows a player its own private
// games, and nobody else's.
async function getJson(path) {
  let res;
  const headers = { Accept: "application/json" };
  const token = localStorage.getItem("trunkfield.token");
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    res = await fetch(path, { headers });
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
    throw new ApiError(`HTTP ${res.status}: ${why}`, res.status);
  }
  if (data === null || typeof data !== "object") throw new ApiError(t("api.notJson"), res.status);
  return data;
}

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

export function getLeaderboard(category, limit = 50) {
  const q = new URLSearchParams({ category, limit: String(limit) });
  return getJson(`/api/leaderboard?${q}`).then((d) => {
    if (!Array.isArray(d.players)) throw new ApiError(t("api.notJson"), 200);
    return d;
  });
}

export function getPlayer(name) {
  return getJson(`/api/players/${encodeURIComponent(name)}`);
}
