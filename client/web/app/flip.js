// Turning the board 180° on the game page, the replay, the analysis board and the puzzles: the
// "Flip board" buttons and the F key (outside text fields). A spectator sees silver's side at the
// bottom, a player their own card below; flipped, the other side is at the bottom. Kept for the
// page visit (not stored).
import { $ } from "./dom.js";
import { S, app } from "./state.js";

let boardTurned = false;

export const boardFlipped = () => boardTurned;

export function toggleFlip() {
  boardTurned = !boardTurned;
  app.render();
}

// The buttons' pressed state (both pages).
export function renderFlipButtons() {
  for (const id of ["flip-btn", "rp-flip", "ex-flip", "pz-flip"]) $(id)?.setAttribute("aria-pressed", boardTurned ? "true" : "false");
}

export function setupFlip() {
  for (const id of ["flip-btn", "rp-flip", "ex-flip", "pz-flip"]) $(id)?.addEventListener("click", toggleFlip);
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "f" && ev.key !== "F") return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    if (ev.target.closest?.("input, textarea, select, [contenteditable]")) return;
    const view = S.route?.view;
    if (!["game", "replay", "analysis", "puzzles"].some((v) => view === v && !$(v).hidden)) return;
    ev.preventDefault();
    toggleFlip();
  });
}
