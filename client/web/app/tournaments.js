// Tournaments (PROTOCOL.md "Tournaments", docs/TOURNAMENTS.md), fed from the HTTP API:
//   /tournaments  the list (GET /api/tournaments: playing now, starting soon, finished lately),
//                 and the form that makes one (POST /api/tournament) for a signed-in account;
//   /t/ID         one (GET /api/tournament/ID, polled every 2 s while the page shows it and it
//                 is not over): its settings and phase with a countdown, Join / Withdraw (with
//                 its password when it has one), the live standings (an arena's sheet with fire
//                 and berserk, a Swiss's score and tie-breaks), the viewer's game being played,
//                 the games, and once finished the podium and the report to download.
// The standings are redrawn only when they changed (a link keeps the keyboard's focus); the
// countdowns tick on their own, once a second, without a redraw.
import { $, h, tcText, variantText, fmtDays, QUICK_VARIANTS } from "./dom.js";
import { t, lang, hasText, fmtDate } from "./i18n.js";
import { S, app } from "./state.js";
import { getTournaments, getTournament, createTournament, joinTournament, withdrawTournament, tournamentReportUrl } from "./api.js";
import { playerLink } from "./ratings.js";
import { svgEl } from "./board.js";
import { toast, openSignIn } from "./account.js";
import { berserkIcon } from "./berserk.js";

const TOUR_POLL_MS = 2000; // one tournament, while shown
const TOUR_POLL_SLOW_MS = 10000; // ... in a tab in the background, or long before the start
const TOUR_LIST_POLL_MS = 15000;
const TOUR_GAMES_SHOWN = 60;

// S.tours: {list: {data, error, loading}, one: {id, data, error, missing, loading},
//           form: {busy, fail}, act: {busy, fail}}
S.tours = { list: null, one: null, form: { busy: false, fail: null }, act: { busy: false, fail: null } };
let tourPoll = null;
let tourTicker = null;
let tourSeq = 0;
let tourDrawn = ""; // what the standings and games were last tourDrawn from

const tourGo = (url) => (ev) => {
  if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  ev.preventDefault();
  app.navigate(url);
};
const tourLink = (url, props, ...children) => h("a", { href: url, ...props, onclick: tourGo(url) }, ...children);

// A refusal of the API in words: ours for the codes we know (in English the server's own
// sentence for bad_request, which says what is wrong), else the server's.
function tourRefusal(e) {
  const k = `tour.err.${e.code}`;
  if (e.code === "bad_request") return t("tour.err.bad_request", { reason: e.body?.message ?? e.message });
  return e.code && hasText(k) ? t(k) : e.body?.message ?? e.message;
}

// ------------------------------------------------------------------ words
const tourKind = (T) => t(T.kind === "swiss" ? "tour.swiss" : "tour.arena");
function tourBoard(v) {
  for (const [name, q] of Object.entries(QUICK_VARIANTS))
    if (name !== "tiny" && v && v.size === q.size && v.elephants === q.elephants && v.burnt === q.burnt && v.quiet === q.quiet)
      return t(`tour.board.${name}`);
  return variantText(v);
}
const tourRated = (T) => t(T.rated ? "tour.rated" : "tour.casual");
const tourPts = (n) => (Number.isInteger(n) ? String(n) : n.toLocaleString(lang(), { maximumFractionDigits: 2 }));

// The phase in words, with the time it counts down to (null: none): "Starts in {left}".
function tourPhaseWords(T, now = Date.now()) {
  if (T.phase === "created") {
    const left = T.starts_at - now;
    return left > 0 ? t("tour.startsIn", { left: fmtDays(left) }) : t("tour.starting");
  }
  if (T.phase === "running") {
    if (T.kind === "swiss") return T.round > 0 ? t("tour.round", { n: T.round, of: T.rounds }) : t("tour.starting");
    const left = (T.ends_at ?? 0) - now;
    return left > 0 ? t("tour.endsIn", { left: fmtDays(left) }) : t("tour.ending");
  }
  return t(T.phase === "cancelled" ? "tour.cancelled" : "tour.finished");
}
const tourTicks = (T) => T.phase === "created" || (T.phase === "running" && T.kind === "arena");

// A countdown kept up to date by the ticker: its text is phaseWords of the tournament.
const tourCountdown = (T, cls) => {
  const e = h("span", { class: cls, text: tourPhaseWords(T) });
  if (tourTicks(T)) e._tour = T;
  return e;
};
function tourTick() {
  for (const e of document.querySelectorAll("#tournaments .tl-status, #tn-clock")) if (e._tour) e.textContent = tourPhaseWords(e._tour);
}
function tourStartTicker() {
  if (!tourTicker) tourTicker = setInterval(tourTick, 1000);
}

// ------------------------------------------------------------------ the list
export function openTournaments() {
  tourStartTicker();
  loadTourList();
}

function loadTourList() {
  clearTimeout(tourPoll);
  const n = ++tourSeq;
  const L = S.tours.list ?? (S.tours.list = { data: null, error: null, loading: true });
  L.loading = !L.data;
  getTournaments().then((d) => {
    if (n !== tourSeq) return;
    L.data = d;
    L.error = null;
  }, (e) => {
    if (n === tourSeq) L.error = e.message;
  }).finally(() => {
    if (n !== tourSeq || S.route.view !== "tournaments") return;
    L.loading = false;
    app.render();
    tourPoll = setTimeout(loadTourList, TOUR_LIST_POLL_MS);
  });
}

function tourListRow(T) {
  const facts = [tourKind(T), tourBoard(T.variant), tcText(T.time_control), tourRated(T)];
  if (T.password) facts.push(t("tour.password"));
  else if (!T.public) facts.push(t("tour.private"));
  const players = T.max_players ? t("tour.playersOf", { n: T.players, max: T.max_players }) : t("tour.players", { n: T.players });
  const when = T.phase === "created" ? fmtDate(new Date(T.starts_at).toISOString())
    : T.finished_at ? fmtDate(new Date(T.finished_at).toISOString()) : "";
  return h("li", { class: `tl-row tl-${T.phase}`, "data-id": T.id },
    tourLink(`/t/${T.id}`, { class: "who tl-name", text: T.name }),
    h("span", { class: "what" }, facts.join(" · "), h("br"), `${players}${when ? ` · ${when}` : ""}`),
    tourCountdown(T, `tl-status badge ${T.phase}`));
}

function renderTourList() {
  const L = S.tours.list;
  $("tl-loading").hidden = !L?.loading;
  $("tl-error").hidden = !L?.error;
  $("tl-error").textContent = L?.error ? t("tour.listFailed", { reason: L.error }) : "";
  const all = L?.data ?? [];
  const groups = {
    running: all.filter((x) => x.phase === "running").sort((a, b) => b.players - a.players),
    upcoming: all.filter((x) => x.phase === "created").sort((a, b) => a.starts_at - b.starts_at),
    finished: all.filter((x) => x.phase === "finished" || x.phase === "cancelled").sort((a, b) => (b.finished_at ?? b.starts_at) - (a.finished_at ?? a.starts_at)),
  };
  for (const [g, rows] of Object.entries(groups)) {
    $(`tl-${g}`).replaceChildren(...rows.map(tourListRow));
    $(`tl-${g}-empty`).hidden = !L?.data || rows.length > 0;
  }
  const signedIn = !!S.me?.account;
  $("tl-form").hidden = !signedIn;
  $("tl-guest").hidden = signedIn;
  const F = S.tours.form;
  $("tl-create").disabled = F.busy;
  $("tl-form-err").hidden = !F.fail;
  $("tl-form-err").textContent = F.fail ?? "";
  tourFormKind();
}

// ------------------------------------------------------------------ the form
function tourFormKind() {
  const swiss = $("tl-kind").value === "swiss";
  $("tl-minutes-field").hidden = swiss;
  $("tl-rounds-field").hidden = !swiss;
  $("tl-gap-field").hidden = !swiss;
  $("tl-berserk-field").hidden = swiss; // arenas only: a Swiss must not send it
  $("tl-password-field").hidden = !$("tl-private").checked;
}

// The whole number in field `id`, within [lo, hi], else null (and the field marked).
function tourWhole(id, lo, hi) {
  const el = $(id);
  const v = Number(el.value);
  const ok = el.value.trim() !== "" && Number.isInteger(v) && v >= lo && v <= hi;
  el.setAttribute("aria-invalid", ok ? "false" : "true");
  return ok ? v : null;
}

function submitTourForm(ev) {
  ev.preventDefault();
  const F = S.tours.form;
  if (F.busy) return;
  const kind = $("tl-kind").value;
  const checks = [
    ["tl-starts", 0, 7 * 24 * 60, "tour.form.startsRange"],
    kind === "arena" ? ["tl-minutes", 1, 240, "tour.form.minutesRange"] : ["tl-rounds", 1, 20, "tour.form.roundsRange"],
    ["tl-max", 0, 1000, "tour.form.maxRange"],
  ];
  const values = {};
  for (const [id, lo, hi, key] of checks) {
    values[id] = tourWhole(id, lo, hi);
    if (values[id] === null || (id === "tl-max" && values[id] === 1)) {
      F.fail = t(key);
      app.render();
      $(id).focus();
      return;
    }
  }
  const name = $("tl-name").value.trim();
  if (name && (name.length < 2 || name.length > 40)) {
    F.fail = t("tour.form.nameLength");
    app.render();
    $("tl-name").focus();
    return;
  }
  const priv = $("tl-private").checked;
  const password = priv ? $("tl-password").value : "";
  const body = {
    kind,
    variant: { ...QUICK_VARIANTS[$("tl-board").value] },
    time_control: { initial_ms: Math.round(Number($("tl-initial").value) * 60000), increment_ms: Number($("tl-increment").value) * 1000 },
    rated: $("tl-rated").checked,
    starts_in_s: values["tl-starts"] * 60,
    max_players: values["tl-max"],
    public: !priv,
    bots: $("tl-bots").checked,
  };
  if (name) body.name = name;
  if (password) body.password = password;
  if (kind === "arena") {
    body.minutes = values["tl-minutes"];
    body.berserk = $("tl-berserk").checked;
  } else {
    body.rounds = values["tl-rounds"];
    body.round_gap_s = Number($("tl-gap").value);
  }
  F.busy = true;
  F.fail = null;
  app.render();
  createTournament(body).then((d) => {
    toast(t("tour.made", { name: name || t(kind === "swiss" ? "tour.defaultSwiss" : "tour.defaultArena", { name: S.me?.account?.username ?? "" }) }));
    $("tl-name").value = "";
    S.tours.list = null; // the list is read again on the way back
    app.navigate(d.link ?? `/t/${d.id}`);
  }, (e) => {
    F.fail = tourRefusal(e);
  }).finally(() => {
    F.busy = false;
    app.render();
  });
}

// ------------------------------------------------------------------ one tournament
export function openTournament(id) {
  tourStartTicker();
  const O = S.tours.one;
  if (O && O.id === id && (O.loading || O.data)) {
    if (!O.loading) loadTour(true);
    return;
  }
  S.tours.one = { id, data: null, error: null, missing: false, loading: true };
  S.tours.act = { busy: false, fail: null };
  tourDrawn = "";
  $("tn-password").value = "";
  loadTour();
}

// Stops the polling and the ticker (the page was left).
export function closeTournaments() {
  clearTimeout(tourPoll);
  tourPoll = null;
  tourSeq++;
  clearInterval(tourTicker);
  tourTicker = null;
  if (S.tours.one) S.tours.one.loading = false;
}

const tourOver = (T) => T && (T.phase === "finished" || T.phase === "cancelled");

function loadTour(now = false) {
  clearTimeout(tourPoll);
  const O = S.tours.one;
  if (!O) return;
  const n = ++tourSeq;
  if (!now) O.loading = !O.data;
  getTournament(O.id).then((d) => {
    if (n !== tourSeq || O !== S.tours.one) return;
    O.data = d;
    O.error = null;
  }, (e) => {
    if (n !== tourSeq || O !== S.tours.one) return;
    if (e.status === 404) O.missing = true;
    else O.error = e.message; // kept on the page with the last standings; polled again
  }).finally(() => {
    if (n !== tourSeq || O !== S.tours.one) return;
    O.loading = false;
    if (S.route.view !== "tournament" || S.route.code !== O.id) return;
    app.render();
    // every 2 s while it is played or about to start; slower in a tab in the background, or
    // while the start is more than a minute away
    const far = O.data?.phase === "created" && O.data.starts_at - Date.now() > 60000;
    if (!O.missing && !tourOver(O.data)) tourPoll = setTimeout(() => loadTour(), document.hidden || far ? TOUR_POLL_SLOW_MS : TOUR_POLL_MS);
  });
}

const tourMyRow = (T) => (S.me ? T.standings.find((r) => r.id === S.me.player_id) : null);

function tourAct(what) {
  const A = S.tours.act;
  const O = S.tours.one;
  if (A.busy || !O?.data) return;
  const T = O.data;
  const password = $("tn-password").value;
  if (what === "join" && T.password && !password) {
    A.fail = t("tour.needPassword");
    app.render();
    $("tn-password").focus();
    return;
  }
  A.busy = true;
  A.fail = null;
  app.render();
  (what === "join" ? joinTournament(T.id, T.password ? password : null) : withdrawTournament(T.id)).then((d) => {
    toast(t(what === "join" ? (d.joined === "back" ? "tour.joinedBack" : "tour.joined") : "tour.withdrawn", { name: T.name }));
    if (what === "join") $("tn-password").value = "";
  }, (e) => {
    A.fail = tourRefusal(e);
  }).finally(() => {
    A.busy = false;
    if (O === S.tours.one) loadTour(true);
    app.render();
  });
}

// A small flame: a player on fire, a game that scored double (an SVG: emoji fonts are not everywhere).
function tourFlame(label) {
  const svg = svgEl("svg", { viewBox: "0 0 12 16", width: 12, height: 16, class: "tn-flame", role: "img", "aria-label": label });
  svgEl("title", {}, svg).textContent = label;
  svgEl("path", { d: "M6 0C7 4 11 6 11 10.5A5 5 0 0 1 1 10.5C1 8 2.5 6.5 3.5 5.5C3.5 7.5 4.5 8.5 5.5 8.5C5 6 4.5 3 6 0Z" }, svg);
  return svg;
}

function tourPlayerCell(r, T) {
  const cell = h("td", { class: "lb-name" }, playerLink({ name: r.name, bot: r.bot }, { rated: true }));
  if (T.kind === "arena" && r.fire) cell.append(" ", tourFlame(t("tour.onFire")));
  if (!r.active) cell.append(" ", h("span", { class: "tn-out", text: t("tour.withdrawnTag") }));
  else if (r.playing) cell.append(" ", tourLink(`/g/${r.playing}`, { class: "tn-live" }, t("tour.playingNow"), h("span", { class: "sr-only", text: ` (${t("tour.watchGame", { name: r.name })})` })));
  return cell;
}

// An arena's sheet: each game's points, those on fire in orange, a berserk win's extra point
// marked with the crossed swords.
function tourSheet(r) {
  return h("td", { class: "tn-sheet" }, ...r.sheet.map((e) => {
    const why = [e.fire ? t("tour.doubled") : null, e.berserk ? t("tour.berserkPoint") : null].filter(Boolean).join("; ");
    return h("span", { class: `tn-pt${e.fire ? " fire" : ""}${e.berserk ? " berserk" : ""}${e.points === 0 ? " zero" : ""}`,
      title: why || null, text: String(e.points) },
    e.berserk ? berserkIcon(null, 12) : null,
    why ? h("span", { class: "sr-only", text: ` (${why})` }) : null);
  }));
}

function tourHead(T) {
  const th = (key, cls = null) => h("th", { scope: "col", class: cls, text: t(key) });
  return T.kind === "arena"
    ? [th("tour.col.rank", "lb-rank"), th("tour.col.player"), th("tour.col.rating", "tn-num wide-only"), th("tour.col.sheet", "tn-sheet"), th("tour.col.points", "tn-num")]
    : [th("tour.col.rank", "lb-rank"), th("tour.col.player"), th("tour.col.rating", "tn-num wide-only"), th("tour.col.score", "tn-num"),
      h("th", { scope: "col", class: "tn-num" }, h("abbr", { title: t("tour.col.buchholzLong"), text: t("tour.col.buchholz") })),
      h("th", { scope: "col", class: "tn-num" }, h("abbr", { title: t("tour.col.sbLong"), text: t("tour.col.sb") })),
      th("tour.col.wdl", "tn-num wide-only")];
}

function tourRow(r, T, me) {
  const td = (text, cls = "tn-num") => h("td", { class: cls, text });
  const cells = T.kind === "arena"
    ? [td(String(r.rank), "lb-rank"), tourPlayerCell(r, T), td(String(r.rating), "tn-num wide-only"), tourSheet(r), td(tourPts(r.points), "tn-num tn-points")]
    : [td(String(r.rank), "lb-rank"), tourPlayerCell(r, T), td(String(r.rating), "tn-num wide-only"), td(tourPts(r.score), "tn-num tn-points"),
      td(tourPts(r.buchholz)), td(tourPts(r.sonneborn_berger)), td(`${r.wins}/${r.draws}/${r.losses}`, "tn-num wide-only")];
  return h("tr", { class: `${r.id === me ? "me" : ""}${r.active ? "" : " out"}`.trim() || null, "data-player": r.name }, ...cells);
}

function tourResult(g) {
  if (!g.ended) return t("tour.game.playing");
  if (g.result === "draw") return t("tour.game.draw");
  if (g.result === "silver" || g.result === "bronze") return t("tour.game.won", { name: g[g.result].name });
  return t("tour.game.aborted");
}

function tourGame(g, T, me) {
  const mine = me && (g.silver.id === me || g.bronze.id === me);
  const score = !g.ended ? "*" : g.result === "silver" ? "1–0" : g.result === "bronze" ? "0–1" : g.result === "draw" ? "½–½" : "–";
  return h("li", { class: `tn-game${mine ? " mine" : ""}${g.ended ? "" : " live"}`, "data-code": g.code },
    tourLink(`/g/${g.code}`, { class: "who" }, `${g.silver.name} – ${g.bronze.name}`),
    h("span", { class: "tn-score", "aria-hidden": "true", text: score }),
    h("span", { class: "what", text: [T.kind === "swiss" && g.round ? t("tour.roundShort", { n: g.round }) : null, tourResult(g)].filter(Boolean).join(" · ") }));
}

// A Swiss's bye, among the games: the player sits the round out with a point.
function tourBye(b, me) {
  const mine = me && b.player.id === me;
  return h("li", { class: `tn-game tn-bye${mine ? " mine" : ""}` },
    h("span", { class: "who", text: b.player.name }),
    h("span", { class: "tn-score", "aria-hidden": "true", text: "1" }),
    h("span", { class: "what", text: [t("tour.roundShort", { n: b.round }), t("tour.bye")].join(" · ") }));
}

function tourPodium(T) {
  const top = T.standings.slice(0, 3);
  return top.map((r, i) => h("li", { class: `tn-place p${i + 1}` },
    h("span", { class: "tn-medal", text: t(`tour.place${i + 1}`) }),
    playerLink({ name: r.name, bot: r.bot }, { rated: true }),
    h("span", { class: "tn-place-pts", text: t(T.kind === "arena" ? "tour.podiumPoints" : "tour.podiumScore", { n: tourPts(T.kind === "arena" ? r.points : r.score) }) })));
}

function renderTour() {
  const O = S.tours.one;
  if (!O) return;
  const T = O.data;
  $("tn-loading").hidden = !O.loading || !!T || O.missing;
  $("tn-missing").hidden = !O.missing;
  $("tn-error").hidden = !O.error;
  $("tn-error").textContent = O.error ? t("tour.loadFailed", { reason: O.error }) : "";
  $("tn-body").hidden = !T || O.missing;
  if (!T || O.missing) return;
  $("tn-name").textContent = T.name;
  const facts = [tourKind(T), tourBoard(T.variant), tcText(T.time_control), tourRated(T),
    T.kind === "arena" ? t("tour.minutes", { n: T.minutes }) : t("tour.rounds", { n: T.rounds })];
  if (T.kind === "arena" && typeof T.berserk === "boolean") facts.push(t(T.berserk ? "tour.berserkOn" : "tour.berserkOff"));
  if (T.password) facts.push(t("tour.password"));
  else if (!T.public) facts.push(t("tour.private"));
  if (!T.bots) facts.push(t("tour.noBots"));
  $("tn-meta").textContent = facts.join(" · ");
  const by = T.created_by ? [t("tour.by"), " ", playerLink({ name: T.created_by.name }, { rated: true }), " · "] : [];
  $("tn-who").replaceChildren(...by, T.max_players ? t("tour.playersOf", { n: T.players, max: T.max_players }) : t("tour.players", { n: T.players }));
  $("tn-phase").textContent = t(`tour.phase.${T.phase}`);
  $("tn-phase").className = `badge ${T.phase}`;
  const clock = $("tn-clock");
  clock._tour = tourTicks(T) ? T : null;
  clock.textContent = T.phase === "finished" || T.phase === "cancelled" ? (T.finished_at ? fmtDate(new Date(T.finished_at).toISOString()) : "") : tourPhaseWords(T);
  $("tn-when").textContent = T.phase === "created" ? t("tour.startsAt", { date: fmtDate(new Date(T.starts_at).toISOString()) }) : "";

  // joining and withdrawing
  const me = S.me?.player_id ?? null;
  const mine = tourMyRow(T);
  const entered = !!mine?.active;
  const open = T.phase === "created" || T.phase === "running";
  const signedIn = !!S.me?.account;
  const A = S.tours.act;
  $("tn-join").hidden = !signedIn || !open || entered;
  $("tn-join").textContent = t(mine && !mine.active ? "tour.rejoin" : "tour.join");
  $("tn-pw-field").hidden = $("tn-join").hidden || !T.password;
  $("tn-withdraw").hidden = !signedIn || !open || !entered;
  $("tn-join").disabled = $("tn-withdraw").disabled = A.busy;
  $("tn-signin").hidden = signedIn || !open;
  $("tn-entered").hidden = !entered || !open;
  $("tn-entered").textContent = entered ? t(T.phase === "created" ? "tour.enteredWait" : mine.playing ? "tour.enteredPlaying" : "tour.enteredPairing") : "";
  $("tn-act-err").hidden = !A.fail;
  $("tn-act-err").textContent = A.fail ?? "";
  const yours = $("tn-yourgame");
  yours.hidden = !(entered || mine) || !mine?.playing;
  if (mine?.playing) yours.setAttribute("href", `/g/${mine.playing}`);

  // podium and report
  const finished = T.phase === "finished";
  $("tn-podium").hidden = !finished || !T.standings.length;
  $("tn-report").hidden = !finished;
  $("tn-report").setAttribute("href", tournamentReportUrl(T.id));
  $("tn-report").setAttribute("download", `tournament-${T.id}.txt`);

  // the standings and the games: redrawn when they changed
  const key = JSON.stringify([lang(), me, T.phase, T.standings, T.games, T.byes]);
  if (key === tourDrawn) return;
  tourDrawn = key;
  if (finished) $("tn-podium-list").replaceChildren(...tourPodium(T));
  $("tn-thead").replaceChildren(...tourHead(T));
  $("tn-rows").replaceChildren(...T.standings.map((r) => tourRow(r, T, me)));
  $("tn-table").hidden = !T.standings.length;
  $("tn-empty").hidden = T.standings.length > 0;
  $("tn-legend").hidden = T.kind !== "arena" || !T.standings.length;
  $("tn-legend").replaceChildren(...(T.kind !== "arena" ? [] : !T.berserk ? [t("tour.arenaLegend")]
    : [t("tour.arenaLegend"), " ", h("span", { class: "tn-legend-berserk" }, berserkIcon(null, 14), " ", t("tour.berserkLegend"))]));
  // A bye stands with its round's games (when they were paired), after them.
  const roundAt = new Map();
  for (const g of T.games) if (g.round) roundAt.set(g.round, Math.max(roundAt.get(g.round) ?? 0, g.paired_at));
  const games = [...T.games, ...(T.byes ?? []).map((b) => ({ bye: b, ended: true, paired_at: roundAt.get(b.round) ?? 0 }))]
    .sort((a, b) => (a.ended - b.ended) || (b.paired_at - a.paired_at) || (!!a.bye - !!b.bye));
  $("tn-games").replaceChildren(...games.slice(0, TOUR_GAMES_SHOWN).map((g) => (g.bye ? tourBye(g.bye, me) : tourGame(g, T, me))));
  $("tn-games-empty").hidden = games.length > 0;
  $("tn-games-more").hidden = games.length <= TOUR_GAMES_SHOWN;
  $("tn-games-more").textContent = t("tour.moreGames", { n: games.length - TOUR_GAMES_SHOWN });
}

export function renderTournaments() {
  if (S.route.view === "tournaments") renderTourList();
  else if (S.route.view === "tournament") renderTour();
}

export const tournamentTitle = () => (S.route.view === "tournament" && S.tours.one?.data ? S.tours.one.data.name : null);

export function setupTournaments() {
  $("tl-form").addEventListener("submit", submitTourForm);
  for (const id of ["tl-kind", "tl-private"]) $(id).addEventListener("change", tourFormKind);
  for (const id of ["tl-guest-signin", "tn-signin-btn"]) $(id).addEventListener("click", () => openSignIn("login"));
  $("tn-join").addEventListener("click", () => tourAct("join"));
  $("tn-withdraw").addEventListener("click", () => tourAct("withdraw"));
  $("tn-password").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") tourAct("join");
  });
  $("tn-yourgame").addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    app.navigate($("tn-yourgame").getAttribute("href"));
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && S.route.view === "tournament" && tourPoll) loadTour(true);
  });
}
