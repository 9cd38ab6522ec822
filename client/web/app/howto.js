// How to play: the rules in the page's language (blocks of text from the language files), with
// every picture drawn by the board renderer of the game itself from positions the rules compute,
// and an interactive practice: six short guided positions (move, jump, collect a trunk, burnt
// trunk, guardian capture, exit) played on the real board with the real turn builder, checked
// by the rules.
import { $, h, errorText } from "./dom.js";
import { t, lang, textValue, richText } from "./i18n.js";
import { renderBoard, renderLegend } from "./board.js";
import { RulesGame } from "./trunkfield-rules.js";
import { S, app } from "./state.js";
import { LESSONS, DIAGRAMS, lessonGame } from "./lessons.js";
import { boardView, renderDraft, turnCells } from "./gamescreen.js";
import { recordTurn } from "./game.js";
import { resetDraft, onCell, chooseFacing, canSend, sendDraft, undo, turnPhase } from "./turn.js";
import { playSound } from "./sound.js";

let built = null; // "lang|rulesReady" of the page as built
const P = { index: 0, G: null, done: new Set() };

// ------------------------------------------------------------------ the text and its pictures
function diagram(id) {
  const box = h("div", { class: "board diagram", "data-diagram": id });
  if (!S.rulesReady) {
    box.append(h("p", { class: "hint", text: t("app.loadingRules") }));
    return box;
  }
  let state;
  let hl = {};
  if (id === "start") {
    const g = new RulesGame(null);
    state = g.state();
    g.dispose();
    hl = { zoneSide: "both" };
  } else {
    const d = DIAGRAMS[id];
    const g = lessonGame(d.spec);
    const entry = recordTurn(g, d.turn);
    g.dispose();
    state = entry.after;
    hl = { last: turnCells(d.turn, state.variant.size), captures: entry.captures };
  }
  renderBoard(box, { state, highlights: hl, title: t(`how.fig.${id}`) });
  return box;
}

function buildHow() {
  const body = $("how-body");
  const out = [];
  for (const b of textValue("how.blocks")) {
    if (b.h) out.push(h("h2", { text: b.h }));
    else if (b.p) out.push(richText(h("p", { class: b.lead ? "lead" : null }), b.p));
    else if (b.ul) out.push(h("ul", {}, ...b.ul.map((li) => richText(h("li"), li))));
    else if (b.ol) out.push(h("ol", {}, ...b.ol.map((li) => richText(h("li"), li))));
    else if (b.table)
      out.push(h("table", { class: "score-table" },
        h("thead", {}, h("tr", {}, ...b.table[0].map((c) => h("th", { scope: "col", text: c })))),
        h("tbody", {}, ...b.table.slice(1).map((row) => h("tr", {}, ...row.map((c) => h("td", { text: c })))))));
    else if (b.figure)
      out.push(h("figure", { class: "how-fig" }, diagram(b.figure), richText(h("figcaption"), b.caption ?? "")));
  }
  body.replaceChildren(...out);
  renderLegend($("how-legend"));
}

// ------------------------------------------------------------------ the practice
function startLesson(i) {
  P.index = i;
  P.G?.rules?.dispose();
  const L = LESSONS[i];
  const rules = lessonGame(L.spec);
  const G = { code: "practice", localSide: "silver", status: "playing", rules, state: rules.state(), shown: null, pending: null,
    players: { silver: { id: "you", name: t("practice.you") }, bronze: { id: "them", name: t("practice.them") } },
    result: null, browse: null, premove: null, version: 0, moves: null, error: null, last: null, turns: [], positions: [],
    local: { submit: submitPractice } };
  resetDraft(G);
  P.G = G;
  P.feedback = null;
  P.solved = false;
}

// The practice turn was "sent": play it with the rules and judge it.
function submitPractice(G, turn) {
  const L = LESSONS[P.index];
  const entry = recordTurn(G.rules, turn);
  G.pending = null;
  G.shown = null;
  resetDraft(G);
  if (!entry) return;
  G.state = entry.after;
  G.moves = null;
  G.last = { turn, captures: entry.captures };
  P.solved = L.ok(turn, entry.before, entry.after);
  P.feedback = P.solved ? t(`practice.${L.id}.done`) : t("practice.notYet");
  if (P.solved) P.done.add(L.id);
  playSound(entry.captures.length ? "capture" : "move");
}

function renderPractice() {
  if (!S.rulesReady) {
    $("practice-goal").textContent = t("app.loadingRules");
    return;
  }
  if (!P.G) startLesson(0);
  const G = P.G;
  const L = LESSONS[P.index];
  $("practice-tabs").replaceChildren(...LESSONS.map((l, i) => h("button", { type: "button", role: "tab", class: `small${i === P.index ? " primary" : ""}${P.done.has(l.id) ? " done" : ""}`,
    "aria-selected": i === P.index ? "true" : "false", "data-lesson": l.id,
    text: `${i + 1}. ${t(`practice.${l.id}.name`)}${P.done.has(l.id) ? " ✓" : ""}`,
    onclick: () => {
      startLesson(i);
      app.render();
    } })));
  richText($("practice-goal"), t(`practice.${L.id}.goal`));
  const { st, hl, dr, phase } = boardView(G);
  renderBoard($("practice-board"), {
    state: st, highlights: hl,
    onCell: (c) => {
      if (onCell(G, c)) app.render();
    },
    onFacing: (f) => {
      if (chooseFacing(G, f)) app.render();
    },
  });
  $("practice-board").dataset.lesson = L.id;
  renderDraft($("practice-draft"), G, phase, dr);
  const fb = $("practice-feedback");
  const err = G.error ? errorText(G.error) : null;
  fb.hidden = !P.feedback && !err;
  fb.textContent = P.feedback ?? err ?? "";
  fb.dataset.solved = P.solved ? "1" : "0";
  $("practice-undo").disabled = !G.history.length;
  $("practice-send").disabled = !canSend(G);
  $("practice-send").hidden = !turnPhase(G);
  $("practice-next").hidden = !P.solved || P.index === LESSONS.length - 1;
}

export function renderHow() {
  const k = `${lang()}|${S.rulesReady}`;
  if (built !== k) {
    built = k;
    buildHow();
    if (P.G) P.G.players = { silver: { id: "you", name: t("practice.you") }, bronze: { id: "them", name: t("practice.them") } };
  }
  renderPractice();
}

export function setupHow() {
  $("practice-undo").addEventListener("click", () => {
    if (P.G && undo(P.G)) app.render();
  });
  $("practice-send").addEventListener("click", () => {
    if (!P.G) return;
    sendDraft(P.G);
    app.render();
  });
  $("practice-reset").addEventListener("click", () => {
    startLesson(P.index);
    app.render();
  });
  $("practice-next").addEventListener("click", () => {
    startLesson(Math.min(LESSONS.length - 1, P.index + 1));
    app.render();
  });
  document.addEventListener("keydown", (ev) => {
    if ($("howto").hidden || !P.G || ev.target.closest?.("input, textarea, select")) return;
    if (ev.key === "Escape" && undo(P.G)) {
      ev.preventDefault();
      app.render();
    } else if (ev.key === "Enter" && canSend(P.G) && !ev.target.closest?.("button, a, summary")) {
      ev.preventDefault();
      sendDraft(P.G);
      app.render();
    }
  });
}
