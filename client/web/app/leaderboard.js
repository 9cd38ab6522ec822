// The leaderboard, /players?category=blitz (history API: GET /api/leaderboard): the best
// established ratings of a category among the players active in it within the last 30 days,
// with a tab per category (the standard board's, then the small board's), for people or, apart,
// for bot accounts (&bots=true: PROTOCOL.md "Bot accounts").
import { $, h } from "./dom.js";
import { t, lang } from "./i18n.js";
import { S, app } from "./state.js";
import { getLeaderboard } from "./api.js";
import { SPEEDS, ALL_RATINGS, categoryName, playerLink } from "./ratings.js";

// S.board: {cat, bots, data, error, loading, at}
export function openLeaderboard(cat, bots = false) {
  if (!ALL_RATINGS.includes(cat)) cat = "blitz";
  if (cat === "puzzle") bots = false; // bots solve no puzzles
  const B = S.board;
  if (B && B.cat === cat && B.bots === bots && (B.loading || (B.data && Date.now() - B.at < 5000))) return;
  S.board = { cat, bots, data: null, error: null, loading: true, at: Date.now() };
  const mine = S.board;
  getLeaderboard(cat, 50, bots).then((d) => {
    mine.data = d;
    mine.at = Date.now();
  }, (e) => {
    mine.error = e.message;
  }).finally(() => {
    mine.loading = false;
    if (S.board === mine) app.render();
  });
}

const boardUrl = (cat, bots) => `/players?category=${cat}${bots ? "&bots=true" : ""}`;

function link(url, on, text, data) {
  const a = h("a", { class: `tab${on ? " active" : ""}`, href: url, role: "tab", "aria-selected": on ? "true" : "false", ...data, text });
  a.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate(url);
  });
  return a;
}

const bots = () => !!S.board?.bots;

const tab = (cat) => link(boardUrl(cat, bots() && cat !== "puzzle"), S.board?.cat === cat,
  cat === "puzzle" ? categoryName(cat) : t(`speed.${cat.replace(/^small_/, "")}`), { "data-category": cat });

// People or bots: the same category on the other board.
const whoTab = (b) => link(boardUrl(S.board?.cat === "puzzle" ? "blitz" : S.board?.cat ?? "blitz", b), bots() === b,
  t(b ? "lb.bots" : "lb.people"), { "data-bots": String(b) });

export function renderLeaderboard() {
  const B = S.board;
  if (!B) return;
  $("lb-tabs").replaceChildren(
    h("div", { class: "tab-group", role: "tablist", "aria-label": t("lb.who") },
      h("span", { class: "tab-group-label", text: t("lb.who") }), whoTab(false), whoTab(true)),
    h("div", { class: "tab-group", role: "tablist", "aria-label": t("board.standard") },
      h("span", { class: "tab-group-label", text: t("board.standard") }), ...SPEEDS.map((s) => tab(s))),
    h("div", { class: "tab-group", role: "tablist", "aria-label": t("board.small") },
      h("span", { class: "tab-group-label", text: t("board.small") }), ...SPEEDS.map((s) => tab(`small_${s}`))),
    ...(bots() ? [] : [h("div", { class: "tab-group", role: "tablist", "aria-label": categoryName("puzzle") }, tab("puzzle"))]));
  $("lb-title").textContent = t(B.bots ? "lb.titleOfBots" : "lb.titleOf", { cat: categoryName(B.cat) });
  $("lb-loading").hidden = !B.loading;
  $("lb-error").hidden = !B.error;
  $("lb-error").textContent = B.error ? t("lb.error", { reason: B.error }) : "";
  const players = B.data?.players ?? [];
  $("lb-empty").hidden = !B.data || players.length > 0;
  $("lb-table").hidden = !players.length;
  const me = S.me?.account?.username?.toLowerCase();
  $("lb-rows").replaceChildren(...players.map((p) => h("tr", { class: p.username.toLowerCase() === me ? "me" : null, "data-username": p.username },
    h("td", { class: "lb-rank", text: String(p.rank) }),
    h("td", { class: "lb-name" }, playerLink({ name: p.username, bot: B.bots }, { rated: true })),
    h("td", { class: "lb-rating", text: String(p.rating) }),
    h("td", { class: "lb-games", text: String(p.games) }),
    h("td", { class: "lb-last", text: p.last_played ? new Date(p.last_played).toLocaleDateString(lang(), { dateStyle: "medium" }) : "" }))));
}
