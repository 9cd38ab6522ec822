// The game screen: board, status and instructions, the turn being built, players with their
// counts and clocks, turn list, chat, draw/resign/claim, game-over banner. The same screen is the
// spectator view (no seat: read-only). Drawing only; the model is game.js, the turn is turn.js.
import { $, h, SIDES, other, cap, REASONS, fmtClock, winnerText, scoreText, variantText, tcText } from "./dom.js";
import { renderBoard, renderLegend, pieceIcon, cellName, key } from "./board.js";
import { S, app, send, mySide } from "./state.js";
import { notation } from "./game.js";
import { turnPhase, legalMoves, elephantReady, draftResult, candidates, facingChoices, draftTurn, arrival,
  onCell, chooseFacing, toggleBurnt, canSend, sendDraft, undo } from "./turn.js";

const current = () => (S.route.view === "game" ? S.games.get(S.route.code) : null);

function roleText(G, side) {
  if (side) return `You play ${side}`;
  return "You are watching";
}

export function renderGame(G) {
  $("game-code").textContent = G.code;
  const side = mySide(G);
  $("game-role").textContent = roleText(G, side);
  const sc = $("spectators");
  sc.dataset.count = String(G.spectators);
  sc.textContent = `${G.spectators} watching`;
  $("copy-link").hidden = G.status === null;
  const err = $("error");
  err.hidden = !G.error;
  err.textContent = G.error ?? "";
  if (!G.state) {
    $("status").textContent = G.missing ?? "Loading the game…";
    $("board").replaceChildren();
    $("players").replaceChildren();
    $("controls").hidden = true;
    $("missing-replay").hidden = !G.missing;
    for (const id of ["resign-btn", "draw-btn", "draw-answer", "claim-btn", "banner", "share"]) $(id).hidden = true;
    return;
  }
  $("missing-replay").hidden = true;
  const phase = turnPhase(G);
  const d = G.draft;
  const dr = phase === "turn" ? draftResult(G) : null;
  const st = dr?.state ?? G.shown ?? G.state;
  const n = st.variant.size;
  const cands = candidates(G);

  // the last turn played (or the own turn just sent), highlighted
  let last = null;
  const lt = G.pending?.turn ? { turn: G.pending.turn } : G.last;
  if (lt?.turn && !(phase === "turn" && (d.from || dr))) {
    const cells = [];
    const e = lt.turn.elephant;
    if (e) cells.push(e.from, ...e.path);
    if (lt.turn.burnt) cells.push(lt.turn.burnt);
    for (const g of lt.turn.guardians ?? []) cells.push(g.from, arrival(g, n));
    last = { cells, from: e?.from, path: e?.path ?? [] };
  }
  const ghost = phase === "turn" && d.from && d.path.length && !dr
    ? { cell: d.path[d.path.length - 1], side, facing: G.state.elephants.find((e) => e.cell[0] === d.from[0] && e.cell[1] === d.from[1])?.facing }
    : null;
  const movable = new Set(phase === "turn" && !elephantReady(G) && !d.path.length ? legalMoves(G).map((m) => key(m.from)) : []);
  const occupied = new Set([...st.elephants.map((e) => key(e.cell)), ...st.guardians.map((g) => key(g.cell)),
    ...(phase === "setup" ? [...d.setupE, ...d.setupG].map(key) : [])]);
  renderBoard($("board"), {
    state: st,
    onCell: (c) => {
      if (onCell(G, c)) app.render();
    },
    highlights: {
      cands, occupied, movable, last,
      selected: d.selGuard ?? (dr ? null : d.from),
      path: dr ? [] : d.path,
      captures: dr?.captures ?? (last && !G.pending ? G.last?.captures ?? [] : []),
      ghost,
      zoneSide: phase === "setup" ? side : null,
      setupMarks: phase === "setup" ? { side, elephants: d.setupE, guardians: d.setupG } : null,
    },
  });

  $("status").textContent = statusText(G, phase, dr, st);
  const shareBox = $("share");
  shareBox.hidden = !(G.status === "open" && side);
  if (!shareBox.hidden) $("share-link").value = `${location.origin}/g/${G.code}`;

  const faces = facingChoices(G);
  $("facing").hidden = faces.length === 0;
  for (const b of $("facing").querySelectorAll("button")) b.hidden = !faces.includes(b.dataset.facing);

  renderDraft(G, phase, dr);
  $("undo-btn").disabled = !(phase && G.history.length);
  $("send-btn").disabled = !canSend(G);
  $("send-btn").textContent = phase === "setup" ? "Send setup" : "Send turn";
  $("undo-btn").hidden = !phase;
  $("send-btn").hidden = !phase;
  const canJoin = G.status === "open" && !side && SIDES.some((s) => !G.players[s]);
  $("join-seat").hidden = !canJoin;
  $("controls").hidden = !phase && !canJoin;

  const live = side && G.status === "playing" && !G.result;
  $("resign-btn").hidden = !live;
  $("draw-btn").hidden = !live || G.drawOffer === side || G.drawOffer === other(side);
  $("draw-answer").hidden = !live || G.drawOffer !== other(side);
  renderClaim(G);
  renderPlayers(G, G.shown ?? G.state);
  renderBanner(G);

  const log = $("turn-log");
  let turnNo = 0;
  const lastTurnIdx = G.log.findLastIndex((l) => l.turn);
  log.replaceChildren(...G.log.map((l, i) => {
    const who = l.side ? `${l.side}: ` : "";
    const li = h("li", { class: `${l.side}${i === lastTurnIdx ? " last" : ""}${l.turn ? "" : " note"}` });
    if (l.turn) li.append(h("span", { class: "num", text: `${++turnNo}.` }));
    li.append(h("span", { text: `${who}${l.text}` }));
    return li;
  }));
  log.scrollTop = log.scrollHeight;
  const chat = $("chat-log");
  chat.replaceChildren(...G.chat.map((c) => h("div", { class: "chat-line" }, h("b", { class: "chat-name", text: `${c.name}: ` }), h("span", { class: "chat-text", text: c.text }))));
  chat.scrollTop = chat.scrollHeight;
  $("chat-form").hidden = G.status === "cancelled";
}

function statusText(G, phase, dr, st) {
  const side = mySide(G);
  const d = G.draft;
  const name = (s) => G.players?.[s]?.name ?? s;
  const toMove = (G.shown ?? G.state).to_move;
  if (G.status === "open")
    return side ? "Waiting for an opponent. Send them the link below, or wait for someone to join from the lobby." : "This game is waiting for an opponent.";
  if (G.status === "cancelled") return "This game was cancelled.";
  if (G.status === "suspended")
    return "Paused: the server cannot save games right now. The game resumes by itself where it was last saved; nothing saved is lost and nobody's clock runs meanwhile.";
  if (G.result) return "The game is over.";
  if (G.pending) return "Sent — waiting for the server to confirm…";
  if (G.drawOffer && side && G.drawOffer === other(side)) return `${cap(G.drawOffer)} offers a draw: accept or decline — or just play on.`;
  if (phase === "setup") {
    const E = st.variant.elephants;
    const zone = side === "silver" ? "start row (b1…, south edge)" : "start column (a2…, west edge)";
    return `Your setup: click ${E} cell${E === 1 ? "" : "s"} of your ${zone} for your elephants and 2 ring cells for your guardians, then Send. Placed: ${d.setupE.length}/${E} elephants, ${d.setupG.length}/2 guardians. Avoid lines that make a crossing under your elephants.`;
  }
  if (phase === "turn") {
    const held = G.state.players[side].trunks;
    if (legalMoves(G).length === 0 && !d.burntMode && !d.selGuard && !d.burnt && !d.guardians.length)
      return "You have no elephant move (pass). You may place a burnt trunk or move a guardian, then Send.";
    if (!d.from && !elephantReady(G)) return "Your turn: choose one of your elephants (ringed in blue).";
    if (!elephantReady(G) && !d.path.length) return "Choose its first step (blue dots), or another of your elephants.";
    if (!elephantReady(G))
      return facingChoices(G).length
        ? "Choose the next cell of the path (blue dots), or stop here by choosing the facing."
        : "Choose the next cell of the path (blue dots).";
    if (dr?.state.over) return "This move ends the game. Send it.";
    if (d.burntMode) return "Choose an empty field cell for the burnt trunk (a crossing is fine).";
    if (d.selGuard) return `Choose where this guardian goes: the number on each cell is its cost in trunks (you hold ${dr?.state.players[side].trunks ?? held}).`;
    return "Move chosen. Optionally place a burnt trunk or choose one of your guardians to move it (it costs trunks), then Send.";
  }
  if (toMove && (G.shown ?? G.state).phase.startsWith("setup")) return `${cap(toMove)} (${name(toMove)}) is placing the pieces.`;
  if (toMove) return `${cap(toMove)} (${name(toMove)}) to move.`;
  return "";
}

function renderDraft(G, phase, dr) {
  const el = $("draft");
  el.replaceChildren();
  if (phase !== "turn") return;
  const d = G.draft;
  const side = mySide(G);
  const n = G.state.variant.size;
  if (!elephantReady(G)) {
    if (d.from) el.append(h("div", { class: "notation", text: `Turn: ${[d.from, ...d.path].map((c) => cellName(c, n)).join("-")}…` }));
    return;
  }
  el.append(h("div", { class: "notation", id: "draft-notation", text: `Turn: ${notation(draftTurn(G), n)}` }));
  if (!dr) return;
  const cost = d.guardians.reduce((a, g) => a + g.steps, 0);
  const held = G.state.players[side].trunks;
  const collected = dr.before.players[side].trunks - held;
  if (cost)
    el.append(h("div", { class: "cost", id: "draft-cost",
      text: `Guardian moves cost ${cost} trunk${cost === 1 ? "" : "s"}: you hold ${held}${collected > 0 ? ` + ${collected} collected now` : ""}, ${dr.state.players[side].trunks} left after this turn.` }));
  if (dr.captures.length) {
    const words = dr.captures.map((e) => `${e.side} elephant on ${cellName(e.cell, n)} (+2 for ${other(e.side)})`);
    el.append(h("div", { class: "captures", id: "draft-captures", text: `Captures: ${words.join(", ")}.` }));
  }
  if (dr.state.over) return;
  const left = dr.state.players[side].burnt_left;
  if (!d.burnt && left > 0)
    el.append(h("button", { type: "button", id: "burnt-btn", "aria-pressed": d.burntMode ? "true" : "false",
      text: d.burntMode ? "Cancel the burnt trunk" : `Place a burnt trunk (${left} left)`,
      onclick: () => { toggleBurnt(G); app.render(); } }));
}

function clockMs(G, s) {
  const c = G.clocks;
  if (!c || typeof c[`${s}_ms`] !== "number") return null;
  let ms = c[`${s}_ms`];
  if (c.running === s && !G.result) ms -= performance.now() - G.clocksAt;
  return ms;
}

function renderPlayers(G, st) {
  const wrap = $("players");
  const side = mySide(G);
  const cards = [];
  for (const s of SIDES) {
    const p = st.players[s];
    const turn = !G.result && st.to_move === s && G.status === "playing";
    const ms = clockMs(G, s);
    const tags = [s, side === s ? "you" : null, turn ? "to move" : null, G.away?.[s] ? "away" : null].filter(Boolean);
    cards.push(h("div", { class: `player ${s}${turn ? " to-move" : ""}`, "data-side": s },
      h("div", { class: "pname" },
        pieceIcon(s),
        h("span", { class: "name", text: G.players?.[s]?.name ?? "(open seat)" }),
        ms !== null ? h("span", { class: `clock${G.clocks?.running === s && !G.result ? " running" : ""}`, text: fmtClock(ms), "aria-label": `${s} clock` }) : null),
      h("div", { class: "tag", text: tags.join(" · ") }),
      h("dl", {},
        h("dt", { text: "Score" }), h("dd", { class: "score", text: String(p.score) }),
        h("dt", { text: "Trunks held" }), h("dd", { text: String(p.trunks) }),
        h("dt", { text: "Burnt left" }), h("dd", { text: String(p.burnt_left) }),
        h("dt", { text: "Saved" }), h("dd", { text: String(p.saved) }),
        h("dt", { text: "Captured" }), h("dd", { text: String(p.captured) }),
        h("dt", { text: "On field" }), h("dd", { text: String(p.on_field) }))));
  }
  const turnText = G.result ? `${st.turns_played} turns played` : `Turn ${st.turns_played + 1}`;
  const meta = `${turnText} · quiet turns in a row: ${st.quiet_turns} of ${st.variant.quiet} · trunks on the field: ${st.trunks.length} · ${variantText(st.variant)} · ${tcText(G.timeControl)}`;
  cards.push(h("p", { class: "hint meta", text: meta }));
  wrap.replaceChildren(...cards);
}

// The opponent is away: after its grace period the player may claim the win.
function renderClaim(G) {
  const side = mySide(G);
  const b = $("claim-btn");
  const away = side ? G.away?.[other(side)] : null;
  if (!side || !away || G.result || G.status !== "playing") {
    b.hidden = true;
    return;
  }
  b.hidden = false;
  const wait = Math.ceil(((away.claim_at ?? 0) - Date.now()) / 1000);
  b.disabled = wait > 0;
  b.textContent = wait > 0 ? `Opponent away: claim the win in ${wait} s` : "Opponent away: claim the win";
}

function renderBanner(G) {
  const b = $("banner");
  const t = $("banner-text");
  if (G.status === "cancelled" && !G.result) {
    b.hidden = false;
    b.removeAttribute("data-score");
    t.textContent = "This game was cancelled.";
    $("banner-replay").hidden = true;
    return;
  }
  if (!G.result) {
    b.hidden = true;
    b.removeAttribute("data-score");
    return;
  }
  const r = G.result;
  const sc = r.score ?? {};
  const side = mySide(G);
  const you = side && r.winner ? (r.winner === side ? " You win!" : r.winner === "draw" ? "" : " You lose.") : "";
  b.hidden = false;
  b.dataset.score = `silver:${sc.silver} bronze:${sc.bronze}`;
  b.dataset.winner = r.winner ?? "none";
  t.textContent = `Game over — ${winnerText(r, G.players)}, ${scoreText(sc)}. ${cap(REASONS[r.reason] ?? r.reason ?? "")}.${you}`;
  $("banner-replay").hidden = r.reason === "aborted";
}

export function setupGameControls() {
  const act = (f) => () => {
    const G = current();
    if (G) {
      f(G);
      app.render();
    }
  };
  $("back-btn").addEventListener("click", () => app.navigate("/"));
  $("banner-lobby").addEventListener("click", () => app.navigate("/"));
  $("banner-replay").addEventListener("click", () => app.navigate(`/#replay/${S.route.code}`));
  $("missing-replay").addEventListener("click", () => app.navigate(`/#replay/${S.route.code}`));
  $("copy-link").addEventListener("click", async () => {
    const url = `${location.origin}/g/${S.route.code}`;
    const b = $("copy-link");
    try {
      await navigator.clipboard.writeText(url);
      b.textContent = "Link copied";
    } catch {
      b.textContent = "Copy failed: the link is in the address bar";
    }
    setTimeout(() => (b.textContent = "Copy link"), 2500);
  });
  $("share-link").addEventListener("focus", (ev) => ev.target.select());
  $("undo-btn").addEventListener("click", act((G) => undo(G)));
  $("send-btn").addEventListener("click", act((G) => sendDraft(G)));
  $("join-seat").addEventListener("click", () => S.route.code && app.joinGame(S.route.code));
  for (const b of $("facing").querySelectorAll("button"))
    b.addEventListener("click", act((G) => chooseFacing(G, b.dataset.facing)));
  let resignArmed = null;
  $("resign-btn").addEventListener("click", () => {
    const b = $("resign-btn");
    if (!resignArmed) {
      b.textContent = "Really resign? Click again";
      resignArmed = setTimeout(() => {
        resignArmed = null;
        b.textContent = "Resign";
      }, 4000);
      return;
    }
    clearTimeout(resignArmed);
    resignArmed = null;
    b.textContent = "Resign";
    send({ type: "resign", game: S.route.code });
  });
  $("draw-btn").addEventListener("click", () => send({ type: "draw_offer", game: S.route.code }));
  $("draw-accept").addEventListener("click", () => send({ type: "draw_accept", game: S.route.code }));
  $("draw-decline").addEventListener("click", () => send({ type: "draw_decline", game: S.route.code }));
  $("claim-btn").addEventListener("click", () => send({ type: "claim_win", game: S.route.code }));
  $("cancel-game").addEventListener("click", () => send({ type: "cancel_game", code: S.route.code }));
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("chat-input").value.trim();
    if (!t || !S.route.code) return;
    send({ type: "chat", game: S.route.code, text: t });
    $("chat-input").value = "";
  });
  $("error").addEventListener("click", act((G) => (G.error = null)));
  document.addEventListener("keydown", (ev) => {
    const G = current();
    if (!G || ev.target.closest?.("input, textarea, select")) return;
    const z = (ev.ctrlKey || ev.metaKey) && ev.key === "z";
    if (ev.key === "Escape" || z) {
      if (turnPhase(G) && undo(G)) {
        ev.preventDefault();
        app.render();
      }
    }
  });
  renderLegend($("legend"));
  setInterval(() => {
    const G = current();
    if (!G?.state || $("game").hidden) return;
    if (G.clocks || G.away?.silver || G.away?.bronze) {
      renderPlayers(G, G.shown ?? G.state);
      renderClaim(G);
    }
  }, 500);
}

