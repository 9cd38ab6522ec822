// The text view (blind mode): the position written out for a screen reader instead of drawn
// (the herds, the guardians and what they watch, the crossings, the burnt trunks, the trunks by
// row, the score and the clocks), and commands typed in the move box that answer a question
// about it ("elephants", "guardian 2", "row 5", "moves", "clocks", "help"...). A setting kept on
// the device; the opponent's turns are said by the page's live region as always.
import { $, h, sideName, other, fmtDays } from "./dom.js";
import { t } from "./i18n.js";
import { cellName, describeCell, LETTERS } from "./board.js";
import { mySide } from "./state.js";
import { legalMoves } from "./turn.js";
import { clockMs } from "./players.js";

const BLIND_KEY = "trunkfield.blind";
export const blindOn = () => localStorage.getItem(BLIND_KEY) === "on";
export function setBlind(on) {
  localStorage.setItem(BLIND_KEY, on ? "on" : "off");
}

// What a guardian on ring cell c watches: "column c", "row 5", or nothing (a corner).
function watchText([x, y], n) {
  if ((x === 0 || x === n + 1) && y >= 1 && y <= n) return t("blind.watchesRow", { row: y });
  if ((y === 0 || y === n + 1) && x >= 1 && x <= n) return t("blind.watchesColumn", { col: LETTERS[x - 1] });
  return t("blind.watchesNothing");
}

// The sides in the order the view lists them: the player's first (silver first for a watcher).
const sidesOf = (G) => {
  const me = mySide(G);
  return me ? [me, other(me)] : ["silver", "bronze"];
};
const whose = (G, s) => (s === mySide(G) ? t("blind.yours") : sideName(s));

function blindHerd(G, st, s) {
  const n = st.variant.size;
  const list = st.elephants.filter((e) => e.side === s).map((e) => t("blind.elephantAt", { cell: cellName(e.cell, n), facing: t(`dir.${e.facing}`) }));
  return t("blind.herd", { who: whose(G, s), n: list.length, list: list.join(", ") || t("blind.none") });
}

// The four guardians, numbered as the commands know them: the player's 1 and 2 (silver's for a
// watcher), the other side's 3 and 4.
function blindGuardians(G, st) {
  const n = st.variant.size;
  const out = [];
  for (const s of sidesOf(G))
    for (const g of st.guardians.filter((x) => x.side === s))
      out.push({ i: out.length + 1, side: s, cell: g.cell, text: t("blind.guardian", { i: out.length + 1, who: whose(G, s), cell: cellName(g.cell, n), watches: watchText(g.cell, n) }) });
  return out;
}

const cellList = (list, n) => (list.length ? list.map((c) => cellName(c, n)).join(", ") : t("blind.none"));

function blindTrunkRows(st) {
  const n = st.variant.size;
  const rows = [];
  for (let y = n; y >= 1; y--) {
    const here = st.trunks.filter((c) => c[1] === y).sort((a, b) => a[0] - b[0]);
    if (here.length) rows.push(t("blind.row", { row: y, list: cellList(here, n) }));
  }
  return rows;
}

function blindClocks(G) {
  if (!G.clocks) return t("blind.untimed");
  const fmt = (ms) => {
    if (G.timeControl?.days_per_move) return fmtDays(ms); // a correspondence game: "2d 23h"
    const s = Math.max(0, Math.floor(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  return t("blind.clocks", { list: sidesOf(G).map((s) => t("blind.clock", { who: whose(G, s), time: fmt(clockMs(G, s) ?? 0) })).join(", ") });
}

function blindScore(G, st) {
  return t("blind.scores", { list: sidesOf(G).map((s) => t("blind.score", { who: whose(G, s), n: st.score[s], trunks: st.players[s].trunks })).join(", ") });
}

function blindLine(st, what, i) {
  const n = st.variant.size;
  const out = [];
  for (let j = 1; j <= n; j++) out.push(describeCell(st, what === "row" ? [j, i] : [i, j]));
  return out.join("; ");
}

const COMMANDS = ["help", "elephants", "opponent", "guardians", "guardian", "trunks", "row", "column", "burnt", "crossings", "clocks", "score", "last", "moves"];

// Whether `text` is (the start of) a command rather than a move: its first word begins a
// command's name and is no cell's start (`c1`) nor `pass`.
export function commandPrefix(text) {
  const w = text.trim().toLowerCase().split(/\s+/)[0] ?? "";
  if (!w || /^[a-m]\d/.test(w) || "pass".startsWith(w)) return false;
  if (w.length < 2 && w !== "?") return false;
  return COMMANDS.some((c) => t(`blind.cmd.${c}`).split("|").some((name) => name.startsWith(w) || w.startsWith(name)));
}

// The answer to a command typed in the move box, or null when `text` is no command (a move).
// `turnWords` says a turn in words (the game screen's, as its live region says them).
export function answerCommand(G, text, turnWords) {
  const st = G.state;
  if (!st) return null;
  const n = st.variant.size;
  const w = text.trim().toLowerCase().split(/\s+/);
  const is = (name) => t(`blind.cmd.${name}`).split("|").includes(w[0]);
  if (is("help")) return t("blind.help");
  if (is("elephants")) return blindHerd(G, st, sidesOf(G)[0]);
  if (is("opponent")) return blindHerd(G, st, sidesOf(G)[1]);
  if (is("guardians")) return blindGuardians(G, st).map((g) => g.text).join("; ");
  if (is("guardian")) {
    const g = blindGuardians(G, st).find((x) => x.i === Number(w[1]));
    return g ? g.text : t("blind.noGuardian");
  }
  if (is("trunks")) return `${t("blind.trunks", { n: st.trunks.length })} ${blindTrunkRows(st).join("; ")}`;
  if (is("row")) {
    const y = Number(w[1]);
    return y >= 1 && y <= n ? blindLine(st, "row", y) : t("blind.noLine");
  }
  if (is("column")) {
    const x = LETTERS.indexOf(w[1] ?? "") + 1;
    return x >= 1 && x <= n ? blindLine(st, "column", x) : t("blind.noLine");
  }
  if (is("burnt")) return t("blind.burnt", { list: cellList(st.burnt, n) });
  if (is("crossings")) return t("blind.crossings", { list: cellList(st.crossings, n) });
  if (is("clocks")) return blindClocks(G);
  if (is("score")) return blindScore(G, st);
  if (is("last")) {
    const last = G.turns.at(-1);
    if (!last) return t("blind.noTurn");
    const i = G.turns.length - 1;
    return t("blind.last", { side: sideName(last.side), words: turnWords(last, G.positions[i], G.positions[i + 1], n) });
  }
  if (is("moves")) {
    if (!G.rules || st.phase !== "play" || st.to_move !== mySide(G)) return t("blind.notYourTurn");
    const list = legalMoves(G).map((m) => G.rules.turnToNotation({ elephant: m }).notation);
    return list.length ? t("blind.moves", { n: list.length, list: list.join(", ") }) : t("blind.noMoves");
  }
  return null;
}

// The view: the board's place holds the position as text while the setting is on.
export function renderBlind(G) {
  const on = blindOn();
  const b = $("blind-btn");
  b.setAttribute("aria-pressed", on ? "true" : "false");
  $("game").classList.toggle("blind", on);
  const view = $("blind");
  view.hidden = !on;
  if (!on || !G.state) return;
  const st = G.shown ?? G.state;
  const n = st.variant.size;
  const items = [
    blindHerd(G, st, sidesOf(G)[0]),
    blindHerd(G, st, sidesOf(G)[1]),
    ...blindGuardians(G, st).map((g) => g.text),
    t("blind.crossings", { list: cellList(st.crossings, n) }),
    t("blind.burnt", { list: cellList(st.burnt, n) }),
    blindScore(G, st),
    blindClocks(G),
  ];
  const rows = blindTrunkRows(st);
  const list = h("ul", { class: "blind-list" }, ...items.map((x) => h("li", {}, x)));
  const trunks = h("li", {}, t("blind.trunks", { n: st.trunks.length }), h("ul", {}, ...rows.map((r) => h("li", {}, r))));
  list.append(trunks);
  $("blind-body").replaceChildren(list);
}
