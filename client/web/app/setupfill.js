// Help with the setup: a random legal placement ("Random setup") and the player's last sent setup
// for the board size ("My last setup", kept on the device). Both only fill the draft, checked
// with the rules library (RulesGame.applySetup on a copy of the game's rules: the same check as
// the server's); the player still sends it.
//
// A setup is remembered with its side; silver's start row and bronze's start column are mirror
// images (b1…i1 ↔ a2…a9), so the other side's setup is used mirrored along the diagonal.
import { ringOrder, isField, watchedBy, key } from "./board.js";
import { mySide } from "./state.js";

const LAST_KEY = (n) => `trunkfield.lastSetup.${n}`;

function zoneOf(side, n) {
  const z = [];
  for (let i = 2; i <= n; i++) z.push(side === "silver" ? [i, 1] : [1, i]);
  return z;
}

// Whether `setup` is legal for the player in G's position (the rules library says).
export function setupLegal(G, setup) {
  if (!G.rules || !setup) return false;
  const c = G.rules.clone();
  try {
    return !c.applySetup(mySide(G), setup).error;
  } catch {
    return false;
  } finally {
    c.dispose();
  }
}

function pick(list, k) {
  const a = list.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
}

// A random legal setup for the player: two free ring cells for the guardians, then elephants on
// cells of the start zone that no line watched by the guardians (own, and the opponent's already
// on the board) crosses; checked with the rules, tried again until they accept it.
export function randomSetup(G) {
  const st = G.state;
  const side = mySide(G);
  if (!st || !side) return null;
  const n = st.variant.size;
  const E = st.variant.elephants;
  const taken = new Set(st.guardians.map((g) => key(g.cell)));
  const free = ringOrder(n).filter((c) => !taken.has(key(c)));
  const corners = free.filter(([x, y]) => (x === 0 || x === n + 1) && (y === 0 || y === n + 1));
  for (let attempt = 0; attempt < 400; attempt++) {
    // now and then only corners (they watch nothing): always possible (docs/RULES.md §4)
    const guardians = pick(attempt % 50 === 49 && corners.length >= 2 ? corners : free, 2);
    const { cols, rows } = watchedBy([...st.guardians.map((g) => g.cell), ...guardians], n);
    const open = zoneOf(side, n).filter(([x, y]) => !(cols.has(x) && rows.has(y)));
    if (open.length < E) continue;
    const setup = { elephants: pick(open, E), guardians };
    if (setupLegal(G, setup)) return setup;
  }
  return null;
}

function mirrored(setup) {
  const flip = ([x, y]) => [y, x];
  return { elephants: setup.elephants.map(flip), guardians: setup.guardians.map(flip) };
}

// The player's last sent setup for this board size, for this side, when it is legal here.
export function lastSetup(G) {
  const st = G.state;
  const side = mySide(G);
  if (!st || !side) return null;
  let saved;
  try {
    saved = JSON.parse(localStorage.getItem(LAST_KEY(st.variant.size)) ?? "null");
  } catch {
    return null;
  }
  if (!saved?.setup || !Array.isArray(saved.setup.elephants) || !Array.isArray(saved.setup.guardians)) return null;
  const setup = saved.side === side ? saved.setup : mirrored(saved.setup);
  const n = st.variant.size;
  if (setup.elephants.some((c) => !Array.isArray(c) || !isField(c, n))) return null;
  return setupLegal(G, setup) ? setup : null;
}

// A setup the player sent: remembered for the board size.
export function rememberSetup(G, setup) {
  const side = mySide(G);
  if (!side || !G.state) return;
  try {
    localStorage.setItem(LAST_KEY(G.state.variant.size), JSON.stringify({ side, setup }));
  } catch { /* storage full or refused: nothing to remember */ }
}

// Puts `setup` in the draft (one step for Undo).
export function fillSetup(G, setup) {
  if (!setup) return false;
  G.history.push(JSON.stringify(G.draft));
  G.draft.setupE = setup.elephants.map((c) => [c[0], c[1]]);
  G.draft.setupG = setup.guardians.map((c) => [c[0], c[1]]);
  G.error = null;
  return true;
}
