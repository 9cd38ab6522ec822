// Moves on the board, animated with the Web Animations API over the board just drawn in the
// position after the turn: the elephant walks its path step by step, an elephant it jumps turns
// around as it is passed, a collected trunk fades under it, a burnt trunk appears, guardians walk
// the ring cell by cell, and captured elephants flash and fade. Used for the turns a player did
// not make himself (the opponent's, the computer's, everyone's for a spectator).
//
// Every animation is logged in `motion` ({kind, ...}) for the browser tests; with
// prefers-reduced-motion the moves still happen, only without the motion.
import { CS, key, same, isField, guardianPath, guardianXY, drawElephant, drawTrunk } from "./board.js";

export const motion = [];
const STEP_MS = 190;
const JUMP_MS = 260;
const GUARD_CELL_MS = 80;
const FADE_MS = 320;

const reduced = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
const ROT = { N: 0, E: 90, S: 180, W: 270 };

function log(kind, data) {
  motion.push({ kind, ...data, at: Math.round(performance.now()) });
  if (motion.length > 300) motion.splice(0, motion.length - 300);
}

// Animates `entry` ({side, turn, captures, before, after}, game.js recordTurn) on the board in
// `container` (drawn in entry.after). Returns the duration in ms.
export function animateTurn(container, entry) {
  const svg = container.querySelector("svg.board-svg");
  if (!svg || !entry?.turn) return 0;
  const n = entry.after.variant.size;
  const cxy = ([x, y]) => [x * CS + CS / 2, (n + 1 - y) * CS + CS / 2];
  const tr = ([x, y]) => `translate(${x}px, ${y}px)`;
  const anim = svg.querySelector("g.anim");
  const trunksG = svg.querySelector("g.trunks");
  const still = reduced();
  const go = (el, frames, opts) => {
    if (!el) return;
    el.animate(frames, { fill: "backwards", easing: "ease-in-out", ...opts, duration: still ? 1 : opts.duration, delay: still ? 0 : (opts.delay ?? 0) });
  };
  let t = 0;
  const e = entry.turn.elephant;
  if (e?.path?.length) {
    const cells = [e.from, ...e.path];
    const mover = entry.before.elephants.find((x) => same(x.cell, e.from));
    const landing = e.path.at(-1);
    const exits = !isField(landing, n);
    let el = exits ? null : svg.querySelector(`[data-piece="e:${key(landing)}"]`);
    let temp = false;
    if (!el && mover) { // it left the field, or a guardian move of this turn captured it
      el = drawElephant(anim, ...cxy(e.from), mover.side, mover.facing);
      temp = true;
      // on a flipped board (board.js) its letter is turned back upright, as the drawn pieces' are
      if (container._flip) for (const l of el.querySelectorAll("text")) l.setAttribute("transform", `rotate(180 ${l.getAttribute("x")} ${l.getAttribute("y")})`);
    }
    // the time of each step: a jump takes a little longer
    const times = [0];
    for (let i = 1; i < cells.length; i++) {
      const jump = Math.abs(cells[i][0] - cells[i - 1][0]) + Math.abs(cells[i][1] - cells[i - 1][1]) === 2;
      times.push(times[i - 1] + (jump ? JUMP_MS : STEP_MS));
    }
    const total = times.at(-1);
    go(el, cells.map((c, i) => ({ transform: tr(cxy(c)), offset: times[i] / total })), { duration: total });
    // its facing was kept during the move and is chosen at the end
    const body = el?.querySelector(".body");
    if (body && mover && e.facing && e.facing !== mover.facing && !temp)
      go(body, [{ transform: `rotate(${ROT[mover.facing]}deg)` }, { transform: `rotate(${ROT[mover.facing]}deg)`, offset: 0.8 },
        { transform: `rotate(${ROT[e.facing]}deg)` }], { duration: total + 150 });
    log("move", { from: e.from, path: e.path });
    for (let i = 1; i < cells.length; i++) {
      const [a, b] = [cells[i - 1], cells[i]];
      if (Math.abs(b[0] - a[0]) + Math.abs(b[1] - a[1]) !== 2) continue;
      const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      const jumped = svg.querySelector(`[data-piece="e:${key(mid)}"] .body`);
      const now = entry.after.elephants.find((x) => same(x.cell, mid));
      if (jumped && now) go(jumped, [{ transform: `rotate(${ROT[now.facing] + 180}deg)` }, { transform: `rotate(${ROT[now.facing]}deg)` }],
        { duration: JUMP_MS, delay: times[i - 1] + JUMP_MS / 3 });
      log("turnaround", { cell: mid });
    }
    if (entry.before.trunks.some((c) => same(c, landing)) && !entry.after.trunks.some((c) => same(c, landing))) {
      const [x, y] = cxy(landing);
      const fading = drawTrunk(trunksG, x - CS / 2, y - CS / 2, false);
      fading.animate([{ opacity: 1 }, { opacity: 1, offset: 0.7 }, { opacity: 0 }], { duration: still ? 1 : total + FADE_MS, fill: "forwards" })
        .finished.then(() => fading.remove(), () => fading.remove());
      log("collect", { cell: landing });
    }
    if (temp) {
      const gone = el.animate([{ opacity: 1 }, { opacity: 0 }], { duration: still ? 1 : FADE_MS, delay: still ? 0 : total, fill: "forwards" });
      gone.finished.then(() => el.remove(), () => el.remove());
      if (exits) log("exit", { cell: e.path.at(-2) ?? e.from });
    }
    t = total;
  }
  if (entry.turn.burnt) {
    const b = svg.querySelector(`[data-burnt="${key(entry.turn.burnt)}"]`);
    const at = tr(cxy(entry.turn.burnt));
    go(b, [{ opacity: 0, transform: `${at} scale(0.2)` }, { opacity: 1, transform: `${at} scale(1)` }], { duration: 280, delay: t });
    log("burnt", { cell: entry.turn.burnt });
    t += 280;
  }
  for (const g of entry.turn.guardians ?? []) {
    const cells = [g.from, ...guardianPath(g, n)];
    const el = svg.querySelector(`[data-piece="g:${key(cells.at(-1))}"]`);
    const dur = Math.max(250, GUARD_CELL_MS * g.steps);
    go(el, cells.map((c, i) => ({ transform: tr(guardianXY(c, n)), offset: i / (cells.length - 1) })), { duration: dur, delay: t, easing: "linear" });
    log("guardian", { from: g.from, to: cells.at(-1), steps: g.steps });
    t += dur;
  }
  for (const c of entry.captures ?? []) {
    const el = drawElephant(anim, ...cxy(c.cell), c.side, c.facing, { cls: "capturing" });
    const [x, y] = cxy(c.cell);
    const a = el.animate([{ opacity: 1, transform: tr([x, y]) }, { opacity: 1, transform: `${tr([x, y])} scale(1.15)`, offset: 0.4 },
      { opacity: 0, transform: `${tr([x, y])} scale(0.3)` }], { duration: still ? 1 : FADE_MS + 200, delay: still ? 0 : t, fill: "forwards" });
    a.finished.then(() => el.remove(), () => el.remove());
    log("capture", { cell: c.cell, side: c.side });
  }
  if (entry.captures?.length) t += FADE_MS + 200;
  container.dataset.animating = "1";
  clearTimeout(container._animDone);
  container._animDone = setTimeout(() => delete container.dataset.animating, still ? 0 : t + 50);
  return t;
}
