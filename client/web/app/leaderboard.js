// The leaderboard, /players?category=blitz (history API: GET /api/leaderboard): the best
// established ratings of a category among the players active in it within the last 30 days,
// with a tab per category (the standard board's, then the small board's).
import { $, h } from "./dom.js";
import { t, lang } from "./i18n.js";
import { S, app } from "./state.js";
import { getLeaderboard } from "./api.js";
import { SPEEDS, ALL_RATINGS, categoryName, playerLink } from "./ratings.js";

// S.board: {cat, data, error, loading, at}
export function openLeaderboard(cat) {
  if (!ALL_RATINGS.includes(cat)) cat = "blitz";
  const B = S.board;
  if (B && B.cat === cat && (B.loading || (B.data && Date.now() - B.at < 5000))) return;
  S.board = { cat, data: null, error: null, loading: true, at: Date.now() };
  const mine = S.board;
  getLeaderboard(cat, 50).then((d) => {
    mine.data = d;
    mine.at = Date.now();
  }, (e) => {
    mine.error = e.message;
  }).finally(() => {
    mine.loading = false;
    if (S.board === mine) app.render();
  });
}

const boardUrl = (cat) => `/players?category=${cat}`;

function tab(cat) {
  const on = S.board?.cat === cat;
  const a = h("a", { class: `tab${on ? " active" : ""}`, href: boardUrl(cat), role: "tab", "aria-selected": on ? "true" : "false",
    "data-category": cat, text: cat === "puzzle" ? categoryName(cat) : t(`speed.${cat.replace(/^small_/, "")}`) });
  a.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate(boardUrl(cat));
  });
  return a;
}

export function renderLeaderboard() {
  const B = S.board;
  if (!B) return;
  $("lb-tabs").replaceChildren(
    h("div", { class: "tab-group", role: "tablist", "aria-label": t("board.standard") },
      h("span", { class: "tab-group-label", text: t("board.standard") }), ...SPEEDS.map((s) => tab(s))),
    h("div", { class: "tab-group", role: "tablist", "aria-label": t("board.small") },
      h("span", { class: "tab-group-label", text: t("board.small") }), ...SPEEDS.map((s) => tab(`small_${s}`))),
    h("div", { class: "tab-group", role: "tablist", "aria-label": categoryName("puzzle") }, tab("puzzle")));
  $("lb-title").textContent = t("lb.titleOf", { cat: categoryName(B.cat) });
  $("lb-loading").hidden = !B.loading;
  $("lb-error").hidden = !B.error;
  $("lb-error").textContent = B.error ? t("lb.error", { reason: B.error }) : "";
  const players = B.data?.players ?? [];
  $("lb-empty").hidden = !B.data || players.length > 0;
  $("lb-table").hidden = !players.length;
  const me = S.me?.account?.username?.toLowerCase();
  $("lb-rows").replaceChildren(...players.map((p) => h("tr", { class: p.username.toLowerCase() === me ? "me" : null, "data-username": p.username },
    h("td", { class: "lb-rank", text: String(p.rank) }),
    h("td", { class: "lb-name" }, playerLink({ name: p.username }, { rated: true })),
    h("td", { class: "lb-rating", text: String(p.rating) }),
    h("td", { class: "lb-games", text: String(p.games) }),
    h("td", { class: "lb-last", text: p.last_played ? new Date(p.last_played).toLocaleDateString(lang(), { dateStyle: "medium" }) : "" }))));
}
