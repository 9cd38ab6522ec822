// The SVG board, the one renderer of every board on the site (games, replays, How to play and its
// practice): field, ring with the notation's names (Sa, W5, SE), trunks, burnt trunks, elephants
// with their facing, guardians, the lines they watch and the crossings. Pure rendering from a
// state JSON (docs/RULES.md 9.2) plus highlights.
//
// Layers, bottom to top: cells with their tints (watched lines, crossings, last move, choosable,
// selected) → trunks → marks (dots, paths, sight lines) → pieces → the facing arrows. Highlights
// are never drawn over a piece: an elephant's facing is part of its body (a dark nose on the
// side it faces) and stays readable whatever is marked.
//
// Colour is never the only mark: silver elephants are round and lettered S, bronze elephants are
// square and lettered B, guardians are black squares lettered s/b (their owner), crossings are
// hatched and marked ✕.
//
// Input: every cell is focusable (one tab stop, arrow keys move between cells); a click, Enter or
// Space calls onCell([x, y]) (Enter first asks onEnter([x, y]), which may take the key: a game's
// complete setup is sent by Enter); a drag from an own elephant through cells calls onCell for the
// elephant and each cell entered (so a path can be drawn in one gesture); a facing arrow calls
// onFacing(dir). The listeners live on the container, so redraws never lose a gesture.
import { t, lang } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
export const CS = 44; // cell size in SVG units
export const LETTERS = "abcdefghijklm"; // the field's columns, a for x = 1
const FACING_ROT = { N: 0, E: 90, S: 180, W: 270 };

export function cellName([x, y], n) {
  const c = (i) => LETTERS[i - 1];
  if (x >= 1 && x <= n && y >= 1 && y <= n) return `${c(x)}${y}`;
  if (x === 0 && y === 0) return "SW";
  if (x === 0 && y === n + 1) return "NW";
  if (x === n + 1 && y === n + 1) return "NE";
  if (x === n + 1 && y === 0) return "SE";
  if (y === 0) return `S${c(x)}`;
  if (y === n + 1) return `N${c(x)}`;
  if (x === 0) return `W${y}`;
  return `E${y}`;
}

// Ring cells in clockwise order starting at SW: up the west side, along the north, down the east,
// back along the south (rules §4.3: clockwise is SW → NW → NE → SE).
export function ringOrder(n) {
  const r = [];
  for (let y = 0; y <= n + 1; y++) r.push([0, y]);
  for (let x = 1; x <= n + 1; x++) r.push([x, n + 1]);
  for (let y = n; y >= 0; y--) r.push([n + 1, y]);
  for (let x = n; x >= 1; x--) r.push([x, 0]);
  return r;
}

export const isField = ([x, y], n) => x >= 1 && x <= n && y >= 1 && y <= n;
export const same = (a, b) => !!a && !!b && a[0] === b[0] && a[1] === b[1];
export const key = (c) => `${c[0]},${c[1]}`;
export const unkey = (k) => k.split(",").map(Number);
let uid = 0; // pattern ids are document-wide: one per drawing

export function svgEl(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}
function label(parent, x, y, s, attrs = {}) {
  const e = svgEl("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", ...attrs }, parent);
  e.textContent = s;
  return e;
}

// Watched columns and rows of a list of guardian cells (a corner watches nothing).
export function watchedBy(cells, n) {
  const cols = new Set();
  const rows = new Set();
  for (const [x, y] of cells) {
    const corner = (x === 0 || x === n + 1) && (y === 0 || y === n + 1);
    if (corner) continue;
    if (y === 0 || y === n + 1) cols.add(x);
    else rows.add(y);
  }
  return { cols, rows };
}

// What is on a cell, in words (cell titles and screen readers).
export function describeCell(st, c) {
  const n = st.variant.size;
  const k = key(c);
  const parts = [cellName(c, n)];
  const e = st.elephants.find((x) => key(x.cell) === k);
  if (e) parts.push(t("cell.elephant", { side: t(`side.${e.side}`), facing: t(`dir.${e.facing}`) }));
  const g = st.guardians.find((x) => key(x.cell) === k);
  if (g) parts.push(t("cell.guardian", { side: t(`side.${g.side}`) }));
  if (st.trunks.some((x) => key(x) === k)) parts.push(t("cell.trunk"));
  if (st.burnt.some((x) => key(x) === k)) parts.push(t("cell.burnt"));
  if (st.crossings.some((x) => key(x) === k)) parts.push(t("cell.crossing"));
  return parts.join(", ");
}

// The arrival cell of a guardian move entry {from, dir, steps}, and the ring cells it passes.
export function guardianPath(entry, n) {
  const ring = ringOrder(n);
  const L = ring.length;
  const i = ring.findIndex((c) => same(c, entry.from));
  const cells = [];
  for (let k = 1; k <= entry.steps; k++) cells.push(ring[entry.dir === "cw" ? (i + k) % L : (((i - k) % L) + L) % L]);
  return cells;
}
export const arrival = (entry, n) => guardianPath(entry, n).at(-1) ?? entry.from;

// opts: {state, onCell?(cell), onFacing?(dir), onEnter?(cell) -> taken, labelFor?(cell) -> string, compact?, highlights: {
//   cands: Map key -> true | label   cells that can be chosen now (label: a guardian move's cost)
//   movable: Set key                 own elephants that have a legal move
//   selected: [x, y]                 the chosen elephant or guardian
//   path: [[x, y]]                   the steps chosen so far (from `selected`)
//   last: {cells, from, path}        the last turn played (its own style)
//   premove: {cells, from, path}     a premove waiting for the opponent's turn
//   captures: [{cell, side, facing}] elephants the drafted (or last) turn captures
//   ghost: {cell, side, facing}      the chosen elephant where its path so far ends
//   facing: {cell, dirs}             arrows around the landing cell: choose the facing
//   zoneSide: side                   tint that side's start zone (setup)
//   setupMarks: {side, elephants, guardians}  the drafted setup },
//   flip?: the board turned 180° (north-east corner at the bottom left), its names still upright }
export function renderBoard(container, opts) {
  container._onCell = opts.onCell ?? (() => {});
  container._onFacing = opts.onFacing ?? (() => {});
  container._onEnter = opts.onEnter ?? null;
  container._facings = opts.highlights?.facing?.dirs ?? [];
  listen(container);
  const sig = JSON.stringify([lang(), opts.state, opts.highlights ?? null, opts.title ?? "", !!opts.flip],
    (k, v) => (v instanceof Map || v instanceof Set ? [...v] : v));
  if (container._sig === sig && container.firstChild) return false; // unchanged: keep animations and focus
  container._sig = sig;
  draw(container, opts);
  return true;
}

function draw(container, opts) {
  const { state } = opts;
  const hl = opts.highlights ?? {};
  const n = state.variant.size;
  const W = (n + 2) * CS;
  const px = (x) => x * CS;
  const py = (y) => (n + 1 - y) * CS;
  const hadFocus = container.contains(document.activeElement);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${W}`, class: "board-svg", role: "group",
    "aria-label": opts.title ?? t("board.aria", { n }), "data-size": n });
  container._n = n;
  container._flip = !!opts.flip;
  // A flipped board is drawn as usual inside a group turned 180° about the centre.
  const root = opts.flip ? svgEl("g", { class: "flip", transform: `rotate(180 ${W / 2} ${W / 2})` }, svg) : svg;
  const hatchId = `hatch-${++uid}`;
  hatch(svgEl("defs", {}, svg), hatchId);

  // Watched lines and crossings; during a setup, also those the drafted guardians would make.
  const guardCells = state.guardians.map((g) => g.cell).concat(hl.setupMarks?.guardians ?? []);
  const { cols, rows } = watchedBy(guardCells, n);
  const crossings = new Set(state.crossings.map(key));
  if (hl.setupMarks) for (const x of cols) for (const y of rows) if (y >= 1 && y <= n) crossings.add(key([x, y]));
  const trunks = new Set(state.trunks.map(key));
  const cands = hl.cands ?? new Map();
  const tint = new Map(); // key -> class of its highlight
  const mark = (m, cls) => {
    if (!m) return;
    for (const c of m.cells ?? []) tint.set(key(c), cls);
  };
  mark(hl.last, "hl-last");
  mark(hl.premove, "hl-premove");
  for (const k of hl.movable ?? []) tint.set(k, "hl-movable");
  if (hl.selected) tint.set(key(hl.selected), "hl-selected");

  // The cell that holds the tab stop: kept across redraws, else the first choosable cell.
  let focusKey = container._focusKey;
  if (!focusKey || unkey(focusKey).some((v) => v < 0 || v > n + 1))
    focusKey = cands.size ? [...cands.keys()][0] : key([Math.ceil(n / 2), Math.ceil(n / 2)]);
  container._focusKey = focusKey;

  const cellsG = svgEl("g", { class: "cells" }, root);
  const trunksG = svgEl("g", { class: "trunks", "pointer-events": "none" }, root);
  const marksG = svgEl("g", { class: "marks", "pointer-events": "none" }, root);
  const piecesG = svgEl("g", { class: "pieces", "pointer-events": "none" }, root);
  svgEl("g", { class: "anim", "pointer-events": "none" }, root);
  const topG = svgEl("g", { class: "top" }, root);
  const cellEls = new Map();

  for (let y = 0; y <= n + 1; y++) {
    for (let x = 0; x <= n + 1; x++) {
      const c = [x, y];
      const k = key(c);
      const field = isField(c, n);
      const name = cellName(c, n);
      const g = svgEl("g", { class: `cell ${field ? "field" : "ring"}`, "data-cell": k, "data-name": name, role: "button",
        tabindex: k === focusKey ? 0 : -1 }, cellsG);
      cellEls.set(k, g);
      let cls = field ? ((x + y) % 2 ? "bg-a" : "bg-b") : "bg-ring";
      const zone = (s) => hl.zoneSide === s || hl.zoneSide === "both";
      if (field && zone("silver") && y === 1 && x >= 2) cls = "bg-zone-silver";
      if (field && zone("bronze") && x === 1 && y >= 2) cls = "bg-zone-bronze";
      svgEl("rect", { x: px(x), y: py(y), width: CS, height: CS, class: `cell-bg ${cls}` }, g);
      if (field && (cols.has(x) || rows.has(y)) && !crossings.has(k))
        svgEl("rect", { x: px(x), y: py(y), width: CS, height: CS, class: "watched" }, g);
      if (crossings.has(k))
        svgEl("rect", { x: px(x) + 1.5, y: py(y) + 1.5, width: CS - 3, height: CS - 3, fill: `url(#${hatchId})`, class: "crossing" }, g);
      if (tint.has(k)) svgEl("rect", { x: px(x) + 2, y: py(y) + 2, width: CS - 4, height: CS - 4, rx: 4, class: tint.get(k) }, g);
      if (!field) ringLabel(g, c, n, px(x), py(y));
      const text = opts.labelFor ? opts.labelFor(c) : describeCell(state, c);
      const extra = cands.has(k) ? (typeof cands.get(k) === "string" ? t("cell.choosableCost", { cost: cands.get(k) }) : t("cell.choosable")) : "";
      g.setAttribute("aria-label", text + extra);
      svgEl("title", {}, g).textContent = text;
      if (cands.has(k)) {
        g.classList.add("cand");
        if (hl.movable?.has(k)) g.classList.add("movable");
      }
      if (field && trunks.has(k)) drawTrunk(trunksG, px(x), py(y), false, k);
    }
  }
  for (const c of state.burnt) drawTrunk(trunksG, px(c[0]), py(c[1]), true, key(c));

  // Each guardian's sight line across the field, and a badge on each crossing.
  for (const [gx, gy] of guardCells) {
    if ((gx === 0 || gx === n + 1) && (gy === 0 || gy === n + 1)) continue;
    const vertical = gy === 0 || gy === n + 1;
    const a = vertical ? [px(gx) + CS / 2, py(n)] : [px(1), py(gy) + CS / 2];
    const b = vertical ? [px(gx) + CS / 2, py(1) + CS] : [px(n) + CS, py(gy) + CS / 2];
    svgEl("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "sight" }, marksG);
  }
  for (const k of crossings) {
    const [x, y] = unkey(k);
    const cx = px(x) + CS - 9;
    const cy = py(y) + 9;
    svgEl("circle", { cx, cy, r: 7, class: "crossing-badge" }, marksG);
    svgEl("path", { d: `M${cx - 3.5} ${cy - 3.5} L${cx + 3.5} ${cy + 3.5} M${cx + 3.5} ${cy - 3.5} L${cx - 3.5} ${cy + 3.5}`,
      class: "crossing-x" }, marksG);
  }
  const polyline = (from, path, cls) => {
    const pts = [from, ...path].map(([x, y]) => `${px(x) + CS / 2},${py(y) + CS / 2}`);
    svgEl("polyline", { points: pts.join(" "), class: cls }, marksG);
  };
  if (hl.last?.from && hl.last.path?.length) polyline(hl.last.from, hl.last.path, "last-path");
  if (hl.premove?.from && hl.premove.path?.length) polyline(hl.premove.from, hl.premove.path, "premove-path");
  if (hl.path?.length && hl.selected) polyline(hl.selected, hl.path, "draft-path");
  for (const [k, lab] of cands) {
    if (hl.movable?.has(k)) continue; // tinted cell under the piece
    const [x, y] = unkey(k);
    const cx = px(x) + CS / 2;
    const cy = py(y) + CS / 2;
    if (typeof lab === "string") {
      svgEl("circle", { cx, cy, r: 13, class: "cand-cost" }, marksG);
      label(marksG, cx, cy + 0.5, lab, { class: "cand-label" });
    } else if (hl.occupied?.has(k)) {
      svgEl("rect", { x: px(x) + 2, y: py(y) + 2, width: CS - 4, height: CS - 4, rx: 4, class: "cand-piece" }, marksG);
    } else {
      svgEl("circle", { cx, cy, r: 7, class: "cand-dot" }, marksG);
    }
  }

  for (const e of state.elephants) drawElephant(piecesG, px(e.cell[0]) + CS / 2, py(e.cell[1]) + CS / 2, e.side, e.facing, { cell: e.cell });
  for (const g of state.guardians) drawGuardian(piecesG, g.cell, n, g.side);
  if (hl.setupMarks) {
    const s = hl.setupMarks.side;
    for (const c of hl.setupMarks.elephants)
      drawElephant(piecesG, px(c[0]) + CS / 2, py(c[1]) + CS / 2, s, s === "silver" ? "N" : "E", { cls: "drafted", cell: c });
    for (const c of hl.setupMarks.guardians) drawGuardian(piecesG, c, n, s, "drafted");
  }
  if (hl.ghost?.cell) {
    const [x, y] = hl.ghost.cell;
    drawElephant(piecesG, px(x) + CS / 2, py(y) + CS / 2, hl.ghost.side, hl.ghost.facing, { cls: "ghost" });
  }
  for (const cap of hl.captures ?? []) {
    const [x, y] = cap.cell;
    drawElephant(piecesG, px(x) + CS / 2, py(y) + CS / 2, cap.side, cap.facing, { cls: "captured" });
    svgEl("path", { d: `M${px(x) + 9} ${py(y) + 9} L${px(x) + CS - 9} ${py(y) + CS - 9} M${px(x) + CS - 9} ${py(y) + 9} L${px(x) + 9} ${py(y) + CS - 9}`,
      class: "capture-mark" }, piecesG);
  }
  if (hl.facing?.cell) drawFacingArrows(topG, hl.facing, px, py);
  if (opts.flip) uprightTexts(svg);

  container.replaceChildren(svg);
  container._cellEls = cellEls;
  if (hadFocus) cellEls.get(container._focusKey)?.focus();
}

// On a flipped board every text is turned back about its own anchor, so names and letters stay
// upright (the names of the west and east ring cells read upwards, as on the usual board).
function uprightTexts(svg) {
  for (const e of svg.querySelectorAll("text")) {
    const tr = e.getAttribute("transform") ?? "";
    if (tr.startsWith("rotate(-90")) e.setAttribute("transform", tr.replace("rotate(-90", "rotate(90"));
    else e.setAttribute("transform", `${tr} rotate(180 ${e.getAttribute("x")} ${e.getAttribute("y")})`.trim());
  }
}

// The ring cell's name at its outer edge, clear of the guardian standing on it.
function ringLabel(parent, [x, y], n, x0, y0) {
  const name = cellName([x, y], n);
  let lx = x0 + CS / 2;
  let ly = y0 + CS / 2;
  if (y === 0) ly = y0 + CS - 6;
  else if (y === n + 1) ly = y0 + 6.5;
  if (x === 0) lx = y === 0 || y === n + 1 ? x0 + 11 : x0 + 8;
  else if (x === n + 1) lx = y === 0 || y === n + 1 ? x0 + CS - 11 : x0 + CS - 8;
  const side = (x === 0 || x === n + 1) && y > 0 && y <= n;
  label(parent, lx, ly, name, { class: "ring-name", ...(side ? { transform: `rotate(-90 ${lx} ${ly})` } : {}) });
}

// A guardian sits off the ring cell's outer edge, towards the field, so the name stays readable.
function guardianCentre([x, y], n) {
  let cx = x * CS + CS / 2;
  let cy = (n + 1 - y) * CS + CS / 2;
  if (y === 0) cy -= 4;
  else if (y === n + 1) cy += 4;
  if (x === 0) cx += 4;
  else if (x === n + 1) cx -= 4;
  return [cx, cy];
}

function drawFacingArrows(parent, { cell, dirs }, px, py) {
  const cx = px(cell[0]) + CS / 2;
  const cy = py(cell[1]) + CS / 2;
  for (const d of dirs) {
    const g = svgEl("g", { class: "facing-arrow", "data-facing": d, role: "button", tabindex: -1,
      "aria-label": t("facing.choose", { dir: t(`dir.${d}`) }), transform: `translate(${cx} ${cy}) rotate(${FACING_ROT[d]})` }, parent);
    // hit area: the quarter of the landing cell on that side and a strip beyond its edge
    svgEl("path", { d: "M-16 -9 L16 -9 L18 -32 L-18 -32 Z", class: "facing-hit" }, g);
    svgEl("path", { d: "M-11 -15 L11 -15 L0 -31 Z", class: "facing-tip" }, g);
    svgEl("title", {}, g).textContent = t("facing.choose", { dir: t(`dir.${d}`) });
  }
}

function hatch(defs, id) {
  const pat = svgEl("pattern", { id, width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  svgEl("rect", { width: 8, height: 8, class: "hatch-bg" }, pat);
  svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 8, class: "hatch-line" }, pat);
}

export function drawTrunk(parent, x, y, isBurnt, k = null) {
  const g = svgEl("g", { class: isBurnt ? "burnt" : "trunk", "data-trunk": isBurnt ? null : k, "data-burnt": isBurnt ? k : null,
    transform: `translate(${x + CS / 2} ${y + CS / 2})` }, parent);
  svgEl("rect", { x: -14, y: -7, width: 28, height: 14, rx: 7, class: "log" }, g);
  svgEl("ellipse", { cx: 10, cy: 0, rx: 4, ry: 6, class: "log-end" }, g);
  if (isBurnt) svgEl("path", { d: "M-10 2 l4 -6 l4 5 l4 -6 l4 6", class: "flame" }, g);
  return g;
}

// An elephant centred on (cx, cy): its body turned towards its facing (a dark nose on that side)
// and its owner's letter upright. opts: {cls, cell}. The outer group is translated, the body
// rotated: the animations move and turn them separately.
export function drawElephant(parent, cx, cy, side, facing, opts = {}) {
  const silver = side === "silver";
  const g = svgEl("g", { class: `elephant ${side}${opts.cls ? ` ${opts.cls}` : ""}`, transform: `translate(${cx} ${cy})`,
    "data-piece": opts.cell ? `e:${key(opts.cell)}` : null, "data-facing": facing ?? null }, parent);
  const body = svgEl("g", { class: "body", transform: `rotate(${FACING_ROT[facing] ?? 0})` }, g);
  if (facing) svgEl("path", { d: "M-10 -10 L10 -10 L0 -21.5 Z", class: "nose" }, body);
  if (silver) svgEl("circle", { r: 14.5, class: "shape" }, body);
  else svgEl("rect", { x: -13, y: -13, width: 26, height: 26, rx: 4, class: "shape" }, body);
  if (facing) svgEl("path", { d: "M-6 -9.5 L6 -9.5 L0 -15.5 Z", class: "nose-in" }, body);
  label(g, 0, 1.5, silver ? "S" : "B", { class: "piece-letter" });
  return g;
}

export function drawGuardian(parent, cell, n, side, cls = "") {
  const [cx, cy] = guardianCentre(cell, n);
  const g = svgEl("g", { class: `guardian ${side}${cls ? ` ${cls}` : ""}`, transform: `translate(${cx} ${cy})`,
    "data-piece": `g:${key(cell)}` }, parent);
  svgEl("rect", { x: -13, y: -13, width: 26, height: 26, rx: 5, class: "shape" }, g);
  label(g, 0, 1, side === "silver" ? "s" : "b", { class: "guard-letter" });
  return g;
}
export const guardianXY = guardianCentre;

// A small picture of a side's elephant, as on the board (player cards, lists).
export function pieceIcon(side, size = 24, facing = null) {
  const svg = svgEl("svg", { viewBox: "-22 -22 44 44", width: size, height: size, class: `piece-icon ${side}`, "aria-hidden": "true" });
  drawElephant(svg, 0, 0, side, facing);
  return svg;
}

// The legend: the board's symbols with their meaning (DOM calls only, no innerHTML).
export function renderLegend(container) {
  const items = ["silver", "bronze", "guardian", "trunk", "burnt", "watched", "crossing", "movable", "last"];
  const list = document.createElement("ul");
  list.className = "legend-list";
  for (const kind of items) {
    const li = document.createElement("li");
    const svg = svgEl("svg", { viewBox: `0 0 ${CS} ${CS}`, width: 32, height: 32, class: "board-svg legend-svg", "aria-hidden": "true" });
    svgEl("rect", { width: CS, height: CS, class: `cell-bg ${kind === "guardian" ? "bg-ring" : "bg-a"}` }, svg);
    if (kind === "silver" || kind === "bronze") drawElephant(svg, CS / 2, CS / 2, kind, "E");
    else if (kind === "guardian") {
      const g = svgEl("g", { class: "guardian bronze", transform: `translate(${CS / 2} ${CS / 2})` }, svg);
      svgEl("rect", { x: -13, y: -13, width: 26, height: 26, rx: 5, class: "shape" }, g);
      label(g, 0, 1, "b", { class: "guard-letter" });
    } else if (kind === "trunk") drawTrunk(svg, 0, 0, false);
    else if (kind === "burnt") drawTrunk(svg, 0, 0, true);
    else if (kind === "watched") {
      svgEl("rect", { width: CS, height: CS, class: "watched" }, svg);
      svgEl("line", { x1: CS / 2, y1: 0, x2: CS / 2, y2: CS, class: "sight" }, svg);
    } else if (kind === "crossing") {
      const id = `hatch-${++uid}`;
      hatch(svgEl("defs", {}, svg), id);
      svgEl("rect", { x: 1.5, y: 1.5, width: CS - 3, height: CS - 3, fill: `url(#${id})`, class: "crossing" }, svg);
    } else if (kind === "movable") {
      svgEl("rect", { x: 2, y: 2, width: CS - 4, height: CS - 4, rx: 4, class: "hl-movable" }, svg);
      drawElephant(svg, CS / 2, CS / 2, "silver", "N");
    } else if (kind === "last") {
      svgEl("rect", { x: 2, y: 2, width: CS - 4, height: CS - 4, rx: 4, class: "hl-last" }, svg);
    }
    const span = document.createElement("span");
    span.textContent = t(`legend.${kind}`);
    li.append(svg, span);
    list.appendChild(li);
  }
  container.replaceChildren(list);
}

// ------------------------------------------------------------------ input
function cellAt(container, ev) {
  const svg = container.querySelector("svg.board-svg");
  const n = container._n;
  if (!svg || !n) return null;
  const m = (svg.querySelector(":scope > g.flip") ?? svg).getScreenCTM();
  if (!m) return null;
  const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
  const x = Math.floor(p.x / CS);
  const y = n + 1 - Math.floor(p.y / CS);
  if (x < 0 || y < 0 || x > n + 1 || y > n + 1) return null;
  return [x, y];
}

function listen(container) {
  if (container._listening) return;
  container._listening = true;
  let drag = null;
  let swallowClick = 0;
  container.addEventListener("click", (ev) => {
    if (Date.now() < swallowClick) return;
    const f = ev.target.closest?.("[data-facing].facing-arrow");
    if (f) return container._onFacing(f.getAttribute("data-facing"));
    const g = ev.target.closest?.("[data-cell]");
    if (g) container._onCell(unkey(g.getAttribute("data-cell")));
  });
  container.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || ev.target.closest?.(".facing-arrow")) return;
    const c = cellAt(container, ev);
    if (c) drag = { start: c, last: c, x: ev.clientX, y: ev.clientY, id: ev.pointerId, moved: false };
  });
  container.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    if (!drag.moved && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 8) return;
    const c = cellAt(container, ev);
    if (!c || same(c, drag.last)) return;
    if (!drag.moved) {
      // a drag starts only from a cell that can be picked up (an own elephant)
      const startEl = container._cellEls?.get(key(drag.start));
      if (!startEl?.classList.contains("movable") && !container.querySelector(".hl-selected")) {
        drag = null;
        return;
      }
      drag.moved = true;
      try {
        container.setPointerCapture(ev.pointerId);
      } catch { /* the pointer is gone */ }
      if (startEl?.classList.contains("movable")) container._onCell(drag.start);
    }
    drag.last = c;
    const el = container._cellEls?.get(key(c));
    if (el?.classList.contains("cand")) container._onCell(c);
  });
  const end = (ev) => {
    if (drag && ev.pointerId === drag.id && drag.moved) swallowClick = Date.now() + 400;
    drag = null;
  };
  container.addEventListener("pointerup", end);
  container.addEventListener("pointercancel", end);
  container.addEventListener("focusin", (ev) => {
    const g = ev.target.closest?.("[data-cell]");
    if (!g) return;
    const k = g.getAttribute("data-cell");
    if (container._focusKey !== k) {
      container._cellEls?.get(container._focusKey)?.setAttribute("tabindex", "-1");
      container._focusKey = k;
      g.setAttribute("tabindex", "0");
    }
  });
  container.addEventListener("keydown", (ev) => {
    const g = ev.target.closest?.("[data-cell]");
    if (!g) return;
    const n = container._n;
    const [x, y] = unkey(g.getAttribute("data-cell"));
    const moves = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    // The facing from the board, while its arrows are shown: Shift+arrow the way it points on
    // the screen, or the compass letter of the panel's buttons (N, E, S, W)
    const facings = container._facings ?? [];
    if (facings.length && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      const screen = { ArrowUp: "N", ArrowRight: "E", ArrowDown: "S", ArrowLeft: "W" };
      const turned = { N: "S", S: "N", E: "W", W: "E" };
      let f = null;
      if (ev.shiftKey && screen[ev.key]) f = container._flip ? turned[screen[ev.key]] : screen[ev.key];
      else if (/^[nesw]$/i.test(ev.key)) f = ev.key.toUpperCase();
      if (f && facings.includes(f)) {
        ev.preventDefault();
        ev.stopPropagation();
        container._onFacing(f);
        return;
      }
    }
    if (moves[ev.key] && !ev.shiftKey && !ev.altKey) {
      ev.preventDefault();
      ev.stopPropagation();
      const s = container._flip ? -1 : 1; // the arrows go the way they point on the screen
      const nx = Math.min(n + 1, Math.max(0, x + s * moves[ev.key][0]));
      const ny = Math.min(n + 1, Math.max(0, y + s * moves[ev.key][1]));
      container._cellEls?.get(key([nx, ny]))?.focus();
      return;
    }
    if (ev.key === "Enter" && container._onEnter?.([x, y])) {
      ev.preventDefault();
      ev.stopPropagation();
      return;
    }
    if ((ev.key === "Enter" || ev.key === " ") && g.classList.contains("cand")) {
      ev.preventDefault();
      ev.stopPropagation();
      container._onCell([x, y]);
    } else if (ev.key === " ") {
      ev.preventDefault();
      container._onCell([x, y]);
    }
  });
}
