// Ratings as players see them, lichess's way: "ann (1500?)", with "?" while the rating is
// provisional; a rating change as "+12" (green) or "−12" (red). Also the rating categories
// (proto/ratings.h: the speed from the time control, lichess's rule, or correspondence for days
// per move; and the board), which games can be rated, and whether a seat's player is an account
// (to link the name to /@/NAME).
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { S, app } from "./state.js";
import { getPlayer } from "./api.js";

// Every category, standard board first, fastest first (proto/ratings.cpp); correspondence
// (days per move) after classical.
export const SPEEDS = ["bullet", "blitz", "rapid", "classical", "correspondence", "untimed"];
export const CATEGORIES = [...SPEEDS, ...SPEEDS.map((s) => `small_${s}`)];
// The games' categories and the puzzle rating (PROTOCOL.md "Ratings", "Puzzle API").
export const ALL_RATINGS = [...CATEGORIES, "puzzle"];

// The boards that are rated: the standard variant and the small one.
const RATED_VARIANTS = [
  { size: 9, elephants: 5, burnt: 3, quiet: 40 },
  { size: 7, elephants: 3, burnt: 2, quiet: 30 },
];
export const ratedVariant = (v) =>
  !!v && RATED_VARIANTS.some((r) => r.size === v.size && r.elephants === v.elephants && r.burnt === v.burnt && r.quiet === v.quiet);

// The category of a game, or null when it cannot be rated.
export function categoryOf(variant, tc) {
  if (!ratedVariant(variant)) return null;
  const board = variant.size === 7 ? "small_" : "";
  if (!tc) return `${board}untimed`;
  if (tc.days_per_move) return `${board}correspondence`;
  const est = tc.initial_ms + 40 * tc.increment_ms;
  return board + (est < 180000 ? "bullet" : est < 480000 ? "blitz" : est < 1500000 ? "rapid" : "classical");
}

export const categoryName = (c) => t(`cat.${c}`);

// "1500?" or "1500".
export const ratingText = (r) => (r ? `${r.rating}${r.provisional ? "?" : ""}` : "");

// A rating shown after a name: " (1500?)" as a span (null without a rating).
export function ratingSpan(r, cls = "rating") {
  if (!r) return null;
  return h("span", { class: cls, "data-rating": r.rating, "data-provisional": r.provisional ? "1" : null,
    title: r.provisional ? t("rating.provisionalHint") : null, text: ` (${ratingText(r)})` });
}

// "ann (1500?)" as text.
export const nameWithRating = (name, r) => (r ? `${name} (${ratingText(r)})` : name);

// A change in points: "+12", "−12" (a real minus sign) or "±0".
export function diffText(d) {
  if (d > 0) return `+${d}`;
  if (d < 0) return `−${-d}`;
  return "±0";
}
export const diffSpan = (d) => h("span", { class: `rating-diff ${d > 0 ? "up" : d < 0 ? "down" : "same"}`, "data-diff": d, text: diffText(d) });

// A side's change in a finished rated game (from the mirror's `ratings`): {before, after, diff}
// or null.
export function ratingChange(G, side) {
  const c = G?.ratings?.[side];
  if (!c || !c.after) return null;
  return { before: c.before, after: c.after, diff: c.after.rating - c.before };
}

// ------------------------------------------------------------------ accounts behind names
// A seat's player is an account when the game is rated (only accounts play rated games), when
// it is the page's own account, or when the server's player page for that name has the same
// player id (a guest may call itself as an account is named). Looked up once per name.
const looked = new Map(); // name -> player_id | null | "pending"
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9_-]{2,19}$/;

export function isAccount(player, rated = false) {
  if (!player?.name || !USERNAME.test(player.name)) return false;
  if (rated) return true;
  if (S.me?.account && player.id === S.me.player_id) return true;
  if (/^guest-/i.test(player.name) || /^bot[1-5]$/.test(player.id ?? "")) return false;
  const key = player.name.toLowerCase();
  const known = looked.get(key);
  if (known === undefined) {
    looked.set(key, "pending");
    getPlayer(player.name).then((p) => {
      looked.set(key, p.player_id ?? null);
      if (p.player_id === player.id) app.render();
    }, () => looked.set(key, null));
    return false;
  }
  return known === player.id;
}

// The link to a player's page.
export const profileUrl = (name) => `/@/${encodeURIComponent(name)}`;

// A player's name: a link to the player's page for an account, else plain text.
export const botBadge = () => h("abbr", { class: "bot-badge", title: t("player.botTitle"), text: t("player.bot") });

export function playerLink(player, { rated = false, cls = "name", fallback = "?" } = {}) {
  const name = player?.name ?? fallback;
  if (!player?.bot && !isAccount(player, rated)) return h("span", { class: cls, text: name });
  // A bot account (PROTOCOL.md "Bot accounts") is marked BOT before its name, everywhere.
  const badge = player?.bot ? [botBadge(), " "] : [];
  const a = h("a", { class: `${cls} player-link`, href: profileUrl(name) }, ...badge, name);
  a.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate(profileUrl(name));
  });
  return a;
}
