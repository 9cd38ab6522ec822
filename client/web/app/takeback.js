// Takebacks and more time on the game page (proto/PROTOCOL.md "Takebacks and more time"): the
// "Take back" button and the answer to the opponent's request, "+15 s", and the player's two
// preferences, kept on the device and told to the server for each game the player sits in:
//
//   takebacks   "always" | "casual" (default: in casual games only) | "never"
//   more time   "on" (default: accept time the opponent gives) | "off"
//
// The server keeps each seat's preferences per game (a rated game starts with takebacks off, a
// casual one with them on); the page sends only what differs from what the snapshot says.
import { $, other } from "./dom.js";
import { S, send, mySide, botLevel } from "./state.js";

const TAKEBACK_KEY = "trunkfield.takebacks";
const MORE_TIME_KEY = "trunkfield.moreTime";
const TAKEBACK_CHOICES = ["always", "casual", "never"];

export function takebackChoice() {
  const v = localStorage.getItem(TAKEBACK_KEY);
  return TAKEBACK_CHOICES.includes(v) ? v : "casual";
}
export const moreTimeOn = () => localStorage.getItem(MORE_TIME_KEY) !== "off";

// What the player wants in game G: {takeback, more_time}.
function wanted(G) {
  const c = takebackChoice();
  return { takeback: c === "always" || (c === "casual" && !G.rated), more_time: moreTimeOn() };
}

// Tells the server the player's preferences for G when they differ from the seat's (a seated
// player, the game open or in play, a server that knows preferences). Called at each snapshot
// and when the player changes a setting.
export function sendPreferences(G) {
  const side = mySide(G);
  const now = G.prefs?.[side];
  if (!side || !now || !G.prefsKnown || (G.status !== "open" && G.status !== "playing")) return;
  const want = wanted(G);
  const msg = { type: "preferences", game: G.code };
  for (const k of ["takeback", "more_time"]) if (want[k] !== now[k]) msg[k] = want[k];
  if (Object.keys(msg).length > 2) send(msg);
}

// The buttons in the game's action row. `live`: the player sits in a game being played.
export function renderTakeback(G, live) {
  const side = mySide(G);
  const opp = side ? other(side) : null;
  const known = live && G.prefsKnown;
  const theirs = known && G.takebackOffer === opp;
  const mine = known && G.takebackOffer === side;
  $("takeback-btn").hidden = !known || !G.takebacksOn || !(G.takebackTurns?.[side] > 0) || !!G.takebackOffer || !!G.takebackAsked;
  $("takeback-answer").hidden = !theirs;
  $("takeback-note").hidden = !mine;
  // +15 s once the clocks run (silver's first turn starts them), never to the computer, nor in a
  // correspondence game (days per move)
  $("give-time-btn").hidden = !known || !G.timeControl || !!G.timeControl.days_per_move || !G.prefs?.[opp]?.more_time
    || !((G.state?.turns_played ?? 0) > 0) || !!botLevel(G.players?.[opp]);
  // the settings: for a seated player while the game can still change
  const card = $("prefs-card");
  card.hidden = !side || (G.status !== "open" && G.status !== "playing");
  const sel = $("pref-takeback");
  if (sel.value !== takebackChoice()) sel.value = takebackChoice();
  $("pref-time").checked = moreTimeOn();
}

// `current()`: the game shown; `after(ev)`: what every game action does next (the focus, a redraw).
export function setupTakeback(current, after) {
  const act = (f) => (ev) => {
    const G = current();
    if (!G) return;
    f(G);
    after(ev);
  };
  $("takeback-btn").addEventListener("click", act((G) => {
    G.takebackAsked = true; // one request per own turn (the server's rule): the button goes
    send({ type: "takeback_offer", game: G.code });
  }));
  $("takeback-accept").addEventListener("click", act((G) => send({ type: "takeback_accept", game: G.code })));
  $("takeback-decline").addEventListener("click", act((G) => send({ type: "takeback_decline", game: G.code })));
  $("give-time-btn").addEventListener("click", act((G) => send({ type: "give_time", game: G.code })));
  const changed = () => {
    const G = current();
    if (G && S.me) sendPreferences(G);
    after(null);
  };
  $("pref-takeback").addEventListener("change", (ev) => {
    localStorage.setItem(TAKEBACK_KEY, ev.target.value);
    changed();
  });
  $("pref-time").addEventListener("change", (ev) => {
    localStorage.setItem(MORE_TIME_KEY, ev.target.checked ? "on" : "off");
    changed();
  });
}
