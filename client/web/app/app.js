// Trunkfield web client: lobby, game and spectator screens over the WebSocket protocol
// (proto/PROTOCOL.md), with the C++ rules compiled to WebAssembly for legal moves and prediction.
// All names and chat go into the page with textContent, never as HTML.
import { Rules, RulesGame } from "./trunkfield-rules.js";
import { Connection } from "./net.js";
import { renderBoard, cellName, ringOrder, isField, same, key, legendHTMLSafe } from "./board.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "trunkfield.name";
const SIDES = ["silver", "bronze"];
const other = (s) => (s === "silver" ? "bronze" : "silver");
const cap = (s) => s[0].toUpperCase() + s.slice(1);
const REASONS = {
  trunks: "no trunk is left on the field",
  herd: "a herd has no elephant left on the field",
  quiet: "the quiet-turn limit was reached",
  resign: "a player resigned",
  time: "a player ran out of time",
  agreement: "draw agreed",
  abandon: "a player abandoned the game",
  aborted: "the game was aborted",
};

const S = {
  me: null,
  games: new Map(), // code -> game view
  current: null,
  lobby: [],
  pendingJoin: null,
  refSeq: 0,
};
let conn;

function h(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

// ---------------------------------------------------------------- games
function gameView(code) {
  let G = S.games.get(code);
  if (!G) {
    G = { code, version: -1, status: null, rules: null, state: null, shown: null, pending: null,
      players: { silver: null, bronze: null }, record: null, clocks: null, clocksAt: 0,
      spectators: 0, chat: [], log: [], last: null, result: null, draft: null, history: [],
      error: null, moves: null };
    S.games.set(code, G);
  }
  return G;
}
const mySide = (G) => SIDES.find((s) => G.players?.[s] && S.me && G.players[s].id === S.me.player_id) ?? null;
const sideOfTurn = (i) => (i % 2 === 0 ? "silver" : "bronze");

function notation(turn, size) {
  const r = Rules.turnToNotation(turn, size);
  return r.notation ?? JSON.stringify(turn);
}

function setRules(G, rules) {
  G.rules?.dispose();
  G.rules = rules;
  G.state = rules.state();
  G.moves = null;
}

function onSnapshot(m) {
  const G = gameView(m.game);
  G.version = m.version;
  G.status = m.status;
  G.players = m.players ?? { silver: null, bronze: null };
  G.record = m.record;
  G.clocks = m.clocks;
  G.clocksAt = performance.now();
  G.spectators = m.spectators ?? 0;
  G.pending = null;
  G.shown = null;
  try {
    setRules(G, RulesGame.fromState(m.state));
  } catch (e) {
    G.error = `cannot load the position: ${e.message}`;
  }
  const size = m.state.variant.size;
  G.log = (m.record?.turns ?? []).map((t, i) => ({ side: sideOfTurn(i), text: notation(t, size) }));
  const turns = m.record?.turns ?? [];
  G.last = turns.length ? { side: sideOfTurn(turns.length - 1), turn: turns[turns.length - 1] } : null;
  G.result = m.state.over || m.status === "over" || m.status === "aborted" ? { ...m.state, reason: m.state.reason ?? m.status } : null;
  G.drawOffer = m.draw_offer ?? null;
  resetDraft(G);
  if (S.pendingJoin === m.game) {
    S.pendingJoin = null;
    navigate(`/g/${m.game}`);
  }
  render();
}

function onEvent(m) {
  const G = gameView(m.game);
  if (m.version <= G.version) return; // already seen
  if (G.version >= 0 && m.version !== G.version + 1) {
    conn.send({ type: "watch", code: G.code }); // a gap: ask for a snapshot
    return;
  }
  G.version = m.version;
  if (m.clocks !== undefined) {
    G.clocks = m.clocks;
    G.clocksAt = performance.now();
  }
  const p = m.payload ?? {};
  let resync = false;
  switch (m.kind) {
    case "join":
      G.players = { ...G.players, [p.side]: p.player };
      if (G.players.silver && G.players.bronze && G.status === "open") G.status = "playing";
      break;
    case "setup": {
      const r = G.rules.applySetup(p.side, p.setup);
      if (r.error) resync = true;
      G.state = G.rules.state();
      if (p.side === mySide(G)) { G.pending = null; G.shown = null; }
      resetDraft(G);
      break;
    }
    case "turn": {
      const r = G.rules.applyTurn(p.turn);
      if (r.error) resync = true;
      G.state = G.rules.state();
      G.moves = null;
      G.log.push({ side: p.side, text: notation(p.turn, G.state.variant.size) });
      G.last = { side: p.side, turn: p.turn };
      if (p.side === mySide(G)) { G.pending = null; G.shown = null; }
      if (G.drawOffer === p.side) G.drawOffer = null; // a turn withdraws its own offer
      resetDraft(G);
      break;
    }
    case "resign":
      G.log.push({ side: p.side, text: "resigns" });
      break;
    case "draw_offer":
      G.drawOffer = p.side;
      G.log.push({ side: p.side, text: "offers a draw" });
      break;
    case "draw_decline":
      G.drawOffer = null;
      G.log.push({ side: p.side, text: "declines the draw" });
      break;
    case "draw_accept":
      G.drawOffer = null;
      G.log.push({ side: p.side, text: "accepts the draw" });
      break;
    case "timeout":
      G.log.push({ side: p.side, text: "ran out of time" });
      break;
    case "player_left":
      G.log.push({ side: p.side, text: "lost the connection" });
      break;
    case "player_back":
      G.log.push({ side: p.side, text: "is back" });
      break;
    case "abandon":
      G.log.push({ side: p.side, text: "abandoned the game" });
      break;
    case "abort":
      G.status = "aborted";
      G.log.push({ side: "", text: `game aborted (${p.reason ?? "?"})` });
      break;
    case "game_over":
      G.result = p;
      G.status = "over";
      G.pending = null;
      G.shown = null;
      break;
    case "chat":
      G.chat.push({ name: p.from?.name ?? "?", text: p.text ?? "" });
      break;
    case "cancel":
      G.status = "cancelled";
      break;
  }
  if (resync) conn.send({ type: "watch", code: G.code });
  render();
}

function onError(m) {
  const G = S.current ? S.games.get(S.current) : null;
  if (G && G.pending && m.ref && m.ref === G.pending.ref) {
    // Rejected: roll back to the server's position and say why.
    G.pending = null;
    G.shown = null;
    G.error = `The server refused: ${m.message}`;
    resetDraft(G);
    render();
    return;
  }
  if (m.code === "no_such_game" || m.code === "game_full") S.pendingJoin = null;
  showError(m.message || m.code);
}

function showError(text) {
  const G = S.current ? S.games.get(S.current) : null;
  if (G && !$("game").hidden) {
    G.error = text;
    render();
  } else {
    const e = $("lobby-error");
    e.textContent = text;
    e.hidden = false;
  }
}

// ---------------------------------------------------------------- drafts (setup and turn)
function resetDraft(G) {
  G.draft = { from: null, path: [], facing: null, elDone: false, burnt: null, guardians: [],
    selGuard: null, burntMode: false, setupE: [], setupG: [] };
  G.history = [];
}
function pushHistory(G) {
  G.history.push(JSON.stringify(G.draft));
}
function undo(G) {
  if (!G.history.length) return;
  G.draft = JSON.parse(G.history.pop());
  G.error = null;
  render();
}

function legalMoves(G) {
  if (!G.moves) G.moves = G.rules.legalMoves();
  return G.moves;
}

function elephantPart(d) {
  if (!d.from) return null;
  const e = { from: d.from, path: d.path };
  if (d.facing) e.facing = d.facing;
  return e;
}
function draftTurn(G) {
  const d = G.draft;
  return { elephant: elephantPart(d), burnt: d.burnt, guardians: d.guardians };
}

// The position after the drafted parts (elephant, burnt, guardians so far), or null.
function draftState(G) {
  const d = G.draft;
  if (!elephantReady(G)) return null;
  const c = G.rules.clone();
  try {
    const r = c.applyTurn(draftTurn(G));
    return r.ok ? c.state() : null;
  } finally {
    c.dispose();
  }
}

function elephantReady(G) {
  return G.draft.elDone || legalMoves(G).length === 0;
}

function matchingMoves(G) {
  const d = G.draft;
  return legalMoves(G).filter((m) => same(m.from, d.from) && d.path.every((c, i) => m.path[i] && same(m.path[i], c)));
}

function turnPhase(G) {
  const st = G.shown ?? G.state;
  const side = mySide(G);
  if (!st || !side || G.status !== "playing" || G.result || G.pending) return null;
  if (st.phase === `setup_${side}`) return "setup";
  if (st.phase === "play" && st.to_move === side) return "turn";
  return null;
}

// Candidates on the board: Map key -> true | label.
function candidates(G) {
  const cands = new Map();
  const phase = turnPhase(G);
  const d = G.draft;
  const st = G.state;
  const n = st.variant.size;
  const side = mySide(G);
  if (phase === "setup") {
    const E = st.variant.elephants;
    const zone = [];
    for (let i = 2; i <= n; i++) zone.push(side === "silver" ? [i, 1] : [1, i]);
    for (const c of zone) if (d.setupE.length < E || d.setupE.some((x) => same(x, c))) cands.set(key(c), true);
    const taken = new Set(st.guardians.map((g) => key(g.cell)));
    for (const c of ringOrder(n))
      if (!taken.has(key(c)) && (d.setupG.length < 2 || d.setupG.some((x) => same(x, c)))) cands.set(key(c), true);
    return cands;
  }
  if (phase !== "turn") return cands;
  if (!elephantReady(G)) {
    if (!d.from || d.path.length === 0) for (const m of legalMoves(G)) cands.set(key(m.from), true);
    if (d.from) {
      for (const m of matchingMoves(G)) if (m.path.length > d.path.length) cands.set(key(m.path[d.path.length]), true);
    }
    return cands;
  }
  const ds = draftState(G);
  if (!ds || ds.over) return cands;
  if (d.burntMode) {
    const occupied = new Set([...ds.trunks, ...ds.burnt, ...ds.elephants.map((e) => e.cell)].map(key));
    for (let x = 1; x <= n; x++) for (let y = 1; y <= n; y++) if (!occupied.has(key([x, y]))) cands.set(key([x, y]), true);
    return cands;
  }
  const moved = new Set(d.guardians.map((g) => key(arrival(g, n))));
  if (d.selGuard) {
    for (const [c, k] of guardianTargets(ds, d.selGuard, side)) cands.set(key(c), String(k));
    return cands;
  }
  for (const g of ds.guardians) if (g.side === side && !moved.has(key(g.cell))) cands.set(key(g.cell), true);
  return cands;
}

function arrival(entry, n) {
  const ring = ringOrder(n);
  const i = ring.findIndex((c) => same(c, entry.from));
  const L = ring.length;
  const j = entry.dir === "cw" ? (i + entry.steps) % L : (((i - entry.steps) % L) + L) % L;
  return ring[j];
}

// Ring cells a guardian can reach from `from`, with their cost, within the trunks held.
function guardianTargets(st, from, side) {
  const n = st.variant.size;
  const ring = ringOrder(n);
  const L = ring.length;
  const i0 = ring.findIndex((c) => same(c, from));
  const occupied = new Set(st.guardians.map((g) => key(g.cell)));
  const budget = st.players[side].trunks;
  const out = new Map();
  const res = [];
  for (const dir of ["cw", "ccw"]) {
    for (let k = 1; k <= Math.min(budget, L - 1); k++) {
      const c = ring[dir === "cw" ? (i0 + k) % L : (((i0 - k) % L) + L) % L];
      if (occupied.has(key(c))) break;
      const prev = out.get(key(c));
      if (!prev || prev.k > k) out.set(key(c), { c, k, dir });
    }
  }
  for (const v of out.values()) res.push([v.c, v.k, v.dir]);
  return res;
}

function onCell(G, c) {
  const phase = turnPhase(G);
  if (!phase) return;
  const cands = candidates(G);
  if (!cands.has(key(c))) return;
  const d = G.draft;
  const n = G.state.variant.size;
  G.error = null;
  pushHistory(G);
  if (phase === "setup") {
    const list = isField(c, n) ? d.setupE : d.setupG;
    const i = list.findIndex((x) => same(x, c));
    if (i >= 0) list.splice(i, 1);
    else list.push(c);
    return render();
  }
  if (!elephantReady(G)) {
    if (!d.from || (d.path.length === 0 && legalMoves(G).some((m) => same(m.from, c)))) {
      d.from = c;
      d.path = [];
      d.facing = null;
      return render();
    }
    d.path.push(c);
    const ms = matchingMoves(G);
    const ends = ms.filter((m) => m.path.length === d.path.length);
    const more = ms.some((m) => m.path.length > d.path.length);
    if (ends.length && !ends.some((m) => m.facing) && !more) d.elDone = true; // collect or exit
    return render();
  }
  if (d.burntMode) {
    d.burnt = c;
    d.burntMode = false;
    return render();
  }
  if (d.selGuard) {
    const ds = draftState(G);
    const t = guardianTargets(ds, d.selGuard, mySide(G)).find(([cc]) => same(cc, c));
    if (t) d.guardians.push({ from: d.selGuard, dir: t[2], steps: t[1] });
    d.selGuard = null;
    return render();
  }
  d.selGuard = c;
  render();
}

function chooseFacing(G, f) {
  const d = G.draft;
  pushHistory(G);
  d.facing = f;
  d.elDone = true;
  render();
}

function facingChoices(G) {
  if (turnPhase(G) !== "turn" || elephantReady(G) || !G.draft.from || !G.draft.path.length) return [];
  const ends = matchingMoves(G).filter((m) => m.path.length === G.draft.path.length && m.facing);
  return [...new Set(ends.map((m) => m.facing))];
}

function sendDraft(G) {
  const phase = turnPhase(G);
  const side = mySide(G);
  const ref = `r${++S.refSeq}`;
  if (phase === "setup") {
    const setup = { elephants: G.draft.setupE, guardians: G.draft.setupG };
    const c = G.rules.clone();
    const r = c.applySetup(side, setup);
    if (r.error) {
      c.dispose();
      G.error = r.error.message;
      return render();
    }
    G.shown = c.state();
    c.dispose();
    G.pending = { ref, setup };
    conn.send({ type: "setup", game: G.code, setup, version: G.version, ref });
    return render();
  }
  if (phase !== "turn") return;
  const turn = draftTurn(G);
  const c = G.rules.clone();
  const r = c.applyTurn(turn);
  if (r.error) {
    c.dispose();
    G.error = r.error.message;
    return render();
  }
  G.shown = c.state(); // prediction: shown at once, rolled back if the server refuses
  c.dispose();
  G.pending = { ref, turn };
  G.predictedLast = { side, turn };
  conn.send({ type: "turn", game: G.code, turn, version: G.version, ref });
  render();
}

// ---------------------------------------------------------------- rendering
function render() {
  renderHeader();
  const G = S.current ? S.games.get(S.current) : null;
  $("lobby").hidden = !!S.current;
  $("game").hidden = !S.current;
  if (!S.current) renderLobby();
  else if (G) renderGame(G);
}

function renderHeader() {
  $("me").textContent = S.me ? `Signed in as ${S.me.name}` : "";
}

function variantText(v) {
  if (!v) return "";
  return `${v.size}×${v.size}, ${v.elephants} elephant${v.elephants === 1 ? "" : "s"}, ${v.burnt} burnt, quiet ${v.quiet}`;
}
function tcText(tc) {
  if (!tc) return "untimed";
  return `${Math.round(tc.initial_ms / 60000)} min + ${Math.round(tc.increment_ms / 1000)} s`;
}

function renderLobby() {
  const list = $("open-games");
  list.replaceChildren();
  for (const g of S.lobby) {
    const mine = S.me && g.creator?.id === S.me.player_id;
    const li = h("li", { "data-code": g.code },
      h("span", { class: "who", text: g.creator?.name ?? "?" }),
      h("span", { class: "what", text: `${variantText(g.variant)} · ${tcText(g.time_control)} · creator plays ${g.creator_side ?? "random"}` }),
      mine
        ? h("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => conn.send({ type: "cancel_game", code: g.code }) })
        : h("button", { type: "button", class: "primary join", text: "Join", onclick: () => joinGame(g.code) }));
    list.append(li);
  }
  $("open-empty").hidden = S.lobby.length > 0;
  const mine = $("my-games");
  mine.replaceChildren();
  let count = 0;
  for (const G of S.games.values()) {
    const side = mySide(G);
    if (!side || G.status === "cancelled") continue;
    count++;
    const opp = G.players[other(side)];
    const state = G.status === "over" ? "finished" : G.status === "open" ? "waiting for an opponent" : "in play";
    mine.append(h("li", {},
      h("span", { class: "who", text: `vs ${opp ? opp.name : "—"}` }),
      h("span", { class: "what", text: `${G.code} · you play ${side} · ${state}` }),
      h("button", { type: "button", text: "Open", onclick: () => navigate(`/g/${G.code}`) })));
  }
  $("mine-empty").hidden = count > 0;
}

function renderGame(G) {
  $("game-code").textContent = G.code;
  const side = mySide(G);
  $("spectators").textContent = `${side ? `you play ${side}` : "watching"} · ${G.spectators} spectator${G.spectators === 1 ? "" : "s"}`;
  const err = $("error");
  err.hidden = !G.error;
  err.textContent = G.error ?? "";
  const st0 = G.shown ?? G.state;
  if (!st0) {
    $("status").textContent = G.status === null ? "Loading the game…" : "";
    $("board").replaceChildren();
    return;
  }
  const phase = turnPhase(G);
  const d = G.draft;
  const ds = phase === "turn" && elephantReady(G) ? draftState(G) : null;
  const st = ds ?? st0;
  const n = st.variant.size;
  const cands = candidates(G);
  let last = null;
  const lt = G.pending?.turn ? { turn: G.pending.turn } : G.last;
  if (lt?.turn) {
    const cells = [];
    const e = lt.turn.elephant;
    if (e) cells.push(e.from, ...e.path);
    if (lt.turn.burnt) cells.push(lt.turn.burnt);
    for (const g of lt.turn.guardians ?? []) cells.push(g.from, arrival(g, n));
    last = { cells, from: e?.from, path: e?.path ?? [] };
  }
  const movable = new Set(phase === "turn" && !elephantReady(G) && (!d.from || !d.path.length)
    ? legalMoves(G).map((m) => key(m.from)) : []);
  const occupied = new Set([...st.elephants.map((e) => key(e.cell)), ...st.guardians.map((g) => key(g.cell)),
    ...(phase === "setup" ? [...d.setupE, ...d.setupG].map(key) : [])]);
  const highlights = {
    cands,
    occupied,
    movable,
    last: phase === "turn" && (d.from || ds) ? null : last,
    selected: d.selGuard ?? (ds ? null : d.from),
    path: ds ? [] : d.path,
    zoneSide: phase === "setup" ? side : null,
    setupMarks: phase === "setup" ? { side, elephants: d.setupE, guardians: d.setupG } : null,
  };
  renderBoard($("board"), { state: st, highlights, onCell: (c) => onCell(G, c),
    labelFor: (c) => describeCell(st, c) });

  // status line
  const toMove = st0.to_move;
  const name = (s) => G.players?.[s]?.name ?? s;
  let status = "";
  if (G.status === "open") status = side ? "Waiting for an opponent. Share the link of this page." : "This game is waiting for an opponent.";
  else if (G.status === "cancelled") status = "This game was cancelled.";
  else if (G.drawOffer && side && G.drawOffer === other(side) && !G.result) status = `${cap(G.drawOffer)} offers a draw. Accept or decline — or just play on.`;
  else if (G.result) status = "The game is over.";
  else if (G.pending) status = "Sent — waiting for the server…";
  else if (phase === "setup") status = `Your setup: click ${st.variant.elephants} cell${st.variant.elephants === 1 ? "" : "s"} of your start ${side === "silver" ? "row (b1…)" : "column (a2…)"} and 2 ring cells for your guardians, then Send. (${d.setupE.length}/${st.variant.elephants} elephants, ${d.setupG.length}/2 guardians)`;
  else if (phase === "turn") {
    if (legalMoves(G).length === 0) status = "You have no elephant move (pass). You may place a burnt trunk or move guardians, then Send.";
    else if (!d.from) status = "Your turn: click one of your elephants (blue dots).";
    else if (!elephantReady(G)) status = facingChoices(G).length ? "Click a further cell, or choose the facing to stop here." : "Click the next cell of the path.";
    else if (d.burntMode) status = "Click an empty cell for the burnt trunk.";
    else if (d.selGuard) status = "Click where the guardian goes (the number is its cost in trunks).";
    else status = "Move ready. Optionally place a burnt trunk or click one of your guardians to move it, then Send.";
  } else if (toMove && st0.phase.startsWith("setup")) status = `${cap(toMove)} (${name(toMove)}) is placing the pieces.`;
  else if (toMove) status = `${cap(toMove)} (${name(toMove)}) to move.`;
  $("status").textContent = status;

  // facing picker
  const faces = facingChoices(G);
  $("facing").hidden = faces.length === 0;
  for (const b of $("facing").querySelectorAll("button")) b.hidden = !faces.includes(b.dataset.facing);

  // draft text + buttons
  const draftEl = $("draft");
  draftEl.replaceChildren();
  if (phase === "turn") {
    const t = draftTurn(G);
    const txt = elephantReady(G) ? notation(t, n)
      : d.from ? [cellName(d.from, n), ...d.path.map((c) => cellName(c, n))].join("-") + "…" : "";
    const spent = d.guardians.reduce((a, g) => a + g.steps, 0);
    draftEl.append(h("div", { class: "notation", text: txt ? `Turn: ${txt}${spent ? ` (guardians cost ${spent} trunk${spent === 1 ? "" : "s"})` : ""}` : "" }));
    if (elephantReady(G) && ds && !ds.over) {
      const left = (G.state.players[side].burnt_left ?? 0) - (d.burnt ? 1 : 0);
      if (!d.burnt && left > 0)
        draftEl.append(h("button", { type: "button", id: "burnt-btn", "aria-pressed": d.burntMode ? "true" : "false",
          text: d.burntMode ? "Cancel burnt trunk" : `Place a burnt trunk (${left} left)`,
          onclick: () => { pushHistory(G); d.burntMode = !d.burntMode; d.selGuard = null; render(); } }));
    }
  }
  $("undo-btn").disabled = !(phase && G.history.length);
  const sendable = phase === "setup"
    ? d.setupE.length === st.variant.elephants && d.setupG.length === 2
    : phase === "turn" && elephantReady(G) && !d.burntMode && !d.selGuard;
  $("send-btn").disabled = !sendable;
  $("send-btn").textContent = phase === "setup" ? "Send setup" : "Send turn";
  $("controls").hidden = !phase && !(G.status === "open" && !side);
  $("undo-btn").hidden = !phase;
  $("send-btn").hidden = !phase;
  const canJoin = G.status === "open" && !side && SIDES.some((s) => !G.players[s]);
  $("join-seat").hidden = !canJoin;
  const live = side && G.status === "playing" && !G.result;
  $("resign-btn").hidden = !live;
  $("draw-btn").hidden = !live || G.drawOffer === side || G.drawOffer === other(side);
  $("draw-answer").hidden = !live || G.drawOffer !== other(side);

  renderPlayers(G, st);
  renderBanner(G);
  const log = $("turn-log");
  log.replaceChildren(...G.log.map((l) => h("li", { class: l.side, text: `${l.side}: ${l.text}` })));
  log.scrollTop = log.scrollHeight;
  const chat = $("chat-log");
  chat.replaceChildren(...G.chat.map((c) => h("div", {}, h("b", { text: `${c.name}: ` }), h("span", { text: c.text }))));
  chat.scrollTop = chat.scrollHeight;
}

function describeCell(st, c) {
  const n = st.variant.size;
  const k = key(c);
  const parts = [cellName(c, n)];
  const e = st.elephants.find((x) => key(x.cell) === k);
  if (e) parts.push(`${e.side} elephant facing ${e.facing}`);
  const g = st.guardians.find((x) => key(x.cell) === k);
  if (g) parts.push(`${g.side}'s guardian`);
  if (st.trunks.some((x) => key(x) === k)) parts.push("trunk");
  if (st.burnt.some((x) => key(x) === k)) parts.push("burnt trunk");
  if (st.crossings.some((x) => key(x) === k)) parts.push("CROSSING (dangerous)");
  return parts.join(", ");
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function clockMs(G, side) {
  const c = G.clocks;
  if (!c || typeof c[`${side}_ms`] !== "number") return null;
  let ms = c[`${side}_ms`];
  if (c.running === side && !G.result) ms -= performance.now() - G.clocksAt;
  return ms;
}

function renderPlayers(G, st) {
  const wrap = $("players");
  wrap.replaceChildren();
  const side = mySide(G);
  for (const s of SIDES) {
    const p = st.players[s];
    const turn = !G.result && st.to_move === s && G.status === "playing";
    const ms = clockMs(G, s);
    const card = h("div", { class: `player ${s}${turn ? " to-move" : ""}`, "data-side": s },
      h("div", { class: "pname" },
        h("span", { class: `chip ${s}`, "aria-hidden": "true", text: s === "silver" ? "S" : "B" }),
        h("span", { class: "name", text: G.players?.[s]?.name ?? "(open seat)" }),
        h("span", { class: "tag", text: `${s}${side === s ? " · you" : ""}${turn ? " · to move" : ""}` }),
        ms !== null ? h("span", { class: "clock", text: fmtClock(ms) }) : null),
      h("dl", {},
        h("dt", { text: "Score" }), h("dd", { class: "score", text: String(p.score) }),
        h("dt", { text: "Trunks held" }), h("dd", { text: String(p.trunks) }),
        h("dt", { text: "Burnt left" }), h("dd", { text: String(p.burnt_left) }),
        h("dt", { text: "Saved" }), h("dd", { text: String(p.saved) }),
        h("dt", { text: "Captured" }), h("dd", { text: String(p.captured) }),
        h("dt", { text: "On field" }), h("dd", { text: String(p.on_field) })));
    wrap.append(card);
  }
  const turnText = G.result ? `${st.turns_played} turns played` : `Turn ${st.turns_played + 1}`;
  wrap.append(h("p", { class: "hint", text: `${turnText} · quiet turns in a row: ${st.quiet_turns} of ${st.variant.quiet}` }));
}

function renderBanner(G) {
  const b = $("banner");
  if (G.status === "cancelled" && !G.result) {
    b.hidden = false;
    b.textContent = "This game was cancelled.";
    return;
  }
  if (!G.result) {
    b.hidden = true;
    b.removeAttribute("data-score");
    return;
  }
  const r = G.result;
  const sc = r.score ?? {};
  const name = (s) => G.players?.[s]?.name ?? s;
  const who = r.winner === "draw" ? "Draw" : r.winner ? `${cap(r.winner)} (${name(r.winner)}) wins` : "No result";
  b.hidden = false;
  b.dataset.score = `silver:${sc.silver} bronze:${sc.bronze}`;
  b.textContent = `Game over — ${who}, silver ${sc.silver} : bronze ${sc.bronze}. Reason: ${REASONS[r.reason] ?? r.reason}.`;
}

// ---------------------------------------------------------------- navigation and actions
function parseCode(s) {
  s = (s ?? "").trim();
  const m = s.match(/\/g\/([A-Za-z0-9_-]+)/);
  if (m) return m[1];
  return /^[A-Za-z0-9_-]+$/.test(s) ? s : null;
}

function navigate(path) {
  if (location.pathname !== path) history.pushState({}, "", path);
  route();
}

function route() {
  const m = location.pathname.match(/^\/g\/([A-Za-z0-9_-]+)\/?$/);
  S.current = m ? m[1] : null;
  if (S.current) {
    const G = gameView(S.current);
    if (G.version < 0 && !G.watchSent && S.me) {
      G.watchSent = true;
      conn.send({ type: "watch", code: S.current });
    }
    document.title = `Trunkfield — game ${S.current}`;
  } else {
    document.title = "Trunkfield";
  }
  render();
}

function joinGame(code) {
  S.pendingJoin = code;
  conn.send({ type: "join_game", code });
}

function onWelcome(m) {
  S.me = m;
  // Resume every game we know or hold a seat in, from the last version seen.
  const codes = new Set([...S.games.keys(), ...(m.games ?? [])]);
  if (S.current) codes.add(S.current);
  for (const code of codes) {
    const G = gameView(code);
    G.watchSent = true;
    const msg = { type: "watch", code };
    if (G.version >= 0) msg.since_version = G.version;
    conn.send(msg);
  }
  conn.send({ type: "list_games" });
  render();
}

function onMessage(m) {
  switch (m.type) {
    case "snapshot": return onSnapshot(m);
    case "event": return onEvent(m);
    case "game_created":
      gameView(m.code).watchSent = true; // the creator is subscribed already
      return navigate(`/g/${m.code}`);
    case "lobby":
      S.lobby = m.games ?? [];
      return render();
    case "error": return onError(m);
    case "ack": return;
  }
}

function setStatus(s) {
  const c = $("conn");
  c.className = `conn conn-${s}`;
  c.textContent = { connecting: "connecting…", online: "● online", offline: "○ offline — reconnecting…" }[s];
}

function fillSelect(sel, from, to, def) {
  sel.replaceChildren();
  for (let i = from; i <= to; i++) sel.append(h("option", { value: i, text: String(i), selected: i === def }));
}

function setupLobbyForms() {
  const size = $("cv-size"), eleph = $("cv-elephants");
  fillSelect(size, 5, 13, 9);
  const syncE = () => {
    const cur = Number(eleph.value) || 5;
    fillSelect(eleph, 1, Number(size.value) - 2, Math.min(cur, Number(size.value) - 2));
  };
  syncE();
  size.addEventListener("change", syncE);
  fillSelect($("cv-burnt"), 0, 9, 3);
  $("name-input").value = localStorage.getItem(NAME_KEY) ?? "";
  $("name-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = $("name-input").value.trim().slice(0, 32);
    if (!v) return;
    const changed = v !== localStorage.getItem(NAME_KEY);
    localStorage.setItem(NAME_KEY, v);
    if (!changed && S.me?.name === v) return;
    // The server fixes a player's name with its identity: a new name means a new identity,
    // unless we hold a seat in a live game (then the new name applies from the next identity).
    const seated = [...S.games.values()].some((G) => mySide(G) && (G.status === "open" || G.status === "playing"));
    if (seated) {
      showError("Your new name will be used once your current games are over.");
      return;
    }
    conn.forgetToken();
    conn.drop();
  });
  $("create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const tc = $("cv-time").value;
    const [initial_ms, increment_ms] = tc ? tc.split("/").map(Number) : [];
    conn.send({
      type: "create_game",
      variant: { size: Number(size.value), elephants: Number(eleph.value), burnt: Number($("cv-burnt").value),
        quiet: Number($("cv-quiet").value) || 40 },
      time_control: tc ? { initial_ms, increment_ms } : null,
      color: $("cv-color").value,
      public: $("cv-public").checked,
    });
  });
  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = parseCode($("join-code").value);
    if (code) joinGame(code);
  });
  $("watch-btn").addEventListener("click", () => {
    const code = parseCode($("join-code").value);
    if (code) navigate(`/g/${code}`);
  });
  const err = h("p", { id: "lobby-error", class: "error", role: "alert", hidden: true });
  $("lobby").prepend(err);
}

function setupGameControls() {
  const cur = () => S.games.get(S.current);
  $("back-btn").addEventListener("click", () => navigate("/"));
  $("home-link").addEventListener("click", (ev) => { ev.preventDefault(); navigate("/"); });
  $("copy-link").addEventListener("click", async () => {
    const url = `${location.origin}/g/${S.current}`;
    try {
      await navigator.clipboard.writeText(url);
      $("copy-link").textContent = "Copied!";
    } catch {
      $("copy-link").textContent = url;
    }
    setTimeout(() => ($("copy-link").textContent = "Copy link"), 2500);
  });
  $("undo-btn").addEventListener("click", () => cur() && undo(cur()));
  $("send-btn").addEventListener("click", () => cur() && sendDraft(cur()));
  $("join-seat").addEventListener("click", () => S.current && joinGame(S.current));
  for (const b of $("facing").querySelectorAll("button"))
    b.addEventListener("click", () => cur() && chooseFacing(cur(), b.dataset.facing));
  let resignArmed = null;
  $("resign-btn").addEventListener("click", () => {
    const b = $("resign-btn");
    if (!resignArmed) {
      b.textContent = "Really resign? Click again";
      resignArmed = setTimeout(() => { resignArmed = null; b.textContent = "Resign"; }, 4000);
      return;
    }
    clearTimeout(resignArmed);
    resignArmed = null;
    b.textContent = "Resign";
    conn.send({ type: "resign", game: S.current });
  });
  $("draw-btn").addEventListener("click", () => conn.send({ type: "draw_offer", game: S.current }));
  $("draw-accept").addEventListener("click", () => conn.send({ type: "draw_accept", game: S.current }));
  $("draw-decline").addEventListener("click", () => conn.send({ type: "draw_decline", game: S.current }));
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("chat-input").value.trim();
    if (!t || !S.current) return;
    conn.send({ type: "chat", game: S.current, text: t });
    $("chat-input").value = "";
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "z" && cur()) { ev.preventDefault(); undo(cur()); }
    if (ev.key === "Escape" && cur()) { resetDraft(cur()); render(); }
  });
  legendHTMLSafe($("legend"));
  setInterval(() => {
    const G = cur();
    if (G?.clocks && !$("game").hidden) renderPlayers(G, G.shown ?? G.state);
  }, 500);
}

async function main() {
  try {
    await Rules.load();
  } catch (e) {
    $("loading").textContent = `Could not load the rules module: ${e.message}`;
    return;
  }
  $("loading").hidden = true;
  setupLobbyForms();
  setupGameControls();
  conn = new Connection({
    getName: () => localStorage.getItem(NAME_KEY) ?? "",
    onMessage,
    onStatus: setStatus,
    onWelcome,
  });
  window.addEventListener("popstate", route);
  route();
  conn.connect();
  window.trunkfield = { S, conn }; // for debugging and the browser tests
}

main();
