// The lobby: display name, quick match, creating a game (also against the computer), joining by
// code or link, open games, live games to watch, the player's games in progress and recent
// finished games (history API).
import { $, h, other, variantText, tcText, scoreText, dateText, REASONS } from "./dom.js";
import { S, app, send, mySide } from "./state.js";
import { listGames } from "./api.js";

const NAME_KEY = "trunkfield.name";
export const storedName = () => localStorage.getItem(NAME_KEY) ?? "";

export function showLobbyError(text) {
  const e = $("lobby-error");
  e.textContent = text;
  e.hidden = !text;
}

// A game code from a code, a /g/CODE path or a whole link (…/g/CODE).
export function parseCode(s) {
  s = (s ?? "").trim();
  const m = s.match(/\/g\/([A-Za-z0-9_-]+)\/?(?:[?#].*)?$/);
  if (m) return m[1];
  return /^[A-Za-z0-9_-]{1,32}$/.test(s) ? s : null;
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
    R.error = `Finished games cannot be listed: ${e.message}`;
  } finally {
    R.loading = false;
    app.render();
  }
}

function outcome(g, side) {
  const r = g.result;
  if (!r || g.status === "aborted" || r.reason === "aborted") return "aborted";
  if (r.winner === "draw") return "draw";
  if (!side) return r.winner ? `${r.winner} won` : "no result";
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
    const why = g.result?.reason ? REASONS[g.result.reason] ?? g.result.reason : "";
    items.push(h("li", { "data-code": g.code },
      h("span", { class: `badge ${res}`, text: res }),
      h("span", { class: "who", text: `vs ${opp?.name ?? (g.bot ? `computer ${g.bot}` : "—")}` }),
      h("span", { class: "what", text: [side ? `you played ${side}` : null, g.result?.score ? scoreText(g.result.score) : null,
        why, `${g.turns} turns`, dateText(g.finished_at ?? g.created_at)].filter(Boolean).join(" · ") }),
      h("button", { type: "button", class: "replay", text: "Replay", onclick: () => app.navigate(`/#replay/${g.code}`) })));
  }
  list.replaceChildren(...items);
  $("recent-empty").hidden = R.games.length > 0 || R.loading || !!R.error;
  $("recent-empty").textContent = "No finished games yet.";
  const err = $("recent-error");
  err.hidden = !R.error;
  err.textContent = R.error ?? "";
  $("recent-more").hidden = !R.next;
  $("recent-more").disabled = R.loading;
}

// ------------------------------------------------------------------ rendering
export function renderLobby() {
  $("name-input").placeholder = S.me?.name && S.me.name !== "guest" ? S.me.name : "e.g. Ann";

  const open = $("open-games");
  open.replaceChildren(...S.lobby.map((g) => {
    const mine = S.me && g.creator?.id === S.me.player_id;
    const side = g.creator_side ? `creator plays ${g.creator_side}` : "colours at random";
    return h("li", { "data-code": g.code },
      h("span", { class: "who", text: g.creator?.name ?? "?" }),
      h("span", { class: "what", text: `${variantText(g.variant)} · ${tcText(g.time_control)} · ${side}` }),
      mine
        ? h("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => send({ type: "cancel_game", code: g.code }) })
        : h("button", { type: "button", class: "primary join", text: "Join", onclick: () => app.joinGame(g.code) }));
  }));
  $("open-empty").hidden = S.lobby.length > 0;

  const live = $("live-games");
  live.replaceChildren(...S.live.map((g) => {
    const p = g.players ?? {};
    return h("li", { "data-code": g.code },
      h("span", { class: "who", text: `${p.silver?.name ?? "?"} – ${p.bronze?.name ?? "?"}` }),
      h("span", { class: "what", text: `${variantText(g.variant)} · ${tcText(g.time_control)} · turn ${g.turns + 1}, ${g.to_move ?? ""} to move · ${scoreText(g.score)} · ${g.spectators} watching` }),
      h("button", { type: "button", class: "watch", text: "Watch", onclick: () => app.navigate(`/g/${g.code}`) }));
  }));
  $("live-empty").hidden = S.live.length > 0;

  const mine = [];
  for (const G of S.games.values()) {
    const side = mySide(G);
    if (!side || !(G.status === "open" || G.status === "playing") || G.result) continue;
    const opp = G.players[other(side)];
    mine.push(h("li", { "data-code": G.code },
      h("span", { class: "who", text: `vs ${opp ? opp.name : "(waiting)"}` }),
      h("span", { class: "what", text: `game ${G.code} · you play ${side} · ${G.status === "open" ? "waiting for an opponent" : "in play"}` }),
      h("button", { type: "button", class: "primary", text: "Open", onclick: () => app.navigate(`/g/${G.code}`) })));
  }
  $("my-games").replaceChildren(...mine);
  $("my-card").hidden = mine.length === 0;

  const q = S.quick;
  $("qm-form").hidden = !!q;
  $("qm-wait").hidden = !q;
  if (q) $("qm-wait-text").textContent = q.state === "waiting"
    ? `Looking for an opponent (${variantText(q.variant)}, ${tcText(q.time_control)})…`
    : "Asking the server…";
  renderRecent();
}

// ------------------------------------------------------------------ forms
function fillSelect(sel, from, to, def) {
  sel.replaceChildren();
  for (let i = from; i <= to; i++) sel.append(h("option", { value: i, text: String(i), selected: i === def }));
}

const TIME_CONTROLS = [
  ["", "untimed"], ["180000/2000", "3 min + 2 s"], ["300000/5000", "5 min + 5 s"],
  ["600000/10000", "10 min + 10 s"], ["1800000/20000", "30 min + 20 s"],
];
function fillTimes(sel, def) {
  sel.replaceChildren(...TIME_CONTROLS.map(([v, t]) => h("option", { value: v, text: t, selected: v === def })));
}
function timeControl(v) {
  if (!v) return null;
  const [initial_ms, increment_ms] = v.split("/").map(Number);
  return { initial_ms, increment_ms };
}

const QUICK_VARIANTS = {
  standard: { size: 9, elephants: 5, burnt: 3, quiet: 40 },
  small: { size: 7, elephants: 3, burnt: 2, quiet: 30 },
  tiny: { size: 5, elephants: 2, burnt: 1, quiet: 20 },
};

export function setupLobby() {
  const size = $("cv-size");
  const eleph = $("cv-elephants");
  fillSelect(size, 5, 13, 9);
  const syncE = () => {
    const cur = Number(eleph.value) || 5;
    fillSelect(eleph, 1, Number(size.value) - 2, Math.min(cur, Number(size.value) - 2));
  };
  syncE();
  size.addEventListener("change", syncE);
  fillSelect($("cv-burnt"), 0, 9, 3);
  fillTimes($("cv-time"), "");
  fillTimes($("qm-time"), "300000/5000");
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
      showLobbyError("Saved. Your new name is used once your current games are over (finish or resign them first).");
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
      variant: { size: Number(size.value), elephants: Number(eleph.value), burnt: Number($("cv-burnt").value),
        quiet: Math.min(1000, Math.max(2, Number($("cv-quiet").value) || 40)) },
      time_control: timeControl($("cv-time").value),
      color: $("cv-color").value,
      public: $("cv-public").checked,
    };
    const bot = Number($("cv-opponent").value);
    if (bot >= 1 && bot <= 5) {
      msg.bot = bot;
      S.bot = { level: bot, at: Date.now() };
    } else S.bot = null;
    send(msg);
  });
  $("cv-opponent").addEventListener("change", () => {
    $("create-btn").textContent = $("cv-opponent").value ? "Play against the computer" : "Create game";
  });

  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = parseCode($("join-code").value);
    if (code) app.joinGame(code);
    else showLobbyError("That is not a game code or a game link.");
  });
  $("watch-btn").addEventListener("click", () => {
    const code = parseCode($("join-code").value);
    if (code) app.navigate(`/g/${code}`);
    else showLobbyError("That is not a game code or a game link.");
  });

  $("qm-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const variant = QUICK_VARIANTS[$("qm-variant").value] ?? QUICK_VARIANTS.standard;
    const time_control = timeControl($("qm-time").value);
    S.quick = { state: "asking", variant, time_control };
    send({ type: "quick_match", time_control, variant });
    app.render();
  });
  $("qm-cancel").addEventListener("click", () => {
    send({ type: "quick_match_cancel" });
  });
  $("recent-more").addEventListener("click", () => loadRecent(true));
  $("recent-refresh").addEventListener("click", () => loadRecent(false));
}
