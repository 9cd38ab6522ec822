// One game as the page knows it: built from the server's snapshot, advanced by its events
// (versions without gaps, proto/PROTOCOL.md), with the rules running in WebAssembly on the
// server-confirmed position (G.rules) and the player's own sent-but-unconfirmed move shown
// on top of it (G.shown, G.pending) until the server accepts or refuses it.
//
// The turn list (G.turns) is the same for everyone: a player who saw a turn live, one who
// reloads and a spectator who joins later all get it from recordTurn(), which applies the turn
// with the rules and notes what it captured (the event's own `captures` when the server sends
// them). A snapshot's record is replayed through that same function, which also keeps every
// position (G.positions) for browsing the game.
import { RulesGame } from "./trunkfield-rules.js";
import { S, send, mySide } from "./state.js";
import { resetDraft } from "./turn.js";
import { same, isField } from "./board.js";

// What the screens do when something happens in a game (app.js fills these in): a turn to show
// (and maybe animate and sound), a game that ended, the player's turn coming.
export const gameHooks = { turn: (_G, _entry, _live) => {}, over: (_G) => {}, event: (_G, _m) => {} };

export function gameView(code) {
  let G = S.games.get(code);
  if (!G) {
    G = { code, version: -1, status: null, rules: null, state: null, shown: null, pending: null,
      players: { silver: null, bronze: null }, record: null, clocks: null, clocksAt: 0,
      spectators: 0, chat: [], turns: [], positions: [], last: null, result: null, drawOffer: null,
      away: { silver: null, bronze: null }, draft: null, history: [], error: null, notice: null, moves: null,
      watchSent: false, missing: null, browse: null, premove: null, abortReason: null,
      rematch: { offer: null, declined: null, next: null, unsupported: false, sent: false }, chatRooms: false };
    resetDraft(G);
    S.games.set(code, G);
  }
  return G;
}

// The elephants a turn captured, from the states before and after it: [{cell, side, facing}].
// Only the mover and captures empty a cell; the mover is captured when its landing cell is empty.
function capturesByDiff(before, after, turn) {
  const e = turn?.elephant;
  const landing = e?.path?.length ? e.path[e.path.length - 1] : null;
  const gone = (c) => !after.elephants.some((a) => same(a.cell, c));
  const out = before.elephants.filter((b) => !same(b.cell, e?.from) && gone(b.cell))
    .map((b) => ({ side: b.side, cell: b.cell, facing: b.facing }));
  const mover = before.elephants.find((b) => same(b.cell, e?.from));
  if (mover && landing && isField(landing, after.variant.size) && gone(landing))
    out.push({ side: mover.side, cell: landing, facing: e.facing ?? mover.facing });
  return out;
}

// Applies `turn` to `rules` (a RulesGame) and describes it for the turn list and the board:
// {side, turn, captures, before, after} or null when the rules refuse it. `given`: the server's
// `captures` ([{side, cell}]) when the event carries them; preferred to what the states show.
export function recordTurn(rules, turn, given = null) {
  const before = rules.state();
  const side = before.to_move;
  if (rules.applyTurn(turn).error) return null;
  const after = rules.state();
  const diff = capturesByDiff(before, after, turn);
  const captures = Array.isArray(given)
    ? given.map((c) => ({ side: c.side, cell: c.cell, facing: diff.find((d) => same(d.cell, c.cell))?.facing
      ?? before.elephants.find((b) => same(b.cell, c.cell))?.facing ?? "N" }))
    : diff;
  return { side, turn, captures, before, after };
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
  G.premoveRules?.dispose();
  G.premoveRules = null;
}

// The player's own move is confirmed (its event arrived) or void (a snapshot replaced all).
function settle(G) {
  if (G.pending?.ref) S.doneRefs.add(G.pending.ref);
  G.pending = null;
  G.shown = null;
}

// The turns of a record replayed with the rules: the turn list and every position.
function replayRecord(G, record) {
  G.turns = [];
  G.positions = [];
  if (!record?.setup?.silver || !record.setup.bronze) return;
  let game;
  try {
    game = new RulesGame(record.variant ?? null);
  } catch {
    return;
  }
  try {
    if (game.applySetup("silver", record.setup.silver).error || game.applySetup("bronze", record.setup.bronze).error) return;
    G.positions.push(game.state());
    for (const turn of record.turns ?? []) {
      const entry = recordTurn(game, turn);
      if (!entry) break;
      G.turns.push({ side: entry.side, turn, captures: entry.captures });
      G.positions.push(entry.after);
    }
  } finally {
    game.dispose();
  }
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
    G.error = { key: "err.position", message: e.message };
    return G;
  }
  replayRecord(G, m.record);
  if (!G.positions.length || G.positions.length !== G.turns.length + 1) G.positions = [...G.positions.slice(0, G.turns.length), G.state];
  const lastTurn = G.turns.at(-1);
  G.last = lastTurn ? { side: lastTurn.side, turn: lastTurn.turn, captures: lastTurn.captures } : null;
  const over = m.state.over || m.status === "over" || m.status === "aborted";
  G.result = over ? { ...m.state, reason: m.state.reason ?? (m.status === "aborted" ? "aborted" : m.status) } : null;
  if (G.browse !== null && G.browse > G.turns.length) G.browse = null;
  if (G.result) G.premove = null;
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
  if (m.kind === "chat" && p.room === "spectators") {
    // Spectators' lines are not versioned: they carry the game's version without adding one.
    addChat(G, p);
    return "ok";
  }
  if (m.kind.startsWith("rematch")) {
    // About the next game, not this one: taken whether the server versions them or not
    // (taking one twice changes nothing).
    if (m.kind === "rematch_offer") G.rematch = { ...G.rematch, offer: p.side, declined: null };
    else if (m.kind === "rematch_decline") G.rematch = { ...G.rematch, offer: null, declined: p.side, sent: false };
    else if (m.kind === "rematch") G.rematch = { ...G.rematch, next: p.code ?? null };
    if (typeof m.version === "number" && m.version === G.version + 1) G.version = m.version;
    gameHooks.event(G, m);
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
      break;
    case "setup": {
      ok = !G.rules.applySetup(p.side, p.setup).error;
      G.state = G.rules.state();
      G.moves = null;
      if (G.state.phase === "play") G.positions = [G.state];
      if (p.side === mySide(G)) settle(G);
      resetDraft(G);
      break;
    }
    case "turn": {
      const mine = p.side === mySide(G);
      const entry = recordTurn(G.rules, p.turn, p.captures);
      if (!entry) {
        ok = false;
        break;
      }
      G.state = entry.after;
      G.moves = null;
      G.premoveRules?.dispose();
      G.premoveRules = null;
      G.turns.push({ side: entry.side, turn: p.turn, captures: entry.captures });
      G.positions.push(entry.after);
      G.last = { side: entry.side, turn: p.turn, captures: entry.captures };
      const predicted = mine && !!G.pending;
      if (mine) settle(G);
      if (G.drawOffer === p.side) G.drawOffer = null; // a turn withdraws its own offer
      resetDraft(G);
      gameHooks.turn(G, entry, !predicted);
      break;
    }
    case "draw_offer":
      G.drawOffer = p.side;
      break;
    case "draw_decline":
    case "draw_accept":
      G.drawOffer = null;
      break;
    case "player_left":
      G.away = { ...G.away, [p.side]: { claim_at: p.claim_at, award_at: p.award_at } };
      break;
    case "player_back":
      G.away = { ...G.away, [p.side]: null };
      break;
    case "abort":
      G.status = "aborted";
      G.abortReason = p.reason ?? null;
      break;
    case "game_over":
      G.result = p;
      G.status = p.reason === "aborted" ? "aborted" : "over";
      G.drawOffer = null;
      G.premove = null;
      settle(G);
      resetDraft(G);
      gameHooks.over(G);
      break;
    case "chat":
      addChat(G, p);
      break;
    case "cancel":
      G.status = "cancelled";
      break;
  }
  gameHooks.event(G, m);
  return ok ? "ok" : "resync";
}

function addChat(G, p) {
  if (p.room) G.chatRooms = true;
  G.chat.push({ name: String(p.from?.name ?? "?"), text: String(p.text ?? ""), mine: !!S.me && p.from?.id === S.me.player_id,
    room: p.room === "spectators" ? "spectators" : "players", seated: ["silver", "bronze"].some((s) => G.players[s]?.id === p.from?.id) });
  if (G.chat.length > 300) G.chat.splice(0, G.chat.length - 300);
}

// An error answering a request about G. A refused setup/turn rolls the prediction back to the
// server's position; a newer version on the error means events were missed: resynchronise.
export function onGameError(G, m) {
  if (G.pending && m.ref && m.ref === G.pending.ref) {
    const what = G.pending.setup ? "setup" : "turn";
    settle(G);
    resetDraft(G);
    G.error = { key: `err.refused.${what}`, code: m.code, rule: m.rule, message: m.message };
    if (typeof m.version === "number" && m.version > G.version) watchGame(G);
    return;
  }
  G.error = { code: m.code, rule: m.rule, message: m.message };
}

// Resends the setup or turn that was in flight when the connection dropped (after the watch
// that replays what was missed, so an already accepted one is settled first and its copy is
// refused harmlessly).
export function resendPending(G) {
  const q = G.pending;
  if (!q) return;
  q.resent = (q.resent ?? 0) + 1;
  q.at = performance.now();
  if (q.setup) send({ type: "setup", game: G.code, setup: q.setup, version: q.version, ref: q.ref });
  else send({ type: "turn", game: G.code, turn: q.turn, version: q.version, ref: q.ref });
}
