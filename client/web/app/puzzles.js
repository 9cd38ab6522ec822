// Puzzles (proto/PROTOCOL.md "Puzzle API"; docs/RULES.md §10 "Puzzles"): a position where the
// side to move has one clearly best turn. The page shows it for the solver, who drafts turns on
// the board exactly as in a game (turn.js over a practice-like game view, as the analysis board
// does); each turn is sent with the ones before it to POST /api/puzzles/ID/answer and judged by
// the server: `correct` plays the opponent's reply on the board and the solver goes on, `also`
// solves it with another turn as good, `wrong` ends the attempt, after which the solution can be
// played on the board and the puzzle tried again (judged, never rated again).
//   /#puzzles          the next puzzle for this reader (the address becomes /#puzzles/ID)
//   /#puzzles/daily    the puzzle of the day
//   /#puzzles/ID       one puzzle
// Keys (outside text fields): Enter plays the drafted turn, Escape takes back one choice, F flips
// the board; once the solution is shown, ← → step through it, Home and End.
import { RulesGame } from "./trunkfield-rules.js";
import { $, h, SIDES, SideName, errorText } from "./dom.js";
import { t, hasText, lang } from "./i18n.js";
import { S, app } from "./state.js";
import { renderBoard, pieceIcon } from "./board.js";
import { resetDraft, undo, onCell, chooseFacing, canSend, sendDraft, turnPhase } from "./turn.js";
import { boardView, renderDraft, notation, turnCells } from "./gamescreen.js";
import { recordTurn } from "./game.js";
import { animateTurn } from "./anim.js";
import { boardFlipped, renderFlipButtons } from "./flip.js";
import { explorePath, exploreGameUrl } from "./explore.js";
import { nextPuzzle, dailyPuzzle, getPuzzle, answerPuzzle, myPuzzles } from "./api.js";
import { openSignIn } from "./account.js";
import { diffText } from "./ratings.js";
import { playSound } from "./sound.js";

const REPLY_DELAY_MS = 450; // the solver's turn stays a moment before the reply comes
// The themes a reader may choose for the next puzzles (docs/RULES.md §10 "Puzzles", 5).
const THEMES = ["capture", "guardian_move", "burnt_trunk", "save", "jump", "forced_win", "defence", "endgame",
  "one_turn", "two_turns", "long"];
const THEME_KEY = "trunkfield.puzzleTheme";
const chosenTheme = () => {
  const th = localStorage.getItem(THEME_KEY);
  return THEMES.includes(th) ? th : null;
};
const SOLUTION_STEP_MS = 1100;
const TOKEN_WAIT_MS = 4000; // on a first visit, how long to wait for the server's token

export const puzzlePath = (id) => `/#puzzles/${id}`;

// S.puzzle: {key (the address after #puzzles/), mode: "next" | "daily" | "id", id, loading, waitToken, error: {code, text},
//   data (the puzzle), rules (the position on the board, a RulesGame), G (the game view drafted
//   in), phase: "solve" | "judging" | "reply" | "done" | "solution", sent (the solver's turns
//   judged so far), feedback: {kind, text}, answer (the last judged answer), retry, animate,
//   sol: {steps: [{state, position, entry}], at, playing}, mine (GET /api/puzzles/mine's rating),
//   timers (cleared with it)}
export function openPuzzles(rest, force = false) {
  const key = rest ?? "";
  const P0 = S.puzzle;
  if (!force && P0?.key === key) return;
  closePuzzles();
  const P = { key, mode: "id", id: null, loading: true, waitToken: false, error: null, data: null, rules: null, G: null,
    phase: "solve", sent: [], feedback: null, answer: null, retry: false, animate: null, sol: null, mine: null, version: 0, timers: [] };
  S.puzzle = P;
  if (key === "") P.mode = "next";
  else if (key === "daily") P.mode = "daily";
  else if (/^[0-9a-fA-F]{1,16}$/.test(key)) P.id = key.toLowerCase();
  else {
    P.loading = false;
    P.error = { code: "not_found", text: t("puzzle.err.not_found", { id: key }) };
    return;
  }
  // A first visit has no token until the server's welcome: without one the answers are judged
  // and nothing is kept, so the page waits for it a little.
  if (!localStorage.getItem("trunkfield.token") && S.conn === "connecting") {
    P.waitToken = true;
    later(P, () => {
      if (P.waitToken) load(P);
    }, TOKEN_WAIT_MS);
    return;
  }
  load(P);
}

export function closePuzzles() {
  const P = S.puzzle;
  if (!P) return;
  for (const id of P.timers) clearTimeout(id);
  P.rules?.dispose();
  S.puzzle = null;
}

// Called once the rules are loaded, for a puzzle that arrived before.
export function puzzlesRulesReady() {
  const P = S.puzzle;
  if (P?.data && !P.rules && !P.error) begin(P);
}

// A timer that dies with the puzzle.
function later(P, f, ms) {
  const id = setTimeout(() => {
    P.timers = P.timers.filter((x) => x !== id);
    if (S.puzzle === P) f();
  }, ms);
  P.timers.push(id);
}

const shown = (P) => S.puzzle === P && S.route.view === "puzzles";
const redraw = (P) => {
  if (shown(P)) app.render();
};

function problemOf(e) {
  const code = e?.code ?? null;
  if (code === "no_puzzle" && S.puzzle?.theme) return { code, text: t("puzzle.err.no_puzzle_theme") };
  if (code && hasText(`puzzle.err.${code}`)) return { code, text: t(`puzzle.err.${code}`, { id: S.puzzle?.id ?? "" }) };
  return { code, text: t("puzzle.err.other", { reason: e?.message ?? String(e) }) };
}

function load(P) {
  P.waitToken = false;
  P.loading = true;
  P.error = null;
  P.theme = P.mode === "next" ? chosenTheme() : null;
  const ask = P.mode === "next" ? nextPuzzle(P.theme) : P.mode === "daily" ? dailyPuzzle() : getPuzzle(P.id);
  ask.then((d) => {
    if (S.puzzle !== P) return;
    if (typeof d.id !== "string" || typeof d.position !== "string" || !SIDES.includes(d.solver)) throw new Error(t("api.notJson"));
    P.data = d;
    P.id = d.id;
    if (P.mode === "next") {
      // the address names the puzzle: a reload or a shared link shows this one again
      P.key = d.id;
      history.replaceState({}, "", puzzlePath(d.id));
    }
    if (S.rulesReady) begin(P);
  }).catch((e) => {
    if (S.puzzle === P) P.error = problemOf(e);
  }).finally(() => {
    P.loading = false;
    redraw(P);
  });
  loadMine(P);
}

// The account's puzzle rating as the server has it (null before the first rated attempt).
function loadMine(P) {
  if (!S.me?.account) return;
  P.mineFor = S.me.player_id;
  myPuzzles(1).then((m) => {
    P.mine = m.rating ?? null;
    redraw(P);
  }, () => {});
}

// The puzzle at its start: the solver to move.
function begin(P) {
  P.rules?.dispose();
  P.rules = null;
  try {
    P.rules = RulesGame.fromPosition(P.data.position);
  } catch (e) {
    P.error = { code: "bad_position", text: t("puzzle.err.position", { reason: e.message }) };
    return;
  }
  P.startState = P.rules.state();
  P.phase = "solve";
  P.sent = [];
  P.sol = null;
  P.answer = null;
  P.animate = null;
  buildView(P, null);
}

// The game view over the position of P.rules; the solver drafts in it while it is theirs to move.
function buildView(P, last) {
  const st = P.rules.state();
  const solving = P.phase === "solve" && !st.over && st.to_move === P.data.solver;
  const G = { code: "puzzle", localSide: solving ? P.data.solver : null, status: solving ? "playing" : "over", rules: P.rules, state: st,
    shown: null, pending: null, players: { silver: null, bronze: null }, result: null, browse: null, premove: null, version: ++P.version,
    moves: null, error: null, last, turns: [], positions: [], local: { submit: (_G, turn) => submit(P, turn) } };
  resetDraft(G);
  P.G = G;
  P.position = P.rules.position();
}

// ------------------------------------------------------------------ judging
// The drafted turn was "sent" (turn.js sendTurn: the board shows it already): the server judges
// it with the solver's turns before it.
function submit(P, turn) {
  P.phase = "judging";
  P.feedback = null;
  P.moveError = null;
  const turns = [...P.sent, turn];
  answerPuzzle(P.data.id, turns).then((a) => {
    if (S.puzzle !== P) return;
    judged(P, turn, a);
  }, (e) => {
    if (S.puzzle !== P) return;
    // refused or not judged: the board shows the position again, the solver may try once more
    P.phase = "solve";
    buildView(P, P.G.last);
    P.moveError = e?.code === "illegal_turn" ? { rule: e.body?.rule ?? "illegal_turn", message: e.body?.message ?? e.message } : problemOf(e).text;
  }).finally(() => redraw(P));
}

function judged(P, turn, a) {
  P.sent.push(turn);
  const entry = recordTurn(P.rules, turn);
  if (!entry) {
    P.phase = "done"; // the server took a turn the rules here refuse: cannot happen with one library
    P.feedback = { kind: "wrong", text: t("puzzle.err.other", { reason: "?" }) };
    return buildView(P, null);
  }
  playSound(entry.captures.length ? "capture" : "move");
  const lastOf = (e) => ({ turn: e.turn, captures: e.captures });
  if (!a.done && a.verdict === "correct") {
    P.feedback = { kind: "correct", text: t("puzzle.correct") };
    P.phase = "reply";
    buildView(P, lastOf(entry));
    later(P, () => {
      const r = a.reply ? recordTurn(P.rules, a.reply) : null;
      P.phase = "solve";
      if (r) {
        P.animate = r;
        playSound(r.captures.length ? "capture" : "move");
        P.feedback = { kind: "correct", text: t("puzzle.replied", { side: SideName(r.side), turn: notation(r.turn, r.after.variant.size) }) };
      }
      buildView(P, r ? lastOf(r) : lastOf(entry));
      redraw(P);
    }, REPLY_DELAY_MS);
    return undefined;
  }
  P.answer = a;
  P.phase = "done";
  const kind = a.solved ? (a.verdict === "also" ? "also" : "solved") : "wrong";
  P.feedback = { kind, text: t(`puzzle.${kind}`) };
  buildView(P, lastOf(entry));
  if (a.solved) later(P, () => playSound("end"), 250);
  if (!a.solved && a.refutation) {
    // What the wrong turn allows: the engine's answer to it, played on the board.
    later(P, () => {
      const r = recordTurn(P.rules, a.refutation);
      if (!r) return;
      P.animate = r;
      playSound(r.captures.length ? "capture" : "move");
      P.feedback = { kind, text: t("puzzle.refuted", { side: SideName(r.side), turn: notation(r.turn, r.after.variant.size) }) };
      P.refuted = true;
      buildView(P, lastOf(r));
      redraw(P);
    }, REPLY_DELAY_MS);
  }
  if (a.rated) loadMine(P);
  return undefined;
}

// "Your puzzle rating: 1544 (+44)" after a rated attempt, else the rating before it (or nothing).
function ratingLine(P) {
  const a = P.answer;
  if (a?.rated && a.rating?.before && a.rating?.after) {
    const now = Math.round(a.rating.after.rating);
    const diff = Math.round(a.rating.after.rating - a.rating.before.rating);
    return { text: t("puzzle.ratingChange", { rating: now, diff: diffText(diff) }), rating: now, diff };
  }
  if (P.mine) return { text: t("puzzle.rating", { rating: `${P.mine.rating}${P.mine.provisional ? "?" : ""}` }), rating: P.mine.rating, diff: null };
  return null;
}

// ------------------------------------------------------------------ the solution
// The solution's positions from the puzzle's start, played one by one on the board.
function showSolution(P) {
  const line = P.answer?.line;
  if (!Array.isArray(line) || !line.length) return;
  const g = RulesGame.fromPosition(P.data.position);
  const steps = [{ state: g.state(), position: g.position(), entry: null }];
  try {
    for (const turn of line) {
      const entry = recordTurn(g, turn);
      if (!entry) break;
      steps.push({ state: entry.after, position: g.position(), entry });
    }
  } finally {
    g.dispose();
  }
  P.sol = { steps, at: 0, playing: true };
  P.phase = "solution";
  P.G = { ...P.G, localSide: null, status: "over" };
  stepSolution(P);
}

function stepSolution(P) {
  const sol = P.sol;
  if (!sol?.playing) return;
  if (sol.at >= sol.steps.length - 1) {
    sol.playing = false;
    return;
  }
  later(P, () => {
    if (!sol.playing) return;
    solutionAt(P, sol.at + 1, true);
    stepSolution(P);
    redraw(P);
  }, sol.at === 0 ? 500 : SOLUTION_STEP_MS);
}

function solutionAt(P, i, animate = false) {
  const sol = P.sol;
  if (!sol) return;
  sol.at = Math.max(0, Math.min(sol.steps.length - 1, i));
  if (!animate) sol.playing = false;
  const s = sol.steps[sol.at];
  P.animate = animate && s.entry ? s.entry : null;
  if (animate && s.entry) playSound(s.entry.captures.length ? "capture" : "move");
}

// ------------------------------------------------------------------ drawing
function statCard(st, s, solver) {
  const pl = st.players[s];
  const stats = [["score", pl.score], ["trunks", pl.trunks], ["burnt", pl.burnt_left], ["saved", pl.saved], ["captured", pl.captured], ["onField", pl.on_field]];
  const tag = s === solver ? t("puzzle.solver") : t("puzzle.opponent");
  return h("div", { class: `pcard ${s}${!st.over && st.to_move === s ? " to-move" : ""}`, "data-side": s },
    h("div", { class: "pc-top" }, pieceIcon(s, 22, s === "silver" ? "N" : "E"),
      h("span", { class: "pc-name" }, h("span", { class: "name", text: SideName(s) }), h("span", { class: "pc-tag", text: tag }))),
    h("dl", { class: "pc-stats" }, ...stats.flatMap(([k, v]) => [h("dt", { text: t(`card.${k}`) }), h("dd", { class: k, text: String(v) })])));
}

const themeName = (th) => (hasText(`theme.${th}`) ? t(`theme.${th}`) : th);

function puzzleStatus(P) {
  const d = P.data;
  const side = SideName(d.solver);
  if (P.phase === "solution") {
    const { at, steps } = P.sol;
    return at === 0 ? t("puzzle.solutionStart", { n: steps.length - 1 }) : t("puzzle.solutionAt", { i: at, n: steps.length - 1 });
  }
  if (P.phase === "judging") return t("puzzle.judging");
  if (P.phase === "reply") return t("puzzle.replying", { side: SideName(P.G.state.to_move) });
  if (P.phase === "done") return P.answer?.solved ? t("puzzle.doneSolved") : t("puzzle.doneFailed");
  return P.sent.length ? t("puzzle.findNext", { side }) : t("puzzle.find", { side });
}

export function renderPuzzles() {
  fillThemes();
  const P = S.puzzle;
  if (P?.waitToken && (localStorage.getItem("trunkfield.token") || S.conn !== "connecting")) load(P);
  if (P && !P.waitToken && S.me?.account && P.mineFor !== S.me.player_id) loadMine(P); // signed in meanwhile
  const title = P?.mode === "daily" ? (P.data?.day ? t("puzzle.dailyOf", { day: P.data.day }) : t("puzzle.daily"))
    : P?.id ? t("puzzle.titleOf", { id: P.id }) : t("puzzle.title");
  $("pz-h").textContent = title;
  $("pz-loading").hidden = !(P?.loading || P?.waitToken || (P?.data && !P.G && !P.error));
  $("pz-loading").textContent = P?.data && !S.rulesReady ? t("app.loadingRules") : t("puzzle.loading");
  const err = P?.error;
  $("pz-error-box").hidden = !err;
  $("pz-error").textContent = err?.text ?? "";
  $("pz-error-box").dataset.code = err?.code ?? "";
  $("pz-retry").hidden = !err || !["busy", "store_unavailable", null].includes(err.code);
  $("pz-daily-link").hidden = !err || err.code !== "no_puzzle";
  renderGuestNote();
  const body = $("pz-body");
  body.hidden = !P?.G || !!err;
  if (body.hidden) return;
  const G = P.G;
  const d = P.data;
  body.dataset.phase = P.phase;
  body.dataset.puzzle = d.id;

  // the board: the draft while solving, the solution's position once it is shown
  let view;
  if (P.phase === "solution") {
    const s = P.sol.steps[P.sol.at];
    view = { st: s.state, hl: { last: s.entry ? turnCells(s.entry.turn, s.state.variant.size) : null, captures: s.entry?.captures ?? [] } };
  } else view = boardView(G);
  const board = $("pz-board");
  const drawn = renderBoard(board, {
    state: view.st, highlights: view.hl, flip: boardFlipped(),
    onCell: (c) => {
      if (S.puzzle?.G === G && onCell(G, c)) app.render();
    },
    onFacing: (f) => {
      if (S.puzzle?.G === G && chooseFacing(G, f)) app.render();
    },
  });
  if (drawn && P.animate) animateTurn(board, P.animate);
  P.animate = null;
  board.dataset.position = P.phase === "solution" ? P.sol.steps[P.sol.at].position : P.position;
  renderFlipButtons();

  $("pz-status").textContent = puzzleStatus(P);
  $("pz-status").dataset.phase = P.phase;
  renderDraft($("pz-draft"), G, view.phase, view.dr);
  const phase = P.phase === "solve" ? turnPhase(G) : null;
  $("pz-moves").hidden = !phase;
  $("pz-undo").disabled = !G.history.length;
  $("pz-send").disabled = !canSend(G);
  const me = $("pz-move-error");
  const moveErr = G.error ?? P.moveError;
  me.hidden = !moveErr;
  me.textContent = moveErr ? errorText(moveErr) : "";

  // what the server said
  const fb = $("pz-feedback");
  fb.hidden = !P.feedback;
  fb.className = `pz-feedback${P.feedback ? ` pz-${P.feedback.kind}` : ""}`;
  fb.dataset.verdict = P.feedback?.kind ?? "";
  $("pz-feedback-text").textContent = P.feedback?.text ?? "";
  const done = P.phase === "done" || P.phase === "solution";
  const rl = ratingLine(P);
  const rEl = $("pz-rating");
  rEl.hidden = !rl;
  rEl.textContent = rl?.text ?? "";
  rEl.dataset.rating = rl ? String(rl.rating) : "";
  rEl.dataset.diff = rl?.diff != null ? String(rl.diff) : "";
  rEl.classList.toggle("pz-up", (rl?.diff ?? 0) > 0);
  rEl.classList.toggle("pz-down", (rl?.diff ?? 0) < 0);
  const unrated = done && P.answer && !P.answer.rated && !!S.me?.account;
  $("pz-unrated").hidden = !(unrated || (P.retry && !done && S.me?.account) || (!done && d.tried && S.me?.account));
  $("pz-unrated").textContent = t("puzzle.notRated");

  $("pz-after").hidden = !done;
  $("pz-show").hidden = P.phase !== "done" || !P.answer?.line?.length;
  $("pz-again").hidden = !done || !!P.answer?.solved;
  const analyse = $("pz-analyse");
  const url = done && P.answer?.line?.length ? exploreGameUrl(P.startState, P.answer.line, 0) : null;
  analyse.href = url ?? explorePath(d.position);

  renderSolutionList(P);
  keepPuzzleFocus(P);

  // the puzzle itself
  $("pz-info-rating").textContent = String(d.rating ?? "?");
  $("pz-info-turns").textContent = t("puzzle.turns", { n: d.solver_turns ?? 1 });
  $("pz-info-plays").textContent = t("puzzle.plays", { plays: d.plays ?? 0, solved: d.solved ?? 0 });
  $("pz-themes").replaceChildren(...(d.themes ?? []).map((th) => h("li", { class: "pz-theme", "data-theme": th, text: themeName(th) })));
  const src = d.source?.game;
  $("pz-source").hidden = !src;
  if (src) {
    const a = $("pz-source-link");
    a.href = `/#replay/${encodeURIComponent(src)}`;
    a.textContent = typeof d.source.turn === "number" ? t("puzzle.sourceAt", { code: src, n: d.source.turn + 1 }) : t("puzzle.source", { code: src });
  }
  const st = view.st;
  $("pz-players").replaceChildren(...[d.solver, d.solver === "silver" ? "bronze" : "silver"].map((s) => statCard(st, s, d.solver)));
}

function renderSolutionList(P) {
  const box = $("pz-solution");
  box.hidden = P.phase !== "solution";
  if (box.hidden) return;
  const { steps, at } = P.sol;
  const n = steps[0].state.variant.size;
  const first = steps[0].state.turns_played;
  const solver = P.data.solver;
  $("pz-sol-list").replaceChildren(...steps.slice(1).map((s, i) => h("li", {},
    h("button", { type: "button", class: `turn-btn${i + 1 === at ? " current" : ""}${s.entry.side === solver ? " pz-solver-turn" : ""}`,
      "aria-current": i + 1 === at ? "step" : false, "data-step": i + 1,
      onclick: () => {
        solutionAt(P, i + 1);
        app.render();
      } },
    h("span", { class: "num", text: `${first + i + 1}.` }), h("span", { class: "who", text: SideName(s.entry.side) }),
    h("span", { class: "nt", text: notation(s.entry.turn, n) })))));
  $("pz-sol-prev").disabled = at === 0;
  $("pz-sol-next").disabled = at === steps.length - 1;
}

// A keyboard player's focus, when what held it went away with the phase (the Play button while
// the turn is judged, Show the solution once pressed): on the board while solving, else on Next.
function keepPuzzleFocus(P) {
  const was = P.focusPhase;
  P.focusPhase = P.phase;
  if (was === undefined || was === P.phase) return;
  const a = document.activeElement;
  if (a && a !== document.body && a.offsetParent !== null && !a.closest("[hidden]")) return;
  if (!$("puzzles").contains(a) && a !== document.body) return;
  if (P.phase === "solve") $("pz-board").querySelector("[tabindex='0']")?.focus();
  else if (P.phase === "done") $("pz-next").focus();
}

// The note for guests: an account gets a puzzle rating.
function renderGuestNote() {
  $("pz-guest").hidden = !!S.me?.account;
}

// The theme chooser's options, in the page's language (filled again when it changes).
function fillThemes() {
  const pick = $("pz-theme-pick");
  if (pick.dataset.lang === lang()) return;
  pick.dataset.lang = lang();
  pick.replaceChildren(h("option", { value: "", text: t("puzzle.anyTheme") }),
    ...THEMES.map((th) => h("option", { value: th, text: themeName(th) })));
  pick.value = chosenTheme() ?? "";
}

// ------------------------------------------------------------------ controls
// The next puzzle for this reader: /#puzzles again (it becomes /#puzzles/ID once loaded).
function next() {
  if (location.hash === "#puzzles") {
    openPuzzles("", true);
    app.render();
  } else app.navigate("/#puzzles");
}

export function setupPuzzles() {
  const pick = $("pz-theme-pick");
  fillThemes();
  pick.addEventListener("change", () => {
    if (pick.value) localStorage.setItem(THEME_KEY, pick.value);
    else localStorage.removeItem(THEME_KEY);
    const P = S.puzzle;
    // A reader with nothing left to solve here goes on at once; otherwise the choice waits.
    if (!P || P.error || P.phase === "done" || P.phase === "solution") next();
  });
  const cur = () => (S.puzzle?.G && S.route.view === "puzzles" ? S.puzzle : null);
  const on = (id, f) => $(id).addEventListener("click", () => {
    const P = cur();
    if (P) f(P);
  });
  on("pz-undo", (P) => {
    if (undo(P.G)) app.render();
  });
  on("pz-send", (P) => {
    sendDraft(P.G);
    app.render();
  });
  on("pz-show", (P) => {
    showSolution(P);
    app.render();
    $("pz-sol-next").focus(); // the button pressed is gone
  });
  on("pz-again", (P) => {
    P.retry = true;
    P.feedback = null;
    P.moveError = null;
    begin(P);
    app.render();
    $("pz-board").querySelector("[tabindex='0']")?.focus();
  });
  on("pz-sol-prev", (P) => {
    solutionAt(P, P.sol.at - 1);
    app.render();
  });
  on("pz-sol-next", (P) => {
    solutionAt(P, P.sol.at + 1, true);
    P.sol.playing = false;
    app.render();
  });
  for (const id of ["pz-next", "pz-next-2"]) $(id).addEventListener("click", next);
  $("pz-retry").addEventListener("click", () => {
    const P = S.puzzle;
    if (!P) return;
    openPuzzles(P.key, true);
    app.render();
  });
  $("pz-signin").addEventListener("click", () => openSignIn("login"));
  document.addEventListener("keydown", (ev) => {
    const P = cur();
    if (!P || $("puzzles").hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target.closest?.("input, textarea, select, dialog")) return;
    if (P.phase === "solve") {
      if (ev.key === "Escape" && undo(P.G)) {
        ev.preventDefault();
        return void app.render();
      }
      if (ev.key === "Enter" && canSend(P.G) && !ev.target.closest?.("button, a, summary")) {
        ev.preventDefault();
        sendDraft(P.G);
        return void app.render();
      }
      return undefined;
    }
    if (P.phase !== "solution" || ev.target.closest?.("#pz-board")) return undefined;
    const last = P.sol.steps.length - 1;
    const keys = { ArrowLeft: P.sol.at - 1, ArrowRight: P.sol.at + 1, Home: 0, End: last };
    if (!(ev.key in keys)) return undefined;
    ev.preventDefault();
    solutionAt(P, keys[ev.key], ev.key === "ArrowRight");
    P.sol.playing = false;
    return void app.render();
  });
}
