// The result of a finished game, kept next to the board: who won and why in words ("Bob
// resigned", "Silver's herd has left the field"), the final score, and what to do next: a
// rematch offer the opponent can accept (protocol: rematch / rematch_decline, then `matched`),
// "play again" against the computer or "new game, same settings" (a new create_game), the
// replay, the lobby. Spectators get a link to the rematch when the players start one.
import { $, h, other, SideName, sideName, playerName } from "./dom.js";
import { t } from "./i18n.js";
import { S, send, mySide, botLevel, houseBot } from "./state.js";
import { ratingChange, ratingText, diffSpan, categoryName } from "./ratings.js";
import { isLocalCode } from "./device.js";

// The game's result in words: {head, why, score}; null while it goes on.
export function resultWords(G) {
  const r = G.result;
  if (!r) return null;
  const side = mySide(G);
  const name = (s) => playerName(G.players, s);
  const st = G.state;
  let head;
  if (r.reason === "aborted" || (!r.winner && G.status === "aborted")) head = t("result.noResult");
  else if (r.winner === "draw") head = t("result.draw");
  else if (r.winner && G.players[r.winner]?.id === "you") head = t("result.youWinWith", { side: SideName(r.winner), s: sideName(r.winner) }); // a game on this device, unnamed
  else if (r.winner) head = t("result.wins", { name: name(r.winner), side: SideName(r.winner), s: sideName(r.winner) });
  else head = t("result.noResult");
  if (side && r.winner && r.winner !== "draw" && G.players[r.winner]?.id !== "you") head += ` ${r.winner === side ? t("result.youWin") : t("result.youLose")}`;
  const loser = r.winner && r.winner !== "draw" ? other(r.winner) : null;
  let why;
  switch (r.reason) {
    case "resign": why = t("why.resign", { name: name(loser) }); break;
    case "time": why = t("why.time", { name: name(loser) }); break;
    case "abandon": why = t("why.abandon", { name: name(loser) }); break;
    case "agreement": why = t("why.agreement"); break;
    case "stalling": why = loser ? t("why.stallWin", { name: name(loser) }) : t("why.stallDraw"); break;
    case "trunks": why = t("why.trunks"); break;
    case "quiet": why = t("why.quiet", { n: st?.variant.quiet ?? 40 }); break;
    case "herd": {
      const gone = ["silver", "bronze"].filter((s) => st?.players[s].on_field === 0);
      why = gone.length === 1 ? t("why.herd", { side: SideName(gone[0]), s: sideName(gone[0]) }) : t("why.herds");
      break;
    }
    case "aborted":
      if (G.abortReason === "player" && G.abortSide) why = G.abortSide === side ? t("why.abortedYou") : t("why.abortedPlayer", { name: name(G.abortSide) });
      else why = t(G.abortReason === "abandoned" ? "why.abortedLeft" : G.abortReason === "no_start" ? "why.abortedStart" : "why.aborted");
      break;
    default: why = r.reason ? String(r.reason) : "";
  }
  const sc = r.score ?? st?.score ?? { silver: 0, bronze: 0 };
  return { head, why, score: t("result.score", { silver: sc.silver, bronze: sc.bronze }), sc };
}

export function renderResult(G) {
  const box = $("result");
  const w = resultWords(G);
  box.hidden = !w;
  if (!w) {
    box.removeAttribute("data-score");
    return;
  }
  box.dataset.score = `silver:${w.sc.silver} bronze:${w.sc.bronze}`;
  box.dataset.winner = G.result.winner ?? "none";
  box.dataset.reason = G.result.reason ?? "";
  $("result-head").textContent = w.head;
  $("result-why").textContent = w.why;
  $("result-score").textContent = w.score;
  renderRatingChanges(G);
  const side = mySide(G);
  const opp = side ? G.players[other(side)] : null;
  const bot = botLevel(opp);
  const rm = G.rematch;
  const local = isLocalCode(G.code); // played on this device: "play again", no rematch to ask
  const human = side && opp && !bot && !local;
  const rb = $("rematch-btn");
  rb.hidden = !human || rm.unsupported || rm.offer === other(side) || !!rm.next;
  rb.disabled = rm.offer === side || rm.sent;
  rb.textContent = rm.offer === side || rm.sent ? t("result.rematchSent") : t("result.rematch");
  $("rematch-answer").hidden = !(human && rm.offer === other(side) && !rm.next);
  const note = $("rematch-note");
  let noteText = "";
  if (human && rm.unsupported) noteText = t("result.rematchUnsupported");
  else if (human && rm.offer === other(side)) noteText = t("result.rematchOffered", { name: opp.name });
  else if (human && rm.declined === other(side)) noteText = t("result.rematchDeclined", { name: opp.name });
  else if (human && rm.declined === side) noteText = t("result.rematchYouDeclined");
  note.hidden = !noteText;
  note.textContent = noteText;
  const again = $("again-btn");
  again.hidden = !side;
  again.className = bot || local || (human && rm.unsupported) ? "primary" : "";
  again.textContent = bot || local ? t("result.playAgain") : t("result.sameSettings");
  $("result-replay").hidden = G.result.reason === "aborted";
  const next = $("rematch-next");
  next.hidden = !rm.next || !!side;
  if (rm.next) {
    $("rematch-link").href = `/g/${rm.next}`;
    $("rematch-link").textContent = t("result.watchRematch");
  }
}

// A rated game's rating changes, once the server applied them: the player's own first, then the
// opponent's (a spectator: silver, bronze): "ann 1500? → 1512? +12". Before they come: a line
// saying they are being computed. A rated game counts once a turn was played, and not when
// aborted (server/room/room_timers.cpp).
function renderRatingChanges(G) {
  const box = $("result-ratings");
  const counts = G.result && G.result.reason !== "aborted" && G.status !== "aborted" && !!G.result.winner && G.turns.length > 0;
  const rated = G.rated && (!!G.ratings || counts);
  box.hidden = !rated;
  if (!rated) return box.replaceChildren();
  box.dataset.state = G.ratings ? "done" : "waiting";
  if (!G.ratings) return box.replaceChildren(h("span", { class: "hint", text: t("result.ratingsWaiting") }));
  const mine = mySide(G);
  const order = mine ? [mine, other(mine)] : ["silver", "bronze"];
  const lines = order.map((s) => {
    const c = ratingChange(G, s);
    if (!c) return null;
    const before = { rating: c.before, provisional: G.players[s]?.rating?.provisional ?? c.after.provisional };
    return h("li", { class: `rating-line ${s}`, "data-side": s },
      h("span", { class: "rl-name", text: playerName(G.players, s) }), " ",
      h("span", { class: "rl-before", text: ratingText(before) }), " → ",
      h("b", { class: "rl-after", text: ratingText(c.after) }), " ",
      diffSpan(c.diff));
  });
  box.replaceChildren(h("span", { class: "rl-title", text: t("result.ratingsTitle", { cat: categoryName(G.ratings.category) }) }),
    h("ul", { class: "rating-lines" }, ...lines));
}

// Remembered per game code: how a game this page created was set up (create_game has fields a
// snapshot does not show, such as `public`).
const CREATED_KEY = "trunkfield.created";
export function rememberCreated(code, msg) {
  try {
    const all = JSON.parse(localStorage.getItem(CREATED_KEY) ?? "{}");
    all[code] = { public: msg.public, color: msg.color };
    const keys = Object.keys(all);
    for (const k of keys.slice(0, Math.max(0, keys.length - 50))) delete all[k];
    localStorage.setItem(CREATED_KEY, JSON.stringify(all));
  } catch { /* storage full or refused: the defaults do */ }
}
function created(code) {
  try {
    return JSON.parse(localStorage.getItem(CREATED_KEY) ?? "{}")[code] ?? null;
  } catch {
    return null;
  }
}

// The create_game that repeats G: the same variant, time control, colour and visibility, and the
// same computer opponent when there was one.
export function sameSettings(G) {
  const side = mySide(G);
  const c = created(G.code);
  const msg = { type: "create_game", variant: G.state.variant, time_control: G.timeControl ?? null,
    color: c?.color ?? side ?? "random", public: c?.public ?? true };
  const bot = botLevel(G.players[other(side)]);
  const house = houseBot(G.players[other(side)]);
  if (bot) msg.bot = bot;
  else if (G.rated && S.me?.account) msg.rated = true;
  if (house) Object.assign(msg, { to: G.players[other(side)].name, public: false }); // the same house bot
  return msg;
}

export function setupResult(G0) {
  const current = () => (S.route.view === "game" ? S.games.get(S.route.code) : null) ?? G0;
  $("rematch-btn").addEventListener("click", () => {
    const G = current();
    if (!G) return;
    G.rematch = { ...G.rematch, sent: true, declined: null };
    S.rematchProbe = { code: G.code, at: Date.now() };
    send({ type: "rematch", game: G.code });
    renderResult(G);
  });
  $("rematch-accept").addEventListener("click", () => {
    const G = current();
    if (G) send({ type: "rematch", game: G.code });
  });
  $("rematch-decline").addEventListener("click", () => {
    const G = current();
    if (!G) return;
    send({ type: "rematch_decline", game: G.code });
    G.rematch = { ...G.rematch, offer: null, declined: mySide(G) };
    renderResult(G);
  });
}
