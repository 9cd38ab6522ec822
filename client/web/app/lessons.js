// Positions for How to play: the diagrams and the guided practice, written as small pieces of
// board (a 5 × 5 game) that the rules library loads as real game states (RulesGame.fromState),
// so every move the practice allows or refuses is the rules' own answer.
//
// A spec: {to_move, elephants: [[side, cell, facing]], guardians: [[side, cell]], taken: [cells
// whose trunk is gone], burnt: [cells], players: {side: {trunks, saved, captured, burnt_left}}};
// every other field cell outside the start zones holds a trunk.
import { RulesGame } from "./trunkfield-rules.js";
import { same } from "./board.js";

const VARIANT = { size: 5, elephants: 2, burnt: 1, quiet: 20 };
const COLS = "abcdefghijklm";

// "c4" -> [3, 4], "W5" -> [0, 5], "Sa" -> [1, 0], "NE" -> [n+1, n+1].
export function parseCell(name, n) {
  const corners = { SW: [0, 0], NW: [0, n + 1], NE: [n + 1, n + 1], SE: [n + 1, 0] };
  if (corners[name]) return corners[name];
  const m = /^([SNWE])([a-m]|\d+)$/.exec(name);
  if (m) {
    const v = /\d/.test(m[2]) ? Number(m[2]) : COLS.indexOf(m[2]) + 1;
    return { S: [v, 0], N: [v, n + 1], W: [0, v], E: [n + 1, v] }[m[1]];
  }
  return [COLS.indexOf(name[0]) + 1, Number(name.slice(1))];
}

export function lessonState(spec, variant = VARIANT) {
  const n = variant.size;
  const c = (s) => parseCell(s, n);
  const elephants = spec.elephants.map(([side, cell, facing]) => ({ side, cell: c(cell), facing }));
  const taken = (spec.taken ?? []).map(c);
  const burnt = (spec.burnt ?? []).map(c);
  const trunks = [];
  for (let y = 1; y <= n; y++)
    for (let x = 1; x <= n; x++) {
      const cell = [x, y];
      const zone = (y === 1 && x >= 1) || (x === 1 && y >= 1);
      if (zone || taken.some((t) => same(t, cell)) || burnt.some((b) => same(b, cell)) || elephants.some((e) => same(e.cell, cell))) continue;
      trunks.push(cell);
    }
  const pl = (side) => ({ trunks: 0, spent: 0, burnt_left: variant.burnt, saved: 0, captured: 0, ...(spec.players?.[side] ?? {}) });
  const players = { silver: pl("silver"), bronze: pl("bronze") };
  // The rules check that no trunk appeared or vanished: the trunks missing from the field were
  // collected and spent (by bronze, which nothing in a lesson shows).
  const initial = (n - 1) * (n - 1);
  players.bronze.spent += initial - trunks.length - players.silver.trunks - players.bronze.trunks - players.silver.spent - players.bronze.spent;
  players.bronze.burnt_left -= burnt.length;
  return {
    variant, phase: "play", to_move: spec.to_move ?? "silver", over: false, reason: null, winner: null,
    turns_played: 6, quiet_turns: 0, trunks, burnt, crossings: [], elephants,
    guardians: spec.guardians.map(([side, cell]) => ({ side, cell: c(cell) })),
    players,
  };
}

// A game (RulesGame) in that position; the caller disposes it.
export const lessonGame = (spec, variant) => RulesGame.fromState(lessonState(spec, variant));

const CORNER_GUARDS = [["silver", "SW"], ["silver", "SE"], ["bronze", "NW"], ["bronze", "NE"]];
const jumped = (turn) => (turn.elephant?.path ?? []).some((p, i, a) => {
  const prev = i ? a[i - 1] : turn.elephant.from;
  return Math.abs(p[0] - prev[0]) + Math.abs(p[1] - prev[1]) === 2;
});

// The guided practice: each lesson's position and what its turn must achieve (before and after
// are state JSON). The words are in the language files: practice.<id>.goal / .done.
export const LESSONS = [
  { id: "move", spec: { elephants: [["silver", "b1", "N"], ["silver", "d1", "N"], ["bronze", "a3", "E"], ["bronze", "a5", "E"]], guardians: CORNER_GUARDS },
    ok: (turn) => !!turn.elephant?.facing },
  { id: "jump", spec: { elephants: [["silver", "b1", "N"], ["silver", "c1", "N"], ["bronze", "a3", "E"], ["bronze", "a5", "E"]], guardians: CORNER_GUARDS },
    ok: (turn) => jumped(turn) },
  { id: "collect", spec: { elephants: [["silver", "c1", "N"], ["silver", "e1", "N"], ["bronze", "a3", "E"], ["bronze", "a5", "E"]], guardians: CORNER_GUARDS },
    ok: (turn, before, after) => after.players.silver.trunks > before.players.silver.trunks },
  { id: "burnt", spec: { elephants: [["silver", "b1", "N"], ["silver", "d1", "N"], ["bronze", "a3", "E"], ["bronze", "a5", "E"]], guardians: CORNER_GUARDS },
    ok: (turn) => !!turn.burnt },
  { id: "capture", spec: { elephants: [["silver", "b1", "N"], ["silver", "d1", "N"], ["bronze", "a2", "E"], ["bronze", "a4", "E"]],
    guardians: [["silver", "Sa"], ["silver", "W5"], ["bronze", "NE"], ["bronze", "SE"]], taken: ["c2"], players: { silver: { trunks: 1 } } },
    ok: (turn, before, after) => after.players.silver.captured > before.players.silver.captured },
  { id: "exit", spec: { elephants: [["silver", "b1", "N"], ["silver", "c4", "N"], ["bronze", "a3", "E"], ["bronze", "a5", "E"]], guardians: CORNER_GUARDS, taken: ["c5"] },
    ok: (turn, before, after) => after.players.silver.saved > before.players.silver.saved },
];

// The diagrams of How to play: a position, a turn played in it (shown as the last move, with
// what it captured) and the highlights to draw.
export const DIAGRAMS = {
  jump: { spec: LESSONS[1].spec, turn: { elephant: { from: [2, 1], path: [[4, 1]], facing: "N" } } },
  collect: { spec: LESSONS[2].spec, turn: { elephant: { from: [3, 1], path: [[3, 2]] } } },
  capture: { spec: LESSONS[4].spec, turn: { elephant: { from: [4, 1], path: [[4, 2]] }, guardians: [{ from: [0, 5], dir: "ccw", steps: 1 }] } },
  exit: { spec: LESSONS[5].spec, turn: { elephant: { from: [3, 4], path: [[3, 5], [3, 6]] } } },
};
