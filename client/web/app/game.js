// One game as the page knows it: built from the server's snapshot, advanced by its events
// (versions without gaps, proto/PROTOCOL.md), with the rules running in WebAssembly on the
// server-confirmed position (G.rules) and the player's own sent-but-unconfirmed move shown
// on top of it (G.shown, G.pending) until the server accepts or refuses it.
import { Rules, RulesGame } from "./trunkfield-rules.js";
import { S, send, mySide } from "./state.js";
import { resetDraft } from "./turn.js";
import { cellName as cellLabel } from "./board.js";

export function gameView(code) {
  let G = S.games.get(code);
  if (!G) {
    G = { code, version: -1, status: null, rules: null, state: null, shown: null, pending: null,
      players: { silver: null, bronze: null }, record: null, clocks: null, clocksAt: 0,
      spectators: 0, chat: [], log: [], last: null, result: null, drawOffer: null,
      away: { silver: null, bronze: null }, draft: null, history: [], error: null, moves: null,
      watchSent: false, missing: null };
    resetDraft(G);
    S.games.set(code, G);
  }
  return G;
}

const sideOfTurn = (i) => (i % 2 === 0 ? "silver" : "bronze");
const sameCell = (a, b) => !!a && !!b && a[0] === b[0] && a[1] === b[1];

// The elephants a turn captured, from the states before and after it: [{cell, side, facing}].
// Only the mover and captures empty a cell; the mover is captured when its landing cell is empty.
export function capturesOf(before, after, turn) {
  const e = turn?.elephant;
  const landing = e?.path?.length ? e.path[e.path.length - 1] : null;
  const gone = (c) => !after.elephants.some((a) => sameCell(a.cell, c));
  const out = before.elephants.filter((b) => !sameCell(b.cell, e?.from) && gone(b.cell));
  const mover = before.elephants.find((b) => sameCell(b.cell, e?.from));
  const n = after.variant.size;
  const onField = landing && landing[0] >= 1 && landing[0] <= n && landing[1] >= 1 && landing[1] <= n;
  if (mover && onField && gone(landing)) out.push({ ...mover, cell: landing, facing: e.facing ?? mover.facing });
  return out;
}

export function notation(turn, size) {
  const r = Rules.turnToNotation(turn, size);
  return r.notation ?? JSON.stringify(turn);
}

// Subscribes to the game; after a reconnection only the events after the last one seen follow.
export function watchGame(G, fromScratch = false) {
  G.watchSent = true;
  const msg = { type: "watch", code: G.code };
  if (!fromScratch && G.version >= 0) msg.since_version = G.version;
  send(msg);
}

function setRules(G, rules) {
  G.rules?.dispose();
  G.rules = rules;
  G.state = rules.state();
  G.moves = null;
}

// The player's own move is confirmed (its event arrived) or void (a snapshot replaced all).
function settle(G) {
  G.pending = null;
  G.shown = null;
}

export function onSnapshot(m) {
  const G = gameView(m.game);
  G.version = m.version;
  G.status = m.status;
  G.missing = null;
  G.players = { silver: m.players?.silver ?? null, bronze: m.players?.bronze ?? null };
  G.away = { silver: m.players?.silver?.away ?? null, bronze: m.players?.bronze?.away ?? null };
  G.record = m.record ?? null;
  G.timeControl = m.record?.time_control ?? null;
  G.clocks = m.clocks ?? null;
  G.clocksAt = performance.now();
  G.spectators = m.spectators ?? 0;
  G.drawOffer = m.draw_offer ?? null;
  settle(G);
  try {
    setRules(G, RulesGame.fromState(m.state));
  } catch (e) {
    G.error = `Cannot load the position: ${e.message}`;
    return G;
  }
  const size = G.state.variant.size;
  const turns = m.record?.turns ?? [];
  G.log = turns.map((t, i) => ({ side: sideOfTurn(i), text: notation(t, size), turn: true }));
  G.last = turns.length ? { side: sideOfTurn(turns.length - 1), turn: turns[turns.length - 1] } : null;
  const over = m.state.over || m.status === "over" || m.status === "aborted";
  G.result = over ? { ...m.state, reason: m.state.reason ?? (m.status === "aborted" ? "aborted" : m.status) } : null;
  resetDraft(G);
  return G;
}

// Applies one event: "ok", "gap" (events were missed: watch again from the last version) or
// "resync" (the rules here disagree with the server's event: take a fresh snapshot).
export function onEvent(m) {
  const G = gameView(m.game);
  const p = m.payload ?? {};
  if (m.kind === "spectators") {
    // Display-only: taken whatever its version; the version advances only in sequence.
    if (typeof p.count === "number") G.spectators = p.count;
    if (typeof m.version === "number" && m.version === G.version + 1) G.version = m.version;
    return "ok";
  }
  if (G.version < 0 || m.version <= G.version) return "ok"; // before the snapshot, or seen
  if (m.version !== G.version + 1) return "gap";
  G.version = m.version;
  if (m.clocks !== undefined) {
    G.clocks = m.clocks;
    G.clocksAt = performance.now();
  }
  let ok = true;
  switch (m.kind) {
    case "join":
      G.players = { ...G.players, [p.side]: p.player };
      if (G.players.silver && G.players.bronze && G.status === "open") G.status = "playing";
      G.log.push({ side: p.side, text: `${p.player?.name ?? "?"} joined` });
      break;
    case "setup": {
      ok = !G.rules.applySetup(p.side, p.setup).error;
      G.state = G.rules.state();
      G.moves = null;
      if (p.side === mySide(G)) settle(G);
      resetDraft(G);
      break;
    }
    case "turn": {
      const prev = G.state;
      ok = !G.rules.applyTurn(p.turn).error;
      G.state = G.rules.state();
      G.moves = null;
      const caps = capturesOf(prev, G.state, p.turn);
      const capText = caps.length ? ` (captures ${caps.map((c) => `${c.side} on ${cellLabel(c.cell, G.state.variant.size)}`).join(", ")})` : "";
      G.log.push({ side: p.side, text: notation(p.turn, G.state.variant.size) + capText, turn: true });
      G.last = { side: p.side, turn: p.turn, captures: caps };
      if (p.side === mySide(G)) settle(G);
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
      G.away = { ...G.away, [p.side]: { claim_at: p.claim_at, award_at: p.award_at } };
      G.log.push({ side: p.side, text: "lost the connection" });
      break;
    case "player_back":
      G.away = { ...G.away, [p.side]: null };
      G.log.push({ side: p.side, text: "is back" });
      break;
    case "abandon":
      G.log.push({ side: p.side, text: p.claimed ? "abandoned the game (win claimed)" : "abandoned the game" });
      break;
    case "abort":
      G.status = "aborted";
      G.log.push({ side: "", text: `game aborted (${p.reason === "no_start" ? "not started in time" : p.reason ?? "?"})` });
      break;
    case "game_over":
      G.result = p;
      G.status = p.reason === "aborted" ? "aborted" : "over";
      G.drawOffer = null;
      settle(G);
      resetDraft(G);
      break;
    case "chat":
      G.chat.push({ name: String(p.from?.name ?? "?"), text: String(p.text ?? ""), mine: p.from?.id === S.me?.player_id });
      break;
    case "cancel":
      G.status = "cancelled";
      break;
  }
  return ok ? "ok" : "resync";
}

// An error answering a request about G. A refused setup/turn rolls the prediction back to the
// server's position; a newer version on the error means events were missed: resynchronise.
export function onGameError(G, m) {
  if (G.pending && m.ref && m.ref === G.pending.ref) {
    const what = G.pending.setup ? "setup" : "turn";
    settle(G);
    resetDraft(G);
    G.error = `The server refused your ${what} and the board shows its position again: ${m.message || m.code}`;
    if (typeof m.version === "number" && m.version > G.version) watchGame(G);
    return;
  }
  G.error = m.message || m.code;
}
