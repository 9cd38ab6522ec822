// A player's page, /@/NAME (history API: GET /api/players/NAME): the ratings per category, the
// rating history of one category as a chart (inline SVG, drawn here), wins, draws and losses
// by colour, and the recent games, each a link to /g/CODE. An account on another account's page
// may challenge it (challenge.js), follow, mute and block it (relations.js) and report it
// (report.js); on its own page it finds the players it blocks and those it mutes, and its e-mail
// address and the mails it wants (mail.js) and its vacation for correspondence games (vacation.js).
import { $, h, other, SideName, tcText, variantText } from "./dom.js";
import { t, fmtDate, lang } from "./i18n.js";
import { S, app } from "./state.js";
import { getPlayer } from "./api.js";
import { svgEl } from "./board.js";
import { ALL_RATINGS, categoryName, categoryOf, ratingText, playerLink, botBadge } from "./ratings.js";
import { renderChallengeButton } from "./challenge.js";
import { loadRelations, renderProfileRelations, renderBlockedList } from "./relations.js";
import { renderReportButton } from "./report.js";
import { loadMail, renderMail } from "./mail.js";
import { renderTokens } from "./tokens.js";
import { loadVacation, renderVacation } from "./vacation.js";

// S.profile: {name, data, error, loading, cat}
export function openProfile(name) {
  loadRelations(); // whether the account follows or blocks the player: as the server has it now
  if (S.me?.account && S.me.account.username.toLowerCase() === name.toLowerCase()) {
    loadMail(); // its e-mail settings, as they are now
    loadVacation(); // and its vacation
  }
  const P = S.profile;
  if (P && P.name.toLowerCase() === name.toLowerCase() && (P.loading || (P.data && Date.now() - P.at < 5000))) return;
  S.profile = { name, data: null, error: null, loading: true, cat: null, at: Date.now() };
  const mine = S.profile;
  getPlayer(name).then((d) => {
    mine.data = d;
    mine.at = Date.now();
  }, (e) => {
    mine.error = e.status === 404 ? t("profile.noSuch", { name }) : e.message;
  }).finally(() => {
    mine.loading = false;
    if (S.profile === mine) app.render();
  });
}

// The categories the player has a rating in, in the usual order.
const playedCats = (d) => ALL_RATINGS.filter((c) => d.ratings?.[c]);

export function renderProfile() {
  const P = S.profile;
  if (!P) return;
  $("pf-name").replaceChildren(...(P.data?.bot ? [botBadge(), " "] : []), P.data?.username ?? P.name);
  $("pf-loading").hidden = !P.loading;
  $("pf-error").hidden = !P.error;
  $("pf-error").textContent = P.error ?? "";
  $("pf-body").hidden = !P.data;
  const d = P.data;
  renderChallengeButton(d);
  renderProfileRelations(d);
  renderReportButton(d);
  if (!d) {
    $("pf-since").textContent = "";
    return;
  }
  $("pf-since").textContent = d.created_at ? t("profile.since", { date: fmtDay(d.created_at) }) : "";
  const cats = playedCats(d);
  if (!P.cat || !cats.includes(P.cat)) {
    // the game category with the most games (the puzzle rating only when there is none)
    const weight = (c) => (c === "puzzle" ? -1 : d.ratings[c].games ?? 0);
    P.cat = cats.slice().sort((a, b) => weight(b) - weight(a))[0] ?? null;
  }
  renderRatingCards(d, cats);
  renderChart(d, P.cat);
  renderTotals(d);
  renderRecentOf(d);
  renderBlockedList(d);
  renderMail();
  renderVacation();
  renderTokens();
}

function renderRatingCards(d, cats) {
  const box = $("pf-ratings");
  $("pf-ratings-empty").hidden = cats.length > 0;
  box.replaceChildren(...cats.map((c) => {
    const r = d.ratings[c];
    const selected = c === S.profile.cat;
    return h("button", { type: "button", class: `rating-card${selected ? " selected" : ""}`, "data-category": c,
      "aria-pressed": selected ? "true" : "false",
      onclick: () => {
        S.profile.cat = c;
        app.render();
      } },
    h("span", { class: "rc-cat", text: categoryName(c) }),
    h("span", { class: "rc-rating", "data-rating": r.rating, text: ratingText(r) }),
    h("span", { class: "rc-games", text: t("profile.games", { n: r.games ?? 0 }) }),
    r.provisional ? h("span", { class: "rc-prov", text: t("rating.provisional") }) : null);
  }));
}

// Round steps for the rating axis.
function niceStep(range) {
  for (const s of [10, 20, 25, 50, 100, 200, 250, 500]) if (range / s <= 5) return s;
  return 1000;
}

const fmtDay = (iso) => {
  const dt = new Date(iso);
  return Number.isNaN(dt.getTime()) ? "" : dt.toLocaleDateString(lang(), { dateStyle: "long" });
};
const shortDate = (iso) => {
  const dt = new Date(iso);
  return Number.isNaN(dt.getTime()) ? "" : dt.toLocaleDateString(lang(), { day: "numeric", month: "short" });
};

function renderChart(d, cat) {
  const box = $("pf-chart");
  const points = (cat && d.history?.[cat]) || [];
  $("pf-chart-title").textContent = cat ? t("profile.historyOf", { cat: categoryName(cat) }) : t("profile.history");
  box.replaceChildren();
  if (!points.length) {
    box.append(h("p", { class: "hint", text: t("profile.noHistory") }));
    return;
  }
  const W = Math.max(260, Math.min(1400, box.clientWidth || 600));
  const H = W < 500 ? 180 : 230;
  const m = { l: 44, r: 14, t: 12, b: 26 };
  const times = points.map((p) => new Date(p.at).getTime());
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const byTime = t1 - t0 > 60000; // else evenly spaced (games within a minute of each other)
  const x = (i) => {
    const f = points.length === 1 ? 0.5 : byTime ? (times[i] - t0) / (t1 - t0) : i / (points.length - 1);
    return m.l + f * (W - m.l - m.r);
  };
  const ratings = points.map((p) => p.rating);
  let lo = Math.min(...ratings);
  let hi = Math.max(...ratings);
  const step = niceStep(Math.max(hi - lo, 40));
  lo = Math.floor((lo - step / 2) / step) * step;
  hi = Math.ceil((hi + step / 2) / step) * step;
  const y = (r) => m.t + (1 - (r - lo) / (hi - lo)) * (H - m.t - m.b);

  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "chart-svg", role: "img",
    "aria-label": t("profile.chartLabel", { cat: categoryName(cat), n: points.length, first: ratings[0], last: ratings.at(-1) }) });
  for (let r = lo; r <= hi; r += step) {
    svgEl("line", { x1: m.l, x2: W - m.r, y1: y(r), y2: y(r), class: "chart-grid" }, svg);
    const label = svgEl("text", { x: m.l - 6, y: y(r), class: "chart-label", "text-anchor": "end", "dominant-baseline": "central" }, svg);
    label.textContent = String(r);
  }
  const dates = [[0, "start"], [points.length - 1, "end"]];
  if (points.length === 1) dates.pop();
  for (const [i, anchor] of dates) {
    const label = svgEl("text", { x: points.length === 1 ? x(i) : i === 0 ? m.l : W - m.r, y: H - 8, class: "chart-label",
      "text-anchor": points.length === 1 ? "middle" : anchor }, svg);
    label.textContent = shortDate(points[i].at);
  }
  svgEl("polyline", { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "), class: "chart-line" }, svg);
  points.forEach((p, i) => {
    const dot = svgEl("circle", { cx: x(i), cy: y(p.rating), r: points.length > 40 ? 2.5 : points.length === 1 ? 5 : 4,
      class: `chart-dot${points.length === 1 ? " single" : ""}`, "data-rating": p.rating,
      tabindex: p.game ? 0 : null }, svg);
    svgEl("title", {}, dot).textContent = `${p.rating} · ${fmtDate(p.at)}${p.game ? ` · ${t("profile.gameCode", { code: p.game })}` : ""}`;
    if (p.game) {
      const go = () => app.navigate(`/g/${p.game}`);
      dot.addEventListener("click", go);
      dot.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") go();
      });
    }
  });
  box.append(svg);
}

function renderTotals(d) {
  const T = d.totals ?? {};
  const row = (label, x) => h("tr", {},
    h("th", { scope: "row", text: label }),
    h("td", { class: "wins", text: String(x.wins ?? 0) }),
    h("td", { class: "draws", text: String(x.draws ?? 0) }),
    h("td", { class: "losses", text: String(x.losses ?? 0) }));
  const s = T.silver ?? {};
  const b = T.bronze ?? {};
  const sum = (k) => (s[k] ?? 0) + (b[k] ?? 0);
  $("pf-totals").replaceChildren(
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "" }), h("th", { scope: "col", text: t("profile.wins") }),
      h("th", { scope: "col", text: t("profile.draws") }), h("th", { scope: "col", text: t("profile.losses") }))),
    h("tbody", {}, row(t("profile.asSilver"), s), row(t("profile.asBronze"), b)),
    h("tfoot", {}, row(t("profile.total"), { wins: sum("wins"), draws: sum("draws"), losses: sum("losses") })));
}

function outcomeFor(g, side) {
  const r = g.result;
  if (g.status === "open" || g.status === "playing" || g.status === "suspended") return "playing";
  if (!r || g.status === "aborted" || r.reason === "aborted") return "aborted";
  if (r.winner === "draw") return "draw";
  return r.winner === side ? "won" : "lost";
}

function renderRecentOf(d) {
  const list = $("pf-recent");
  const games = d.recent ?? [];
  $("pf-recent-empty").hidden = games.length > 0;
  list.replaceChildren(...games.map((g) => {
    const side = ["silver", "bronze"].find((s) => g.players?.[s]?.id === d.player_id) ?? "silver";
    const opp = g.players?.[other(side)];
    const res = outcomeFor(g, side);
    const cat = g.rated ? categoryOf(g.variant, g.time_control) : null;
    // a rated game's category says the board and the speed; then only a clock is worth adding
    const what = [SideName(side), g.rated ? t("game.rated", { cat: categoryName(cat ?? "untimed") }) : t("game.casual"),
      cat ? (g.time_control ? tcText(g.time_control) : null) : `${variantText(g.variant)} · ${tcText(g.time_control)}`,
      g.result?.score ? t("score.line", g.result.score) : null, fmtDate(g.finished_at ?? g.created_at)].filter(Boolean).join(" · ");
    const open = h("a", { class: "button small", href: `/g/${g.code}`, text: t("profile.openGame", { code: g.code }) });
    open.addEventListener("click", (ev) => {
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
      ev.preventDefault();
      app.navigate(`/g/${g.code}`);
    });
    return h("li", { "data-code": g.code },
      h("span", { class: `badge ${res}`, text: t(`outcome.${res}`) }),
      h("span", { class: "who" }, t("profile.vs"), " ",
        opp ? playerLink(opp, { rated: !!g.rated, cls: "opp" }) : h("span", { text: g.bot ? t("recent.computer", { n: g.bot }) : "—" })),
      h("span", { class: "what", text: what }),
      open);
  }));
}

// The chart is drawn for the width it has: again when that changes.
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (S.route.view === "profile" && S.profile?.data) renderChart(S.profile.data, S.profile.cat);
  }, 150);
});
