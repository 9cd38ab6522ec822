// Trunkfield rules in the browser and in Node: a thin ES-module API over the WebAssembly build
// of the C++ rules library (client/web/wasm/bindings.cpp). Same answers as the server.
//
//   import { Rules, RulesGame } from "./trunkfield-rules.js";
//   await Rules.load();                        // once; loads ./trunkfield-rules.mjs next to this file
//   const game = new RulesGame({ size: 9 });   // or RulesGame.fromState(stateFromServer)
//   game.applySetup("silver", setup);          // {ok: true} or {error: {code, message}}
//   game.legalMoves();                         // canonical elephant moves of the side to move
//   game.legalMovesFrom([3, 1]);               // ... of the elephant on one cell (highlighting)
//   game.checkTurn(turn);                      // would it apply? the game does not change
//   game.applyTurn(turn);                      // {ok: true} or {error: {code, message}}
//   game.state();                              // the state JSON of docs/RULES.md
//   game.botMove(3, seed);                     // the computer's {setup} or {turn}, or {error}
//   game.resign("silver"); game.agreeDraw();   // ends decided outside the rules: {ok} or {error}
//   game.dispose();                            // frees the game in the module
//   Rules.replay(record);                      // {applied, error, over, reason, score, winner, to_move, moves}
//   const mirror = new RulesMirror(playerId);  // one game as the server's messages describe it
//   mirror.apply(serverMessageText);           // {update: "snapshot"|"event"|"gap"|"diverged"|...}
//   mirror.view();                             // {code, version, status, state, players, clocks, turns...}
//   Rules.turnToNotation(turn, 9); Rules.turnFromNotation("c1-c2:N", 9);
//   RulesGame.fromPosition("9.5.3.40 ..."); game.position();   // position strings
//   game.analyse(nodes, length);               // the engine's eval and best line here
//   Rules.parseVariations(text); Rules.printVariations(tree);   // records with variations
//   const an = new RulesAnalyser(record);      // the engine's analysis of a game, stepwise
//   while (an.step().done < an.total);         // one position per step (a search each)
//   an.result();                               // {nodes, positions, turns, players}
//
// Rule violations come back as values ({error: {code, message}}, codes as in the wire protocol);
// exceptions are thrown only for misuse: calling before load(), or a disposed game.

let mod = null;
let loading = null;

// Where the compiled rules are: next to this file. A browser streams and compiles them from
// their URL; Node reads the file and hands its bytes over (emscripten's own Node path would
// need CommonJS `require`). client/web/assemble.mjs rewrites the name to the hashed one.
const WASM_FILE = "./trunkfield-rules.wasm";
async function wasmArgs() {
  const url = new URL(WASM_FILE, import.meta.url);
  if (typeof process === "object" && process.versions?.node && url.protocol === "file:") {
    const fs = await import("node:fs");
    return { wasmBinary: fs.readFileSync(url) };
  }
  return { locateFile: (p) => (p.endsWith(".wasm") ? url.href : p) };
}

// Calls an exported C function with string arguments copied to the module heap (malloc'd, not
// on the small wasm stack, so large records are fine) and returns its text result, if any.
function call(name, returnsText, ...args) {
  if (!mod) throw new Error("trunkfield-rules: call `await Rules.load()` first");
  const ptrs = [];
  try {
    const cargs = args.map((a) => {
      if (typeof a !== "string") return a;
      const n = mod.lengthBytesUTF8(a) + 1;
      const p = mod._malloc(n);
      if (!p) throw new Error("trunkfield-rules: out of memory");
      ptrs.push(p);
      mod.stringToUTF8(a, p, n);
      return p;
    });
    const r = mod["_" + name](...cargs);
    return returnsText ? mod.UTF8ToString(r) : r;
  } finally {
    for (const p of ptrs) mod._free(p);
  }
}

const text = (v) => (typeof v === "string" ? v : JSON.stringify(v));

// A null-or-{code, message} result as {ok: true} or {error: {code, message}}.
function actionResult(json) {
  const e = JSON.parse(json);
  return e === null ? { ok: true } : { error: e };
}

function lastError() {
  return JSON.parse(call("tf_last_error", true));
}

export class Rules {
  // Loads and instantiates the module once; later calls return the same promise.
  // `factory`: the emscripten factory to use instead of importing ./trunkfield-rules.mjs, e.g.
  // when a bundler placed it elsewhere. `moduleArgs` go to the factory (print, locateFile...).
  static load({ factory, moduleArgs } = {}) {
    if (!loading) {
      loading = (async () => {
        const create = factory ?? (await import("./trunkfield-rules.mjs")).default;
        mod = await create({ ...(await wasmArgs()), ...(moduleArgs ?? {}) });
        return Rules;
      })();
      loading.catch(() => {
        loading = null;
      });
    }
    return loading;
  }

  static get loaded() {
    return mod !== null;
  }

  // The raw emscripten module (ccall, cwrap, UTF8ToString, _tf_* functions).
  static get module() {
    return mod;
  }

  // Replays a record (object or JSON text). For a record: {applied, error, over, reason, score,
  // winner, to_move, moves} where error is null or {turn | setup, code, message} as
  // `trunkfield rules replay` prints, and moves are the legal moves of the final position.
  // For input that is not a record at all: {error: {code, message}} and no `applied`.
  static replay(record) {
    return JSON.parse(call("tf_replay", true, text(record)));
  }

  // {notation} or {error: {code, message}}.
  static turnToNotation(turn, size = 9) {
    return JSON.parse(call("tf_turn_to_notation", true, text(turn), size));
  }

  // {turn} (canonical JSON) or {error: {code, message}}.
  static turnFromNotation(notation, size = 9) {
    return JSON.parse(call("tf_turn_from_notation", true, String(notation), size));
  }

  // A record with variations (docs/RULES.md §8) from its text: {tags, position, comment?,
  // children: [{turn, comment?, children}]} or {error: {code, message}}.
  static parseVariations(textForm) {
    return JSON.parse(call("tf_variations_parse", true, String(textForm)));
  }

  // The text of such a tree (every turn checked): {text} or {error: {code, message}}.
  static printVariations(tree) {
    return JSON.parse(call("tf_variations_print", true, text(tree)));
  }
}

// A FinalizationRegistry that frees the handles of objects the caller forgot to dispose with
// the module's `free` function (best effort; dispose() is sure).
function handleRegistry(free) {
  return typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((handle) => {
        if (mod) mod[free](handle);
      })
    : null;
}

const registry = handleRegistry("_tf_game_free");

export class RulesGame {
  // A new game in its setup phase. `variant`: {size, elephants, burnt, quiet} (any omitted field
  // takes its default), null for the default variant. Throws RulesError for a bad variant.
  constructor(variant = null, _handle = 0) {
    let h = _handle;
    if (!h) {
      h = call("tf_game_new", false, text(variant));
      if (!h) throw new RulesError(lastError());
    }
    this._h = h;
    registry?.register(this, h, this);
  }

  // The game of a position string (docs/RULES.md §8 "Position strings"). Throws RulesError.
  static fromPosition(position) {
    const h = call("tf_game_from_position", false, String(position));
    if (!h) throw new RulesError(lastError());
    return new RulesGame(null, h);
  }

  // A game rebuilt from a state as state() returns it (and the server sends). Throws RulesError.
  static fromState(state) {
    const h = call("tf_game_load", false, text(state));
    if (!h) throw new RulesError(lastError());
    return new RulesGame(null, h);
  }

  get handle() {
    if (!this._h) throw new Error("trunkfield-rules: game already disposed");
    return this._h;
  }

  // An independent copy (previews, undo).
  clone() {
    const h = call("tf_game_clone", false, this.handle);
    if (!h) throw new RulesError(lastError());
    return new RulesGame(null, h);
  }

  dispose() {
    if (!this._h) return;
    registry?.unregister(this);
    call("tf_game_free", false, this._h);
    this._h = 0;
  }

  // side: "silver" | "bronze"; setup: {elephants: [[x, y]...], guardians: [[x, y], [x, y]]}.
  applySetup(side, setup) {
    return actionResult(call("tf_game_apply_setup", true, this.handle, String(side), text(setup)));
  }

  // turn: canonical turn JSON {elephant, burnt, guardians}. On error the game is unchanged.
  applyTurn(turn) {
    return actionResult(call("tf_game_apply_turn", true, this.handle, text(turn)));
  }

  // Like applyTurn, without changing the game.
  checkTurn(turn) {
    return actionResult(call("tf_game_check_turn", true, this.handle, text(turn)));
  }

  // Every legal elephant move of the side to move, canonical ({from, path, facing?}); [] when
  // the game is not in play.
  legalMoves() {
    return this._read("tf_game_legal_moves");
  }

  // The legal moves of the elephant on `cell` ([x, y]).
  legalMovesFrom(cell) {
    return this.legalMoves().filter((m) => m.from[0] === cell[0] && m.from[1] === cell[1]);
  }

  state() {
    return this._read("tf_game_state");
  }

  // Ends the game outside the rules: `loser` resigns / a draw is agreed. {ok: true} or {error}.
  resign(loser) {
    return actionResult(call("tf_game_resign", true, this.handle, String(loser)));
  }
  agreeDraw() {
    return actionResult(call("tf_game_agree_draw", true, this.handle));
  }

  // The computer opponent's move for the side to move (common/bot.h), level 1..5: {setup} in a
  // setup phase, {turn} in play, or {error: {code, message}}. The same game, level and seed
  // (an integer from 0 to 2^53) give the same move. A level 5 turn takes about 0.2 s, up to
  // most of a second: in a page, call it from a worker (botworker.js).
  botMove(level, seed = 1) {
    return JSON.parse(call("tf_game_bot_move", true, this.handle, Number(level), Number(seed)));
  }

  // The position string, or null during the setups.
  position() {
    const r = this._read("tf_game_position");
    if (r.error) throw new RulesError(r.error);
    return r.position;
  }

  // The engine's view (common/analysis.h analyse_position): {eval, win, forced, best, line}, the
  // first search `nodes` positions (1,000 to 100,000,000), the line up to `length` turns; or
  // {error}. 35,000 nodes take about 0.1 s in a browser: call it from a worker.
  analyse(nodes = 35000, length = 6) {
    return JSON.parse(call("tf_game_analyse", true, this.handle, Number(nodes), Number(length)));
  }

  turnToNotation(turn) {
    return Rules.turnToNotation(turn, this._size());
  }

  turnFromNotation(notation) {
    return Rules.turnFromNotation(notation, this._size());
  }

  _size() {
    if (!this._sizeCache) this._sizeCache = this.state().variant.size;
    return this._sizeCache;
  }

  _read(fn) {
    const r = JSON.parse(call(fn, true, this.handle));
    if (r === null) throw new RulesError(lastError());
    return r;
  }
}

// A rules error thrown by the constructors: .code and .message as in the protocol.
export class RulesError extends Error {
  constructor(err) {
    super(err?.message ?? "unknown error");
    this.name = "RulesError";
    this.code = err?.code ?? "internal";
  }
}

export default Rules;

// The client library's game mirror (client/lib/game_mirror.h): hand it every server message as
// text, read the game from view(). A "gap" asks for `watch` with since_version = view().version,
// a "diverged" for a fresh `watch`.
export class RulesMirror {
  constructor(playerId = "") {
    this._h = call("tf_mirror_new", false, String(playerId));
    if (!this._h) throw new Error("trunkfield-rules: cannot make a mirror");
    mirrorRegistry?.register(this, this._h, this);
  }

  // {update: "snapshot" | "event" | "ignored" | "gap" | "diverged" | "error", kind?, event?, message?}
  apply(message) {
    return JSON.parse(call("tf_mirror_apply", true, this._handle(), text(message)));
  }

  // {code, version, state_version, status, state, variant, time_control, my_side,
  //  players: {silver, bronze: {id, name, away: null | {claim_at, award_at},
  //            rating: null | {rating, deviation, games, provisional}} | null}, clocks,
  //  draw_offer, takeback_offer, stalling (the side judged stalling: its opponent may claim),
  //  preferences: {silver, bronze: {takeback, more_time}},
  //  takebacks_on (both seats accept them), takeback_turns: {silver, bronze} (what a takeback
  //  asked by that side would remove now; 0: none), spectators, result, rated, ratings: null | {category, silver, bronze:
  //  {before, after: {rating, deviation, games, provisional}} | null}, setup, position (a game
  //  from a position string: where it started, else null),
  //  turns: [{side, turn, captures: [{side, cell}]}], chat: [{from: {id, name}, text, room}],
  //  rematch_offer, rematch_declined, rematch_code}
  // or null before the first snapshot. A seat's rating is the player's as the rated game
  // began; `ratings` are the changes once the server applied them after the game.
  view() {
    return JSON.parse(call("tf_mirror_view", true, this._handle()));
  }

  dispose() {
    if (!this._h) return;
    mirrorRegistry?.unregister(this);
    if (mod) mod._tf_mirror_free(this._h);
    this._h = 0;
  }

  _handle() {
    if (!this._h) throw new Error("trunkfield-rules: this mirror was disposed");
    return this._h;
  }
}

const mirrorRegistry = handleRegistry("_tf_mirror_free");

// The engine's analysis of a game record (common/analysis.h; `trunkfield analyse --json` gives
// the same for the same record and budget): one position evaluated per step(), so that a worker
// can report progress between steps. A step is one search of `nodes` positions (0: the default:
// about 45 ms, 6 to 7 s for a 140-turn game, in Node on the build machine); run it in a worker,
// not on the page's thread.
export class RulesAnalyser {
  // Throws RulesError when the record cannot be analysed (not a record, an illegal setup or
  // turn: the message names it).
  constructor(record, nodes = 0) {
    this._h = call("tf_analyser_new", false, text(record), Number(nodes) || 0);
    if (!this._h) throw new RulesError(lastError());
    analyserRegistry?.register(this, this._h, this);
    this._total = this._progress().total;
  }

  // Positions to evaluate: turns + 1 (position 0 is the one after both setups).
  get total() {
    return this._total;
  }

  // Positions evaluated so far.
  get done() {
    return this._progress().done;
  }

  // Evaluates the next position: {done, total}. Once done === total, it does nothing.
  step() {
    return this._call("tf_analyser_step");
  }

  // {nodes, positions: [{eval, win, forced, best}], turns: [{side, turn, loss, judgement, best}],
  //  players: {silver, bronze: {accuracy, inaccuracies, mistakes, blunders}}} once every
  // position is evaluated; throws RulesError (code "not_finished") before.
  result() {
    return this._call("tf_analyser_result");
  }

  dispose() {
    if (!this._h) return;
    analyserRegistry?.unregister(this);
    if (mod) mod._tf_analyser_free(this._h);
    this._h = 0;
  }

  _progress() {
    return this._call("tf_analyser_progress");
  }

  _call(fn) {
    if (!this._h) throw new Error("trunkfield-rules: this analyser was disposed");
    const r = JSON.parse(call(fn, true, this._h));
    if (r.error) throw new RulesError(r.error);
    return r;
  }
}

const analyserRegistry = handleRegistry("_tf_analyser_free");
