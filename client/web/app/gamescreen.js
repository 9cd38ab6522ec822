// The game screen: board between the two player cards, the result next to the board once the
// game is over, status and instructions, the turn being built (or a premove), the clickable turn
// list with browsing of earlier positions, draw/resign/claim, takebacks and more time
// (takeback.js), berserk in arena games (berserk.js), chat (with Report for the opponent and for
// a line's author: report.js). The same screen is the spectator view (no seat: read-only).
// Drawing only; the model is game.js, the turn is turn.js.
import { $, h, other, SideName, sideName, variantText, tcText, errorText, playerName, flash } from "./dom.js";
import { t, lang, fmtDate } from "./i18n.js";
import { renderBoard, renderLegend, cellName, key, unkey, arrival, isField, svgEl } from "./board.js";
import { animateTurn } from "./anim.js";
import { playSound } from "./sound.js";
import { S, app, send, sendCreate, mySide, botLevel } from "./state.js";
import { turnPhase, drafting, legalMoves, elephantReady, draftResult, candidates, facingChoices, draftTurn,
  onCell, chooseFacing, toggleBurnt, canSend, canBurn, sendDraft, undo } from "./turn.js";
import { Rules } from "./trunkfield-rules.js";
import { renderCards, tickClocks, clockMs, lowTimeMs } from "./players.js";
import { renderResult, setupResult, sameSettings, resultWords } from "./result.js";
import { categoryName, categoryOf, isAccount } from "./ratings.js";
import { boardFlipped, renderFlipButtons } from "./flip.js";
import { randomSetup, lastSetup, fillSetup } from "./setupfill.js";
import { renderTakeback, setupTakeback } from "./takeback.js";
import { renderBerserk, setupBerserk } from "./berserk.js";
import { renderTyped, setupTyped } from "./typed.js";
import { renderBlind, blindOn, setBlind } from "./blind.js";
import { setupBoardPrefs } from "./boardprefs.js";
import { isLocalCode, localPath } from "./device.js";
import { againLocal } from "./localgame.js";
import { challengeRole, challengeStatus, renderChallengeBox, knownChallenge } from "./challenge.js";
import { openReport, canReport } from "./report.js";

const current = () => (S.route.view === "game" ? S.games.get(S.route.code) : null);
const CHAT_KEY = "trunkfield.chat";
export const chatHidden = () => localStorage.getItem(CHAT_KEY) === "hidden";

export function notation(turn, size) {
  if (!S.rulesReady) return "…";
  const r = Rules.turnToNotation(turn, size);
  return r.notation ?? JSON.stringify(turn);
}

// Cells of a turn, for the board's last-move style: {cells, from, path}.
export function turnCells(turn, n) {
  if (!turn) return null;
  const cells = [];
  const e = turn.elephant;
  if (e) cells.push(e.from, ...e.path.filter((c) => c[0] >= 0 && c[0] <= n + 1));
  if (turn.burnt) cells.push(turn.burnt);
  for (const g of turn.guardians ?? []) cells.push(g.from, arrival(g, n));
  return { cells, from: e?.from, path: e?.path ?? [] };
}

// What the board shows now: the state and its highlights.
export function boardView(G) {
  const side = mySide(G);
  if (G.browse !== null) {
    const st = G.positions[G.browse] ?? G.state;
    const tt = G.turns[G.browse - 1];
    return { st, hl: { last: tt ? turnCells(tt.turn, st.variant.size) : null, captures: tt?.captures ?? [] } };
  }
  const phase = turnPhase(G);
  const d = G.draft;
  const dr = drafting(G) ? draftResult(G) : null;
  const st = dr?.state ?? G.shown ?? G.state;
  const n = st.variant.size;
  const hl = { cands: candidates(G) };
  // The last turn: the own turn just sent (shown as played), else the last one confirmed; hidden
  // while a draft is being made over it.
  const lt = G.pending?.turn ? { turn: G.pending.turn, captures: [] } : G.last;
  if (lt?.turn && !(drafting(G) && (d.from || dr))) {
    hl.last = turnCells(lt.turn, n);
    if (!G.pending) hl.captures = lt.captures ?? [];
  }
  if (G.premove) hl.premove = turnCells(G.premove.turn, n);
  if (G.pending) return { st, hl: { last: hl.last } }; // nothing drafted over the position sent
  if (drafting(G)) {
    const ghostFacing = G.state.elephants.find((e) => d.from && e.cell[0] === d.from[0] && e.cell[1] === d.from[1])?.facing;
    if (d.from && d.path.length && !dr) hl.ghost = { cell: d.path.at(-1), side, facing: ghostFacing };
    if (!elephantReady(G) && !d.path.length) hl.movable = new Set(legalMoves(G).map((m) => key(m.from)));
    hl.selected = d.selGuard ?? (dr ? null : d.from);
    hl.path = dr ? [] : d.path;
    if (dr) hl.captures = dr.captures;
    const faces = facingChoices(G);
    if (faces.length) hl.facing = { cell: d.path.at(-1), dirs: faces };
  }
  hl.occupied = new Set([...st.elephants.map((e) => key(e.cell)), ...st.guardians.map((g) => key(g.cell)),
    ...(phase === "setup" ? [...d.setupE, ...d.setupG].map(key) : [])]);
  if (phase === "setup") {
    hl.zoneSide = side;
    hl.setupMarks = { side, elephants: d.setupE, guardians: d.setupG };
  }
  return { st, hl, dr, phase };
}

export function renderGame(G) {
  const focused = document.activeElement;
  const focusInGame = $("game").contains(focused) && !$("board").contains(focused);
  renderZen();
  // A game on this device has no code to share, no spectators and no chat.
  const local = isLocalCode(G.code);
  $("game-code").textContent = local ? t("local.title") : G.code;
  const side = mySide(G);
  $("game-role").textContent = G.localGame === "pass" ? t("device.pass") : side ? t("game.youPlay", { side: sideName(side) })
    : challengeRole(G) === "invitee" && G.status === "open" ? t("challenge.role") : t("game.watching");
  const sc = $("spectators");
  sc.hidden = local;
  sc.dataset.count = String(G.spectators);
  sc.textContent = t("game.spectators", { n: G.spectators });
  $("copy-link").hidden = G.status === null || local;
  const rt = $("game-rated");
  rt.hidden = !G.rated;
  rt.textContent = G.rated ? t("game.rated", { cat: categoryName(categoryOf(G.state?.variant, G.timeControl) ?? "untimed") }) : "";
  const err = $("error");
  err.hidden = !G.error;
  err.textContent = errorText(G.error);
  if (!G.state || !S.rulesReady) {
    const gone = G.missing && knownChallenge(G.code);
    $("status").textContent = gone ? t("challenge.gone") : G.missing ? t("game.missing", { code: G.code }) : !S.rulesReady ? t("app.loadingRules") : t("game.loading");
    $("board").replaceChildren();
    $("board")._sig = null;
    for (const id of ["card-top", "card-bottom"]) $(id).replaceChildren();
    $("controls").hidden = true;
    $("missing-replay").hidden = !G.missing || gone;
    $("away-note").hidden = true;
    for (const id of ["actions", "result", "share", "browse-bar", "turns-card", "chat-card", "challenge-box"]) $(id).hidden = true;
    return;
  }
  for (const id of ["actions", "turns-card", "chat-card"]) $(id).hidden = false;
  $("chat-card").hidden = local;
  $("missing-replay").hidden = true;
  const { st, hl, dr, phase } = boardView(G);
  const board = $("board");
  const drawn = renderBoard(board, {
    state: st,
    onCell: (c) => {
      const G2 = current();
      if (G2 && onCell(G2, c)) app.render();
    },
    onFacing: (f) => {
      const G2 = current();
      if (G2 && chooseFacing(G2, f)) app.render();
    },
    // Enter on a complete setup sends it, whichever cell has the focus (Space still toggles)
    onEnter: () => {
      const G2 = current();
      if (!G2 || turnPhase(G2) !== "setup" || !canSend(G2)) return false;
      $("send-btn").click();
      return true;
    },
    highlights: hl,
    flip: boardFlipped(),
  });
  if (drawn && G.animate) {
    animateTurn(board, G.animate);
  }
  G.animate = null;
  board.dataset.browse = G.browse === null ? "live" : String(G.browse);

  renderCards(G, st);
  renderResult(G);
  if (G.status === "aborted" || G.result?.reason === "aborted") noRematch();
  renderAway(G);
  // Spectators may turn the board; a player who did (key F) gets the button to turn it back.
  $("flip-btn").hidden = !!side && !boardFlipped();
  renderFlipButtons();
  $("status").textContent = statusText(G, phase, dr, st);
  $("status").dataset.phase = phase ?? "";
  const shareBox = $("share");
  shareBox.hidden = !(G.status === "open" && side);
  if (!shareBox.hidden) $("share-link").value = `${location.origin}/g/${G.code}`;
  // A challenge's link is for the challenged player only: no link to share, the cancel stays.
  const challenge = challengeRole(G);
  shareBox.classList.toggle("for-challenge", !!challenge);
  $("cancel-game").textContent = t(challenge ? "challenge.cancel" : "game.cancel");
  renderChallengeBox(G);

  const browsing = G.browse !== null;
  const bb = $("browse-bar");
  bb.hidden = !browsing;
  if (browsing) $("browse-text").textContent = G.browse === 0 ? t("browse.start", { n: G.turns.length }) : t("browse.at", { i: G.browse, n: G.turns.length });

  const faces = facingChoices(G);
  $("facing").hidden = faces.length === 0;
  for (const b of $("facing").querySelectorAll("button")) b.hidden = !faces.includes(b.dataset.facing);
  renderDraft($("draft"), G, phase, dr);
  renderSetupFill(G, phase);
  renderTyped(G, phase);
  renderBlind(G);
  const premove = phase === "premove";
  $("undo-btn").disabled = !(phase && G.history.length);
  $("send-btn").disabled = !canSend(G);
  $("send-btn").textContent = phase === "setup" ? t("turn.sendSetup") : premove ? t("premove.queue") : t("turn.send");
  $("undo-btn").hidden = !phase;
  $("send-btn").hidden = !phase;
  $("premove-cancel").hidden = !G.premove;
  const canJoin = G.status === "open" && !side && !G.invitee && ["silver", "bronze"].some((s) => !G.players[s]);
  $("join-seat").hidden = !canJoin;
  $("controls").hidden = (!phase && !canJoin && !G.premove) || browsing;

  const live = side && G.status === "playing" && !G.result;
  $("actions").hidden = !live;
  $("resign-btn").hidden = !live;
  $("draw-btn").hidden = !live || G.drawOffer === side || G.drawOffer === other(side);
  $("draw-answer").hidden = !live || G.drawOffer !== other(side);
  renderTakeback(G, live);
  renderBerserk(G);
  if (local) $("prefs-card").hidden = true; // nobody to ask: the computer grants takebacks
  renderClaim(G);
  renderTurnList(G);
  renderChat(G);
  const turnText = G.result ? t("meta.played", { n: st.turns_played }) : t("meta.turn", { n: st.turns_played + 1 });
  $("meta").textContent = [turnText, t("meta.quiet", { q: st.quiet_turns, of: st.variant.quiet }), t("meta.trunks", { n: st.trunks.length }),
    variantText(st.variant), tcText(G.timeControl), G.rated ? rt.textContent : t("game.casual")].join(" · ");
  keepFocus(focusInGame ? focused : null);
}

function statusText(G, phase, dr, st) {
  const side = mySide(G);
  const d = G.draft;
  const name = (s) => playerName(G.players, s);
  const toMove = (G.shown ?? G.state).to_move;
  if (G.browse !== null) return t("status.browsing");
  const challenge = challengeStatus(G);
  if (challenge) return challenge;
  if (G.status === "open") return side ? t("status.waitOpponent") : t("status.openGame");
  if (G.status === "cancelled") return t("status.cancelled");
  if (G.status === "suspended") return t("status.suspended");
  if (G.result) return t("status.over");
  if (G.pending) {
    if (S.conn !== "online") return t("status.pendingOffline");
    const waited = performance.now() - (G.pending.at ?? 0);
    return waited > 3000 ? t("status.pendingSlow") : t("status.pending");
  }
  if (G.drawOffer && side && G.drawOffer === other(side)) return t("status.drawOffered", { side: SideName(G.drawOffer), name: name(G.drawOffer) });
  if (G.takebackOffer && side && G.takebackOffer === other(side))
    return t("status.takebackOffered", { side: SideName(G.takebackOffer), name: name(G.takebackOffer), n: G.takebackTurns?.[G.takebackOffer] ?? 1 });
  // the opponent sits on a lost position: say what may be done (unless a premove is being drafted)
  if (G.stalling && side && G.stalling === other(side) && !G.premove && !d.from && !d.selGuard)
    return t("status.stalling", { side: SideName(G.stalling), name: name(G.stalling) });
  if (phase === "setup") {
    const E = st.variant.elephants;
    return t(`status.setup.${side}`, { n: E, e: d.setupE.length, g: d.setupG.length });
  }
  if (G.premove) return t("status.premoveQueued", { turn: notation(G.premove.turn, st.variant.size) });
  if (phase === "turn" || phase === "premove") {
    const prefix = phase === "premove" ? `${t("status.premovePrefix", { side: SideName(other(side)), name: name(other(side)) })} ` : "";
    if (legalMoves(G).length === 0 && !d.burntMode && !d.selGuard && !d.burnt && !d.guardians.length) return prefix + t("status.pass");
    if (!d.from && !elephantReady(G)) return prefix + (phase === "premove" ? t("status.premoveChoose") : t("status.choose"));
    if (!elephantReady(G) && !d.path.length) return prefix + t("status.firstStep");
    if (!elephantReady(G)) return prefix + (facingChoices(G).length ? t("status.nextOrFacing") : t("status.next"));
    if (dr?.state.over) return prefix + t("status.ends");
    if (d.burntMode) return prefix + t("status.burnt");
    if (d.selGuard) return prefix + t("status.guardian", { n: dr?.state.players[side].trunks ?? 0 });
    return prefix + t(phase === "premove" ? "status.premoveReady" : "status.ready");
  }
  if (toMove && (G.shown ?? G.state).phase.startsWith("setup")) return t("status.placing", { side: SideName(toMove), name: name(toMove) });
  if (toMove) return t("status.toMove", { side: SideName(toMove), name: name(toMove) });
  return "";
}

// The turn being built, in the notation, with its cost and captures; the burnt-trunk switch.
export function renderDraft(el, G, phase, dr) {
  el.replaceChildren();
  if (!drafting(G)) return;
  const d = G.draft;
  const side = mySide(G);
  const n = G.state.variant.size;
  const ids = el.id === "draft";
  if (!elephantReady(G)) {
    if (d.from) el.append(h("div", { class: "notation", text: t("draft.partial", { cells: [d.from, ...d.path].map((c) => cellName(c, n)).join("-") }) }));
    return;
  }
  el.append(h("div", { class: "notation", id: ids ? "draft-notation" : null, text: t("draft.turn", { turn: notation(draftTurn(G), n) }) }));
  if (!dr) return;
  const cost = d.guardians.reduce((a, g) => a + g.steps, 0);
  const held = G.state.players[side].trunks;
  const collected = dr.before.players[side].trunks - held;
  if (cost)
    el.append(h("div", { class: "cost", id: ids ? "draft-cost" : null,
      text: t("draft.cost", { cost, held, collected, left: dr.state.players[side].trunks }) }));
  if (dr.captures.length) {
    const words = dr.captures.map((e) => t("draft.capture", { side: sideName(e.side), cell: cellName(e.cell, n), gainer: sideName(other(e.side)) }));
    el.append(h("div", { class: "captures", id: ids ? "draft-captures" : null, text: t("draft.captures", { list: words.join(", ") }) }));
  }
  if (canBurn(G))
    el.append(h("button", { type: "button", class: "burnt-btn", id: ids ? "burnt-btn" : null, "aria-pressed": d.burntMode ? "true" : "false",
      text: d.burntMode ? t("draft.burntCancel") : t("draft.burnt", { n: dr.state.players[side].burnt_left }),
      onclick: (ev) => {
        toggleBurnt(G);
        if (byKey(ev)) boardWanted = true; // the next choice is a cell
        app.render();
      } }));
}

// During the player's setup: "Random setup" and "My last setup" (disabled when none fits here).
function renderSetupFill(G, phase) {
  const box = $("setup-fill");
  box.hidden = phase !== "setup";
  if (box.hidden) return;
  const k = `${G.code}|${G.version}`;
  if (G.lastSetupFor !== k) {
    G.lastSetupFor = k;
    G.lastSetup = lastSetup(G);
  }
  const b = $("setup-last");
  b.disabled = !G.lastSetup;
  b.title = G.lastSetup ? t("setup.lastHint") : t("setup.noLast");
}

// An aborted game was never played: no rematch is offered for it, nor an offer put to the player
// (a new game with the same settings is offered).
function noRematch() {
  for (const id of ["rematch-btn", "rematch-answer", "rematch-note"]) $(id).hidden = true;
}

// The opponent's seat is away (a stale game whose creator left, a dropped connection): said right
// under the opponent's card, above the board or, flipped, below it; until silver's first turn the
// player may leave without a result.
function renderAway(G) {
  const side = mySide(G);
  const away = side && G.status === "playing" && !G.result && !!G.players[other(side)] && !!G.away?.[other(side)];
  const box = $("away-note");
  box.hidden = !away;
  if (!away) return;
  const slot = $(boardFlipped() ? "card-bottom" : "card-top"); // the opponent's card (players.js)
  if (slot.nextElementSibling !== box) slot.after(box);
  const abortable = (G.state?.turns_played ?? 0) === 0;
  $("away-text").textContent = abortable ? t("away.notice") : t("away.noticeWait");
  $("abort-btn").hidden = !abortable;
}

// The opponent is away: after its grace period the player may claim the win.
// Or the opponent sits on a lost position (stalling): the win or a draw may be claimed at once.
function renderClaim(G) {
  const side = mySide(G);
  const b = $("claim-btn");
  const stalled = !!side && G.stalling === other(side) && !G.result && G.status === "playing";
  $("claim-draw-btn").hidden = !stalled;
  if (stalled) {
    b.hidden = false;
    b.disabled = false;
    b.textContent = t("game.claimStalling");
    return;
  }
  const away = side ? G.away?.[other(side)] : null;
  // before silver's first turn nobody wins by abandonment (the away note offers to leave instead)
  if (!side || !away || G.result || G.status !== "playing" || (G.state?.turns_played ?? 0) === 0) {
    b.hidden = true;
    return;
  }
  b.hidden = false;
  const wait = Math.ceil(((away.claim_at ?? 0) - Date.now()) / 1000);
  b.disabled = wait > 0;
  b.textContent = wait > 0 ? t("game.claimIn", { s: wait }) : t("game.claim");
}

function renderTurnList(G) {
  const log = $("turn-log");
  if (!S.rulesReady) return;
  const n = G.state.variant.size;
  const cur = G.browse ?? G.turns.length;
  const items = G.turns.map((tt, i) => {
    const caps = tt.captures.length
      ? h("span", { class: "caps", text: ` ✕ ${tt.captures.map((c) => t("turns.captured", { side: sideName(c.side), cell: cellName(c.cell, n) })).join(", ")}` })
      : null;
    return h("li", { class: tt.side },
      h("button", { type: "button", class: `turn-btn${i + 1 === cur ? " current" : ""}${i === G.turns.length - 1 ? " last" : ""}`,
        "data-index": i + 1, "aria-current": i + 1 === cur ? "step" : false,
        "aria-label": t("turns.label", { i: i + 1, side: SideName(tt.side), what: turnWords(tt, G.positions[i], G.positions[i + 1], n),
          notation: notation(tt.turn, n) }),
        onclick: () => browseTo(G, i + 1 === G.turns.length ? null : i + 1) },
      h("span", { class: "num", text: `${i + 1}.` }),
      h("span", { class: "who", text: sideName(tt.side) }),
      h("span", { class: "nt", text: notation(tt.turn, n) }),
      caps));
  });
  log.replaceChildren(...items);
  const el = log.querySelector(".current") ?? log.lastElementChild;
  if (el) {
    const top = el.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top + el.offsetHeight > log.scrollTop + log.clientHeight) log.scrollTop = top - log.clientHeight / 2;
  }
}

// The opponent's seat, when the page's player may report it (an account, not the computer).
function reportable(G, player) {
  return !!player && !botLevel(player) && canReport(player.name) && isAccount(player, G.rated);
}

// A small flag (an SVG: emoji fonts are not everywhere).
function flagIcon() {
  const svg = svgEl("svg", { viewBox: "0 0 16 16", width: 13, height: 13, "aria-hidden": "true", class: "flag-icon" });
  svgEl("path", { d: "M3.5 15V1.5M3.5 2h9l-2 3.5 2 3.5h-9", class: "flag-shape" }, svg);
  return svg;
}

// "Report NAME" in the chat's head: the opponent, from a seated account (a spectator reports a
// line's author with its flag).
function renderReportOpponent(G) {
  const side = mySide(G);
  const opp = side ? G.players[other(side)] : null;
  const b = $("report-opp");
  b.hidden = !reportable(G, opp);
  if (b.hidden) return;
  b.textContent = t("report.opponent", { name: opp.name });
  b.dataset.name = opp.name;
}

function renderChat(G) {
  const hidden = chatHidden();
  const side = mySide(G);
  const unseen = G.chat.length - (G.chatSeen ?? 0);
  renderReportOpponent(G);
  $("chat-toggle").textContent = !hidden ? t("chat.hide") : unseen > 0 ? t("chat.showNew", { n: unseen }) : t("chat.show");
  if (!hidden) G.chatSeen = G.chat.length;
  $("chat-toggle").setAttribute("aria-pressed", hidden ? "true" : "false");
  $("chat-body").hidden = hidden;
  if (hidden) return;
  const chat = $("chat-log");
  // Each line of another account may be reported with the flag after its author's name.
  const flags = G.chat.map((c) => !c.mine && reportable(G, { id: c.id, name: c.name }));
  // redrawn when it changed only: a flag with the focus stays while the page redraws
  const sig = `${lang()}|${G.code}|${G.chat.length}|${G.chat[0]?.text ?? ""}|${G.chat.at(-1)?.name ?? ""}:${G.chat.at(-1)?.text ?? ""}|` +
    `${flags.map(Number).join("")}|${(G.chatOut ?? []).map((c) => `${c.state}:${c.text}`).join("\n")}`;
  if (chat.dataset.sig !== sig) {
    chat.dataset.sig = sig;
    // The player's own lines not yet back from the server (greyed), or refused (with the reason).
    const out = (G.chatOut ?? []).map((c) => h("div", { class: `chat-line mine ${c.state}` },
      h("b", { class: "chat-name", text: `${S.me?.name ?? ""}: ` }), h("span", { class: "chat-text", text: c.text }),
      c.state === "refused" ? h("span", { class: "chat-why", text: ` ${t("chat.refused", { reason: errorText(c.reason) })}` }) : null));
    chat.replaceChildren(...G.chat.map((c, i) => h("div", { class: `chat-line${c.room === "spectators" ? " spect-room" : ""}${c.mine ? " mine" : ""}` },
      c.room === "spectators" ? h("span", { class: "chat-room", text: t("chat.spectatorsTag") }) : null,
      h("b", { class: "chat-name", text: `${c.name}: ` }),
      flags[i] ? h("button", { type: "button", class: "chat-report", "aria-label": t("report.line", { name: c.name }), title: t("report.line", { name: c.name }),
        onclick: () => openReport(c.name, isLocalCode(G.code) ? null : G.code, "abuse") }, flagIcon()) : null,
      h("span", { class: "chat-text", text: c.text }))), ...out);
    chat.scrollTop = chat.scrollHeight;
  }
  $("chat-form").hidden = G.status === "cancelled";
  $("chat-input").placeholder = side ? t("chat.placeholderPlayer") : G.chatRooms ? t("chat.placeholderSpectatorRoom") : t("chat.placeholderSpectator");
  // muted by a moderator: the server's words, under the input, until a line goes through again
  const muted = $("chat-muted");
  muted.hidden = !G.chatMuted;
  muted.textContent = G.chatMuted ? mutedWords(G.chatMuted.message) : "";
}

// The server's chat_muted message ("a moderator muted your chat until 2026-12-05 23:46 UTC") in
// the page's language and time zone when it reads as that; else in the server's own words.
function mutedWords(message) {
  const m = /until (\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::\d{2})?\s*(?:UTC|Z)/.exec(message ?? "");
  if (m) {
    const at = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]));
    return t("chat.mutedUntil", { date: fmtDate(at.toISOString()) });
  }
  return t("chat.muted", { message: message || t("err.chat_muted") });
}


// A turn in words, for screen readers (the live region, the turn list): "elephant a3 to b3,
// collected 1 trunk, guardian W5 to W4, captured bronze a4". `before`/`after`: the positions
// around it (the trunks collected), when known.
export function turnWords(tt, before, after, n) {
  const parts = [];
  const e = tt.turn.elephant;
  const to = e?.path?.at(-1);
  if (!e || !to) parts.push(t("say.pass"));
  else if (!isField(to, n)) parts.push(t("say.exit", { from: cellName(e.from, n), to: cellName(to, n) }));
  else {
    parts.push(t("say.elephant", { from: cellName(e.from, n), to: cellName(to, n) }));
    if (e.facing) parts.push(t("say.facing", { dir: t(`dir.${e.facing}`) }));
  }
  const collected = before && after ? before.trunks.length - after.trunks.length : 0;
  if (collected > 0) parts.push(t("say.collected", { n: collected }));
  if (tt.turn.burnt) parts.push(t("say.burnt", { cell: cellName(tt.turn.burnt, n) }));
  for (const g of tt.turn.guardians ?? []) parts.push(t("say.guardian", { from: cellName(g.from, n), to: cellName(arrival(g, n), n) }));
  if (tt.captures?.length)
    parts.push(t("say.captured", { list: tt.captures.map((c) => t("turns.captured", { side: sideName(c.side), cell: cellName(c.cell, n) })).join(", ") }));
  return parts.join(", ");
}

// The page's live region (#announce, polite): what the others do, said to a screen reader in the
// page's language: the opponent's turns in words, joining, setting up, draw offers, leaving and
// coming back, the end with the result (a spectator hears both sides). The last few lines stay.
export function say(text, code) {
  const box = $("announce");
  if (box.dataset.game !== code) box.replaceChildren(); // another game's news is no news here
  box.dataset.game = code;
  box.append(h("p", { text }));
  while (box.childElementCount > 5) box.firstElementChild.remove();
}

export function announce(G, ev) {
  if (S.route.view !== "game" || S.route.code !== G.code || !S.rulesReady || !G.state) return;
  const side = mySide(G);
  const p = ev.payload ?? {};
  const who = (s) => ({ name: playerName(G.players, s), side: SideName(s), s: sideName(s) });
  const theirs = !!p.side && p.side !== side;
  let text = "";
  switch (ev.kind) {
    case "turn": {
      const i = G.turns.length - 1;
      const tt = G.turns[i];
      if (theirs && tt) text = t("say.turn", { ...who(tt.side), what: turnWords(tt, G.positions[i], G.positions[i + 1], G.state.variant.size) });
      break;
    }
    case "join": if (theirs) text = t("say.joined", who(p.side)); break;
    case "setup": if (theirs) text = t("say.setup", who(p.side)); break;
    case "draw_offer": if (theirs) text = t("say.drawOffer", who(p.side)); break;
    case "draw_decline": if (theirs) text = t("notice.drawDeclined", who(p.side)); break;
    case "takeback_offer": if (theirs) text = t("say.takebackOffer", { ...who(p.side), n: G.takebackTurns?.[p.side] ?? 1 }); break;
    case "takeback_decline":
    case "takeback":
    case "time_given":
      text = takebackNews(G, ev);
      break;
    case "stalling": if (theirs) text = t("say.stalling", who(p.side)); break;
    case "berserk":
      // news for everyone on the page: the clock of that side just lost half its initial time
      if (p.side) {
        text = p.side === side ? t("notice.berserkYou") : t("notice.berserk", who(p.side));
        showNotice(text);
      }
      break;
    case "vacation":
      // the opponent's vacation is news on the page too; the player's own (from the profile
      // page, maybe another device) is said to a screen reader only
      if (theirs) {
        text = t(p.on ? "say.vacationOn" : "say.vacationOff", who(p.side));
        showNotice(text);
      } else if (p.side === side) text = t(p.on ? "say.vacationOnYou" : "say.vacationOffYou");
      break;
    case "stall_claim": text = t(p.draw ? "say.stallDraw" : "say.stallWin", who(p.side)); break;
    case "player_left": if (theirs) text = t("say.left", who(p.side)); break;
    case "player_back": if (theirs) text = t("say.back", who(p.side)); break;
    case "rematch_offer": if (theirs && side && G.status !== "aborted") text = t("result.rematchOffered", who(p.side)); break;
    case "game_over": {
      const w = resultWords(G);
      if (w) text = t("say.over", { head: w.head, why: w.why, score: w.score });
      break;
    }
  }
  if (text) say(text, G.code);
}

// What the page says about a takeback answered or time given, on the page (a notice) and to a
// screen reader: "Ann declined your takeback.", "Ann took back 2 turns.", "You took back 1 turn.",
// "Ann gave you 15 seconds."; "" when it is no news (the player's own decline).
function takebackNews(G, ev) {
  const side = mySide(G);
  const p = ev.payload ?? {};
  if (!p.side) return "";
  const name = playerName(G.players, p.side);
  let text = "";
  if (ev.kind === "takeback_decline") text = p.side !== side && side ? t("notice.takebackDeclined", { name }) : "";
  else if (ev.kind === "takeback") text = p.side === side ? t("notice.takebackYou", { n: p.turns ?? 1 }) : t("notice.takeback", { name, n: p.turns ?? 1 });
  else if (ev.kind === "time_given") {
    const s = Math.round((p.ms ?? 15000) / 1000);
    const to = other(p.side);
    text = p.side === side ? t("notice.timeGivenYou", { name: playerName(G.players, to), s })
      : to === side ? t("notice.timeGiven", { name, s }) : t("notice.timeGivenOther", { name, to: playerName(G.players, to), s });
  }
  if (text) showNotice(text);
  return text;
}

// Keyboard play: after a game action made with the keyboard on one of the page's controls (Send,
// a facing, Undo, the burnt trunk, a draw, resigning...), and when the control that had the
// focus goes (hidden, disabled, redrawn), the focus goes back to the board's cell that holds its
// tab stop: a whole turn is played on the board without tabbing back through the page. A turn of
// the list keeps the focus across redraws. Clicks leave the focus where the browser puts it.
let boardWanted = false;
let pointerUsed = false; // the last input was a pointer, not a key
const byKey = (ev) => ev?.detail === 0; // a click made with Enter or Space, or by a screen reader

export function focusBoard() {
  const b = $("board");
  const el = b._cellEls?.get(b._focusKey);
  if (el?.isConnected && !$("game").hidden) el.focus();
}

// `focused`: the page's control that had the focus before the redraw (null: none, or the board).
function keepFocus(focused) {
  const want = boardWanted;
  boardWanted = false;
  if (want) return focusBoard();
  if (pointerUsed || !focused) return;
  const gone = !focused.isConnected || focused.disabled || !(focused.checkVisibility?.() ?? true);
  if (!gone) return;
  const i = focused.classList?.contains("turn-btn") ? focused.dataset.index : null;
  const same = i ? $("turn-log").querySelector(`.turn-btn[data-index="${i}"]`) : null;
  if (same) same.focus();
  else focusBoard();
}

// Zen mode: the board and the two clocks only (the Zen button or the key Z; Esc or either again
// leaves it), remembered on the device.
const ZEN_KEY = "trunkfield.zen";
export const zenOn = () => localStorage.getItem(ZEN_KEY) === "on";
function setZen(on) {
  localStorage.setItem(ZEN_KEY, on ? "on" : "off");
  app.render();
}
function renderZen() {
  const on = zenOn();
  $("game").classList.toggle("zen", on);
  const b = $("zen-btn");
  b.setAttribute("aria-pressed", on ? "true" : "false");
  b.querySelector(".zen-text").textContent = on ? t("zen.leave") : t("zen.button");
  b.setAttribute("aria-label", on ? t("zen.leave") : t("zen.button")); // the word is not shown on a phone
  b.title = t("zen.hint");
}

// Browsing earlier positions: i = turns played in the position shown (0 = after the setups),
// null = the live position.
export function browseTo(G, i) {
  if (!G?.state || G.state.phase.startsWith("setup")) return;
  if (i === null || i >= G.turns.length) G.browse = null;
  else G.browse = Math.max(0, i);
  G.error = null; // a refusal is about the live position: old news once the player browses
  app.render();
}
function browseStep(G, delta) {
  const cur = G.browse ?? G.turns.length;
  browseTo(G, cur + delta);
}

// A turn arrived in G (game.js hook): sound, animation and the premove.
export function onTurnShown(G, entry, live) {
  const side = mySide(G);
  if (!live) return;
  playSound(entry.captures.length ? "capture" : "move");
  if (entry.side !== side && S.route.view === "game" && S.route.code === G.code && G.browse === null) G.animate = entry;
}

// A notice is about its moment: it goes after a few seconds, or sooner with the next news (see
// app.js: the opponent's next turn, the end of the game, another screen).
export function showNotice(text) {
  flash($("notice"), text, 5000);
}
export const clearNotice = () => flash($("notice"), "");

export function setupGameControls() {
  const act = (f) => () => {
    const G = current();
    if (G) {
      f(G);
      app.render();
    }
  };
  setupResult();
  setupTyped({ current, render: () => app.render(), turnWords });
  setupBoardPrefs();
  $("blind-btn").addEventListener("click", () => {
    setBlind(!blindOn());
    app.render();
  });
  $("back-btn").addEventListener("click", () => app.navigate("/"));
  $("result-lobby").addEventListener("click", () => app.navigate("/"));
  $("result-replay").addEventListener("click", () => app.navigate(`/#replay/${S.route.code}`));
  $("missing-replay").addEventListener("click", () => app.navigate(`/#replay/${S.route.code}`));
  $("again-btn").addEventListener("click", act((G) => {
    if (isLocalCode(G.code)) {
      const code = againLocal(G.code);
      if (code) app.navigate(localPath(code));
      return;
    }
    const msg = sameSettings(G);
    if (S.creating) return; // one in flight already
    S.bot = msg.bot ? { level: msg.bot, at: Date.now() } : null;
    sendCreate(msg);
  }));
  $("copy-link").addEventListener("click", async () => {
    const url = `${location.origin}/g/${S.route.code}`;
    const b = $("copy-link");
    try {
      await navigator.clipboard.writeText(url);
      b.textContent = t("game.copied");
    } catch {
      b.textContent = t("game.copyFailed");
    }
    setTimeout(() => (b.textContent = t("game.copyLink")), 2500);
  });
  $("share-link").addEventListener("focus", (ev) => ev.target.select());
  // a game action made with the keyboard hands the focus back to the board (see keepFocus)
  const play = (f) => (ev) => {
    if (byKey(ev)) boardWanted = true;
    act(f)();
  };
  $("undo-btn").addEventListener("click", play((G) => undo(G)));
  $("send-btn").addEventListener("click", play((G) => {
    const wasTurn = turnPhase(G) === "turn";
    const caps = wasTurn ? (draftResult(G)?.captures.length ?? 0) : 0;
    sendDraft(G);
    if (wasTurn && G.pending) playSound(caps ? "capture" : "move");
  }));
  $("premove-cancel").addEventListener("click", play((G) => (G.premove = null)));
  $("join-seat").addEventListener("click", () => S.route.code && app.joinGame(S.route.code));
  for (const b of $("facing").querySelectorAll("button"))
    b.addEventListener("click", play((G) => chooseFacing(G, b.dataset.facing)));
  $("browse-prev").addEventListener("click", act((G) => browseStep(G, -1)));
  $("browse-next").addEventListener("click", act((G) => browseStep(G, 1)));
  $("browse-live").addEventListener("click", act((G) => browseTo(G, null)));
  let resignArmed = null;
  $("resign-btn").addEventListener("click", (ev) => {
    const b = $("resign-btn");
    if (!resignArmed) {
      b.textContent = t("game.resignConfirm");
      resignArmed = setTimeout(() => {
        resignArmed = null;
        b.textContent = t("game.resign");
      }, 4000);
      return;
    }
    clearTimeout(resignArmed);
    resignArmed = null;
    b.textContent = t("game.resign");
    send({ type: "resign", game: S.route.code });
    if (byKey(ev)) focusBoard();
  });
  const sendKey = (type) => (ev) => {
    send({ type, game: S.route.code });
    if (byKey(ev)) focusBoard();
  };
  $("draw-btn").addEventListener("click", sendKey("draw_offer"));
  $("draw-accept").addEventListener("click", sendKey("draw_accept"));
  $("draw-decline").addEventListener("click", sendKey("draw_decline"));
  $("claim-btn").addEventListener("click", sendKey("claim_win"));
  $("claim-draw-btn").addEventListener("click", sendKey("claim_draw"));
  setupTakeback(current, (ev) => {
    if (byKey(ev)) boardWanted = true;
    app.render();
  });
  setupBerserk(current, (ev) => {
    if (byKey(ev)) boardWanted = true;
    app.render();
  });
  $("zen-btn").addEventListener("click", () => setZen(!zenOn()));
  window.addEventListener("pointerdown", () => (pointerUsed = true), true);
  window.addEventListener("keydown", () => (pointerUsed = false), true);
  $("abort-btn").addEventListener("click", () => send({ type: "abort", game: S.route.code }));
  $("setup-random").addEventListener("click", act((G) => turnPhase(G) === "setup" && fillSetup(G, randomSetup(G))));
  $("setup-last").addEventListener("click", act((G) => turnPhase(G) === "setup" && fillSetup(G, lastSetup(G))));
  $("cancel-game").addEventListener("click", () => send({ type: "cancel_game", code: S.route.code }));
  $("report-opp").addEventListener("click", () => {
    const name = $("report-opp").dataset.name;
    if (name && S.route.code) openReport(name, S.route.code);
  });
  $("chat-toggle").addEventListener("click", () => {
    localStorage.setItem(CHAT_KEY, chatHidden() ? "shown" : "hidden");
    app.render();
  });
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text || !S.route.code) return;
    const G = current();
    if (G) G.chatOut = [...G.chatOut.filter((c) => c.state === "refused").slice(-4), ...G.chatOut.filter((c) => c.state === "sending"), { text, state: "sending" }];
    send({ type: "chat", game: S.route.code, text });
    $("chat-input").value = "";
    app.render();
  });
  $("error").addEventListener("click", act((G) => (G.error = null)));
  document.addEventListener("keydown", (ev) => {
    const G = current();
    if (!G || $("game").hidden || ev.target.closest?.("input, textarea, select")) return;
    const onBoard = !!ev.target.closest?.("#board");
    const z = (ev.ctrlKey || ev.metaKey) && ev.key === "z";
    if (ev.key === "Escape" || z) {
      if (G.browse !== null) {
        ev.preventDefault();
        return browseTo(G, null);
      }
      if (G.premove && !G.history.length) {
        ev.preventDefault();
        G.premove = null;
        return app.render();
      }
      if (turnPhase(G) && undo(G)) {
        ev.preventDefault();
        return app.render();
      }
      if (ev.key === "Escape" && zenOn()) {
        ev.preventDefault();
        setZen(false);
      }
      return;
    }
    if ((ev.key === "z" || ev.key === "Z") && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      ev.preventDefault();
      return setZen(!zenOn());
    }
    if (ev.key === "Enter" && !ev.target.closest?.("button, a, summary")) {
      const cell = ev.target.closest?.("#board [data-cell]");
      if (canSend(G)) {
        ev.preventDefault();
        $("send-btn").click();
      } else if (cell && onCell(G, unkey(cell.getAttribute("data-cell")))) {
        ev.preventDefault();
        app.render(); // says why that cell cannot be chosen
      }
      return;
    }
    if (onBoard) return; // the arrows move between cells there
    const keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (ev.key in keys && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      ev.preventDefault();
      browseStep(G, keys[ev.key]);
    } else if (ev.key === "Home") {
      ev.preventDefault();
      browseTo(G, 0);
    } else if (ev.key === "End") {
      ev.preventDefault();
      browseTo(G, null);
    }
  });
  renderLegend($("legend"));
  let lowWarned = null;
  setInterval(() => {
    const G = current();
    if (!G?.state || $("game").hidden) return;
    if (G.clocks || G.away?.silver || G.away?.bronze) {
      tickClocks(G);
      renderClaim(G);
    }
    if (G.pending) $("status").textContent = statusText(G, turnPhase(G), null, G.shown ?? G.state);
    // the player's own clock runs low: one warning per turn
    const side = mySide(G);
    const ms = side ? clockMs(G, side) : null;
    const running = side && G.clocks?.running === side && !G.result;
    if (running && ms !== null && ms < lowTimeMs(G) && ms > 0) {
      const k = `${G.code}|${G.turns.length}`;
      if (lowWarned !== k) {
        lowWarned = k;
        playSound("lowtime");
      }
    }
  }, 250);
}
