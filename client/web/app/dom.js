// Small DOM and formatting helpers shared by the screens. Every text that comes from the server
// or another player goes into the page with textContent (h(..., {text}) or .textContent), never
// as HTML. Words come from i18n.js.
import { t, lang, hasText } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export const SIDES = ["silver", "bronze"];
export const other = (s) => (s === "silver" ? "bronze" : "silver");
export const sideName = (s) => t(`side.${s}`);
export const SideName = (s) => t(`Side.${s}`);

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

// The boards offered by name (quick match, games on the device).
export const QUICK_VARIANTS = {
  standard: { size: 9, elephants: 5, burnt: 3, quiet: 40 },
  small: { size: 7, elephants: 3, burnt: 2, quiet: 30 },
  tiny: { size: 5, elephants: 2, burnt: 1, quiet: 20 },
};

export function variantText(v) {
  if (!v) return "";
  return t("variant.text", { size: v.size ?? 9, elephants: v.elephants ?? 5, burnt: v.burnt ?? 3, quiet: v.quiet ?? 40 });
}

// "untimed", "5 min + 5 s", "3 days per move" (a correspondence game: PROTOCOL.md "Time").
export function tcText(tc) {
  if (!tc) return t("tc.untimed");
  if (tc.days_per_move) return t("tc.days", { n: tc.days_per_move });
  const min = tc.initial_ms / 60000;
  const base = Number.isInteger(min) ? t("tc.min", { n: min }) : t("tc.sec", { n: Math.round(tc.initial_ms / 1000) });
  return t("tc.text", { base, inc: Math.round(tc.increment_ms / 1000) });
}

export function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return `0:0${(ms / 1000).toFixed(1)}`;
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// A long time, as a correspondence game's clock and its deadlines show it: "2d 23h", "5h 12m",
// and under an hour as any clock ("12:34").
export function fmtDays(ms) {
  ms = Math.max(0, ms);
  if (ms < 3600000) return fmtClock(ms);
  const m = Math.floor(ms / 60000);
  const d = Math.floor(m / 1440);
  return d > 0 ? t("clock.days", { d, h: Math.floor((m % 1440) / 60) }) : t("clock.hours", { h: Math.floor(m / 60), m: m % 60 });
}

export const scoreText = (score) => (score ? t("score.line", { silver: score.silver, bronze: score.bronze }) : "");

// The name of a side's player ("Ann"), or the side's name when the seat is empty.
export const playerName = (players, s) => players?.[s]?.name ?? SideName(s);

// Shows `text` for a few seconds in a small note area (draw offers, premoves cancelled...).
export function flash(el, text, ms = 6000) {
  el.textContent = text;
  el.hidden = !text;
  clearTimeout(el._flashTimer);
  if (text) el._flashTimer = setTimeout(() => (el.hidden = true), ms);
}

// The words for an error object of the client ({key, params, reason} for its own messages,
// {rule, message} for the rules library's, {code, message} for the server's). The rules' reasons
// are translated by their code; in English the library's own message (which names the cells)
// is shown as it is.
export function errorText(e) {
  if (!e) return "";
  if (typeof e === "string") return e;
  if (e.key) return t(e.key, { ...(e.params ?? {}), reason: e.reason ? errorText(e.reason) : reasonOf(e) });
  return reasonOf(e);
}

function reasonOf(e) {
  if (e.rule) {
    if (lang() === "en" && e.message) return e.message.replace(/^(illegal (turn|setup)|not allowed): /i, "");
    return hasText(`rule.${e.rule}`) ? t(`rule.${e.rule}`) : (e.message ?? e.rule);
  }
  if (e.code) return hasText(`err.${e.code}`) ? t(`err.${e.code}`) : (e.message ?? e.code);
  return e.message ?? "";
}
