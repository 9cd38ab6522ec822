// How the board looks, chosen by the player and kept on the device: a theme (classic, high
// contrast, or one for colour-blind players: no red against green, the crossings in blue), the
// pieces' size and whether the ring's names (the coordinates) are drawn. Applied to the whole
// page (every board: the game, the replay, practice) as attributes of <html> that style.css
// reads.
import { $ } from "./dom.js";

const PREFS = {
  theme: { store: "trunkfield.boardTheme", values: ["classic", "contrast", "colourblind"], attr: "boardTheme" },
  pieces: { store: "trunkfield.pieces", values: ["normal", "large"], attr: "pieces" },
  coords: { store: "trunkfield.coords", values: ["on", "off"], attr: "coords" },
};

export function boardPref(name) {
  const p = PREFS[name];
  const v = localStorage.getItem(p.store);
  return p.values.includes(v) ? v : p.values[0];
}

function apply() {
  for (const [name, p] of Object.entries(PREFS)) document.documentElement.dataset[p.attr] = boardPref(name);
}

// Called once: applies the saved choices and wires the game page's "Board" card.
export function setupBoardPrefs() {
  apply();
  $("bp-theme").value = boardPref("theme");
  $("bp-pieces").value = boardPref("pieces");
  $("bp-coords").checked = boardPref("coords") === "on";
  const save = (name, v) => {
    localStorage.setItem(PREFS[name].store, v);
    apply();
  };
  $("bp-theme").addEventListener("change", (ev) => save("theme", ev.target.value));
  $("bp-pieces").addEventListener("change", (ev) => save("pieces", ev.target.value));
  $("bp-coords").addEventListener("change", (ev) => save("coords", ev.target.checked ? "on" : "off"));
}
