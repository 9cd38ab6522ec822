// Building the player's own setup or turn on the board, with the WebAssembly rules: which cells
// can be chosen next, what a choice means, the position the drafted turn leads to (shown before
// it is sent), why a click that the rules refuse is refused (the library's own words, translated
// by its error code), and sending with prediction (game.js rolls back when the server refuses).
//
// While the opponent is to move the same drafting works on the current position as if it were
// the player's turn: the finished draft is a premove, kept until the opponent's turn arrives,
// then checked with the rules on the new position and sent, or cancelled with the reason.
//
// A draft: {from, path, facing, elDone, burnt, burntMode, guardians: [{from, dir, steps}],
// selGuard, setupE: [cells], setupG: [cells]}; every choice pushes the previous draft on
// G.history so Undo (and Escape) take back exactly one choice.
import { RulesGame } from "./trunkfield-rules.js";
import { ringOrder, isField, same, key, cellName, arrival } from "./board.js";
import { S, app, send, mySide } from "./state.js";
import { other } from "./dom.js";
import { rememberSetup } from "./setupfill.js";

export function resetDraft(G) {
  G.draft = { from: null, path: [], facing: null, elDone: false, burnt: null, burntMode: false,
    guardians: [], selGuard: null, setupE: [], setupG: [] };
  G.history = [];
}

function pushHistory(G) {
  G.history.push(JSON.stringify(G.draft));
}

export function undo(G) {
  if (!G.history.length) return false;
  G.draft = JSON.parse(G.history.pop());
  G.error = null;
  return true;
}

// "setup" | "turn" | "premove" when the signed-in player can draft in G now, else null.
export function turnPhase(G) {
  const st = G.state;
  const side = mySide(G);
  if (!st || !side || G.status !== "playing" || G.result || G.pending || G.browse !== null) return null;
  if (st.phase === `setup_${side}`) return "setup";
  if (st.phase === "play" && st.to_move === side) return "turn";
  if (st.phase === "play" && st.to_move === other(side) && !G.premove && !G.local && G.premoveFor !== `${G.version}!`) return "premove";
  return null;
}

// The rules the draft is checked with: the game's, or for a premove the same position with the
// player to move.
function rulesOf(G) {
  if (turnPhase(G) !== "premove") return G.rules;
  if (!G.premoveRules) {
    try {
      G.premoveRules = RulesGame.fromState({ ...G.state, to_move: mySide(G) });
    } catch {
      // this position cannot be drafted for the player: no premove until the next event
      G.premoveFor = `${G.version}!`;
      return G.rules;
    }
    G.premoveMoves = null;
  }
  return G.premoveRules;
}

export function legalMoves(G) {
  if (turnPhase(G) === "premove") {
    if (rulesOf(G) !== G.premoveRules) return [];
    if (!G.premoveMoves) G.premoveMoves = G.premoveRules.legalMoves();
    return G.premoveMoves;
  }
  if (!G.moves) G.moves = G.rules.legalMoves();
  return G.moves;
}

export const drafting = (G) => {
  const p = turnPhase(G);
  return p === "turn" || p === "premove";
};
export const elephantReady = (G) => G.draft.elDone || legalMoves(G).length === 0;

function elephantPart(d) {
  if (!d.from) return null;
  const e = { from: d.from, path: d.path };
  if (d.facing) e.facing = d.facing;
  return e;
}

export function draftTurn(G) {
  const d = G.draft;
  return { elephant: elephantPart(d), burnt: d.burnt, guardians: d.guardians };
}

// Once the elephant part is chosen: the position after it and the burnt trunk (`before`), the
// position after the whole drafted turn (`state`) and the elephants its guardian moves capture.
// Cached per draft.
export function draftResult(G) {
  if (!drafting(G) || !elephantReady(G)) return null;
  const rules = rulesOf(G);
  const k = `${G.version}|${turnPhase(G)}|${JSON.stringify(G.draft)}`;
  if (G.draftCache?.k === k) return G.draftCache.v;
  const turn = draftTurn(G);
  const run = (tt) => {
    const c = rules.clone();
    try {
      const r = c.applyTurn(tt);
      return r.ok ? { state: c.state() } : { error: r.error };
    } finally {
      c.dispose();
    }
  };
  const all = run(turn);
  const before = turn.guardians.length ? run({ ...turn, guardians: [] }) : all;
  let v = null;
  if (all.state && before.state) {
    const captures = before.state.elephants.filter((e) => !all.state.elephants.some((a) => same(a.cell, e.cell)));
    v = { state: all.state, before: before.state, captures };
  }
  G.draftCache = { k, v };
  return v;
}

function matchingMoves(G) {
  const d = G.draft;
  return legalMoves(G).filter((m) => same(m.from, d.from) && d.path.every((c, i) => m.path[i] && same(m.path[i], c)));
}

// The facings the drafted elephant may stop with after the steps chosen so far.
export function facingChoices(G) {
  if (!drafting(G) || elephantReady(G) || !G.draft.from || !G.draft.path.length) return [];
  const ends = matchingMoves(G).filter((m) => m.path.length === G.draft.path.length && m.facing);
  return ["N", "E", "S", "W"].filter((f) => ends.some((m) => m.facing === f));
}

// Ring cells the guardian on `from` can reach in state `st`, with the cheapest cost and direction,
// within the trunks `side` holds there: [[cell, steps, dir]].
export function guardianTargets(st, from, side) {
  const n = st.variant.size;
  const ring = ringOrder(n);
  const L = ring.length;
  const i0 = ring.findIndex((c) => same(c, from));
  const occupied = new Set(st.guardians.map((g) => key(g.cell)));
  const budget = st.players[side].trunks;
  const best = new Map();
  for (const dir of ["cw", "ccw"]) {
    for (let k = 1; k <= Math.min(budget, L - 1); k++) {
      const c = ring[dir === "cw" ? (i0 + k) % L : (((i0 - k) % L) + L) % L];
      if (occupied.has(key(c))) break;
      const prev = best.get(key(c));
      if (!prev || prev[1] > k) best.set(key(c), [c, k, dir]);
    }
  }
  return [...best.values()];
}

// The shortest guardian move from `from` to `to` along the ring, ignoring trunks and blockers.
function shortestGuardianMove(n, from, to) {
  const ring = ringOrder(n);
  const L = ring.length;
  const i = ring.findIndex((c) => same(c, from));
  const j = ring.findIndex((c) => same(c, to));
  const cw = (((j - i) % L) + L) % L;
  return cw <= L - cw ? { from, dir: "cw", steps: cw } : { from, dir: "ccw", steps: L - cw };
}

const startZone = (side, n) => {
  const z = [];
  for (let i = 2; i <= n; i++) z.push(side === "silver" ? [i, 1] : [1, i]);
  return z;
};

// The own guardians that can still move in this turn: not moved yet, and able to reach at least
// one ring cell with the trunks held after the drafted part (none with 0 trunks).
function movableGuardians(G, ds) {
  const side = mySide(G);
  const n = ds.variant.size;
  const moved = new Set(G.draft.guardians.map((g) => key(arrival(g, n))));
  return ds.guardians.filter((g) => g.side === side && !moved.has(key(g.cell)) && guardianTargets(ds, g.cell, side).length > 0);
}

// Cells that can be chosen now: Map key -> true | label (a guardian move's cost in trunks).
export function candidates(G) {
  const cands = new Map();
  const phase = turnPhase(G);
  const d = G.draft;
  const st = G.state;
  if (!phase) return cands;
  const n = st.variant.size;
  const side = mySide(G);
  if (phase === "setup") {
    for (const c of startZone(side, n))
      if (d.setupE.length < st.variant.elephants || d.setupE.some((x) => same(x, c))) cands.set(key(c), true);
    const taken = new Set(st.guardians.map((g) => key(g.cell)));
    for (const c of ringOrder(n))
      if (!taken.has(key(c)) && (d.setupG.length < 2 || d.setupG.some((x) => same(x, c)))) cands.set(key(c), true);
    return cands;
  }
  if (!elephantReady(G)) {
    if (!d.path.length) for (const m of legalMoves(G)) cands.set(key(m.from), true);
    if (d.from)
      for (const m of matchingMoves(G)) if (m.path.length > d.path.length) cands.set(key(m.path[d.path.length]), true);
    return cands;
  }
  const dr = draftResult(G);
  if (!dr || dr.state.over) return cands;
  const ds = dr.state;
  if (d.burntMode) {
    const occupied = new Set([...ds.trunks, ...ds.burnt, ...ds.elephants.map((e) => e.cell)].map(key));
    for (let x = 1; x <= n; x++) for (let y = 1; y <= n; y++) if (!occupied.has(key([x, y]))) cands.set(key([x, y]), true);
    return cands;
  }
  if (d.selGuard) {
    for (const [c, k] of guardianTargets(ds, d.selGuard, side)) cands.set(key(c), String(k));
    return cands;
  }
  for (const g of movableGuardians(G, ds)) cands.set(key(g.cell), true);
  return cands;
}

// Whether a burnt trunk can still be placed in the drafted turn.
export function canBurn(G) {
  const dr = draftResult(G);
  return !!dr && !dr.state.over && !G.draft.burnt && dr.state.players[mySide(G)].burnt_left > 0;
}

// A click the draft cannot take: why, as {key, params} or the rules' error {rule, message}.
function explain(G, c, phase) {
  const d = G.draft;
  const st = G.state;
  const n = st.variant.size;
  const side = mySide(G);
  const rules = rulesOf(G);
  const check = (turn) => {
    const e = rules.checkTurn(turn).error;
    return e ? { rule: e.code, message: e.message } : null;
  };
  const name = cellName(c, n);
  if (phase === "setup") {
    if (isField(c, n)) {
      if (!startZone(side, n).some((z) => same(z, c)))
        return { key: `explain.zone.${side}`, params: { cell: name, last: cellName(side === "silver" ? [n, 1] : [1, n], n) } };
      return { key: "explain.allPlaced", params: { n: st.variant.elephants } };
    }
    if (st.guardians.some((g) => same(g.cell, c))) return { key: "explain.guardianThere", params: { cell: name } };
    return { key: "explain.guardiansPlaced" };
  }
  if (!elephantReady(G)) {
    if (!d.from) {
      const own = st.elephants.find((e) => same(e.cell, c) && e.side === side);
      if (own) return { key: "explain.noMove", params: { cell: name } };
      return check({ elephant: { from: c, path: [c] } }) ?? { key: "explain.notYours", params: { cell: name } };
    }
    const e = rules.checkTurn({ elephant: { from: d.from, path: [...d.path, c] } }).error;
    if (e && e.code !== "facing_required" && e.code !== "facing_not_allowed") return { rule: e.code, message: e.message };
    return { key: "explain.notNext", params: { cell: name } };
  }
  const base = draftTurn(G);
  if (d.burntMode) return check({ ...base, burnt: c }) ?? { key: "explain.noBurnt", params: { cell: name } };
  const dr = draftResult(G);
  if (dr?.state.over) return { key: "explain.gameEnds" };
  if (d.selGuard) {
    if (isField(c, n)) return { key: "explain.ringOnly" };
    const entry = shortestGuardianMove(n, d.selGuard, c);
    return check({ ...base, guardians: [...d.guardians, entry] }) ?? { key: "explain.unreachable", params: { cell: name } };
  }
  const g = (dr?.state ?? st).guardians.find((x) => same(x.cell, c));
  if (g) {
    if (g.side !== side) return { key: "explain.notOwnGuardian", params: { cell: name } };
    if (dr && dr.state.players[side].trunks === 0) return { key: "explain.noTrunks", params: { cell: name } };
    const entry = { from: c, dir: "cw", steps: 1 };
    return check({ ...base, guardians: [...d.guardians, entry] }) ?? { key: "explain.guardianStuck", params: { cell: name } };
  }
  return { key: "explain.moveChosen" };
}

// A click, Enter or drag step on a cell of the board. Returns whether to redraw.
export function onCell(G, c) {
  const phase = turnPhase(G);
  if (!phase) return false;
  const cands = candidates(G);
  const d = G.draft;
  const n = G.state.variant.size;
  const side = mySide(G);
  // An own elephant with moves can always be (re)chosen while the elephant part is open.
  if (drafting(G) && !elephantReady(G) && d.from && !same(d.from, c) && legalMoves(G).some((m) => same(m.from, c))
    && !cands.has(key(c))) {
    pushHistory(G);
    Object.assign(d, { from: c, path: [], facing: null });
    G.error = null;
    return true;
  }
  if (!cands.has(key(c))) {
    G.error = { key: "explain.notAllowed", reason: explain(G, c, phase) };
    return true;
  }
  G.error = null;
  pushHistory(G);
  if (phase === "setup") {
    const list = isField(c, n) ? d.setupE : d.setupG;
    const i = list.findIndex((x) => same(x, c));
    if (i >= 0) list.splice(i, 1);
    else list.push(c);
    return true;
  }
  if (!elephantReady(G)) {
    if (!d.path.length && legalMoves(G).some((m) => same(m.from, c))) {
      if (same(d.from, c)) Object.assign(d, { from: null, path: [], facing: null }); // deselect
      else Object.assign(d, { from: c, path: [], facing: null });
      return true;
    }
    d.path.push(c);
    const ms = matchingMoves(G);
    const ends = ms.filter((m) => m.path.length === d.path.length);
    const more = ms.some((m) => m.path.length > d.path.length);
    if (ends.length && !ends.some((m) => m.facing) && !more) d.elDone = true; // a collection or an exit
    return true;
  }
  if (d.burntMode) {
    d.burnt = c;
    d.burntMode = false;
    return true;
  }
  if (d.selGuard) {
    if (same(d.selGuard, c)) {
      d.selGuard = null;
      return true;
    }
    const tg = guardianTargets(draftResult(G).state, d.selGuard, side).find(([cc]) => same(cc, c));
    if (tg) d.guardians.push({ from: d.selGuard, dir: tg[2], steps: tg[1] });
    d.selGuard = null;
    return true;
  }
  d.selGuard = c;
  return true;
}

export function chooseFacing(G, f) {
  if (!facingChoices(G).includes(f)) return false;
  pushHistory(G);
  G.draft.facing = f;
  G.draft.elDone = true;
  G.error = null;
  return true;
}

export function toggleBurnt(G) {
  pushHistory(G);
  G.draft.burntMode = !G.draft.burntMode;
  G.draft.selGuard = null;
}

export function canSend(G) {
  const phase = turnPhase(G);
  const d = G.draft;
  if (phase === "setup") return d.setupE.length === G.state.variant.elephants && d.setupG.length === 2;
  return drafting(G) && elephantReady(G) && !d.burntMode && !d.selGuard && !!draftResult(G);
}

// Sends a turn with prediction: the board shows its result at once, the server decides.
export function sendTurn(G, turn) {
  const c = G.rules.clone();
  try {
    const r = c.applyTurn(turn);
    if (r.error) {
      G.error = { key: "explain.notAllowed", reason: { rule: r.error.code, message: r.error.message } };
      return false;
    }
    const ref = `r${++S.refSeq}`;
    G.shown = c.state();
    G.pending = { ref, turn, side: mySide(G), version: G.version, at: performance.now() };
    G.error = null;
    if (G.local) {
      G.local.submit(G, turn);
      return true;
    }
    send({ type: "turn", game: G.code, turn, version: G.version, ref });
    app.conn?.probe();
    return true;
  } finally {
    c.dispose();
  }
}

// Checks the draft with the rules, shows it at once (prediction) and sends it; a premove is kept
// for the opponent's turn instead.
export function sendDraft(G) {
  const phase = turnPhase(G);
  const side = mySide(G);
  if (!canSend(G)) return;
  if (phase === "premove") {
    G.premove = { turn: draftTurn(G), version: G.version };
    resetDraft(G);
    G.premoveRules?.dispose();
    G.premoveRules = null;
    return;
  }
  if (phase === "setup") {
    const c = G.rules.clone();
    try {
      const setup = { elephants: G.draft.setupE, guardians: G.draft.setupG };
      const r = c.applySetup(side, setup);
      if (r.error) {
        G.error = { key: "explain.notAllowed", reason: { rule: r.error.code, message: r.error.message } };
        return;
      }
      const ref = `r${++S.refSeq}`;
      G.shown = c.state();
      G.pending = { ref, setup, version: G.version, at: performance.now() };
      send({ type: "setup", game: G.code, setup, version: G.version, ref });
      rememberSetup(G, setup); // "My last setup" next time on this board size
      app.conn?.probe();
      G.error = null;
    } finally {
      c.dispose();
    }
    return;
  }
  const turn = draftTurn(G);
  if (sendTurn(G, turn)) resetDraft(G);
}

// The opponent's turn arrived: play the premove if the rules still allow it, else drop it.
// Returns null, {sent: turn} or {cancelled: reason}.
export function playPremove(G) {
  const pm = G.premove;
  if (!pm || turnPhase(G) !== "turn") return null;
  G.premove = null;
  const e = G.rules.checkTurn(pm.turn).error;
  if (e) return { cancelled: { rule: e.code, message: e.message }, turn: pm.turn };
  return sendTurn(G, pm.turn) ? { sent: pm.turn } : null;
}
