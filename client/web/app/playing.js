// An account's games being played (GET /api/playing, every time control, correspondence games
// included): the lobby's "Your games" card, a line per game (whose move, the opponent, the
// settings, the time left to move, a link to the game; the server names the side to move and the
// deadline of correspondence games only), the ones where it is the account's move first; and the
// top bar's badge with the number of those, a link to the card. Loaded after each welcome, on the
// notifications that change it (your_turn, game_over, challenge_accepted: notices.js), after a
// turn or the end of one of the account's games (app.js), and every minute while the page is
// visible. Guests have neither; nor has a server without a store (503).
import { $, h, variantText, tcText, sideName, fmtDays } from "./dom.js";
import { t } from "./i18n.js";
import { S, app } from "./state.js";
import { listPlaying } from "./api.js";
import { svgEl } from "./board.js";

const PLAYING_REFRESH_MS = 60000;
const PLAYING_CODE = /^[A-Za-z0-9]{1,16}$/;
export const CARD_HASH = "#your-games";

const freshPlaying = (playerId = null) => ({ for: playerId, games: [], yourMove: 0, loading: false, loaded: false, error: null, at: 0 });
S.playing = freshPlaying();
let playingSeq = 0;
let playingTimer = null;

// A line of the answer, kept when it names a game.
function readGame(g) {
  if (!g || typeof g !== "object" || typeof g.code !== "string" || !PLAYING_CODE.test(g.code)) return null;
  return { ...g, code: g.code.toLowerCase(), your_move: !!g.your_move, move_by: Number(g.move_by) || 0 };
}

export function loadPlaying() {
  const P = S.playing;
  if (!S.me?.account) return;
  const n = ++playingSeq;
  P.loading = true;
  listPlaying().then((d) => {
    if (n !== playingSeq || P !== S.playing) return;
    const before = P.loaded ? new Set(P.games.filter((g) => g.your_move).map((g) => g.code)) : null;
    P.games = d.games.map(readGame).filter(Boolean);
    // A game newly waiting for this player's move, seen while the page is in the background
    // (the page watches it, so no your_turn comes): told by the system as that notification.
    if (before && document.visibilityState === "hidden")
      for (const g of P.games) if (g.your_move && g.to_move && !before.has(g.code)) app.turnNote?.(g); // notices.js
    P.yourMove = d.yourMove || P.games.filter((g) => g.your_move).length;
    P.error = null;
    P.loaded = true;
  }, (e) => {
    if (n !== playingSeq || P !== S.playing) return;
    // without a store the server keeps no such list: nothing to show, nothing to say
    P.error = e.code === "store_unavailable" ? null : t("playing.error", { reason: e.message });
  }).finally(() => {
    if (n !== playingSeq || P !== S.playing) return;
    P.loading = false;
    P.at = Date.now();
    app.render();
  });
}

// A load a moment from now: the events of a turn (or several turns) make one request.
export function reloadPlayingSoon(ms = 700) {
  if (!S.me?.account) return;
  clearTimeout(playingTimer);
  playingTimer = setTimeout(loadPlaying, ms);
}

// A welcome: an account's list is loaded (again: turns may have been played meanwhile).
export function playingWelcome(m) {
  if (!m.account) {
    S.playing = freshPlaying();
    return;
  }
  if (S.playing.for !== m.player_id) S.playing = freshPlaying(m.player_id);
  loadPlaying();
}

// "2d 23h left", or "no time left" once the deadline has passed.
function leftText(moveBy) {
  const ms = moveBy - Date.now();
  return ms > 0 ? t("playing.left", { time: fmtDays(ms) }) : t("playing.timeUp");
}

// The line's badge: "Your move", "Waiting" (for the opponent's), or "In play" for a game with no
// deadline to list (a live game: its page has the clock; the server says to_move null).
function badgeOf(g) {
  if (g.your_move) return { cls: "your-move", key: "playing.yourMove" };
  return g.to_move ? { cls: "waiting", key: "playing.waiting" } : { cls: "playing", key: "playing.live" };
}

function gameItem(g) {
  const name = typeof g.opponent?.name === "string" ? g.opponent.name : "—";
  const badge = badgeOf(g);
  const url = `/g/${g.code}`;
  const open = h("a", { class: `button small${g.your_move ? " primary" : ""}`, href: url, text: t("mine.openBtn"),
    "aria-label": t("playing.open", { name }) });
  open.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate(url);
  });
  return h("li", { "data-code": g.code, "data-your-move": g.your_move ? "1" : "0" },
    h("span", { class: `badge ${badge.cls}`, text: t(badge.key) }),
    h("span", { class: "who", text: t("recent.vs", { name }) }),
    h("span", { class: "what", text: [t(g.rated ? "game.ratedShort" : "game.casual"), variantText(g.variant), tcText(g.time_control ?? null),
      g.side === "silver" || g.side === "bronze" ? t("challenge.youPlay", { side: sideName(g.side) }) : null,
      Number.isFinite(g.turns) ? t("recent.turns", { n: g.turns }) : null].filter(Boolean).join(" · ") }),
    g.move_by > 0 ? h("span", { class: `left${g.your_move ? " mine" : ""}`, "data-move-by": g.move_by, text: leftText(g.move_by) }) : null,
    open);
}

// The top bar's badge (every page).
export function renderPlayingBadge() {
  const P = S.playing;
  const n = S.me?.account ? P.yourMove : 0;
  const a = $("yourmove-link");
  a.hidden = n <= 0;
  if (n <= 0) return;
  $("yourmove-count").textContent = n > 99 ? "99+" : String(n);
  a.dataset.count = String(n);
  a.setAttribute("aria-label", t("playing.badge", { n }));
  a.title = a.getAttribute("aria-label");
}

// The lobby's card, redrawn when the list changed only (a link with the focus stays); the times
// left tick on their own (tickPlaying).
export function renderPlayingCard() {
  const P = S.playing;
  const card = $("your-games");
  card.hidden = !S.me?.account || (P.games.length === 0 && !P.error);
  if (card.hidden) return;
  $("playing-error").hidden = !P.error;
  $("playing-error").textContent = P.error ?? "";
  $("playing-refresh").disabled = P.loading;
  const list = $("playing-list");
  const sig = `${document.documentElement.lang}|${JSON.stringify(P.games)}`;
  if (list.dataset.sig !== sig) {
    list.replaceChildren(...P.games.map(gameItem));
    list.dataset.sig = sig;
  }
  tickPlaying();
}

function tickPlaying() {
  for (const el of document.querySelectorAll("#playing-list [data-move-by]")) {
    const text = leftText(Number(el.dataset.moveBy));
    if (el.textContent !== text) el.textContent = text;
  }
}

// The badge's link: the lobby, scrolled to the card, its heading focused.
export function showPlayingCard() {
  const card = $("your-games");
  if (card.hidden) return;
  card.scrollIntoView({ block: "start" });
  $("playing-h").focus({ preventScroll: true });
}

// A "play" sign in a ring (an SVG: emoji fonts are not everywhere).
function turnIcon() {
  const svg = svgEl("svg", { viewBox: "0 0 24 24", width: 16, height: 16, "aria-hidden": "true", class: "yourmove-icon" });
  svgEl("circle", { cx: 12, cy: 12, r: 9.5 }, svg);
  svgEl("path", { d: "M10 7.5l6 4.5-6 4.5z" }, svg);
  return svg;
}

export function setupPlaying() {
  $("yourmove-link").prepend(turnIcon());
  $("yourmove-link").addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate(`/${CARD_HASH}`); // app.js's route() shows the card
  });
  $("playing-refresh").addEventListener("click", loadPlaying);
  const stale = () => S.me?.account && !S.playing.loading && Date.now() - S.playing.at >= PLAYING_REFRESH_MS - 1000;
  setInterval(() => {
    if (document.visibilityState === "visible" && stale()) loadPlaying();
    if (S.route.view === "lobby") tickPlaying();
  }, 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && stale()) loadPlaying();
  });
}
