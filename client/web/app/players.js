// The two player cards of a game screen, directly above and below the board: name, presence
// (connected, or away with the time left before the opponent may claim the win; none in a
// correspondence game), clock (days and hours in a correspondence game), and the
// counts that make the score; "on vacation" for a correspondence game's player on vacation, the
// crossed swords beside the clock of an arena game's player who went berserk. The opponent's
// card is on top, the player's own below (for a spectator: bronze on top, silver, who starts
// from the south, below; the other way round on a flipped board, flip.js). In a rated game the name
// has its rating as the game began, lichess's way ("ann (1500?)"), and after it the change
// ("+12"); an account's name links to its player page.
import { $, h, other, SideName, fmtClock, fmtDays, playerName } from "./dom.js";
import { t } from "./i18n.js";
import { pieceIcon } from "./board.js";
import { mySide, botLevel } from "./state.js";
import { playerLink, ratingSpan, ratingChange, diffSpan } from "./ratings.js";
import { boardFlipped } from "./flip.js";
import { berserkIcon, wentBerserk } from "./berserk.js";

export function clockMs(G, s) {
  const c = G.clocks;
  if (!c || typeof c[`${s}_ms`] !== "number") return null;
  let ms = c[`${s}_ms`];
  if (c.running === s && !G.result && G.status === "playing") ms -= performance.now() - G.clocksAt;
  return ms;
}

// A clock's reading in words: "4:59", or for a correspondence game "2d 23h" (under an hour as
// the others).
export const clockText = (G, ms) => (G.timeControl?.days_per_move ? fmtDays(ms) : fmtClock(ms));

// A seat's presence: {cls, text}; null in a correspondence game, whose players come and go as
// they like (the server says nothing of it).
function presence(G, s) {
  if (!G.players?.[s]) return { cls: "open", text: t("card.openSeat") };
  if (botLevel(G.players[s])) return { cls: "bot", text: t("card.computer") };
  if (G.localGame) return { cls: "local", text: t("local.title") }; // at this screen: nobody comes or goes
  if (G.timeControl?.days_per_move) return null;
  const away = G.away?.[s];
  if (!away) return { cls: "here", text: t("card.here") };
  if (G.result || G.status !== "playing" || (G.state?.turns_played ?? 0) === 0) return { cls: "away", text: t("card.away") };
  const wait = Math.ceil(((away.claim_at ?? 0) - Date.now()) / 1000);
  return { cls: "away", text: wait > 0 ? t("card.awayFor", { s: wait }) : t("card.awayClaimable") };
}

// Correspondence games: the side's player is on vacation (PROTOCOL.md "Vacation": their time
// stands on their move, the event's clocks say so), while the game goes on.
export const onVacation = (G, s) => !G.result && G.status === "playing" && !!G.vacation?.includes(s);

function card(G, st, s) {
  const p = st.players[s];
  const side = mySide(G);
  // The side to move is the game's (or, once the player's turn is sent, the one it leaves),
  // never that of a draft's preview `st`: while the player drafts, their own clock runs.
  const turn = !G.result && (G.shown ?? G.state).to_move === s && G.status === "playing" && G.browse === null;
  const ms = clockMs(G, s);
  const pr = presence(G, s);
  const low = ms !== null && ms < lowTimeMs(G) && turn;
  const stats = [["trunks", p.trunks], ["burnt", p.burnt_left], ["saved", p.saved], ["captured", p.captured], ["onField", p.on_field]];
  const tags = [SideName(s), side === s ? t("card.you") : null, turn ? t("card.toMove") : null].filter(Boolean).join(" · ");
  const name = G.players?.[s] ? playerLink(G.players[s], { rated: G.rated }) : h("span", { class: "name", text: playerName(G.players, s) });
  name.title = name.textContent; // whole, should the card be too narrow for it
  // The name has the card's whole first line (with its rating and, after a rated game, the
  // change): about 20 characters fit on a desktop's side column as on a phone.
  return h("div", { class: `pcard ${s}${turn ? " to-move" : ""}${side === s ? " own" : ""}`, "data-side": s },
    h("div", { class: "pc-top" },
      pieceIcon(s, 26, s === "silver" ? "N" : "E"),
      h("span", { class: "pc-who" },
        name,
        ratingSpan(G.players?.[s]?.rating),
        ratingChange(G, s) ? diffSpan(ratingChange(G, s).diff) : null),
      onVacation(G, s) ? h("span", { class: "pc-vacation", "data-vacation": s, title: t("vacation.badgeTitle") }, t("vacation.badge")) : null),
    h("div", { class: "pc-line" },
      h("span", { class: "pc-tag", text: tags }),
      pr ? h("span", { class: `presence ${pr.cls}`, "data-presence": pr.cls, title: pr.text },
        h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: `ptext${pr.cls === "bot" || pr.cls === "local" ? " sr-only" : ""}`, text: pr.text })) : null,
      h("span", { class: "pc-score", title: t("card.score"), "aria-label": `${t("card.score")} ${p.score}`, text: String(p.score) }),
      // berserk (arena games): beside the clock it halved, for the whole game
      wentBerserk(G, s) ? h("span", { class: "pc-berserk", "data-berserk": s, role: "img",
        "aria-label": t("berserk.badge"), title: t("berserk.badgeTitle") }, berserkIcon()) : null,
      ms !== null ? h("span", { class: `clock${G.clocks?.running === s && !G.result ? " running" : ""}${low ? " low" : ""}`,
        "data-side": s, text: clockText(G, ms), "aria-label": t("card.clock", { side: SideName(s) }) }) : null),
    h("dl", { class: "pc-stats" }, ...stats.flatMap(([k, v]) => [h("dt", { text: t(`card.${k}`) }), h("dd", { class: k, text: String(v) })])));
}

// The side shown below the board (the player's own, else silver).
export const bottomSide = (G) => mySide(G) ?? "silver";

export function renderCards(G, st) {
  const low = boardFlipped() ? other(bottomSide(G)) : bottomSide(G); // a flipped board: the other side below
  $("card-bottom").replaceChildren(card(G, st, low));
  $("card-top").replaceChildren(card(G, st, other(low)));
}

// The clocks only (twice a second): no redraw of the cards.
export function tickClocks(G) {
  for (const el of document.querySelectorAll("#game .clock[data-side]")) {
    const s = el.dataset.side;
    const ms = clockMs(G, s);
    if (ms === null) continue;
    el.textContent = clockText(G, ms);
    el.classList.toggle("low", ms < lowTimeMs(G) && el.classList.contains("running"));
  }
  for (const el of document.querySelectorAll("#game .pcard")) {
    const pr = presence(G, el.dataset.side);
    const t2 = el.querySelector(".ptext");
    if (pr && t2 && t2.textContent !== pr.text) t2.textContent = pr.text;
  }
}

// Below this much time left the clock is shown in red and sounds once (an hour in a
// correspondence game).
export function lowTimeMs(G) {
  if (G.timeControl?.days_per_move) return 3600000;
  const initial = G.timeControl?.initial_ms ?? 0;
  return Math.min(20000, Math.max(5000, initial / 6));
}
