// Berserk in arena games (PROTOCOL.md "Tournaments" (Berserk), like lichess's): a game made by an arena that
// allows it has `berserk: true` in its time control; a seated player may go berserk once, before
// their own first turn of play (silver plays the first one): their clock loses half the initial
// time and gets no increment for the rest of the game, and a win of at least 7 turns of play
// scores one point more in the arena. Here: the "Berserk" button in the game's action row, the
// mark on a berserk player's card (players.js) and in an arena's sheet (tournaments.js).
import { $ } from "./dom.js";
import { send, mySide } from "./state.js";
import { svgEl } from "./board.js";

// Two crossed swords, in the text's colour (an SVG: emoji fonts are not everywhere). `label`:
// its name for a screen reader, or null when the text beside it says it.
export function berserkIcon(label = null, size = 16) {
  const svg = svgEl("svg", { viewBox: "0 0 16 16", width: size, height: size, class: "berserk-icon", fill: "none", stroke: "currentColor",
    "stroke-linecap": "round", ...(label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" }) });
  if (label) svgEl("title", {}, svg).textContent = label;
  // the two blades, pointed up (filled), then the guards across them and the grips
  svgEl("path", { d: "M1 1L4.5 2.3L10.6 8.4L8.4 10.6L2.3 4.5ZM15 1L11.5 2.3L5.4 8.4L7.6 10.6L13.7 4.5Z", fill: "currentColor", stroke: "none" }, svg);
  svgEl("path", { d: "M7.6 12.6L12.6 7.6M8.4 12.6L3.4 7.6", "stroke-width": 1.6 }, svg);
  svgEl("path", { d: "M11 11L13.6 13.6M5 11L2.4 13.6", "stroke-width": 1.9 }, svg);
  return svg;
}

export const wentBerserk = (G, s) => !!G.berserk?.includes(s);

// Whether the player may go berserk now: a seated player of an arena game that allows it, while
// it is played, before their own first turn of play (none sent either), not yet berserk.
export function canBerserk(G) {
  const side = mySide(G);
  if (!side || !G.timeControl?.berserk || G.status !== "playing" || G.result || G.berserkSent || wentBerserk(G, side)) return false;
  const played = G.state?.turns_played ?? 0; // silver plays turns 1, 3...; bronze 2, 4...
  return played < (side === "silver" ? 1 : 2) && !G.pending?.turn;
}

export function renderBerserk(G) {
  $("berserk-btn").hidden = !canBerserk(G);
}

// `current()`: the game shown; `after(ev)`: what every game action does next (the focus, a redraw).
export function setupBerserk(current, after) {
  const b = $("berserk-btn");
  b.prepend(berserkIcon(), " ");
  b.addEventListener("click", (ev) => {
    const G = current();
    if (!G || !canBerserk(G)) return;
    G.berserkSent = true; // once per game: the button goes at once, the event confirms it
    send({ type: "berserk", game: G.code });
    after(ev);
  });
}
