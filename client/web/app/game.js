// One game as the page knows it. The server's snapshot and events are read by the client
// library's game mirror (client/lib/game_mirror.h, in WebAssembly as RulesMirror: the same code
// as the terminal client, the bot and the tests): versions and gaps, seats and presence, clocks,
// the draw offer, a takeback request and each seat's preferences, the spectators, the result,
// the turn list with what each turn captured (and a takeback's turns gone), the chat and the
// rematch. After each message G's fields are copied from the mirror's view.
//
// What the mirror does not know stays here: the rules on the server-confirmed position for
// legal-move highlighting (G.rules), the player's own sent-but-unconfirmed move shown on top of
// it (G.shown, G.pending) until the server accepts or refuses it, premoves and drafts
// (turn.js), every position of the game for browsing (G.positions, replayed with the rules at a
// snapshot and appended per turn), and the hooks that animate and sound.
import { RulesGame, RulesMirror } from "./trunkfield-rules.js";
import { S, send, mySide } from "./state.js";
import { resetDraft } from "./turn.js";
import { same, isField } from "./board.js";
import { sendPreferences } from "./takeback.js";

// What the screens do when something happens in a game (app.js fills these in): a turn to show
// (and maybe animate and sound), a game that ended, and every event the mirror applied but the
// spectator count and the spectators' room (`ev`: the event message as the mirror read it, a
// turn's captures filled in; never one already seen).
export const gameHooks = { turn: (_G, _entry, _live) => {}, over: (_G) => {}, event: (_G, _ev) => {} };

export function gameView(code) {
  let G = S.games.get(code);
  if (!G) {
    G = { code, version: -1, status: null, rules: null, state: null, shown: null, pending: null, mirror: null,
      players: { silver: null, bronze: null }, timeControl: null, clocks: null, clocksAt: 0,
      spectators: 0, chat: [], chatOut: [], turns: [], positions: [], last: null, result: null, drawOffer: null,
      takebackOffer: null, takebackAsked: false, takebacksOn: false, takebackTurns: null, prefs: null, prefsKnown: false,
      away: { silver: null, bronze: null }, draft: null, history: [], error: null, notice: null, moves: null,
      watchSent: false, missing: null, browse: null, premove: null, abortReason: null,
      rematch: { offer: null, declined: null, next: null, unsupported: false, sent: false }, chatRooms: false,
      rated: false, ratings: null, invitee: null, declined: null, chatMuted: null, vacation: [], berserk: [] };
    resetDraft(G);
    S.games.set(code, G);
  }
  return G;
}

// Forgets every game view (a new identity): their rules and mirrors hold WebAssembly memory.
export function dropGames() {
  for (const G of S.games.values()) {
    G.rules?.dispose();
    G.premoveRules?.dispose();
    G.mirror?.dispose();
  }
  S.games.clear();
}

// The elephants a turn captured ([{side, cell}], the mirror's or the rules') with the facing
// each had where it stood, for drawing them: [{side, cell, facing}]. `before`: the state before
// the turn. The mover, captured where it landed, faces the way the turn chose.
function withFacing(before, turn, captures) {
  const e = turn?.elephant;
  const mover = e ? before?.elephants.find((b) => same(b.cell, e.from)) : null;
  const landing = e?.path?.length ? e.path[e.path.length - 1] : null;
  return (captures ?? []).map((c) => ({ side: c.side, cell: c.cell,
    facing: (mover && landing && same(c.cell, landing) ? e.facing ?? mover.facing : null)
      ?? before?.elephants.find((b) => same(b.cell, c.cell))?.facing ?? "N" }));
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

// Applies `turn` to `rules` (a RulesGame) and describes it, for the replay viewer and the
// practice (games from the server get their turns from the mirror): {side, turn, captures,
// before, after} or null when the rules refuse it.
export function recordTurn(rules, turn) {
  const before = rules.state();
  const side = before.to_move;
  if (rules.applyTurn(turn).error) return null;
  const after = rules.state();
  return { side, turn, captures: capturesByDiff(before, after, turn), before, after };
}

// Subscribes to the game; after a reconnection only the events after the last one seen follow.
// `fromScratch`: a snapshot rather than the missed events. What was asked, and at which version,
// is kept: events that arrive meanwhile do not ask again (see trouble()).
export function watchGame(G, fromScratch = false) {
  G.watchSent = true;
  G.rewatch = { version: G.version, fresh: fromScratch };
  const msg = { type: "watch", code: G.code };
  if (!fromScratch && G.version >= 0) msg.since_version = G.version;
  send(msg);
}

// The rules on the position `state` (the mirror's), for highlighting and checking drafts.
function setRules(G, state) {
  const rules = RulesGame.fromState(state);
  G.rules?.dispose();
  G.rules = rules;
  G.state = state;
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

// Every position of the mirror's game, replayed with the rules: after the setups, then after
// each turn; as far as the rules accept the record ([] before both setups).
function positionsOf(v) {
  const out = [];
  if (!v.position && (!v.setup?.silver || !v.setup.bronze)) return out;
  let game;
  try {
    game = v.position ? RulesGame.fromPosition(v.position) : new RulesGame(v.variant ?? null);
  } catch {
    return out;
  }
  try {
    if (!v.position && (game.applySetup("silver", v.setup.silver).error || game.applySetup("bronze", v.setup.bronze).error)) return out;
    out.push(game.state());
    for (const t of v.turns) {
      if (game.applyTurn(t.turn).error) break;
      out.push(game.state());
    }
  } finally {
    game.dispose();
  }
  return out;
}

const isSide = (s) => s === "silver" || s === "bronze";

// The sides a flag holds for after message `m`, read from the message itself when the mirror's
// view does not say (a rules module older than the flag): a snapshot's list `key`, or the event's
// {side, on}. `key`: "vacation" (PROTOCOL.md "Vacation"; `on` says whether it starts or ends) or
// "berserk" ("Tournaments", Berserk: arena games; no `on`, nobody comes back from it).
function flagSides(G, m, key) {
  if (m.type === "snapshot") return Array.isArray(m[key]) ? [...new Set(m[key].filter(isSide))] : [];
  const p = m.payload ?? {};
  if (!isSide(p.side)) return G[key] ?? [];
  const rest = (G[key] ?? []).filter((s) => s !== p.side);
  return p.on === false ? rest : [...rest, p.side];
}

const chatLine = (c) => ({ id: String(c.from?.id ?? ""), name: String(c.from?.name ?? "?"), text: String(c.text ?? ""),
  mine: !!S.me && c.from?.id === S.me.player_id, room: c.room === "spectators" ? "spectators" : "players" });

// What every message may change, from the mirror's view `v`. The status is taken when the
// mirror's changes, so that one the page learnt otherwise (suspended, from an error) stays
// until the game moves on.
function takeView(G, v) {
  G.version = v.version;
  if (v.status !== G.mirrorStatus) G.status = v.status;
  G.mirrorStatus = v.status;
  // A rated game's seats carry each player's rating as the game began.
  const seat = (p) => (p ? { id: p.id, name: p.name, rating: p.rating ?? null, bot: !!p.bot } : null);
  G.players = { silver: seat(v.players.silver), bronze: seat(v.players.bronze) };
  G.rated = !!v.rated;
  G.ratings = v.ratings ?? null; // the changes, once the server applied them after the game
  G.away = { silver: v.players.silver?.away ?? null, bronze: v.players.bronze?.away ?? null };
  G.timeControl = v.time_control ?? null;
  G.spectators = v.spectators;
  G.drawOffer = v.draw_offer;
  // takebacks: the standing request, whether both seats accept them, how many turns each side's
  // request would take back now; each seat's {takeback, more_time}
  G.takebackOffer = v.takeback_offer ?? null;
  G.takebacksOn = !!v.takebacks_on;
  G.takebackTurns = v.takeback_turns ?? null;
  G.prefs = v.preferences ?? null;
  G.stalling = v.stalling ?? null; // the side judged stalling in a lost position
  // correspondence games: the sides whose players are on vacation (their time stands on their
  // move); a rules module without it leaves it to the messages themselves (flagSides)
  if (Array.isArray(v.vacation)) G.vacation = v.vacation.filter(isSide);
  // arena games: the sides that went berserk (their clock halved, no increment); as above
  if (Array.isArray(v.berserk)) G.berserk = v.berserk.filter(isSide);
  G.result = v.result;
  G.chat = v.chat.map(chatLine);
}

// The mirror of G's game for the signed-in player, made at the game's first snapshot.
function mirrorOf(G) {
  const id = S.me?.player_id ?? "";
  if (G.mirror && G.mirrorFor !== id) {
    G.mirror.dispose();
    G.mirror = null;
  }
  if (!G.mirror) {
    G.mirror = new RulesMirror(id);
    G.mirrorFor = id;
  }
  return G.mirror;
}

// A snapshot (`m` as parsed, `raw` the frame's text when there is one): everything is replaced.
export function onSnapshot(m, raw = null) {
  const G = gameView(m.game);
  const r = mirrorOf(G).apply(raw ?? JSON.stringify(m));
  if (r.update !== "snapshot") {
    if (r.update === "error") G.error = { key: "err.position", message: r.message };
    return G;
  }
  const v = G.mirror.view();
  // The position the player may be drafting on (a setup being placed, a turn being built): a
  // snapshot that leaves it as it was (a rated game's rating after a join) keeps the draft.
  const drafted = G.state ? { version: G.version, state: JSON.stringify(G.state) } : null;
  G.missing = null;
  G.mirrorStatus = null;
  // A challenge (PROTOCOL.md "Challenges"): the challenged account, while the game is open. The
  // mirror does not keep it: it is read from the message itself.
  G.invitee = m.status === "open" && m.invitee?.id ? { id: String(m.invitee.id), name: String(m.invitee.name ?? "?") } : null;
  G.declined = null;
  G.rewatch = null; // what a watch asked for has come
  takeView(G, v);
  if (!Array.isArray(v.vacation)) G.vacation = flagSides(G, m, "vacation");
  if (!Array.isArray(v.berserk)) G.berserk = flagSides(G, m, "berserk");
  // A server that knows takebacks says each seat's preferences (the mirror assumes both on
  // otherwise); the player's own are sent when they differ.
  G.prefsKnown = !!m.preferences;
  sendPreferences(G);
  G.clocks = v.clocks;
  G.clocksAt = performance.now();
  // Whether the server knows the spectators' room: lines carry `room` then. About the server,
  // not the game: the mirror reads a line without one as the players' and keeps no trace of it.
  if (Array.isArray(m.chat) && m.chat.some((c) => c?.room)) G.chatRooms = true;
  // The lines before the page opened are no news; a snapshot after a resync may bring fewer.
  G.chatSeen = Math.min(G.chatSeen ?? G.chat.length, G.chat.length);
  settle(G);
  try {
    setRules(G, v.state);
  } catch (e) {
    G.error = { key: "err.position", message: e.message };
    return G;
  }
  G.positions = positionsOf(v);
  G.turns = v.turns.map((t, i) => ({ side: t.side, turn: t.turn, captures: withFacing(G.positions[i], t.turn, t.captures) }));
  if (!G.positions.length || G.positions.length !== G.turns.length + 1) G.positions = [...G.positions.slice(0, G.turns.length), G.state];
  const lastTurn = G.turns.at(-1);
  G.last = lastTurn ? { side: lastTurn.side, turn: lastTurn.turn, captures: lastTurn.captures } : null;
  if (G.browse !== null && G.browse > G.turns.length) G.browse = null;
  if (G.result) G.premove = null;
  const same = drafted && drafted.version === G.version && drafted.state === JSON.stringify(G.state);
  if (!same || G.result) resetDraft(G);
  return G;
}

// What to do about an event the mirror did not apply (`update`: "gap", "diverged" or "error"):
// "gap" (events were missed: watch again from the last version), "resync" (the mirror's rules
// disagree with the event, or cannot read it: a fresh snapshot, which describes the game after
// it) or "ok" (nothing: the watch that answers this is on its way). One bad event costs one
// watch: the events behind it, and the same event again, ask nothing more until the game has
// moved on (a new version, or a snapshot) or a watch asked less (the missed events, and now a
// snapshot is needed). An unreadable event that adds no version (spectators) is skipped.
function trouble(G, m, update) {
  if (update === "error" && !(typeof m.version === "number" && m.version > G.version)) return "ok";
  const fresh = update !== "gap";
  const w = G.rewatch;
  if (w && w.version === G.version && (w.fresh || !fresh)) return "ok";
  return fresh ? "resync" : "gap";
}

// Applies one event (`m` as parsed, `raw` the frame's text): "ok" (applied, or nothing to do),
// "gap" (events were missed: watch again from the last version) or "resync" (take a fresh
// snapshot); see trouble().
export function onEvent(m, raw = null) {
  const G = gameView(m.game);
  if (!G.mirror) return "ok"; // before the snapshot
  const r = G.mirror.apply(raw ?? JSON.stringify(m));
  if (r.update === "gap" || r.update === "diverged" || r.update === "error") return trouble(G, m, r.update);
  if (r.update !== "event") return "ok"; // seen already
  const v = G.mirror.view();
  const p = r.event.payload ?? {};
  takeView(G, v);
  if (r.event.clocks) {
    G.clocks = v.clocks;
    G.clocksAt = performance.now();
  }
  switch (r.kind) {
    case "spectators":
      return "ok";
    case "chat": {
      if (m.payload?.room) G.chatRooms = true; // the server knows rooms (see onSnapshot)
      // one of the player's own lines came back: no longer "sending"
      const i = S.me && p.from?.id === S.me.player_id ? G.chatOut.findIndex((c) => c.state === "sending" && c.text === p.text) : -1;
      if (i >= 0) {
        G.chatOut.splice(i, 1);
        G.chatMuted = null; // the player may chat again
      }
      if (p.room === "spectators") return "ok"; // not about the game
      break;
    }
    case "vacation":
      // A player went on vacation or came back (correspondence games): a versioned event that
      // changes neither the position nor the turn list; the event's clocks say whose clock
      // stands (running null while the side to move is on vacation), taken above.
      if (!Array.isArray(v.vacation)) G.vacation = flagSides(G, m, "vacation");
      break;
    case "berserk":
      // A player went berserk (arena games): its clock lost half the initial time, taken with
      // the event's clocks above; the position and the turn list stay.
      if (!Array.isArray(v.berserk)) G.berserk = flagSides(G, m, "berserk");
      break;
    case "hidden":
      // A players' line this player may not read (its author blocked, muted or restricted by a
      // moderator: PROTOCOL.md "Follow and block"): it takes its version, which the mirror
      // counted, and shows nothing.
      break;
    case "rematch_offer":
    case "rematch_decline":
    case "rematch":
      // About the next game: what the mirror knows, over the page's own guesses since.
      G.rematch = { ...G.rematch, offer: v.rematch_offer, declined: v.rematch_declined, next: v.rematch_code,
        sent: r.kind === "rematch_decline" ? false : G.rematch.sent };
      break;
    case "setup":
      try {
        setRules(G, v.state);
      } catch {
        return "resync";
      }
      if (G.state.phase === "play") G.positions = [G.state];
      if (p.side === mySide(G)) settle(G);
      resetDraft(G);
      break;
    case "turn": {
      const mine = p.side === mySide(G);
      const before = G.state;
      try {
        setRules(G, v.state);
      } catch {
        return "resync";
      }
      const t = v.turns.at(-1);
      const entry = { side: t.side, turn: t.turn, captures: withFacing(before, t.turn, t.captures), before, after: G.state };
      G.turns.push({ side: entry.side, turn: entry.turn, captures: entry.captures });
      G.positions.push(entry.after);
      G.last = { side: entry.side, turn: entry.turn, captures: entry.captures };
      const predicted = mine && !!G.pending;
      if (mine) {
        settle(G);
        G.takebackAsked = false; // one takeback request per own turn
      }
      resetDraft(G);
      // A new position: an earlier refusal is old news (but the one of the player's own turn,
      // which this may be the catching up after).
      if (!mine && !G.error?.key?.startsWith("err.refused")) G.error = null;
      gameHooks.turn(G, entry, !predicted);
      break;
    }
    case "takeback_offer":
      if (p.side === mySide(G)) G.takebackAsked = true;
      break;
    case "takeback":
      // The last turns are gone: the mirror rebuilt the position from the rest.
      try {
        setRules(G, v.state);
      } catch {
        return "resync";
      }
      G.turns = G.turns.slice(0, v.turns.length);
      G.positions = G.positions.slice(0, v.turns.length + 1);
      if (G.positions.length !== G.turns.length + 1) G.positions = [...G.positions.slice(0, G.turns.length), G.state];
      G.last = G.turns.length ? { ...G.turns.at(-1) } : null;
      if (G.browse !== null && G.browse >= G.turns.length) G.browse = null;
      // A turn of the player's still on its way is refused as stale: void already. A premove was
      // about a position that is gone.
      settle(G);
      G.premove = null;
      resetDraft(G);
      G.error = null;
      break;
    case "cancel":
      // a declined challenge: the reason (the mirror does not keep it)
      G.declined = typeof m.payload?.declined === "string" ? m.payload.declined : null;
      break;
    case "abort":
      G.abortReason = p.reason ?? null;
      G.abortSide = p.side ?? null; // reason "player": the side that left without a result
      break;
    case "join":
      // A join event carries no rating: in a rated game a snapshot brings the newcomer's (once).
      if (G.rated && !G.players[p.side]?.rating && !G.ratingAsked) {
        G.ratingAsked = true;
        gameHooks.event(G, r.event);
        return "resync";
      }
      break;
    case "game_over":
      G.premove = null;
      settle(G);
      resetDraft(G);
      gameHooks.over(G);
      break;
  }
  gameHooks.event(G, r.event);
  return "ok";
}

// An error answering a request about G. A refused setup/turn rolls the prediction back to the
// server's position; a newer version on the error means events were missed: resynchronise. A
// refused chat line (the oldest one still on its way: the server answers in order) is marked in
// the chat with the reason; a chat refused because a moderator muted the player says so under the
// chat's input, in the server's words (until when).
export function onGameError(G, m) {
  // a moderator muted the player: the server's message says until when (shown under the input)
  if (m.code === "chat_muted") G.chatMuted = { message: String(m.message ?? "") };
  if (m.code === "berserk_off") G.berserkSent = false; // refused: the server's rule says why
  const line = m.code?.startsWith("chat_") ? G.chatOut?.find((c) => c.state === "sending") : null;
  if (line) {
    line.state = "refused";
    line.reason = { code: m.code, message: m.message };
    return;
  }
  if (m.code === "chat_muted") return;
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
