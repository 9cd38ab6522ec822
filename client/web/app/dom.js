// Small DOM and formatting helpers shared by the screens. Every text that comes from the server
// or another player goes into the page with textContent (h(..., {text}) or .textContent), never
// as HTML.
export const $ = (id) => document.getElementById(id);

export const SIDES = ["silver", "bronze"];
export const other = (s) => (s === "silver" ? "bronze" : "silver");
export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");

// h("li", {class: "x", text: name, onclick: f, "data-code": c}, child, ...): an element.
export function h(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c != null && c !== false) e.append(c);
  return e;
}

export const REASONS = {
  trunks: "no trunk is left on the field",
  herd: "a herd has no elephant left on the field",
  quiet: "the quiet-turn limit was reached",
  resign: "a player resigned",
  time: "a player ran out of time",
  agreement: "draw agreed",
  abandon: "a player abandoned the game",
  aborted: "the game was aborted",
};

export function variantText(v) {
  if (!v) return "";
  const e = v.elephants ?? 5;
  return `${v.size ?? 9}×${v.size ?? 9}, ${e} elephant${e === 1 ? "" : "s"}, ${v.burnt ?? 3} burnt, quiet ${v.quiet ?? 40}`;
}

export function tcText(tc) {
  if (!tc) return "untimed";
  const min = tc.initial_ms / 60000;
  const m = Number.isInteger(min) ? `${min} min` : `${Math.round(tc.initial_ms / 1000)} s`;
  return `${m} + ${Math.round(tc.increment_ms / 1000)} s`;
}

export function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// "Silver (Ann) wins" / "Draw" / "No result", from a result {winner} and players {side: {name}}.
export function winnerText(result, players) {
  const name = (s) => players?.[s]?.name ?? s;
  if (!result) return "";
  if (result.winner === "draw") return "Draw";
  if (result.winner) return `${cap(result.winner)} (${name(result.winner)}) wins`;
  return "No result";
}

export function scoreText(score) {
  if (!score) return "";
  return `silver ${score.silver} : bronze ${score.bronze}`;
}

export function dateText(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
