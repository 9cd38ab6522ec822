// The client's languages: every string shown to players is in lang/en.js or lang/fr.js (one
// place per language, the same keys in both: client/web/assemble.mjs fails the build otherwise).
// The language comes from the browser's preferences (French when it prefers French, else English)
// until the player picks one with the switch; the choice is remembered on the device.
//
//   t("lobby.join")                    a string
//   t("game.toMove", {name: "Ann"})    "{name}" placeholders, or a function of the parameters
//   translatePage()                    fills [data-i18n] (text) and [data-i18n-attr] ("attr:key;…")
//   richText(el, "a **bold** word")    text with **bold** and _italic_, built without innerHTML
import { en } from "./lang/en.js";
import { fr } from "./lang/fr.js";

const LANGS = { en, fr };
const LANG_KEY = "trunkfield.lang";
let currentLang = detectLang();

export function detectLang() {
  const saved = localStorage.getItem(LANG_KEY);
  if (saved && LANGS[saved]) return saved;
  for (const l of navigator.languages ?? [navigator.language ?? "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGS[base]) return base;
  }
  return "en";
}

export const lang = () => currentLang;

export function setLang(l, remember = true) {
  if (!LANGS[l]) return;
  currentLang = l;
  if (remember) localStorage.setItem(LANG_KEY, l);
  document.documentElement.lang = l;
  translatePage();
}

// A value as it is (How to play's blocks are lists).
export const textValue = (k) => LANGS[currentLang][k] ?? en[k];

export function hasText(k) {
  return k in LANGS[currentLang] || k in en;
}

export function t(k, p = {}) {
  const v = LANGS[currentLang][k] ?? en[k];
  if (v === undefined) return k;
  if (typeof v === "function") return v(p);
  return v.replace(/\{(\w+)\}/g, (m, name) => (p[name] !== undefined ? String(p[name]) : m));
}

// Dates in the page's language.
export function fmtDate(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(currentLang, { dateStyle: "medium", timeStyle: "short" });
}

export function translatePage(root = document) {
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll("[data-i18n-rich]")) richText(e, t(e.dataset.i18nRich));
  for (const e of root.querySelectorAll("[data-i18n-attr]"))
    for (const pair of e.dataset.i18nAttr.split(";")) {
      const [attr, k] = pair.split(":").map((s) => s.trim());
      if (attr && k) e.setAttribute(attr, t(k));
    }
  document.title = t("app.title");
}

// Fills `el` with `text`, where **…** is bold and _…_ italic; everything else is plain text.
export function richText(el, text) {
  el.replaceChildren();
  const re = /\*\*([^*]+)\*\*|(?:^|(?<=[\s(]))_([^_]+)_(?=$|[\s.,;:)!?])/g;
  let at = 0;
  for (const m of String(text).matchAll(re)) {
    if (m.index > at) el.append(document.createTextNode(text.slice(at, m.index)));
    const b = document.createElement(m[1] !== undefined ? "b" : "i");
    b.textContent = m[1] ?? m[2];
    el.append(b);
    at = m.index + m[0].length;
  }
  if (at < text.length) el.append(document.createTextNode(text.slice(at)));
  return el;
}
