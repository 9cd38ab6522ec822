// The analysis board: from a position (a game's, one typed or pasted, or any a link carries),
// play either side's turns with the rules, branch into variations, and have the engine look at
// every position as it is shown — its evaluation and best line, deeper the longer the position
// stays (common/analysis.h analyse_position in WebAssembly, in a worker of its own).
//
// The tree is the JSON form of a record with variations (docs/RULES.md §8; common/variations.h:
// {position, tags, comment, children: [{turn, comment, children}]}, main line first). The page
// shows the node at `path` (the index of the child taken at each depth). Everything is in the
// address, so a reload keeps it and a copied link shares it:
//   /#analysis/POSITION                  the position string, `_` for spaces
//   /#analysis/POSITION?line=TEXT&at=P   TEXT: the turns in the text form (URI-encoded),
//                                        P: the path as numbers joined by "."
// Keys (outside text fields): ← → back and forward along the line, ↑ ↓ the previous and next
// alternative to the turn shown, Home and End, F flips the board.
import { RulesGame, Rules } from "./trunkfield-rules.js";
import { $, h, SIDES, SideName, sideName, errorText } from "./dom.js";
import { t } from "./i18n.js";
import { S, app } from "./state.js";
import { renderBoard, pieceIcon } from "./board.js";
import { resetDraft, undo, onCell, chooseFacing, canSend, sendDraft, turnPhase } from "./turn.js";
import { boardView, renderDraft, notation } from "./gamescreen.js";
import { recordTurn } from "./game.js";
import { boardFlipped, renderFlipButtons } from "./flip.js";
import { evalText } from "./analysis.js";
import { newLocalGame } from "./localgame.js";
import { localPath } from "./device.js";

// A game on this device from `position` (the side to move is the person's against the computer).
export function playFrom(position, kind, level) {
  const g = RulesGame.fromPosition(position);
  const side = g.state().to_move;
  g.dispose();
  const code = newLocalGame({ kind, level, human: side, position });
  app.navigate(localPath(code));
}

// The engine looks deeper in steps while a position stays on the board (nodes of the first
// search; the line's later turns get half). 35,000 is the game analysis's budget.
const BUDGETS = [8000, 35000, 140000, 560000];
const LINE_TURNS = 6;

let engine = null; // the worker, or false when none can run
let engineSeq = 0;

export const explorePath = (position, extra = "") => `/#analysis/${position.replaceAll(" ", "_")}${extra}`;
export const editorPath = (position) => `/#editor/${position.replaceAll(" ", "_")}`;

// The address of the analysis board on a record's position after the setups, the game's turns
// as the main line, at turn `at` (0: the start).
export function exploreGameUrl(startState, turns, at, code = null) {
  let g;
  try {
    g = RulesGame.fromState(startState);
  } catch {
    return null;
  }
  try {
    const position = g.position();
    if (!position) return null;
    let kids = [];
    for (let i = turns.length - 1; i >= 0; i--) kids = [{ turn: turns[i], children: kids }];
    const tree = { position, tags: code ? { Game: code } : {}, children: kids };
    return explorePath(position, queryOf(tree, Array(at).fill(0)));
  } finally {
    g.dispose();
  }
}

// With no position in the address: the standard board after the computer's setups.
export function defaultPosition() {
  const g = new RulesGame(null);
  try {
    for (const side of SIDES) g.applySetup(side, g.botMove(1, 1).setup);
    return g.position();
  } finally {
    g.dispose();
  }
}

// "?line=…&at=…" for a tree and path ("" when the tree has no turns).
function queryOf(tree, path) {
  if (!tree.children.length && !tree.comment && !Object.keys(tree.tags ?? {}).length) return "";
  const r = Rules.printVariations(tree);
  if (r.error) return "";
  const body = r.text.slice(r.text.indexOf("\n\n") + 2).trim();
  const tags = Object.entries(tree.tags ?? {}).map(([k, v]) => `[${k} "${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"]`).join("\n");
  const q = new URLSearchParams();
  q.set("line", tags ? `${tags}\n\n${body}` : body);
  if (path.length) q.set("at", path.join("."));
  return `?${q.toString()}`;
}

// ------------------------------------------------------------------ opening
export function openExplore(hashRest) {
  const [posPart, query = ""] = hashRest.split("?");
  const key = hashRest;
  if (S.explore?.key === key) return;
  if (S.explore?.key && S.explore.ownKey === key) {
    S.explore.key = key; // our own replaceState: nothing to read again
    return;
  }
  const E = { key, ownKey: key, tree: null, path: [], G: null, error: null, look: null, notice: null, pasteOpen: false };
  S.explore = E;
  if (!S.rulesReady) {
    E.waiting = true;
    return;
  }
  E.waiting = false;
  let position;
  try {
    position = posPart ? decodeURIComponent(posPart).replaceAll("_", " ") : defaultPosition();
  } catch (e) {
    E.error = e.message; // a malformed address (a broken %-escape)
    return;
  }
  const q = new URLSearchParams(query);
  const line = q.get("line");
  const text = `[Position "${position}"]\n${line ? (line.trim().startsWith("[") ? line : `\n${line}`) : ""}`;
  const tree = Rules.parseVariations(text);
  if (tree.error) {
    E.error = tree.error.message;
    return;
  }
  E.tree = tree;
  const at = (q.get("at") ?? "").split(".").filter((x) => x !== "").map(Number);
  E.path = [];
  let kids = tree.children;
  for (const i of at) {
    if (!Number.isInteger(i) || !kids[i]) break;
    E.path.push(i);
    kids = kids[i].children;
  }
  buildNode(E);
}

// Called once the rules are loaded, for an address opened before.
export function exploreRulesReady() {
  if (S.explore?.waiting) {
    const k = S.explore.key;
    S.explore = null;
    openExplore(k);
  }
}

export function closeExplore() {
  S.explore?.G?.rules?.dispose();
  stopEngine();
  S.explore = null;
}

// The nodes along the path: [{node, children (the list it is in), index}].
function nodesOf(E) {
  const out = [];
  let list = E.tree.children;
  for (const i of E.path) {
    out.push({ node: list[i], list, index: i });
    list = list[i].children;
  }
  return out;
}

const childrenAt = (E) => (E.path.length ? nodesOf(E).at(-1).node.children : E.tree.children);

// The game at the path's node, as a practice-like view (turn.js drafts on it for the side to move).
function buildNode(E) {
  E.G?.rules?.dispose();
  const rules = RulesGame.fromPosition(E.tree.position);
  E.rootTurns = rules.state().turns_played;
  let last = null;
  for (const { node } of nodesOf(E)) {
    const entry = recordTurn(rules, node.turn);
    if (!entry) break; // cannot happen: the tree was checked when read
    last = { turn: node.turn, captures: entry.captures };
  }
  const st = rules.state();
  const G = { code: "analysis", localSide: st.over ? null : st.to_move, status: st.over ? "over" : "playing", rules, state: st,
    shown: null, pending: null, players: { silver: null, bronze: null }, result: null, browse: null, premove: null, version: 0,
    moves: null, error: null, last, turns: [], positions: [], local: { submit: (_G, turn) => addTurn(E, turn) } };
  resetDraft(G);
  E.G = G;
  E.positionText = rules.position();
  E.look = null;
  startEngine(E);
}

// A turn played on the board: the child that is this turn if there is one, else a new
// alternative (the main line when it is the first).
function addTurn(E, turn) {
  const kids = childrenAt(E);
  const same = JSON.stringify(turn);
  let i = kids.findIndex((k) => JSON.stringify(k.turn) === same);
  if (i < 0) {
    kids.push({ turn, children: [] });
    i = kids.length - 1;
  }
  E.path = [...E.path, i];
  changed(E);
}

function changed(E) {
  buildNode(E);
  const url = explorePath(E.tree.position, queryOf(E.tree, E.path));
  E.ownKey = url.slice("/#analysis/".length);
  history.replaceState({}, "", url);
  app.render();
}

// ------------------------------------------------------------------ moving around the tree
function go(E, path) {
  E.path = path;
  changed(E);
}

function step(E, dir) {
  if (dir < 0 && E.path.length) return go(E, E.path.slice(0, -1));
  if (dir > 0 && childrenAt(E).length) return go(E, [...E.path, 0]);
  return undefined;
}

function sibling(E, dir) {
  if (!E.path.length) return;
  const { list, index } = nodesOf(E).at(-1);
  const j = index + dir;
  if (j >= 0 && j < list.length) go(E, [...E.path.slice(0, -1), j]);
}

function toEnd(E) {
  const p = [...E.path];
  let kids = childrenAt(E);
  while (kids.length) {
    p.push(0);
    kids = kids[0].children;
  }
  go(E, p);
}

// The variation shown becomes the main line at its branching point.
function promote(E) {
  const nodes = nodesOf(E);
  for (let d = nodes.length - 1; d >= 0; d--) {
    const { list, index } = nodes[d];
    if (index === 0) continue;
    const [n] = list.splice(index, 1);
    list.unshift(n);
    E.path[d] = 0;
    return changed(E);
  }
  return undefined;
}

// The turn shown and everything after it go.
function removeHere(E) {
  if (!E.path.length) return;
  const { list, index } = nodesOf(E).at(-1);
  list.splice(index, 1);
  go(E, E.path.slice(0, -1));
}

// ------------------------------------------------------------------ the engine
function stopEngine() {
  if (engine) engine.terminate();
  engine = null;
}

function startEngine(E) {
  const st = E.G.state;
  if (!E.engineOff && !st.over) E.look = { id: ++engineSeq, level: 0, result: null, error: null };
  if (!E.look) return;
  // A search still running is about a position no longer shown: a new worker, at once.
  if (engine && engine.busy) stopEngine();
  if (engine === null) {
    try {
      engine = new Worker("/botworker.js", { type: "module" });
      engine.onmessage = (ev) => onEngine(ev.data ?? {});
      engine.onerror = () => onEngine({ id: engineSeq, error: { message: t("analysis.noWorker") } });
    } catch {
      engine = false;
    }
  }
  if (!engine) {
    E.look.error = t("analysis.noWorker");
    return;
  }
  ask(E);
}

function ask(E) {
  const L = E.look;
  engine.busy = true;
  engine.postMessage({ id: L.id, kind: "position", state: E.G.state, nodes: BUDGETS[L.level], length: LINE_TURNS });
}

function onEngine(m) {
  if (engine) engine.busy = false;
  const E = S.explore;
  const L = E?.look;
  if (!L || m.id !== L.id) return;
  if (m.analysis) {
    L.result = m.analysis;
    L.nodes = BUDGETS[L.level];
    L.level += 1;
    if (L.level < BUDGETS.length && engine) ask(E);
  } else {
    L.error = m.error?.message ?? "?";
  }
  if (S.route.view === "analysis") app.render();
}

// The engine's line in the notation, numbered from the position shown.
function lineText(E, line) {
  const g = E.G.rules.clone();
  try {
    const n = g.state().variant.size;
    let k = g.state().turns_played;
    const out = [];
    for (const turn of line) {
      out.push(`${++k}. ${notation(turn, n)}`);
      if (g.applyTurn(turn).error) break;
    }
    return out.join(" ");
  } finally {
    g.dispose();
  }
}

// ------------------------------------------------------------------ drawing
export function renderExplore() {
  const E = S.explore;
  $("ex-error").hidden = !E?.error;
  $("ex-error").textContent = E?.error ? t("explore.bad", { reason: E.error }) : "";
  $("ex-loading").hidden = !E?.waiting;
  $("ex-body").hidden = !E?.G;
  if (!E?.G) return;
  const G = E.G;
  const st = G.state;
  const { st: shown, hl, dr, phase } = boardView(G);
  renderBoard($("ex-board"), {
    state: shown, highlights: hl, flip: boardFlipped(),
    onCell: (c) => {
      if (onCell(G, c)) app.render();
    },
    onFacing: (f) => {
      if (chooseFacing(G, f)) app.render();
    },
  });
  renderFlipButtons();
  renderDraft($("ex-draft"), G, phase, dr);
  $("ex-undo").disabled = !G.history.length;
  $("ex-send").disabled = !canSend(G);
  $("ex-send").hidden = !turnPhase(G);
  const err = $("ex-move-error");
  err.hidden = !G.error;
  err.textContent = G.error ? errorText(G.error) : "";

  $("ex-status").textContent = st.over
    ? t("explore.over", { silver: st.score.silver, bronze: st.score.bronze })
    : t("explore.toMove", { side: SideName(st.to_move), n: st.turns_played + 1 });
  $("ex-players").replaceChildren(...SIDES.map((s) => {
    const pl = st.players[s];
    const stats = [["score", pl.score], ["trunks", pl.trunks], ["burnt", pl.burnt_left], ["saved", pl.saved], ["captured", pl.captured], ["onField", pl.on_field]];
    return h("div", { class: `pcard ${s}${!st.over && st.to_move === s ? " to-move" : ""}`, "data-side": s },
      h("div", { class: "pc-top" }, pieceIcon(s, 22, s === "silver" ? "N" : "E"), h("span", { class: "pc-name", text: SideName(s) })),
      h("dl", { class: "pc-stats" }, ...stats.flatMap(([k, v]) => [h("dt", { text: t(`card.${k}`) }), h("dd", { class: k, text: String(v) })])));
  }));

  renderEngine(E);
  renderTree(E);
  const at = E.path.length ? nodesOf(E).at(-1) : null;
  $("ex-prev").disabled = $("ex-first").disabled = !E.path.length;
  $("ex-next").disabled = $("ex-last").disabled = !childrenAt(E).length;
  $("ex-promote").disabled = !nodesOf(E).some((x) => x.index > 0);
  $("ex-delete").disabled = !at;
  $("ex-position").value = E.positionText ?? "";
  $("ex-edit").href = E.positionText ? editorPath(E.positionText) : "/#editor";
  const note = $("ex-notice");
  note.hidden = !E.notice;
  note.textContent = E.notice ?? "";
  $("ex-paste-box").hidden = !E.pasteOpen;
  for (const id of ["ex-play-bot", "ex-play-pass"]) $(id).disabled = st.over;
}

function renderEngine(E) {
  const L = E.look;
  const box = $("ex-engine");
  $("ex-engine-on").checked = !E.engineOff;
  const r = L?.result;
  $("ex-eval").textContent = E.G.state.over ? t("explore.final") : r ? evalText(r) : L?.error ? t("analysis.failed", { reason: L.error }) : E.engineOff ? "" : t("explore.thinking");
  $("ex-eval").dataset.eval = r ? String(r.eval) : "";
  const bar = $("ex-winbar");
  bar.hidden = !r;
  if (r) {
    bar.value = r.win;
    bar.setAttribute("aria-valuetext", t("explore.win", { win: r.win }));
  }
  $("ex-depth").textContent = r ? t("explore.depth", { nodes: (L.nodes / 1000).toFixed(0), done: L.level >= BUDGETS.length ? "✓" : "…" }) : "";
  const line = $("ex-line");
  line.textContent = r?.line?.length ? lineText(E, r.line) : "";
  $("ex-play-best").hidden = !r?.best || E.G.state.over;
  box.dataset.state = E.engineOff ? "off" : r ? (L.level >= BUDGETS.length ? "done" : "searching") : "waiting";
}

// The tree as nested lists: each line a run of turn buttons, alternatives indented under the turn
// they replace.
function renderTree(E) {
  const n = E.G.state.variant.size;
  const first = E.rootTurns;
  const cur = E.path.join(".");
  const button = (node, path, depth) => {
    const id = path.join(".");
    return h("button", { type: "button", class: `turn-btn${id === cur ? " current" : ""}`, "data-path": id,
      "aria-current": id === cur ? "step" : false, onclick: () => go(E, path) },
    `${first + depth}. ${notation(node.turn, n)}`, node.comment ? h("span", { class: "hint", text: ` {${node.comment}}` }) : null);
  };
  const lineEl = (list, path, depth) => {
    const out = h("ol", { class: depth === 1 && !path.length ? "ex-main" : "ex-var" });
    let kids = list;
    let p = path;
    let d = depth;
    while (kids.length) {
      const main = kids[0];
      const li = h("li", {}, button(main, [...p, 0], d));
      for (let k = 1; k < kids.length; k++) {
        const alt = h("div", { class: "ex-alt" }, h("span", { class: "sr-only", text: t("explore.alternative") }), lineEl([kids[k]], [...p, k], d));
        li.append(alt);
      }
      out.append(li);
      p = [...p, 0];
      kids = main.children;
      d += 1;
    }
    return out;
  };
  const root = h("button", { type: "button", class: `turn-btn${cur === "" ? " current" : ""}`, "data-path": "", "aria-current": cur === "" ? "step" : false,
    onclick: () => go(E, []), text: t("explore.start") });
  $("ex-tree").replaceChildren(root, lineEl(E.tree.children, [], 1));
  $("ex-tree").querySelector(".current")?.scrollIntoView?.({ block: "nearest" });
}

// ------------------------------------------------------------------ controls
// Copies `text` and says so (or why not) in `holder.notice`: the analysis board's and the editor's.
export async function copyText(text, done, holder) {
  try {
    await navigator.clipboard.writeText(text);
    holder.notice = done;
  } catch {
    holder.notice = t("explore.copyFailed");
  }
  app.render();
}

function loadText(text) {
  const E = S.explore;
  const s = text.trim();
  if (!s) return;
  // A position string alone, or a record with variations.
  if (!s.startsWith("[")) {
    try {
      RulesGame.fromPosition(s).dispose();
    } catch (e) {
      E.notice = t("explore.bad", { reason: e.message });
      return void app.render();
    }
    return app.navigate(explorePath(s.replaceAll("_", " ")));
  }
  const tree = Rules.parseVariations(s);
  if (tree.error) {
    E.notice = t("explore.bad", { reason: tree.error.message });
    return void app.render();
  }
  return app.navigate(explorePath(tree.position, queryOf(tree, [])));
}

export function setupExplore() {
  const E = () => S.explore?.G ? S.explore : null;
  const on = (id, f) => $(id).addEventListener("click", () => E() && f(E()));
  on("ex-first", (e) => go(e, []));
  on("ex-prev", (e) => step(e, -1));
  on("ex-next", (e) => step(e, 1));
  on("ex-last", toEnd);
  on("ex-promote", promote);
  on("ex-delete", removeHere);
  on("ex-undo", (e) => {
    if (undo(e.G)) app.render();
  });
  on("ex-send", (e) => {
    sendDraft(e.G);
    app.render();
  });
  on("ex-play-best", (e) => {
    const best = e.look?.result?.best;
    if (best) addTurn(e, best);
  });
  on("ex-copy-position", (e) => copyText(e.positionText, t("explore.copiedPosition"), e));
  on("ex-copy-link", (e) => copyText(location.href, t("explore.copiedLink"), e));
  on("ex-download", (e) => {
    const r = Rules.printVariations(e.tree);
    if (r.error) return;
    const a = h("a", { href: URL.createObjectURL(new Blob([r.text], { type: "text/plain" })), download: "trunkfield-analysis.txt" });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  });
  on("ex-paste", (e) => {
    e.pasteOpen = !e.pasteOpen;
    app.render();
    if (e.pasteOpen) $("ex-paste-text").focus();
  });
  on("ex-paste-load", () => loadText($("ex-paste-text").value));
  on("ex-play-bot", (e) => playFrom(e.positionText, "bot", Number($("ex-level").value)));
  on("ex-play-pass", (e) => playFrom(e.positionText, "pass", 3));
  $("ex-engine-on").addEventListener("change", (ev) => {
    const e = E();
    if (!e) return;
    e.engineOff = !ev.target.checked;
    if (e.engineOff) {
      stopEngine();
      e.look = null;
    } else startEngine(e);
    app.render();
  });
  document.addEventListener("keydown", (ev) => {
    const e = E();
    if (!e || $("analysis").hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target.closest?.("input, textarea, select")) return;
    const keys = { ArrowLeft: () => step(e, -1), ArrowRight: () => step(e, 1), ArrowUp: () => sibling(e, -1),
      ArrowDown: () => sibling(e, 1), Home: () => go(e, []), End: () => toEnd(e) };
    if (ev.key === "Escape" && undo(e.G)) {
      ev.preventDefault();
      return void app.render();
    }
    if (ev.key === "Enter" && canSend(e.G) && !ev.target.closest?.("button, a, summary")) {
      ev.preventDefault();
      sendDraft(e.G);
      return void app.render();
    }
    if (ev.target.closest?.("#ex-board")) return; // the board's own arrow keys
    if (keys[ev.key]) {
      ev.preventDefault();
      keys[ev.key]();
    }
  });
}
