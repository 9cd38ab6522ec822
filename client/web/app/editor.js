// The position editor: put trunks, burnt trunks, elephants (with their facing) and guardians on
// a board of any variant, set the side to move and what each side holds, and see at once whether
// the rules accept the position (RulesGame.fromPosition: the library's own checks and words).
// An accepted position can be opened on the analysis board (explore.js) or shared as a link.
//
// The counters that conservation decides are filled in as the board changes: the trunks missing
// from the field are held or spent (silver's held and spent and bronze's held are chosen, bronze's
// spent is the rest), the burnt trunks not on the field are left to place (silver's share is
// chosen), and each side's elephants missing from the field were saved or captured (the saved
// are chosen, the other side captured the rest). docs/RULES.md §8 "Position strings".
//
// Address: /#editor/POSITION (a position string, `_` for spaces; any string the editor wrote,
// accepted by the rules or not).
import { RulesGame } from "./trunkfield-rules.js";
import { $, SIDES, SideName } from "./dom.js";
import { t } from "./i18n.js";
import { S, app } from "./state.js";
import { renderBoard, key, unkey, watchedBy, isField } from "./board.js";
import { explorePath, defaultPosition, playFrom, copyText } from "./explore.js";

const FACINGS = ["N", "E", "S", "W"];
const TOOLS = ["trunk", "burnt", "silver", "bronze", "guardian-silver", "guardian-bronze", "erase"];

// ------------------------------------------------------------------ the position as edited
// {variant, cells: Map key -> {kind: "trunk"|"burnt"|"elephant"|"guardian", side?, facing?},
//  toMove, held: {silver, bronze}, spentSilver, burntLeftSilver, saved: {silver, bronze},
//  quiet, turns}
function parseLoose(text) {
  const f = text.replaceAll("_", " ").trim().split(" ");
  if (f.length !== 7) return null;
  const [size, elephants, burnt, quiet] = f[0].split(".").map(Number);
  const variant = { size, elephants, burnt, quiet };
  if (![size, elephants, burnt, quiet].every(Number.isInteger) || size < 5 || size > 13) return null;
  const rows = f[1].split("/");
  if (rows.length !== size + 2) return null;
  const cells = new Map();
  rows.forEach((row, r) => {
    const y = size + 1 - r;
    let x = 0;
    for (const m of row.matchAll(/\d+|./g)) {
      const c = m[0];
      if (/^\d+$/.test(c)) {
        x += Number(c);
        continue;
      }
      const k = key([x, y]);
      if (c === "o") cells.set(k, { kind: "trunk" });
      else if (c === "x") cells.set(k, { kind: "burnt" });
      else if (c === "G" || c === "g") cells.set(k, { kind: "guardian", side: c === "G" ? "silver" : "bronze" });
      else if ("NESWnesw".includes(c)) cells.set(k, { kind: "elephant", side: c === c.toUpperCase() ? "silver" : "bronze", facing: c.toUpperCase() });
      x += 1;
    }
  });
  const counters = (s) => s.split(".").map(Number);
  const [sh, ss, sb, sv] = counters(f[3]);
  const [bh, , , bv] = counters(f[4]);
  return { variant, cells, toMove: f[2] === "b" ? "bronze" : "silver", held: { silver: sh || 0, bronze: bh || 0 }, spentSilver: ss || 0,
    burntLeftSilver: Number.isInteger(sb) ? sb : burnt, saved: { silver: sv || 0, bronze: bv || 0 }, quiet: Number(f[5]) || 0, turns: Number(f[6]) || 0 };
}

// Every field cell a trunk but the start zones: the field before anyone moved, no pieces.
function emptyField(variant) {
  const n = variant.size;
  const cells = new Map();
  for (let y = 2; y <= n; y++) for (let x = 2; x <= n; x++) cells.set(key([x, y]), { kind: "trunk" });
  return { variant, cells, toMove: "silver", held: { silver: 0, bronze: 0 }, spentSilver: 0, burntLeftSilver: variant.burnt,
    saved: { silver: 0, bronze: 0 }, quiet: 0, turns: 0 };
}

const count = (P, pred) => [...P.cells.values()].filter(pred).length;

// The counters conservation decides, from the board and the chosen ones (which are kept within
// what the board allows).
function balance(P) {
  const v = P.variant;
  const initial = (v.size - 1) * (v.size - 1);
  const missing = Math.max(0, initial - count(P, (c) => c.kind === "trunk"));
  const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, Number.isFinite(x) ? Math.trunc(x) : 0));
  P.held.silver = clamp(P.held.silver, 0, missing);
  P.spentSilver = clamp(P.spentSilver, 0, missing - P.held.silver);
  P.held.bronze = clamp(P.held.bronze, 0, missing - P.held.silver - P.spentSilver);
  const spentBronze = missing - P.held.silver - P.spentSilver - P.held.bronze;
  const left = Math.max(0, 2 * v.burnt - count(P, (c) => c.kind === "burnt"));
  P.burntLeftSilver = clamp(P.burntLeftSilver, Math.max(0, left - v.burnt), Math.min(v.burnt, left));
  const gone = {};
  for (const s of SIDES) {
    gone[s] = Math.max(0, v.elephants - count(P, (c) => c.kind === "elephant" && c.side === s));
    P.saved[s] = clamp(P.saved[s], 0, gone[s]);
  }
  P.quiet = clamp(P.quiet, 0, v.quiet - 1);
  P.turns = clamp(P.turns, 0, 9999);
  return {
    silver: { trunks: P.held.silver, spent: P.spentSilver, burnt_left: P.burntLeftSilver, saved: P.saved.silver, captured: gone.bronze - P.saved.bronze },
    bronze: { trunks: P.held.bronze, spent: spentBronze, burnt_left: left - P.burntLeftSilver, saved: P.saved.bronze, captured: gone.silver - P.saved.silver },
  };
}

function positionText(P) {
  const v = P.variant;
  const n = v.size;
  const c = balance(P);
  const rows = [];
  for (let y = n + 1; y >= 0; y--) {
    let row = "";
    let empty = 0;
    for (let x = 0; x <= n + 1; x++) {
      const p = P.cells.get(key([x, y]));
      const ch = !p ? "" : p.kind === "trunk" ? "o" : p.kind === "burnt" ? "x" : p.kind === "guardian" ? (p.side === "silver" ? "G" : "g")
        : p.side === "silver" ? p.facing : p.facing.toLowerCase();
      if (!ch) {
        empty += 1;
        continue;
      }
      if (empty) row += String(empty);
      empty = 0;
      row += ch;
    }
    if (empty) row += String(empty);
    rows.push(row);
  }
  const k = (s) => [c[s].trunks, c[s].spent, c[s].burnt_left, c[s].saved, c[s].captured].join(".");
  return `${n}.${v.elephants}.${v.burnt}.${v.quiet} ${rows.join("/")} ${P.toMove === "bronze" ? "b" : "s"} ${k("silver")} ${k("bronze")} ${P.quiet} ${P.turns}`;
}

// What the board shows: the rules' state when they accept the position, else one drawn from the
// edit (crossings as the guardians would make them).
function displayState(P, counters) {
  const n = P.variant.size;
  const all = [...P.cells.entries()].map(([k, p]) => ({ cell: unkey(k), ...p }));
  const guardians = all.filter((p) => p.kind === "guardian").map((p) => ({ side: p.side, cell: p.cell }));
  const { cols, rows } = watchedBy(guardians.map((g) => g.cell), n);
  const crossings = [];
  for (const x of cols) for (const y of rows) if (isField([x, y], n)) crossings.push([x, y]);
  const players = {};
  for (const s of SIDES) {
    const on = all.filter((p) => p.kind === "elephant" && p.side === s).length;
    players[s] = { ...counters[s], on_field: on, score: counters[s].trunks + 2 * counters[s].captured + 3 * counters[s].saved };
  }
  return { variant: P.variant, phase: "play", to_move: P.toMove, over: false, reason: null, winner: null, turns_played: P.turns, quiet_turns: P.quiet,
    trunks: all.filter((p) => p.kind === "trunk").map((p) => p.cell), burnt: all.filter((p) => p.kind === "burnt").map((p) => p.cell),
    crossings, elephants: all.filter((p) => p.kind === "elephant").map((p) => ({ side: p.side, cell: p.cell, facing: p.facing })), guardians,
    players, score: { silver: players.silver.score, bronze: players.bronze.score } };
}

// ------------------------------------------------------------------ opening and editing
export function openEditor(rest) {
  if (S.editor?.key === rest) return;
  const Ed = { key: rest, P: null, tool: "trunk", facing: "N", notice: null, waiting: !S.rulesReady };
  S.editor = Ed;
  if (Ed.waiting) return;
  let text = "";
  try {
    text = decodeURIComponent(rest);
  } catch {
    // a broken %-escape: the editor starts from a start position
  }
  Ed.P = (text && parseLoose(text)) || parseLoose(defaultPosition());
  check(Ed);
}

export function editorRulesReady() {
  if (S.editor?.waiting) {
    const k = S.editor.key;
    S.editor = null;
    openEditor(k);
  }
}

// Asks the rules about the position and keeps it in the address.
function check(Ed) {
  const counters = balance(Ed.P);
  Ed.text = positionText(Ed.P);
  Ed.error = null;
  Ed.state = null;
  try {
    const g = RulesGame.fromPosition(Ed.text);
    Ed.state = g.state();
    g.dispose();
  } catch (e) {
    Ed.error = e.message;
  }
  Ed.shown = Ed.state ?? displayState(Ed.P, counters);
  Ed.counters = counters;
  Ed.key = Ed.text.replaceAll(" ", "_");
  if (S.route.view === "editor") history.replaceState({}, "", `/#editor/${Ed.key}`);
}

function edit(Ed, c) {
  const P = Ed.P;
  const n = P.variant.size;
  const k = key(c);
  const cur = P.cells.get(k);
  const field = isField(c, n);
  const tool = Ed.tool;
  Ed.notice = null;
  const refuse = (why) => {
    Ed.notice = t(why);
  };
  if (tool === "erase") P.cells.delete(k);
  else if (tool === "trunk" || tool === "burnt") {
    if (!field) return refuse("editor.fieldOnly");
    if (tool === "burnt" && cur?.kind !== "burnt" && count(P, (p) => p.kind === "burnt") >= 2 * P.variant.burnt) return refuse("editor.noMoreBurnt");
    if (cur?.kind === tool) P.cells.delete(k);
    else P.cells.set(k, { kind: tool });
  } else if (tool === "silver" || tool === "bronze") {
    if (!field) return refuse("editor.fieldOnly");
    if (cur?.kind === "elephant" && cur.side === tool) cur.facing = FACINGS[(FACINGS.indexOf(cur.facing) + 1) % 4]; // turn it
    else {
      if (count(P, (p) => p.kind === "elephant" && p.side === tool) >= P.variant.elephants) return refuse("editor.noMoreElephants");
      P.cells.set(k, { kind: "elephant", side: tool, facing: Ed.facing });
    }
  } else {
    const side = tool.slice("guardian-".length);
    if (field) return refuse("editor.ringOnly");
    if (cur?.kind === "guardian" && cur.side === side) P.cells.delete(k);
    else {
      if (count(P, (p) => p.kind === "guardian" && p.side === side) >= 2) return refuse("editor.noMoreGuardians");
      P.cells.set(k, { kind: "guardian", side });
    }
  }
  check(Ed);
  return undefined;
}

// ------------------------------------------------------------------ drawing
export function renderEditor() {
  const Ed = S.editor;
  $("ed-loading").hidden = !Ed?.waiting;
  $("ed-body").hidden = !Ed?.P;
  if (!Ed?.P) return;
  const P = Ed.P;
  renderBoard($("ed-board"), {
    state: Ed.shown,
    onCell: (c) => {
      edit(Ed, c);
      app.render();
    },
    onEnter: (c) => {
      edit(Ed, c);
      app.render();
      return true;
    },
  });
  for (const b of document.querySelectorAll("#ed-tools input")) b.checked = b.value === Ed.tool;
  for (const b of document.querySelectorAll("#ed-facing input")) b.checked = b.value === Ed.facing;
  $("ed-facing").disabled = Ed.tool !== "silver" && Ed.tool !== "bronze";
  $("ed-size").value = String(P.variant.size);
  $("ed-elephants").value = String(P.variant.elephants);
  $("ed-burnt").value = String(P.variant.burnt);
  $("ed-quiet-limit").value = String(P.variant.quiet);
  $("ed-to-move").value = P.toMove;
  $("ed-turns").value = String(P.turns);
  $("ed-quiet").value = String(P.quiet);
  const c = Ed.counters;
  for (const s of SIDES) {
    $(`ed-${s}-held`).value = String(c[s].trunks);
    $(`ed-${s}-saved`).value = String(c[s].saved);
    $(`ed-${s}-spent`).value = String(c[s].spent);
    $(`ed-${s}-burnt`).value = String(c[s].burnt_left);
    $(`ed-${s}-captured`).value = String(c[s].captured);
  }
  $("ed-position").value = Ed.text;
  const st = $("ed-status");
  st.dataset.valid = Ed.error ? "no" : "yes";
  st.textContent = Ed.error ? t("editor.invalid", { reason: Ed.error }) : t("editor.valid", { side: SideName(P.toMove) });
  $("ed-analyse").setAttribute("aria-disabled", Ed.error ? "true" : "false");
  const over = !!Ed.state?.over;
  for (const id of ["ed-play-bot", "ed-play-pass"]) $(id).disabled = !!Ed.error || over;
  $("ed-analyse").href = Ed.error ? "#" : explorePath(Ed.text);
  const note = $("ed-notice");
  note.hidden = !Ed.notice;
  note.textContent = Ed.notice ?? "";
}

// ------------------------------------------------------------------ controls
export function setupEditor() {
  const Ed = () => (S.editor?.P ? S.editor : null);
  const change = (f) => () => {
    const e = Ed();
    if (!e) return;
    f(e);
    check(e);
    app.render();
  };
  $("ed-tools").addEventListener("change", (ev) => {
    const e = Ed();
    if (e && TOOLS.includes(ev.target.value)) e.tool = ev.target.value;
    app.render();
  });
  $("ed-facing").addEventListener("change", (ev) => {
    const e = Ed();
    if (e && FACINGS.includes(ev.target.value)) e.facing = ev.target.value;
  });
  const variantInput = (id, field) => $(id).addEventListener("change", change((e) => {
    const v = { ...e.P.variant, [field]: Number($(id).value) };
    const fresh = field === "size";
    e.P = fresh ? emptyField(v) : { ...e.P, variant: v };
  }));
  variantInput("ed-size", "size");
  variantInput("ed-elephants", "elephants");
  variantInput("ed-burnt", "burnt");
  variantInput("ed-quiet-limit", "quiet");
  $("ed-to-move").addEventListener("change", change((e) => (e.P.toMove = $("ed-to-move").value)));
  $("ed-turns").addEventListener("change", change((e) => (e.P.turns = Number($("ed-turns").value))));
  $("ed-quiet").addEventListener("change", change((e) => (e.P.quiet = Number($("ed-quiet").value))));
  for (const s of SIDES) {
    $(`ed-${s}-held`).addEventListener("change", change((e) => (e.P.held[s] = Number($(`ed-${s}-held`).value))));
    $(`ed-${s}-saved`).addEventListener("change", change((e) => (e.P.saved[s] = Number($(`ed-${s}-saved`).value))));
  }
  $("ed-silver-spent").addEventListener("change", change((e) => (e.P.spentSilver = Number($("ed-silver-spent").value))));
  $("ed-silver-burnt").addEventListener("change", change((e) => (e.P.burntLeftSilver = Number($("ed-silver-burnt").value))));
  $("ed-start").addEventListener("click", change((e) => (e.P = parseLoose(defaultPosition()))));
  $("ed-clear").addEventListener("click", change((e) => (e.P = emptyField(e.P.variant))));
  $("ed-load").addEventListener("click", change((e) => {
    const p = parseLoose($("ed-load-text").value);
    if (p) e.P = p;
    else e.notice = t("editor.notAPosition");
  }));
  $("ed-play-bot").addEventListener("click", () => Ed() && !Ed().error && playFrom(Ed().text, "bot", Number($("ed-level").value)));
  $("ed-play-pass").addEventListener("click", () => Ed() && !Ed().error && playFrom(Ed().text, "pass", 3));
  $("ed-analyse").addEventListener("click", (ev) => {
    if (Ed()?.error) ev.preventDefault();
  });
  $("ed-copy").addEventListener("click", () => {
    const e = Ed();
    if (e) copyText(`${location.origin}/#editor/${e.key}`, t("explore.copiedLink"), e);
  });
}
