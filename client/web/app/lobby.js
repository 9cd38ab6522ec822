// The lobby: an account's games being played (playing.js), quick match, creating a game (also
// against the computer; real time, untimed or correspondence), joining by code or link, display
// name, the player's other games in progress, open games, live games to watch (with the
// players' presence; games both players left are not listed) and recent finished games
// (history API). It needs no rules: it is shown before the WebAssembly module is loaded.
import { $, h, other, variantText, tcText, scoreText, sideName, errorText, QUICK_VARIANTS } from "./dom.js";
import { renderDevice, setupDevice } from "./devicecard.js";
import { t, fmtDate } from "./i18n.js";
import { S, app, send, sendCreate, mySide, storedName, NAME_KEY } from "./state.js";
import { listGames } from "./api.js";
import { ratedVariant, categoryOf, categoryName, ratingSpan, botBadge } from "./ratings.js";
import { openSignIn } from "./account.js";
import { renderPlayingCard } from "./playing.js";


// Text (or an error object) shown above the lobby; "" hides it.
export function showLobbyError(text) {
  const e = $("lobby-error");
  e.textContent = typeof text === "string" ? text : errorText(text);
  e.hidden = !e.textContent;
}

// A game code from a code, a /g/CODE path or a whole link (…/g/CODE), as typed or pasted: codes
// are case-insensitive, the server's are lowercase.
export function parseCode(s) {
  s = (s ?? "").trim();
  const m = s.match(/\/g\/([A-Za-z0-9_-]+)\/?(?:[?#].*)?$/);
  if (m) return m[1].toLowerCase();
  return /^[A-Za-z0-9_-]{1,32}$/.test(s) ? s.toLowerCase() : null;
}

// ------------------------------------------------------------------ recent finished games
export async function loadRecent(more = false) {
  const R = S.recent;
  if (!S.me || R.loading) return;
  const before = more ? R.next : null;
  if (more && !before) return;
  R.loading = true;
  R.loadedFor = S.me.player_id;
  try {
    const page = await listGames({ status: "finished", player: S.me.player_id, limit: 10, before });
    R.games = more ? [...R.games, ...page.games] : page.games;
    R.next = page.next;
    R.error = null;
  } catch (e) {
    R.error = e.message;
  } finally {
    R.loading = false;
    app.render();
  }
}

function outcome(g, side) {
  const r = g.result;
  if (!r || g.status === "aborted" || r.reason === "aborted") return "aborted";
  if (r.winner === "draw") return "draw";
  if (!side) return r.winner ? `won-${r.winner}` : "none";
  return r.winner === side ? "won" : "lost";
}

function renderRecent() {
  const R = S.recent;
  const list = $("recent-games");
  const items = [];
  for (const g of R.games) {
    const side = ["silver", "bronze"].find((s) => g.players?.[s]?.id === S.me?.player_id) ?? null;
    const opp = side ? g.players?.[other(side)] : null;
    const res = outcome(g, side);
    const why = g.result?.reason ? t(`reason.${g.result.reason}`) : "";
    items.push(h("li", { "data-code": g.code },
      h("span", { class: `badge ${res.split("-")[0]}`, text: t(`outcome.${res.split("-")[0]}`) }),
      h("span", { class: "who", text: t("recent.vs", { name: opp?.name ?? (g.bot ? t("recent.computer", { n: g.bot }) : "—") }) }),
      h("span", { class: "what", text: [side ? t("recent.played", { side: sideName(side) }) : null, g.result?.score ? scoreText(g.result.score) : null,
        why, t("recent.turns", { n: g.turns }), fmtDate(g.finished_at ?? g.created_at)].filter(Boolean).join(" · ") }),
      h("button", { type: "button", class: "replay small", text: t("recent.replay"), onclick: () => app.navigate(`/#replay/${g.code}`) })));
  }
  list.replaceChildren(...items);
  $("recent-empty").hidden = R.games.length > 0 || R.loading || !!R.error;
  const err = $("recent-error");
  err.hidden = !R.error;
  err.textContent = R.error ? t("recent.error", { reason: R.error }) : "";
  $("recent-more").hidden = !R.next;
  $("recent-more").disabled = R.loading;
}

// The players of a live game with their presence: "Ann – Bob (away)".
function livePlayers(g) {
  const p = g.players ?? {};
  const away = g.away ?? null;
  const one = (s) => h("span", { class: `lp ${s}${away?.[s] ? " away" : ""}`, "data-side": s },
    h("span", { class: `presence ${away ? (away[s] ? "away" : "here") : "unknown"}` }, h("span", { class: "dot", "aria-hidden": "true" })),
    p[s]?.bot ? botBadge() : null, p[s]?.bot ? " " : null,
    h("span", { class: "lp-name", text: p[s]?.name ?? "?" }),
    g.rated ? ratingSpan(g.ratings?.[s]) : null,
    away?.[s] ? h("span", { class: "lp-away", text: ` (${t("live.away")})` }) : null);
  return h("span", { class: "who" }, one("silver"), " – ", one("bronze"));
}

// "Rated" or "Casual" for a listed game (its board and clock follow).
const ratedWord = (g) => t(g.rated ? "game.ratedShort" : "game.casual");

// The "Rated" switches: for accounts, for a game with a person on a rated board; otherwise off,
// with the reason next to it.
function renderRatedToggles() {
  const acct = !!S.me?.account;
  const createVariant = { size: Number($("cv-size").value), elephants: Number($("cv-elephants").value),
    burnt: Number($("cv-burnt").value), quiet: Number($("cv-quiet").value) };
  // Against the computer a rated game is a challenge to its house bot (PROTOCOL.md "House bots").
  const bot = Number($("cv-opponent").value) || null;
  const cvOk = acct && ratedVariant(createVariant);
  const cv = $("cv-rated");
  cv.disabled = !cvOk;
  if (!cvOk) cv.checked = false;
  const cvHint = !acct ? "guest" : !ratedVariant(createVariant) ? "variant" : null;
  ratedHint($("cv-rated-hint"), cvHint, createVariant, timeControl($("cv-time").value), bot);
  const qmVariant = QUICK_VARIANTS[$("qm-variant").value] ?? QUICK_VARIANTS.standard;
  const qmOk = acct && ratedVariant(qmVariant);
  const qm = $("qm-rated");
  qm.disabled = !qmOk;
  if (!qmOk) qm.checked = false;
  ratedHint($("qm-rated-hint"), !acct ? "guest" : !ratedVariant(qmVariant) ? "variant" : null, qmVariant, timeControl($("qm-time").value));
}

// The words next to a Rated switch (`why`: guest, variant, or null: the category it counts for,
// against the house bot of level `house` when given); the challenge form (challenge.js) has one
// too.
export function ratedHint(el, why, variant, tc, house = null) {
  el.replaceChildren();
  el.dataset.why = why ?? "";
  if (why === "guest") {
    el.append(h("button", { type: "button", class: "linkish", text: t("rated.signIn"), onclick: () => openSignIn("login") }),
      ` ${t("rated.toPlayRated")}`);
  } else if (why === "variant") el.textContent = t("rated.noVariant");
  else if (house) el.textContent = t("rated.house", { cat: categoryName(categoryOf(variant, tc)), name: `Level${house}` });
  else el.textContent = t("rated.category", { cat: categoryName(categoryOf(variant, tc)) });
}

// ------------------------------------------------------------------ rendering
export function renderLobby() {
  $("name-input").placeholder = S.me?.name ?? t("name.placeholder");
  // An account's name is its username: no display name to choose.
  $("name-form").hidden = !!S.me?.account;
  renderRatedToggles();
  renderDevice();

  const open = $("open-games");
  open.replaceChildren(...S.lobby.map((g) => {
    const mine = S.me && g.creator?.id === S.me.player_id;
    const side = g.creator_side ? t("open.creatorPlays", { side: sideName(g.creator_side) }) : t("open.random");
    return h("li", { "data-code": g.code, "data-rated": g.rated ? "1" : "0" },
      h("span", { class: "who" }, h("span", { class: "creator", text: g.creator?.name ?? "?" }), g.rated ? ratingSpan(g.creator_rating) : null),
      h("span", { class: "what", text: [ratedWord(g), variantText(g.variant), tcText(g.time_control), side].join(" · ") }),
      mine
        ? h("button", { type: "button", class: "cancel small", text: t("open.cancel"), onclick: () => send({ type: "cancel_game", code: g.code }) })
        : h("button", { type: "button", class: "primary join small", text: t("open.join"),
          // a rated game is for accounts: a guest signs in first
          onclick: () => (g.rated && !S.me?.account ? openSignIn("login") : app.joinGame(g.code)) }));
  }));
  $("open-empty").hidden = S.lobby.length > 0;

  // Games whose two players both left are not worth watching (the server drops them too).
  const live = S.live.filter((g) => !(g.away?.silver && g.away?.bronze));
  $("live-games").replaceChildren(...live.map((g) => h("li", { "data-code": g.code, "data-rated": g.rated ? "1" : "0" },
    livePlayers(g),
    h("span", { class: "what", text: [ratedWord(g), variantText(g.variant), tcText(g.time_control),
      t("live.turn", { n: (g.turns ?? 0) + 1, side: g.to_move ? sideName(g.to_move) : "" }), scoreText(g.score),
      t("game.spectators", { n: g.spectators ?? 0 }), g.status === "suspended" ? t("live.suspended") : null].filter(Boolean).join(" · ") }),
    h("button", { type: "button", class: "watch small", text: t("live.watch"), onclick: () => app.navigate(`/g/${g.code}`) }))));
  $("live-empty").hidden = live.length > 0;

  renderPlayingCard();
  // The page's other games of the player's: open ones, and a guest's (an account's games being
  // played are in the card above).
  const listed = new Set(S.playing.games.map((g) => g.code));
  const mine = [];
  for (const G of S.games.values()) {
    const side = mySide(G);
    if (!side || !(G.status === "open" || G.status === "playing") || G.result || listed.has(G.code)) continue;
    const opp = G.players[other(side)];
    mine.push(h("li", { "data-code": G.code },
      h("span", { class: "who", text: t("recent.vs", { name: opp ? opp.name : t("mine.waiting") }) }),
      h("span", { class: "what", text: t(G.status === "open" ? "mine.open" : "mine.playing", { code: G.code, side: sideName(side) }) }),
      h("button", { type: "button", class: "primary small", text: t("mine.openBtn"), onclick: () => app.navigate(`/g/${G.code}`) })));
  }
  $("my-games").replaceChildren(...mine);
  $("my-card").hidden = mine.length === 0;

  const q = S.quick;
  $("qm-form").hidden = !!q;
  $("qm-wait").hidden = !q;
  if (q) $("qm-wait-text").textContent = q.state === "waiting"
    ? t(q.rated ? "qm.lookingRated" : "qm.looking", { variant: variantText(q.variant), tc: tcText(q.time_control) })
    : t("qm.asking");
  $("create-btn").textContent = $("cv-opponent").value ? t("create.playBot") : t("create.create");
  renderRecent();
}

// ------------------------------------------------------------------ forms
// The pieces of the create form, shared with the challenge form (challenge.js).
export function fillSelect(sel, from, to, def) {
  const cur = sel.value ? Number(sel.value) : def;
  sel.replaceChildren();
  for (let i = from; i <= to; i++) sel.append(h("option", { value: i, text: String(i), selected: i === Math.min(cur, to) }));
}

// The time controls offered, as option values: "" untimed, "INITIAL_MS/INCREMENT_MS" (Fischer,
// real time), "dDAYS" (correspondence: that many days per move, PROTOCOL.md "Time").
export const TIME_CONTROLS = ["", "180000/2000", "300000/5000", "600000/10000", "1800000/20000"];
export const CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 10, 14];
export function timeControl(v) {
  if (!v) return null;
  if (v[0] === "d") return { days_per_move: Number(v.slice(1)) };
  const [initial_ms, increment_ms] = v.split("/").map(Number);
  return { initial_ms, increment_ms };
}
// The select's options: untimed, then the real-time ones and the correspondence ones in a group each.
export function fillTimes(sel, def) {
  const cur = sel.value || def;
  const opt = (v) => h("option", { value: v, text: tcText(timeControl(v)), selected: v === cur });
  sel.replaceChildren(opt(""),
    h("optgroup", { label: t("tc.realTime") }, ...TIME_CONTROLS.filter(Boolean).map(opt)),
    h("optgroup", { label: t("tc.correspondence") }, ...CORRESPONDENCE_DAYS.map((d) => opt(`d${d}`))));
}

// Option texts that depend on the language (the rest comes from data-i18n).
export function translateLobbyForms() {
  fillTimes($("cv-time"), "");
  fillTimes($("qm-time"), "300000/5000");
}

// The board fields of a form (PREFIX-size, -elephants, -burnt, -quiet; the create form's and the
// challenge form's): filled, the elephants kept within the size. Returns a function that reads
// the variant they say.
export function variantFields(prefix) {
  const size = $(`${prefix}-size`);
  const eleph = $(`${prefix}-elephants`);
  fillSelect(size, 5, 13, 9);
  const syncE = () => fillSelect(eleph, 1, Number(size.value) - 2, 5);
  syncE();
  size.addEventListener("change", syncE);
  fillSelect($(`${prefix}-burnt`), 0, 9, 3);
  return () => ({ size: Number(size.value), elephants: Number(eleph.value), burnt: Number($(`${prefix}-burnt`).value),
    quiet: Math.min(1000, Math.max(2, Number($(`${prefix}-quiet`).value) || 40)) });
}

export function setupLobby() {
  const readVariant = variantFields("cv");
  translateLobbyForms();
  $("name-input").value = storedName();

  $("name-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = $("name-input").value.trim().slice(0, 32);
    if (!v) return;
    const changed = v !== storedName();
    localStorage.setItem(NAME_KEY, v);
    if (!changed && S.me?.name === v) return;
    // The server keeps a player's name with its identity (the token): a new name is a new
    // identity, so it waits while the player holds a seat in an unfinished game.
    const seated = [...S.games.values()].some((G) => mySide(G) && !G.result && (G.status === "open" || G.status === "playing"));
    if (seated && S.me) {
      showLobbyError(t("name.later"));
      return;
    }
    showLobbyError("");
    app.newIdentity();
  });

  $("create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    showLobbyError("");
    const msg = {
      type: "create_game",
      variant: readVariant(),
      time_control: timeControl($("cv-time").value),
      color: $("cv-color").value,
      public: $("cv-public").checked,
    };
    const bot = Number($("cv-opponent").value);
    if ($("cv-rated").checked && !$("cv-rated").disabled) msg.rated = true;
    if (bot >= 1 && bot <= 5 && msg.rated) {
      // rated: a challenge to the house bot of that level, seated at once by the server
      Object.assign(msg, { to: `Level${bot}`, public: false });
      S.bot = null;
    } else if (bot >= 1 && bot <= 5) {
      msg.bot = bot;
      S.bot = { level: bot, at: Date.now() };
    } else S.bot = null;
    if (!sendCreate(msg)) S.bot = null;
  });
  $("cv-opponent").addEventListener("change", () => renderLobby());
  for (const id of ["cv-size", "cv-elephants", "cv-burnt", "cv-quiet", "cv-time", "qm-variant", "qm-time"])
    $(id).addEventListener("change", () => renderRatedToggles());
  $("cv-quiet").addEventListener("input", () => renderRatedToggles());

  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = parseCode($("join-code").value);
    if (code) app.joinGame(code);
    else showLobbyError(t("join.bad"));
  });
  $("watch-btn").addEventListener("click", () => {
    const code = parseCode($("join-code").value);
    if (code) app.navigate(`/g/${code}`);
    else showLobbyError(t("join.bad"));
  });

  $("qm-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const variant = QUICK_VARIANTS[$("qm-variant").value] ?? QUICK_VARIANTS.standard;
    const time_control = timeControl($("qm-time").value);
    const rated = $("qm-rated").checked && !$("qm-rated").disabled;
    S.quick = { state: "asking", variant, time_control, rated };
    const msg = { type: "quick_match", time_control, variant };
    if (rated) msg.rated = true;
    send(msg);
    app.render();
  });
  $("qm-cancel").addEventListener("click", () => {
    send({ type: "quick_match_cancel" });
  });
  $("recent-more").addEventListener("click", () => loadRecent(true));
  $("recent-refresh").addEventListener("click", () => loadRecent(false));
  setupDevice();
}
