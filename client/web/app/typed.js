// Typed moves: the player's setup or turn written down instead of clicked, usable for a whole
// game without the board. A turn is the project's notation (docs/RULES.md "Writing turns down":
// `c1-c2-c4:N *e5 Sc+2`); a setup is its cells by name, the field cells for the elephants and
// the ring cells for the guardians (`b1 d1 f1 Sa SE`). What is typed is checked as it is typed
// with the rules library the server judges with; the legal elephant moves that fit what is typed
// are listed (a click, or Tab for the part they all share, writes them in); Enter plays it.
import { $, h, errorText } from "./dom.js";
import { t } from "./i18n.js";
import { cellName, isField } from "./board.js";
import { Rules } from "./trunkfield-rules.js";
import { mySide } from "./state.js";
import { turnPhase, legalMoves, sendTurn, sendDraft } from "./turn.js";
import { answerCommand, blindOn, commandPrefix } from "./blind.js";

const SHOWN = 12; // legal elephant moves listed at most

// Every cell's name on a board of size n (field and ring), to read a setup back: as written
// (`e1` is a field cell, `E1` the ring cell east of row 1), else in any case when that names one
// cell only (`sw`, `nb`).
const namesCache = new Map();
function cellsByName(n) {
  if (!namesCache.has(n)) {
    const exact = new Map();
    const folded = new Map();
    for (let x = 0; x <= n + 1; x++)
      for (let y = 0; y <= n + 1; y++) {
        const name = cellName([x, y], n);
        exact.set(name, [x, y]);
        const k = name.toLowerCase();
        folded.set(k, folded.has(k) ? null : [x, y]);
      }
    namesCache.set(n, (w) => exact.get(w) ?? folded.get(w.toLowerCase()) ?? null);
  }
  return namesCache.get(n);
}

// The notation of each legal elephant move of the position ("pass" when there is none).
function elephantNotations(G) {
  if (G.typedFor?.version === G.version) return G.typedFor.list;
  const n = G.state.variant.size;
  const moves = legalMoves(G);
  const list = moves.length
    ? moves.map((m) => Rules.turnToNotation({ elephant: m }, n).notation).filter(Boolean)
    : ["pass"];
  G.typedFor = { version: G.version, list };
  return list;
}

const common = (a, b) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
};

// What `text` is in G's position for the player: {ok, turn | setup, error, options, complete}.
// `options`: the legal elephant moves that fit the first word (a turn only); `complete`: the
// longer text they all share, when Tab can write more.
export function judgeTyped(G, text) {
  const phase = turnPhase(G);
  const n = G.state.variant.size;
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (commandPrefix(text)) return { ok: false, progress: t("typed.command") };
  if (phase !== "setup" && phase !== "turn") return { ok: false, progress: words.length ? t("typed.notNow") : "" };
  if (phase === "setup") return judgeSetup(G, words, n);
  const all = elephantNotations(G);
  const first = words[0] ?? "";
  const typingFirst = words.length <= 1 && !/\s$/.test(text);
  const options = typingFirst ? all.filter((o) => o.toLowerCase().startsWith(first.toLowerCase())) : [];
  let complete = null;
  if (typingFirst && options.length && first) {
    const shared = options.reduce(common);
    if (shared.length > first.length) complete = shared;
  }
  if (!words.length) return { ok: false, options, complete };
  const parsed = Rules.turnFromNotation(words.join(" "), n);
  const checked = parsed.error ? null : G.rules.checkTurn(parsed.turn);
  const error = parsed.error ?? checked.error;
  if (!error) return { ok: true, turn: parsed.turn, options, complete };
  // the start of legal moves: how many fit, rather than why the unfinished text is no turn
  if (typingFirst && options.some((o) => o.length > first.length))
    return { ok: false, progress: t("typed.fits", { n: options.length }), options, complete };
  return { ok: false, error: { rule: error.code, message: error.message }, options, complete };
}

function judgeSetup(G, words, n) {
  const cellOf = cellsByName(n);
  const elephants = [];
  const guardians = [];
  for (const w of words) {
    const c = cellOf(w);
    if (!c) return { ok: false, error: t("typed.notACell", { name: w }) };
    (isField(c, n) ? elephants : guardians).push(c);
  }
  const need = G.state.variant.elephants;
  if (elephants.length !== need || guardians.length !== 2)
    return { ok: false, progress: t("typed.setupCount", { e: elephants.length, need, g: guardians.length }) };
  const setup = { elephants, guardians };
  const c = G.rules.clone();
  try {
    const r = c.applySetup(mySide(G), setup);
    if (r.error) return { ok: false, error: { rule: r.error.code, message: r.error.message } };
  } finally {
    c.dispose();
  }
  return { ok: true, setup };
}

// Plays what is typed when it is legal; true when it was sent.
function playTyped(G, text) {
  const j = judgeTyped(G, text);
  if (!j.ok) return false;
  if (j.setup) {
    G.draft.setupE = j.setup.elephants;
    G.draft.setupG = j.setup.guardians;
    sendDraft(G);
    return !!G.pending;
  }
  return sendTurn(G, j.turn);
}

// Shows the box in the setup and the player's turn; keeps what is typed across renders.
export function renderTyped(G, phase) {
  const form = $("typed");
  // the text view asks questions at any moment of the game; moves only in their phase
  const on = ((phase === "setup" || phase === "turn") || (blindOn() && !!G.state)) && G.browse === null;
  form.hidden = !on;
  if (!on) return;
  const setup = phase === "setup";
  const help = setup ? t("typed.helpSetup", { e: G.state.variant.elephants }) : phase === "turn" ? t("typed.helpTurn") : "";
  $("typed-help").textContent = blindOn() ? [help, t("blind.helpShort")].filter(Boolean).join(" ") : help;
  if ($("typed-check").dataset.ok === "answer" && !$("typed-input").value) return; // the answer stays until more is typed
  showJudgement(G);
}

function showJudgement(G) {
  const input = $("typed-input");
  const j = judgeTyped(G, input.value);
  const check = $("typed-check");
  check.dataset.ok = j.ok ? "yes" : "no";
  if (j.ok) check.textContent = t("typed.legal");
  else if (j.error) check.textContent = typeof j.error === "string" ? j.error : errorText(j.error);
  else check.textContent = j.progress ?? "";
  const list = $("typed-options");
  list.replaceChildren();
  const options = j.options ?? [];
  list.hidden = !input.value.trim() || options.length === 0;
  for (const o of options.slice(0, SHOWN)) {
    const b = h("button", { type: "button", class: "small typed-option" }, o);
    b.addEventListener("click", () => {
      input.value = `${o} `;
      input.focus();
      showJudgement(G);
    });
    list.append(h("li", {}, b));
  }
  if (options.length > SHOWN) list.append(h("li", { class: "muted" }, t("typed.more", { n: options.length - SHOWN })));
}

export function setupTyped({ current, render, turnWords }) {
  const input = $("typed-input");
  input.addEventListener("input", () => {
    const G = current();
    if (G?.state && G.rules) showJudgement(G);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key !== "Tab" || ev.shiftKey) return;
    const G = current();
    if (!G?.state || !G.rules) return;
    const j = judgeTyped(G, input.value);
    const to = j.complete ?? (j.options?.length === 1 ? `${j.options[0]} ` : null);
    if (!to || to === input.value) return;
    ev.preventDefault(); // Tab completes; with nothing to complete it moves on as usual
    input.value = to;
    showJudgement(G);
  });
  $("typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const G = current();
    if (!G?.state || !G.rules) return;
    const answer = answerCommand(G, input.value, turnWords);
    if (answer !== null) {
      // a question about the position: answered where what is typed is judged (read aloud)
      $("typed-check").dataset.ok = "answer";
      $("typed-check").textContent = answer;
      input.value = "";
      return;
    }
    if (playTyped(G, input.value)) input.value = "";
    else showJudgement(G);
    render();
    input.focus();
  });
}
