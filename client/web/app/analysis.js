// Computer analysis of a finished game on the replay page: our own engine (common/analysis.h,
// the server's bot searching each position) runs in WebAssembly in a Web Worker, on this device,
// so it costs the server nothing and works offline. It evaluates every position, marks the turns
// that lost the mover winning chances (?! inaccuracy, ? mistake, ?? blunder), names the better
// turn, and gives each player an accuracy; the page draws silver's winning chances as a chart
// under the board (click it to go to a position) and can show the better turn on the board.
// An analysis is kept on the device (the last ANALYSES_KEPT games), so it is computed once.
//
//   page -> worker  {id, kind: "analyse", record, nodes}
//   worker -> page  {id, progress: {done, total}} ... then {id, analysis} | {id, error}
import { $, h, SIDES, SideName, playerName } from "./dom.js";
import { t } from "./i18n.js";
import { S, app } from "./state.js";
import { svgEl } from "./board.js";
import { RulesGame } from "./trunkfield-rules.js";
import { notation, turnCells } from "./gamescreen.js";

const ANALYSES_KEY = "trunkfield.analyses";
const ANALYSES_KEPT = 20;
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

let analysisWorker = null;
let analysisSeq = 0;

function storedAnalyses() {
  try {
    const all = JSON.parse(localStorage.getItem(ANALYSES_KEY) ?? "{}");
    return all && typeof all === "object" ? all : {};
  } catch {
    return {};
  }
}

function keepAnalysis(code, analysis) {
  const all = storedAnalyses();
  all[code] = { at: Date.now(), analysis };
  const codes = Object.keys(all).sort((a, b) => all[b].at - all[a].at);
  for (const c of codes.slice(ANALYSES_KEPT)) delete all[c];
  try {
    localStorage.setItem(ANALYSES_KEY, JSON.stringify(all));
  } catch { /* storage full: computed again next time */ }
}

// The analysis of replay R kept on the device, if any (its turns must be the record's).
export function loadAnalysis(R) {
  const a = storedAnalyses()[R.code]?.analysis;
  const turns = R.game?.record?.turns?.length ?? -1;
  R.analysis = a && a.turns?.length === turns ? a : null;
  R.analysing = null;
  R.better = false;
}

function startAnalysis() {
  const R = S.replay;
  if (!R?.game || R.analysing || R.analysis) return;
  if (!analysisWorker) {
    analysisWorker = new Worker("/botworker.js", { type: "module" });
    analysisWorker.onmessage = (ev) => onWorker(ev.data ?? {});
    analysisWorker.onerror = () => onWorker({ id: analysisSeq, error: { message: t("analysis.noWorker") } });
  }
  const id = ++analysisSeq;
  R.analysing = { id, done: 0, total: (R.game.record.turns?.length ?? 0) + 1, started: performance.now() };
  analysisWorker.postMessage({ id, kind: "analyse", record: R.game.record, nodes: 0 });
  app.render();
}

function onWorker(m) {
  const R = S.replay;
  if (!R?.analysing || m.id !== R.analysing.id) return;
  if (m.progress) {
    R.analysing.done = m.progress.done;
    R.analysing.total = m.progress.total;
  } else if (m.analysis) {
    R.analysis = m.analysis;
    R.analysisMs = Math.round(performance.now() - R.analysing.started);
    R.analysing = null;
    keepAnalysis(R.code, m.analysis);
  } else {
    R.analysisError = m.error?.message ?? "?";
    R.analysing = null;
  }
  app.render();
}

// "+1.3" from silver's view, or who wins by force.
export function evalText(p) {
  if (p.forced) return t("analysis.forced", { side: SideName(p.forced) });
  const v = p.eval / 100;
  return `${v > 0 ? "+" : v < 0 ? "−" : ""}${Math.abs(v).toFixed(1)}`;
}

// The mark of turn i (1-based, as in the turn list) for the list: "", "?!", "?" or "??".
export function turnMark(R, i) {
  const j = R?.analysis?.turns?.[i - 1]?.judgement;
  return j ? { mark: MARKS[j], cls: `judge-${j}`, label: t(`analysis.${j}`) } : null;
}

// The position the board shows instead of the played one: after the better turn at R.index, and
// that turn's cells to highlight; null when there is none to show.
export function betterView(R, n) {
  if (!R?.better || !R.analysis || R.index < 1) return null;
  const turn = R.analysis.turns[R.index - 1]?.best;
  const before = R.positions[R.index - 1]?.state;
  if (!turn || !before) return null;
  let game;
  try {
    game = RulesGame.fromState(before);
    if (game.applyTurn(turn).error) return null;
    return { state: game.state(), highlights: { last: turnCells(turn, n), captures: [] }, turn };
  } catch {
    return null;
  } finally {
    game?.dispose();
  }
}

// Silver's winning chances through the game, position by position; the current one marked.
function renderEvalChart(R) {
  const box = $("rp-chart");
  const a = R.analysis;
  box.hidden = !a;
  if (!a) return box.replaceChildren();
  const n = a.positions.length;
  const W = 1000;
  const x = (i) => (n > 1 ? (i * W) / (n - 1) : W / 2);
  const y = (p) => 100 - p.win;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} 100`, preserveAspectRatio: "none", class: "eval-chart", role: "img",
    "aria-label": t("analysis.chartLabel", { first: Math.round(a.positions[0].win), last: Math.round(a.positions[n - 1].win) }) });
  svgEl("rect", { x: 0, y: 0, width: W, height: 100, class: "ec-bronze" }, svg);
  const pts = a.positions.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`);
  svgEl("polygon", { points: `0,100 ${pts.join(" ")} ${W},100`, class: "ec-silver" }, svg);
  svgEl("line", { x1: 0, x2: W, y1: 50, y2: 50, class: "ec-mid" }, svg);
  svgEl("line", { x1: x(R.index), x2: x(R.index), y1: 0, y2: 100, class: "ec-now" }, svg);
  a.turns.forEach((tu, i) => {
    if (tu.judgement) svgEl("circle", { cx: x(i + 1), cy: y(a.positions[i + 1]), r: 3.5, class: `ec-dot judge-${tu.judgement}` }, svg);
  });
  svg.addEventListener("click", (ev) => {
    const r = svg.getBoundingClientRect();
    const i = Math.round(((ev.clientX - r.left) / r.width) * (n - 1));
    app.replayGoTo?.(i);
  });
  box.replaceChildren(svg);
}

export function renderAnalysis(R) {
  const card = $("rp-analysis");
  if (!R?.game || !R.positions.length) return void (card.hidden = true);
  card.hidden = false;
  const a = R.analysis;
  const run = R.analysing;
  $("rp-analyse").hidden = !!a || !!run;
  const prog = $("rp-analysis-progress");
  prog.hidden = !run;
  if (run) {
    prog.max = run.total;
    prog.value = run.done;
    $("rp-analysis-status").textContent = t("analysis.running", { done: run.done, total: run.total });
  } else if (R.analysisError) {
    $("rp-analysis-status").textContent = t("analysis.failed", { reason: R.analysisError });
  } else $("rp-analysis-status").textContent = a ? "" : t("analysis.hint");
  renderEvalChart(R);
  const acc = $("rp-accuracy");
  acc.hidden = !a;
  const p = R.game.players ?? {};
  if (a) acc.replaceChildren(...SIDES.map((s) => {
    const q = a.players[s];
    return h("li", { class: `acc ${s}`, "data-side": s },
      h("b", { text: `${SideName(s)} (${playerName(p, s)})` }), " ",
      t("analysis.accuracy", { n: Math.round(q.accuracy) }), " · ",
      t("analysis.counts", { i: q.inaccuracies, m: q.mistakes, b: q.blunders }));
  }));
  // At the current position: its evaluation, and the better turn when the one played lost much.
  const pos = a?.positions[R.index];
  $("rp-eval").hidden = !pos;
  if (pos) $("rp-eval").textContent = t("analysis.eval", { v: evalText(pos), win: Math.round(pos.win) });
  const tu = a && R.index > 0 ? a.turns[R.index - 1] : null;
  const better = $("rp-better");
  better.hidden = !tu?.best || !tu.judgement;
  if (!better.hidden) {
    const n = R.positions[R.index].state.variant.size;
    $("rp-better-text").textContent = t("analysis.better", { mark: MARKS[tu.judgement], what: t(`analysis.${tu.judgement}`),
      loss: Math.round(tu.loss), turn: notation(tu.best, n) });
    $("rp-better-btn").textContent = R.better ? t("analysis.showPlayed") : t("analysis.showBetter");
    $("rp-better-btn").setAttribute("aria-pressed", R.better ? "true" : "false");
  } else R.better = false;
}

export function setupAnalysis() {
  $("rp-analyse").addEventListener("click", startAnalysis);
  $("rp-better-btn").addEventListener("click", () => {
    if (S.replay) S.replay.better = !S.replay.better;
    app.render();
  });
}
