// Games played on this device, with or without the network: against the computer (the same
// bot as the server's, compiled to WebAssembly and run in a worker so the page stays responsive)
// or two players taking turns at one screen ("pass and play").
//
// A local room stands in for the server. The game page sends it the very messages it sends the
// server about a game (watch, setup, turn, resign, draw_offer, takeback_offer: proto/PROTOCOL.md)
// and it answers with the protocol's snapshot, event and error messages, judged by the same
// rules, which the page reads through the same game mirror as a server's. So the board, typed
// moves, the text view, premoves, takebacks and the result work alike on and off line. Every
// change is kept on the device (device.js), so a reload — or a closed browser — continues the
// game where it was.
//
// Local games have codes "local-…" (never a server's: those are letters and digits only) and
// live at /#local/ID. Where the protocol speaks to a second person, the local room decides at
// once: the computer grants takebacks and declines draws; at one screen, a draw offered is a
// draw agreed. Local games have no clock, no chat and no rating.
import { RulesGame } from "./trunkfield-rules.js";
import { S, app, storedName } from "./state.js";
import { gameView } from "./game.js";
import { other } from "./dom.js";
import { t } from "./i18n.js";
import { deviceGame, keepOnDevice, LOCAL_PREFIX, isLocalCode } from "./device.js";

// The computer thinks at least this long, so its turn can be seen coming after the player's.
const BOT_PACE_MS = 400;
const rooms = new Map(); // code -> LocalRoom
let deliver = (_m) => {};

// `onMessage`: where the answers go (app.js's handler of server messages).
export function setupLocal(onMessage) {
  deliver = onMessage;
}

// ------------------------------------------------------------------ the computer, in a worker
let botWorker = null; // the Worker, false when workers cannot be had, null before the first ask
const botAsks = new Map(); // id -> {resolve, state, level, seed}
let botSeq = 0;

// The bot on this thread: the fallback when no worker runs (the page pauses while it thinks).
function botHere(state, level, seed) {
  const g = RulesGame.fromState(state);
  try {
    return g.botMove(level, seed);
  } finally {
    g.dispose();
  }
}

function workerFailed() {
  botWorker = false;
  for (const [id, a] of botAsks) {
    botAsks.delete(id);
    a.resolve(botHere(a.state, a.level, a.seed));
  }
}

function worker() {
  if (botWorker === null) {
    try {
      botWorker = new Worker("/botworker.js", { type: "module" });
      botWorker.onmessage = (ev) => {
        const a = botAsks.get(ev.data?.id);
        if (!a) return;
        botAsks.delete(ev.data.id);
        a.resolve(ev.data);
      };
      botWorker.onerror = workerFailed;
    } catch {
      botWorker = false;
    }
  }
  return botWorker || null;
}

// The computer's setup or turn for the side to move in `state`: {setup} | {turn} | {error}.
export function askBot(state, level, seed) {
  const w = worker();
  if (!w) return Promise.resolve(botHere(state, level, seed));
  return new Promise((resolve) => {
    const id = ++botSeq;
    botAsks.set(id, { resolve, state, level, seed });
    w.postMessage({ id, state, level, seed });
  });
}

// ------------------------------------------------------------------ new games
function newCode() {
  const abc = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return LOCAL_PREFIX + [...bytes].map((b) => abc[b % abc.length]).join("");
}

// Starts a game on the device and returns its code. `kind`: "bot" (against the computer of
// `level`, the player holding `human`: silver, bronze or random) or "pass" (two players).
// `position`: a position string to start from instead of the setups (the analysis board's and
// the position editor's "Play from here"); `variant` is then the position's.
export function newLocalGame({ kind, level = 3, human = "silver", variant = null, position = null }) {
  const g = position ? RulesGame.fromPosition(position) : new RulesGame(variant);
  const full = g.state().variant;
  const start = position ? g.position() : null;
  g.dispose();
  const code = newCode();
  const side = human === "random" ? (crypto.getRandomValues(new Uint8Array(1))[0] & 1 ? "bronze" : "silver") : human;
  const players = kind === "bot"
    ? { [side]: { id: "you", name: storedName() || t("local.you") }, [other(side)]: { id: `bot${level}`, name: t("local.computer", { n: level }) } }
    : { silver: { id: "silver", name: t("local.silverPlayer") }, bronze: { id: "bronze", name: t("local.bronzePlayer") } };
  keepOnDevice({ code, kind, level: kind === "bot" ? level : null, human: kind === "bot" ? side : null, players,
    record: { variant: full, setup: { silver: null, bronze: null }, turns: [], ...(start ? { position: start } : {}) }, result: null, version: 1,
    seed: crypto.getRandomValues(new Uint32Array(1))[0], created_at: Date.now(), finished_at: null });
  return code;
}

// The settings of a finished local game, for "Play again".
export function againLocal(code) {
  const e = deviceGame(code);
  if (!e) return null;
  return newLocalGame({ kind: e.kind, level: e.level ?? 3, human: e.human ?? "silver", variant: e.record.variant, position: e.record.position ?? null });
}

// ------------------------------------------------------------------ the room
class LocalRoom {
  constructor(entry) {
    this.e = entry;
    this.game = null;
    this.sides = []; // who played each turn of the record
    this.thinking = false;
    this.generation = 0; // bumped by a takeback: a computer's answer to a position gone is void
    this.rebuild();
  }

  get code() {
    return this.e.code;
  }

  // The rules' game from the record (and the end decided outside the rules).
  rebuild() {
    this.game?.dispose();
    const rec = this.e.record;
    const g = rec.position ? RulesGame.fromPosition(rec.position) : new RulesGame(rec.variant);
    if (!rec.position) for (const s of ["silver", "bronze"]) if (rec.setup[s]) g.applySetup(s, rec.setup[s]);
    this.sides = [];
    for (const turn of this.e.record.turns) {
      this.sides.push(g.state().to_move);
      if (g.applyTurn(turn).error) break;
    }
    const r = this.e.result;
    if (r && !g.state().over) {
      if (r.winner === "draw") g.agreeDraw();
      else if (r.winner) g.resign(other(r.winner));
    }
    this.game = g;
  }

  state() {
    return this.game.state();
  }

  // The side whose setup or turn the rules expect (null once over).
  expected() {
    const st = this.state();
    if (st.over || this.e.result) return null;
    if (st.phase === "setup_silver") return "silver";
    if (st.phase === "setup_bronze") return "bronze";
    return st.to_move;
  }

  botSide() {
    return this.e.kind === "bot" ? other(this.e.human) : null;
  }

  // The side the person at the screen acts for: their seat against the computer; in pass and
  // play the side to move (the board turns to it).
  humanSide() {
    if (this.e.kind === "bot") return this.e.human;
    return this.expected() ?? gameView(this.code).localSide ?? "silver";
  }

  // Delivers `m` as the server's. In pass and play the screen changes sides only after an event
  // is read: the event of a setup or turn is the mover's own (confirming what it sent).
  send(m) {
    const G = gameView(this.code);
    G.localGame = this.e.kind;
    if (m.type === "snapshot" || !G.localSide) G.localSide = this.humanSide();
    deliver(m);
    const side = this.humanSide();
    if (G.localSide !== side) {
      G.localSide = side;
      app.render();
    }
  }

  snapshot() {
    const setup = {};
    for (const s of ["silver", "bronze"]) if (this.e.record.setup[s]) setup[s] = this.e.record.setup[s];
    return { type: "snapshot", game: this.code, version: this.e.version, status: this.e.result ? "over" : "playing",
      state: this.state(), record: { variant: this.e.record.variant, setup, turns: this.e.record.turns, time_control: null,
        ...(this.e.record.position ? { position: this.e.record.position } : {}) },
      players: this.e.players, clocks: null, spectators: 0, public: false, rated: false, chat: [],
      // takebacks on (granted at once), no clock to give time on
      preferences: { silver: { takeback: true, more_time: false }, bronze: { takeback: true, more_time: false } } };
  }

  event(kind, payload) {
    this.e.version += 1;
    this.send({ type: "event", game: this.code, version: this.e.version, kind, payload, clocks: null });
  }

  error(msg, code, message, rule) {
    const m = { type: "error", code, game: this.code, message, version: this.e.version };
    if (msg.ref) m.ref = msg.ref;
    if (rule) m.rule = rule;
    this.send(m);
  }

  save() {
    keepOnDevice(this.e);
  }

  // The game ended: `result` is the game_over payload.
  finish(result) {
    this.e.result = result;
    this.e.finished_at = Date.now();
    this.save();
    this.event("game_over", result);
  }

  endedByRules() {
    const st = this.state();
    if (st.over) this.finish({ over: true, reason: st.reason, score: st.score, winner: st.winner, to_move: null });
  }

  // A setup or turn from `side`; `msg` the request (its ref and version), or null for the
  // computer's. True when it was played.
  play(msg, side, what, body) {
    const want = this.expected();
    const fail = (code, message, rule) => {
      if (msg) this.error(msg, code, message, rule);
      return false;
    };
    if (!want) return fail("game_over", t("local.over"));
    const st = this.state();
    if (what === "setup" && st.phase === "play") return fail("wrong_phase", t("local.wrongPhase"));
    if (what === "turn" && st.phase !== "play") return fail("wrong_phase", t("local.wrongPhase"));
    if (side !== want) return fail("not_your_turn", t("local.notYourTurn"));
    if (msg && typeof msg.version === "number" && msg.version !== this.e.version) return fail("stale_version", t("local.stale"));
    const r = what === "setup" ? this.game.applySetup(side, body) : this.game.applyTurn(body);
    if (r.error) return fail(what === "setup" ? "illegal_setup" : "illegal_turn", r.error.message, r.error.code);
    if (what === "setup") this.e.record.setup[side] = body;
    else {
      this.e.record.turns.push(body);
      this.sides.push(side);
    }
    this.save();
    this.event(what, what === "setup" ? { side, setup: body } : { side, turn: body });
    this.endedByRules();
    return true;
  }

  // The computer's move when it is to move.
  async kick() {
    const bot = this.botSide();
    if (!bot || this.thinking || this.expected() !== bot) return;
    this.thinking = true;
    const gen = this.generation;
    const seed = (this.e.seed + this.e.version) >>> 0;
    const [answer] = await Promise.all([askBot(this.state(), this.e.level, seed), new Promise((r) => setTimeout(r, BOT_PACE_MS))]);
    this.thinking = false;
    if (gen !== this.generation || rooms.get(this.code) !== this) return void this.kick();
    if (answer.setup) this.play(null, bot, "setup", answer.setup);
    else if (answer.turn) this.play(null, bot, "turn", answer.turn);
    else {
      gameView(this.code).error = { code: answer.error?.code ?? "internal", message: answer.error?.message ?? "" };
      return void app.render();
    }
    this.kick();
  }

  on(msg) {
    const side = this.humanSide();
    switch (msg.type) {
      case "watch":
        this.send(this.snapshot());
        return this.kick();
      case "setup":
        if (this.play(msg, side, "setup", msg.setup)) this.kick();
        return undefined;
      case "turn":
        if (this.play(msg, side, "turn", msg.turn)) this.kick();
        return undefined;
      case "resign":
        if (!this.expected()) return this.error(msg, "game_over", t("local.over"));
        this.game.resign(side);
        this.event("resign", { side });
        return this.finish({ over: true, reason: "resign", score: this.state().score, winner: other(side), to_move: null });
      case "draw_offer":
        if (!this.expected()) return this.error(msg, "game_over", t("local.over"));
        this.event("draw_offer", { side });
        if (this.e.kind === "bot") return this.event("draw_decline", { side: this.botSide() });
        // At one screen, the other player is there: offering is agreeing.
        this.event("draw_accept", { side: other(side) });
        this.game.agreeDraw();
        return this.finish({ over: true, reason: "agreement", score: this.state().score, winner: "draw", to_move: null });
      case "takeback_offer":
        return this.takeback(msg, side);
      case "preferences":
      case "chat":
        return undefined; // nobody else to tell
      default:
        return this.error(msg, "unknown_type", t("local.notHere"));
    }
  }

  // `side`'s last turn and every turn after it are taken back, and `side` is to move.
  takeback(msg, side) {
    if (!this.expected()) return this.error(msg, "game_over", t("local.over"));
    const i = this.sides.lastIndexOf(side);
    if (i <= 0) return this.error(msg, "nothing_to_take_back", t("local.nothingBack"));
    const turns = this.sides.length - i;
    this.event("takeback_offer", { side });
    this.e.record.turns = this.e.record.turns.slice(0, i);
    this.generation += 1;
    this.rebuild();
    this.save();
    this.event("takeback", { side, turns });
    return undefined;
  }
}

async function rulesReady() {
  while (!S.rulesReady) await new Promise((r) => setTimeout(r, 50));
}

async function handle(code, msg) {
  await rulesReady();
  let room = rooms.get(code);
  if (!room) {
    const e = deviceGame(code);
    if (!e) return deliver({ type: "error", code: "no_such_game", game: code, message: t("local.noGame"), ...(msg.ref ? { ref: msg.ref } : {}) });
    room = new LocalRoom(e);
    rooms.set(code, room);
  }
  return room.on(msg);
}

// A message the page would send the server: true when it is about a local game, which answers
// it (asynchronously, as a server would).
export function localSend(msg) {
  const code = msg?.game ?? msg?.code;
  if (!isLocalCode(code)) return false;
  handle(code, msg);
  return true;
}

// Forgets the room of a game (it was deleted from the device).
export function closeLocal(code) {
  const room = rooms.get(code);
  if (!room) return;
  room.game?.dispose();
  rooms.delete(code);
}
