// The SVG board: field, ring, trunks, burnt trunks, elephants with their facing, guardians, the
// lines they watch and the crossings. Pure rendering from a state JSON (docs/RULES.md 9.2) plus
// highlights; clicks and keys on cells go to onCell([x, y]).
const NS = "http://www.w3.org/2000/svg";
const CS = 44;      // cell size
const M = 22;       // margin for coordinates
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
export const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];
export const key = (c) => `${c[0]},${c[1]}`;

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

// Watched columns and rows from the guardians (a corner watches nothing).
export function watched(state) {
  const n = state.variant.size;
  const cols = new Set(), rows = new Set();
  for (const g of state.guardians) {
    const [x, y] = g.cell;
    const corner = (x === 0 || x === n + 1) && (y === 0 || y === n + 1);
    if (corner) continue;
    if (y === 0 || y === n + 1) cols.add(x);
    else rows.add(y);
  }
  return { cols, rows };
}

const FACING_ROT = { N: 0, E: 90, S: 180, W: 270 };

// opts: {state, onCell, highlights: {cands: Map key->label|true, selected: [x,y], path: [[x,y]],
//   last: {cells: [[x,y]], from, path}, zoneSide: "silver"|"bronze"|null, setupMarks: {elephants, guardians}},
//   labelFor: (cell) => string}
export function renderBoard(container, opts) {
  const { state, onCell } = opts;
  const h = opts.highlights ?? {};
  const n = state.variant.size;
  const W = (n + 2) * CS + 2 * M;
  const px = (x) => M + x * CS;
  const py = (y) => M + (n + 1 - y) * CS;
  const svg = el("svg", { viewBox: `0 0 ${W} ${W}`, class: "board-svg", role: "grid",
    "aria-label": `Trunkfield board, ${n} by ${n}` });
  const defs = el("defs", {}, svg);
  const pat = el("pattern", { id: "hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 8, height: 8, fill: "#f3c1b8" }, pat);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#c0392b", "stroke-width": 4 }, pat);

  // coordinates
  for (let x = 1; x <= n; x++) {
    text(svg, px(x) + CS / 2, M / 2, LETTERS[x - 1], { class: "coord" });
    text(svg, px(x) + CS / 2, W - M / 2, LETTERS[x - 1], { class: "coord" });
  }
  for (let y = 1; y <= n; y++) {
    text(svg, M / 2, py(y) + CS / 2, String(y), { class: "coord" });
    text(svg, W - M / 2, py(y) + CS / 2, String(y), { class: "coord" });
  }

  const { cols, rows } = watched(state);
  const crossings = new Set(state.crossings.map(key));
  const trunks = new Set(state.trunks.map(key));
  const burnt = new Set(state.burnt.map(key));
  const lastCells = new Set((h.last?.cells ?? []).map(key));
  const cands = h.cands ?? new Map();

  const cellsG = el("g", {}, svg);
  const piecesG = el("g", { "pointer-events": "none" }, svg);
  const overG = el("g", {}, svg);

  for (let y = 0; y <= n + 1; y++) {
    for (let x = 0; x <= n + 1; x++) {
      const c = [x, y], k = key(c), field = isField(c, n);
      const name = cellName(c, n);
      const g = el("g", { class: "cell", "data-cell": k, "data-name": name }, cellsG);
      let fill = field ? ((x + y) % 2 ? "#dfe9c8" : "#d5e2b9") : "#b9ab8c";
      if (field && h.zoneSide === "silver" && y === 1 && x >= 2) fill = "#eef0f3";
      if (field && h.zoneSide === "bronze" && x === 1 && y >= 2) fill = "#f3dcc4";
      el("rect", { x: px(x), y: py(y), width: CS, height: CS, fill,
        stroke: field ? "#9fb07f" : "#8d7f62", "stroke-width": 1 }, g);
      if (field && (cols.has(x) || rows.has(y)) && !crossings.has(k))
        el("rect", { x: px(x), y: py(y), width: CS, height: CS, fill: "#c0392b", opacity: 0.12 }, g);
      if (crossings.has(k)) {
        el("rect", { x: px(x) + 1, y: py(y) + 1, width: CS - 2, height: CS - 2, fill: "url(#hatch)",
          stroke: "#a12a1d", "stroke-width": 2.5 }, g);
      }
      if (lastCells.has(k))
        el("rect", { x: px(x) + 2, y: py(y) + 2, width: CS - 4, height: CS - 4, fill: "none",
          stroke: "#1d4ed8", "stroke-width": 2.5, "stroke-dasharray": "5 3", class: "last" }, g);
      const title = el("title", {}, g);
      title.textContent = opts.labelFor ? opts.labelFor(c) : name;
      if (cands.has(k)) {
        g.classList.add("cand");
        if (h.movable?.has(k)) g.classList.add("movable");
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", `${name}${typeof cands.get(k) === "string" ? " " + cands.get(k) : ""}`);
      }
      if (field && trunks.has(k)) drawTrunk(piecesG, px(x), py(y), false);
      if (field && burnt.has(k)) drawTrunk(piecesG, px(x), py(y), true);
    }
  }
  // the line of each guardian, drawn as a dashed sight line across the field
  for (const gd of state.guardians) {
    const [x, y] = gd.cell;
    if ((x === 0 || x === n + 1) && (y === 0 || y === n + 1)) continue;
    const vertical = y === 0 || y === n + 1;
    const a = vertical ? [px(x) + CS / 2, py(1) + CS] : [px(1), py(y) + CS / 2];
    const b = vertical ? [px(x) + CS / 2, py(n)] : [px(n) + CS, py(y) + CS / 2];
    el("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#7f1d1d", "stroke-width": 1.5,
      "stroke-dasharray": "2 5", opacity: 0.7 }, piecesG);
  }
  for (const k of crossings) {
    const [x, y] = k.split(",").map(Number);
    text(piecesG, px(x) + CS - 9, py(y) + 9, "✕", { class: "crossing-mark" });
  }
  if (h.last?.from && h.last?.path?.length) {
    const pts = [h.last.from, ...h.last.path].map(([x, y]) => `${px(x) + CS / 2},${py(y) + CS / 2}`);
    el("polyline", { points: pts.join(" "), fill: "none", stroke: "#1d4ed8", "stroke-width": 3,
      opacity: 0.55, "stroke-linecap": "round", "stroke-linejoin": "round" }, piecesG);
  }
  if (h.path?.length && h.selected) {
    const pts = [h.selected, ...h.path].map(([x, y]) => `${px(x) + CS / 2},${py(y) + CS / 2}`);
    el("polyline", { points: pts.join(" "), fill: "none", stroke: "#b45309", "stroke-width": 4,
      "stroke-linecap": "round", "stroke-linejoin": "round" }, piecesG);
  }
  for (const e of state.elephants) drawElephant(piecesG, px(e.cell[0]), py(e.cell[1]), e.side, e.facing);
  for (const g of state.guardians) drawGuardian(piecesG, px(g.cell[0]), py(g.cell[1]), g.side);
  if (h.setupMarks) {
    for (const c of h.setupMarks.elephants) drawElephant(piecesG, px(c[0]), py(c[1]), h.setupMarks.side, h.setupMarks.side === "silver" ? "N" : "E", 0.8);
    for (const c of h.setupMarks.guardians) drawGuardian(piecesG, px(c[0]), py(c[1]), h.setupMarks.side, 0.8);
  }
  if (h.selected)
    el("circle", { cx: px(h.selected[0]) + CS / 2, cy: py(h.selected[1]) + CS / 2, r: CS / 2 - 1,
      fill: "none", stroke: "#f59e0b", "stroke-width": 4 }, overG);
  for (const [k, label] of cands) {
    const [x, y] = k.split(",").map(Number);
    const g = el("g", { "pointer-events": "none" }, overG);
    if (h.movable?.has(k) || (h.occupied?.has(k) && typeof label !== "string")) {
      // a piece that can be picked: a ring around it, its letter stays readable
      el("circle", { cx: px(x) + CS / 2, cy: py(y) + CS / 2, r: CS / 2 - 2, fill: "none",
        stroke: "#1d4ed8", "stroke-width": 3.5, "stroke-dasharray": "6 3" }, g);
      continue;
    }
    el("circle", { cx: px(x) + CS / 2, cy: py(y) + CS / 2, r: typeof label === "string" ? 11 : 8,
      fill: "#1d4ed8", opacity: 0.85, stroke: "#fff", "stroke-width": 2 }, g);
    if (typeof label === "string") text(g, px(x) + CS / 2, py(y) + CS / 2, label, { class: "cand-label" });
  }

  svg.addEventListener("click", (ev) => {
    const g = ev.target.closest?.("[data-cell]");
    if (g) onCell(g.getAttribute("data-cell").split(",").map(Number));
  });
  svg.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const g = ev.target.closest?.("[data-cell]");
    if (!g) return;
    ev.preventDefault();
    onCell(g.getAttribute("data-cell").split(",").map(Number));
  });
  container.replaceChildren(svg);
}

function drawTrunk(parent, x, y, isBurnt) {
  const g = el("g", {}, parent);
  el("rect", { x: x + 8, y: y + CS / 2 - 7, width: CS - 16, height: 14, rx: 7,
    fill: isBurnt ? "#2b2b2b" : "#8a6a3b", stroke: isBurnt ? "#000" : "#4e3a1e", "stroke-width": 1.5 }, g);
  el("ellipse", { cx: x + CS - 12, cy: y + CS / 2, rx: 4, ry: 6,
    fill: isBurnt ? "#555" : "#d8b47a", stroke: isBurnt ? "#000" : "#4e3a1e" }, g);
  if (isBurnt) {
    el("path", { d: `M${x + 13} ${y + CS / 2 - 3} l5 4 l4 -5 l5 5`, stroke: "#f97316",
      "stroke-width": 2, fill: "none" }, g);
  }
}

function drawElephant(parent, x, y, side, facing, opacity = 1) {
  const cx = x + CS / 2, cy = y + CS / 2;
  const g = el("g", { class: `elephant ${side}`, opacity }, parent);
  const silver = side === "silver";
  el("circle", { cx, cy, r: 15, fill: silver ? "#e5e7eb" : "#b8611e",
    stroke: silver ? "#1f2937" : "#4a2300", "stroke-width": 2.5 }, g);
  // facing: a black arrow head on the rim
  const rot = FACING_ROT[facing] ?? 0;
  el("path", { d: `M${cx} ${cy - 22} L${cx + 8} ${cy - 11} L${cx - 8} ${cy - 11} Z`, fill: "#111",
    stroke: "#fff", "stroke-width": 1, transform: `rotate(${rot} ${cx} ${cy})` }, g);
  // shape marker: silver a square, bronze a diamond + letter
  text(g, cx, cy + 1, silver ? "S" : "B", { class: "piece-letter", fill: silver ? "#111" : "#fff" });
}

function drawGuardian(parent, x, y, side, opacity = 1) {
  const cx = x + CS / 2, cy = y + CS / 2;
  const g = el("g", { class: `guardian ${side}`, opacity }, parent);
  el("rect", { x: cx - 14, y: cy - 14, width: 28, height: 28, rx: 5, fill: "#111",
    stroke: side === "silver" ? "#d1d5db" : "#d97706", "stroke-width": 3 }, g);
  text(g, cx, cy + 1, side === "silver" ? "s" : "b", { class: "guard-letter",
    fill: side === "silver" ? "#e5e7eb" : "#f59e0b" });
}

export function legendHTMLSafe(container) {
  // Built with DOM calls (no innerHTML): a small board-like legend.
  const items = [
    ["silver", "Silver elephant (light grey, S); the black triangle shows its facing"],
    ["bronze", "Bronze elephant (orange-brown, B)"],
    ["guardian", "Guardian (black square on the ring; s/b = owner)"],
    ["trunk", "Trunk (1 point when held)"],
    ["burnt", "Burnt trunk (blocks, scores nothing)"],
    ["crossing", "Crossing (red hatched ✕): an elephant here is captured when a guardian moves"],
  ];
  const list = document.createElement("ul");
  list.className = "legend-list";
  for (const [kind, label] of items) {
    const li = document.createElement("li");
    const svg = el("svg", { viewBox: `0 0 ${CS} ${CS}`, width: 28, height: 28 });
    if (kind === "silver" || kind === "bronze") drawElephant(svg, 0, 0, kind, "N");
    else if (kind === "guardian") drawGuardian(svg, 0, 0, "bronze");
    else if (kind === "trunk") drawTrunk(svg, 0, 0, false);
    else if (kind === "burnt") drawTrunk(svg, 0, 0, true);
    else {
      const defs = el("defs", {}, svg);
      const pat = el("pattern", { id: "hatch-l", width: 8, height: 8, patternUnits: "userSpaceOnUse",
        patternTransform: "rotate(45)" }, defs);
      el("rect", { width: 8, height: 8, fill: "#f3c1b8" }, pat);
      el("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#c0392b", "stroke-width": 4 }, pat);
      el("rect", { x: 1, y: 1, width: CS - 2, height: CS - 2, fill: "url(#hatch-l)", stroke: "#a12a1d", "stroke-width": 2.5 }, svg);
    }
    const span = document.createElement("span");
    span.textContent = label;
    li.append(svg, span);
    list.appendChild(li);
  }
  container.replaceChildren(list);
}
