// The SVG board: field, ring, trunks, burnt trunks, elephants with their facing, guardians, the
// lines they watch and the crossings. Pure rendering from a state JSON (docs/RULES.md 9.2) plus
// highlights. Every cell is focusable (one tab stop, arrow keys move between cells); a click,
// Enter or Space on a cell calls onCell([x, y]).
//
// Colour is never the only mark: silver elephants are circles lettered S, bronze elephants are
// diamonds lettered B, guardians are black squares lettered s/b (their owner), crossings are
// hatched and crossed out.
const NS = "http://www.w3.org/2000/svg";
const CS = 44; // cell size
const M = 22; // margin for coordinates
const LETTERS = "abcdefghijklm";

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
// back along the south (docs/RULES.md 5.3).
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
const unkey = (k) => k.split(",").map(Number);
let uid = 0; // pattern ids are document-wide: one per drawing

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}
function text(parent, x, y, s, attrs = {}) {
  const t = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", ...attrs }, parent);
  t.textContent = s;
  return t;
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

const FACING_ROT = { N: 0, E: 90, S: 180, W: 270 };
const FACING_WORD = { N: "north", E: "east", S: "south", W: "west" };

// What is on a cell, in words (cell titles and screen readers).
export function describeCell(st, c) {
  const n = st.variant.size;
  const k = key(c);
  const parts = [cellName(c, n)];
  const e = st.elephants.find((x) => key(x.cell) === k);
  if (e) parts.push(`${e.side} elephant facing ${FACING_WORD[e.facing] ?? e.facing}`);
  const g = st.guardians.find((x) => key(x.cell) === k);
  if (g) parts.push(`${g.side}'s guardian`);
  if (st.trunks.some((x) => key(x) === k)) parts.push("trunk");
  if (st.burnt.some((x) => key(x) === k)) parts.push("burnt trunk");
  if (st.crossings.some((x) => key(x) === k)) parts.push("crossing, dangerous");
  return parts.join(", ");
}

// opts: {state, onCell?, labelFor?(cell) -> string, highlights: {
//   cands: Map key -> true | label   cells that can be chosen now (label: a guardian move's cost)
//   movable: Set key                 own elephants that have a legal move
//   selected: [x, y]                 the chosen elephant or guardian
//   path: [[x, y]]                   the steps chosen so far (from `selected`)
//   last: {cells, from, path}        the last turn played
//   captures: [{cell, side, facing}] elephants the drafted (or last) turn captures
//   ghost: {cell, side, facing}      the chosen elephant where its path so far ends
//   zoneSide: side                   tint that side's start zone (setup)
//   setupMarks: {side, elephants, guardians}  the drafted setup }}
export function renderBoard(container, opts) {
  const { state } = opts;
  const onCell = opts.onCell ?? (() => {});
  const hl = opts.highlights ?? {};
  const n = state.variant.size;
  const W = (n + 2) * CS + 2 * M;
  const px = (x) => M + x * CS;
  const py = (y) => M + (n + 1 - y) * CS;
  const hadFocus = container.contains(document.activeElement);
  const svg = el("svg", { viewBox: `0 0 ${W} ${W}`, class: "board-svg", role: "group",
    "aria-label": `Trunkfield board, ${n} by ${n}. Arrow keys move between cells, Enter or Space chooses, Escape undoes.` });
  const hatchId = `hatch-${++uid}`;
  hatch(el("defs", {}, svg), hatchId);

  for (let x = 1; x <= n; x++) {
    text(svg, px(x) + CS / 2, M / 2, LETTERS[x - 1], { class: "coord" });
    text(svg, px(x) + CS / 2, W - M / 2, LETTERS[x - 1], { class: "coord" });
  }
  for (let y = 1; y <= n; y++) {
    text(svg, M / 2, py(y) + CS / 2, String(y), { class: "coord" });
    text(svg, W - M / 2, py(y) + CS / 2, String(y), { class: "coord" });
  }

  // Watched lines and crossings; during a setup, also those the drafted guardians would make.
  const guardCells = state.guardians.map((g) => g.cell).concat(hl.setupMarks?.guardians ?? []);
  const { cols, rows } = watchedBy(guardCells, n);
  const crossings = new Set(state.crossings.map(key));
  if (hl.setupMarks) for (const x of cols) for (const y of rows) if (y >= 1 && y <= n) crossings.add(key([x, y]));
  const trunks = new Set(state.trunks.map(key));
  const burnt = new Set(state.burnt.map(key));
  const lastCells = new Set((hl.last?.cells ?? []).map(key));
  const cands = hl.cands ?? new Map();

  // The cell that holds the tab stop: kept across redraws, else the first choosable cell.
  let focusKey = container._focusKey;
  if (!focusKey || unkey(focusKey).some((v) => v < 0 || v > n + 1))
    focusKey = cands.size ? [...cands.keys()][0] : key([Math.ceil(n / 2), Math.ceil(n / 2)]);
  container._focusKey = focusKey;

  const cellsG = el("g", {}, svg);
  const linesG = el("g", { "pointer-events": "none" }, svg);
  const piecesG = el("g", { "pointer-events": "none" }, svg);
  const overG = el("g", { "pointer-events": "none" }, svg);
  const cellEls = new Map();

  for (let y = 0; y <= n + 1; y++) {
    for (let x = 0; x <= n + 1; x++) {
      const c = [x, y];
      const k = key(c);
      const field = isField(c, n);
      const name = cellName(c, n);
      const g = el("g", { class: "cell", "data-cell": k, "data-name": name, role: "button",
        tabindex: k === focusKey ? 0 : -1 }, cellsG);
      cellEls.set(k, g);
      let fill = field ? ((x + y) % 2 ? "#e3ecd0" : "#d7e4bd") : "#bfb397";
      if (field && hl.zoneSide === "silver" && y === 1 && x >= 2) fill = "#f1f3f6";
      if (field && hl.zoneSide === "bronze" && x === 1 && y >= 2) fill = "#f5e0c8";
      el("rect", { x: px(x), y: py(y), width: CS, height: CS, fill, class: "cell-bg",
        stroke: field ? "#a3b386" : "#8d7f62", "stroke-width": 1 }, g);
      if (field && (cols.has(x) || rows.has(y)) && !crossings.has(k))
        el("rect", { x: px(x), y: py(y), width: CS, height: CS, fill: "#c0392b", opacity: 0.13 }, g);
      if (crossings.has(k))
        el("rect", { x: px(x) + 1.5, y: py(y) + 1.5, width: CS - 3, height: CS - 3, fill: `url(#${hatchId})`,
          stroke: "#a12a1d", "stroke-width": 3, class: "crossing" }, g);
      if (lastCells.has(k))
        el("rect", { x: px(x) + 3, y: py(y) + 3, width: CS - 6, height: CS - 6, fill: "#1d4ed8",
          "fill-opacity": 0.1, stroke: "#1d4ed8", "stroke-width": 2.5, "stroke-dasharray": "5 3", class: "last" }, g);
      const label = opts.labelFor ? opts.labelFor(c) : describeCell(state, c);
      const extra = cands.has(k) ? (typeof cands.get(k) === "string" ? `, choosable, costs ${cands.get(k)}` : ", choosable") : "";
      g.setAttribute("aria-label", label + extra);
      el("title", {}, g).textContent = label;
      if (cands.has(k)) {
        g.classList.add("cand");
        if (hl.movable?.has(k)) g.classList.add("movable");
      }
      if (field && trunks.has(k)) drawTrunk(piecesG, px(x), py(y), false);
      if (field && burnt.has(k)) drawTrunk(piecesG, px(x), py(y), true);
    }
  }
  // Each guardian's sight line across the field, and a bold cross on each crossing.
  for (const [gx, gy] of guardCells) {
    if ((gx === 0 || gx === n + 1) && (gy === 0 || gy === n + 1)) continue;
    const vertical = gy === 0 || gy === n + 1;
    const a = vertical ? [px(gx) + CS / 2, py(n)] : [px(1), py(gy) + CS / 2];
    const b = vertical ? [px(gx) + CS / 2, py(1) + CS] : [px(n) + CS, py(gy) + CS / 2];
    el("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#7f1d1d", "stroke-width": 2,
      "stroke-dasharray": "2 6", "stroke-linecap": "round", opacity: 0.75 }, linesG);
  }
  for (const k of crossings) {
    const [x, y] = unkey(k);
    const cx = px(x) + CS - 9;
    const cy = py(y) + 9;
    el("circle", { cx, cy, r: 7, fill: "#a12a1d", stroke: "#fff", "stroke-width": 1 }, overG);
    el("path", { d: `M${cx - 3.5} ${cy - 3.5} L${cx + 3.5} ${cy + 3.5} M${cx + 3.5} ${cy - 3.5} L${cx - 3.5} ${cy + 3.5}`,
      stroke: "#fff", "stroke-width": 2 }, overG);
  }
  const polyline = (from, path, attrs) => {
    const pts = [from, ...path].map(([x, y]) => `${px(x) + CS / 2},${py(y) + CS / 2}`);
    el("polyline", { points: pts.join(" "), fill: "none", "stroke-linecap": "round", "stroke-linejoin": "round", ...attrs }, linesG);
  };
  if (hl.last?.from && hl.last.path?.length)
    polyline(hl.last.from, hl.last.path, { stroke: "#1d4ed8", "stroke-width": 3, opacity: 0.6, class: "last-path" });
  if (hl.path?.length && hl.selected)
    polyline(hl.selected, hl.path, { stroke: "#b45309", "stroke-width": 4, class: "draft-path" });

  for (const e of state.elephants) drawElephant(piecesG, px(e.cell[0]), py(e.cell[1]), e.side, e.facing);
  for (const g of state.guardians) drawGuardian(piecesG, px(g.cell[0]), py(g.cell[1]), g.side);
  if (hl.setupMarks) {
    const s = hl.setupMarks.side;
    for (const c of hl.setupMarks.elephants) drawElephant(piecesG, px(c[0]), py(c[1]), s, s === "silver" ? "N" : "E", 0.85);
    for (const c of hl.setupMarks.guardians) drawGuardian(piecesG, px(c[0]), py(c[1]), s, 0.85);
  }
  if (hl.ghost?.cell) {
    // where the chosen elephant stands after the steps chosen so far
    const [x, y] = hl.ghost.cell;
    drawElephant(piecesG, px(x), py(y), hl.ghost.side, hl.ghost.facing, 0.6);
    el("circle", { cx: px(x) + CS / 2, cy: py(y) + CS / 2, r: CS / 2 - 2, fill: "none", stroke: "#b45309",
      "stroke-width": 3, class: "ghost" }, overG);
  }
  for (const cap of hl.captures ?? []) {
    const [x, y] = cap.cell;
    el("circle", { cx: px(x) + CS / 2, cy: py(y) + CS / 2, r: CS / 2 - 3, fill: "#fff", opacity: 0.8 }, piecesG);
    drawElephant(piecesG, px(x), py(y), cap.side, cap.facing, 0.55);
    el("path", { d: `M${px(x) + 8} ${py(y) + 8} L${px(x) + CS - 8} ${py(y) + CS - 8} M${px(x) + CS - 8} ${py(y) + 8} L${px(x) + 8} ${py(y) + CS - 8}`,
      stroke: "#b91c1c", "stroke-width": 4, "stroke-linecap": "round", class: "capture-mark" }, piecesG);
  }
  if (hl.selected)
    el("circle", { cx: px(hl.selected[0]) + CS / 2, cy: py(hl.selected[1]) + CS / 2, r: CS / 2 - 1,
      fill: "none", stroke: "#f59e0b", "stroke-width": 4 }, overG);
  for (const [k, label] of cands) {
    const [x, y] = unkey(k);
    const cx = px(x) + CS / 2;
    const cy = py(y) + CS / 2;
    if (hl.movable?.has(k) || (hl.occupied?.has(k) && typeof label !== "string")) {
      // a piece that can be picked: a dashed ring around it, its letter stays readable
      el("circle", { cx, cy, r: CS / 2 - 2, fill: "none", stroke: "#1d4ed8", "stroke-width": 3.5,
        "stroke-dasharray": "6 3" }, overG);
      continue;
    }
    const labelled = typeof label === "string";
    el("circle", { cx, cy, r: labelled ? 13 : 8, fill: "#1d4ed8", opacity: 0.9, stroke: "#fff", "stroke-width": 2 }, overG);
    if (labelled) text(overG, cx, cy + 0.5, label, { class: "cand-label" });
  }

  svg.addEventListener("click", (ev) => {
    const g = ev.target.closest?.("[data-cell]");
    if (g) onCell(unkey(g.getAttribute("data-cell")));
  });
  svg.addEventListener("focusin", (ev) => {
    const g = ev.target.closest?.("[data-cell]");
    if (!g) return;
    const k = g.getAttribute("data-cell");
    if (container._focusKey !== k) {
      cellEls.get(container._focusKey)?.setAttribute("tabindex", "-1");
      container._focusKey = k;
      g.setAttribute("tabindex", "0");
    }
  });
  svg.addEventListener("keydown", (ev) => {
    const g = ev.target.closest?.("[data-cell]");
    if (!g) return;
    const [x, y] = unkey(g.getAttribute("data-cell"));
    const moves = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (moves[ev.key]) {
      ev.preventDefault();
      const nx = Math.min(n + 1, Math.max(0, x + moves[ev.key][0]));
      const ny = Math.min(n + 1, Math.max(0, y + moves[ev.key][1]));
      cellEls.get(key([nx, ny]))?.focus();
      return;
    }
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      onCell([x, y]);
    }
  });
  container.replaceChildren(svg);
  if (hadFocus) cellEls.get(container._focusKey)?.focus();
}

function hatch(defs, id) {
  const pat = el("pattern", { id, width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 8, height: 8, fill: "#f6c6bd" }, pat);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#c0392b", "stroke-width": 3.5 }, pat);
}

function drawTrunk(parent, x, y, isBurnt) {
  const g = el("g", { class: isBurnt ? "burnt" : "trunk" }, parent);
  el("rect", { x: x + 8, y: y + CS / 2 - 7, width: CS - 16, height: 14, rx: 7,
    fill: isBurnt ? "#2b2b2b" : "#8a6a3b", stroke: isBurnt ? "#000" : "#4e3a1e", "stroke-width": 1.5 }, g);
  el("ellipse", { cx: x + CS - 12, cy: y + CS / 2, rx: 4, ry: 6,
    fill: isBurnt ? "#555" : "#d8b47a", stroke: isBurnt ? "#000" : "#4e3a1e" }, g);
  if (isBurnt)
    el("path", { d: `M${x + 12} ${y + CS / 2 + 2} l4 -6 l4 5 l4 -6 l4 6`, stroke: "#fb923c",
      "stroke-width": 2.2, fill: "none", "stroke-linejoin": "round" }, g);
}

function drawElephant(parent, x, y, side, facing, opacity = 1) {
  const cx = x + CS / 2;
  const cy = y + CS / 2;
  const g = el("g", { class: `elephant ${side}`, opacity }, parent);
  const silver = side === "silver";
  // the facing: a black arrow head on the rim, drawn first so the body's outline stays crisp
  const rot = FACING_ROT[facing] ?? 0;
  if (facing) el("path", { d: `M${cx} ${cy - 22} L${cx + 8} ${cy - 10} L${cx - 8} ${cy - 10} Z`, fill: "#111",
    stroke: "#fff", "stroke-width": 1.2, transform: `rotate(${rot} ${cx} ${cy})`, class: "facing" }, g);
  if (silver)
    el("circle", { cx, cy, r: 15, fill: "#e8eaee", stroke: "#1f2937", "stroke-width": 2.5 }, g);
  else
    el("rect", { x: cx - 12, y: cy - 12, width: 24, height: 24, rx: 4, fill: "#b8611e", stroke: "#3b1d00",
      "stroke-width": 2.5, transform: `rotate(45 ${cx} ${cy})` }, g);
  text(g, cx, cy + 1, silver ? "S" : "B", { class: "piece-letter", fill: silver ? "#111" : "#fff" });
}

function drawGuardian(parent, x, y, side, opacity = 1) {
  const cx = x + CS / 2;
  const cy = y + CS / 2;
  const g = el("g", { class: `guardian ${side}`, opacity }, parent);
  el("rect", { x: cx - 15, y: cy - 15, width: 30, height: 30, rx: 5, fill: "#111",
    stroke: side === "silver" ? "#d1d5db" : "#e58a1f", "stroke-width": 3 }, g);
  text(g, cx, cy + 1, side === "silver" ? "s" : "b", { class: "guard-letter",
    fill: side === "silver" ? "#f3f4f6" : "#fbbf24" });
}

// A small picture of a side's elephant, as on the board (player cards, lists).
export function pieceIcon(side, size = 26) {
  const svg = el("svg", { viewBox: `4 4 ${CS - 8} ${CS - 8}`, width: size, height: size, class: `piece-icon ${side}`, "aria-hidden": "true" });
  drawElephant(svg, 0, 0, side, null);
  return svg;
}

// The legend: the board's symbols with their meaning (DOM calls only, no innerHTML).
export function renderLegend(container) {
  const items = [
    ["silver", "Silver elephant: light circle lettered S; the black arrow head shows its facing"],
    ["bronze", "Bronze elephant: brown diamond lettered B"],
    ["guardian", "Guardian: black square on the ring; s or b names its owner"],
    ["trunk", "Trunk: walk forward onto it to collect it (1 point each held)"],
    ["burnt", "Burnt trunk: blocks the cell for good, scores nothing"],
    ["watched", "Watched line: a guardian looks along it"],
    ["crossing", "Crossing (hatched, ✕): an elephant standing here is captured when a guardian moves"],
    ["last", "The last turn played"],
  ];
  const list = document.createElement("ul");
  list.className = "legend-list";
  for (const [kind, label] of items) {
    const li = document.createElement("li");
    const svg = el("svg", { viewBox: `0 0 ${CS} ${CS}`, width: 30, height: 30, "aria-hidden": "true" });
    el("rect", { width: CS, height: CS, fill: "#e3ecd0" }, svg);
    if (kind === "silver" || kind === "bronze") drawElephant(svg, 0, 0, kind, "N");
    else if (kind === "guardian") {
      el("rect", { width: CS, height: CS, fill: "#bfb397" }, svg);
      drawGuardian(svg, 0, 0, "bronze");
    } else if (kind === "trunk") drawTrunk(svg, 0, 0, false);
    else if (kind === "burnt") drawTrunk(svg, 0, 0, true);
    else if (kind === "watched") {
      el("rect", { width: CS, height: CS, fill: "#c0392b", opacity: 0.13 }, svg);
      el("line", { x1: CS / 2, y1: 0, x2: CS / 2, y2: CS, stroke: "#7f1d1d", "stroke-width": 2, "stroke-dasharray": "2 6" }, svg);
    } else if (kind === "crossing") {
      const id = `hatch-${++uid}`;
      hatch(el("defs", {}, svg), id);
      el("rect", { x: 1.5, y: 1.5, width: CS - 3, height: CS - 3, fill: `url(#${id})`, stroke: "#a12a1d", "stroke-width": 3 }, svg);
    } else if (kind === "last") {
      el("rect", { x: 3, y: 3, width: CS - 6, height: CS - 6, fill: "#1d4ed8", "fill-opacity": 0.1, stroke: "#1d4ed8",
        "stroke-width": 2.5, "stroke-dasharray": "5 3" }, svg);
    }
    const span = document.createElement("span");
    span.textContent = label;
    li.append(svg, span);
    list.appendChild(li);
  }
  container.replaceChildren(list);
}
