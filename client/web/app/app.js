// Trunkfield web client: routing, the server connection and its messages (proto/PROTOCOL.md).
// Screens: lobby (lobby.js), game and spectator view (gamescreen.js over game.js and turn.js),
// replay viewer (replay.js), How to play (static, index.html). The C++ rules run as WebAssembly
// (trunkfield-rules.js) for legal moves, prediction and replays.
//
// Addresses: /            lobby
//            /g/CODE      a game (the shareable link the server hands out)
//            /#replay/CODE  the replay of a finished game
//            /#how        How to play
import { Rules } from "./trunkfield-rules.js";
import { Connection } from "./net.js";
import { renderLegend } from "./board.js";
import { $ } from "./dom.js";
import { S, app, send, mySide } from "./state.js";
import { gameView, onSnapshot, onEvent, onGameError, watchGame } from "./game.js";
import { resetDraft } from "./turn.js";
import { renderGame, setupGameControls } from "./gamescreen.js";
import { renderLobby, setupLobby, showLobbyError, loadRecent, storedName } from "./lobby.js";
import { openReplay, closeReplay, renderReplay, setupReplay } from "./replay.js";

const BOT_WAIT_MS = 3000;

// ------------------------------------------------------------------ routing
function parseRoute() {
  const g = location.pathname.match(/^\/g\/([A-Za-z0-9_-]+)\/?$/);
  if (g) return { view: "game", code: g[1] };
  const hash = location.hash.replace(/^#\/?/, "");
  const r = hash.match(/^replay\/([A-Za-z0-9_-]+)$/);
  if (r) return { view: "replay", code: r[1] };
  if (hash === "how") return { view: "how" };
  return { view: "lobby" };
}

function route() {
  const prev = S.route;
  S.route = parseRoute();
  if (prev.view === "replay" && S.route.view !== "replay") closeReplay();
  if (S.route.view === "game") {
    const G = gameView(S.route.code);
    if (S.me && !G.watchSent) watchGame(G);
    document.title = `Trunkfield — game ${S.route.code}`;
  } else if (S.route.view === "replay") {
    document.title = `Trunkfield — replay ${S.route.code}`;
    openReplay(S.route.code);
  } else if (S.route.view === "how") {
    document.title = "Trunkfield — how to play";
  } else {
    document.title = "Trunkfield";
    if (S.me) loadRecent();
  }
  if (prev.view !== S.route.view || prev.code !== S.route.code) window.scrollTo(0, 0);
  render();
}

function navigate(url) {
  const u = new URL(url, location.origin);
  if (u.pathname + u.hash !== location.pathname + location.hash) history.pushState({}, "", u.pathname + u.search + u.hash);
  route();
}

function render() {
  $("me").textContent = S.me ? `Playing as ${S.me.name}` : "";
  const v = S.route.view;
  const screens = { lobby: "lobby", game: "game", replay: "replay", how: "howto" };
  for (const [view, id] of Object.entries(screens)) $(id).hidden = view !== v;
  for (const a of document.querySelectorAll(".nav a")) a.classList.toggle("active", a.dataset.view === v);
  if (v === "lobby") renderLobby();
  else if (v === "game") renderGame(gameView(S.route.code));
  else if (v === "replay") renderReplay();
}

// Redraws after news about game `code` (null: lobby lists) only when the screen shows it, so a
// busy server does not redraw the board under the player's pointer.
function renderFor(code) {
  if (S.route.view === "lobby" || (S.route.view === "game" && S.route.code === code)) render();
}

// ------------------------------------------------------------------ actions
function joinGame(code) {
  S.pendingJoin = code;
  showLobbyError("");
  send({ type: "join_game", code });
}

// A new display name is a new identity on the server: forget the token and reconnect.
function newIdentity() {
  for (const G of S.games.values()) G.rules?.dispose();
  S.games.clear();
  S.recent = { games: [], next: null, error: null, loading: false, loadedFor: null };
  app.conn.forgetToken();
  app.conn.drop();
}

// The server ignored the "bot" field (it has no computer players): say so and cancel the game.
function checkBot(G) {
  if (!G.botLevel || G.botTimer) return;
  G.botTimer = setTimeout(() => {
    G.botTimer = null;
    if (!G.botLevel) return;
    if (G.status === "open" && !(G.players.silver && G.players.bronze)) {
      send({ type: "cancel_game", code: G.code });
      G.botLevel = null;
      navigate("/");
      showLobbyError("This server did not seat a computer opponent: it created an ordinary open game instead, "
        + "so it does not offer games against the computer yet. That game was cancelled.");
    } else G.botLevel = null;
  }, BOT_WAIT_MS);
}

// ------------------------------------------------------------------ server messages
function onWelcome(m) {
  S.me = m;
  S.quick = null; // a dropped connection withdrew any quick-match request
  // A setup or turn in flight when the connection dropped: nobody knows whether the server got
  // it. Show the server's position again (its event follows if it was accepted) and never send
  // a queued one late.
  app.conn.queue = app.conn.queue.filter((q) => q.type !== "turn" && q.type !== "setup");
  for (const G of S.games.values()) {
    if (!G.pending) continue;
    G.pending = null;
    G.shown = null;
    resetDraft(G);
    G.error = "The connection dropped while your move was on its way: if the server got it, it appears in a moment; otherwise make it again.";
  }
  const codes = new Set([...S.games.keys(), ...(m.games ?? [])]);
  if (S.route.view === "game") codes.add(S.route.code);
  for (const code of codes) watchGame(gameView(code));
  send({ type: "list_games" });
  send({ type: "list_live" });
  if (S.recent.loadedFor !== m.player_id) loadRecent();
  render();
}

function onError(m) {
  // a refused setup/turn: roll the prediction back
  for (const G of S.games.values()) {
    if (G.pending && m.ref && G.pending.ref === m.ref) {
      onGameError(G, m);
      return render();
    }
  }
  const text = m.message || m.code;
  if (S.bot) {
    S.bot = null;
    showLobbyError(`The computer opponent could not be set up: ${text}`);
    return render();
  }
  if (S.quick?.state === "asking") S.quick = null;
  if (S.pendingJoin) S.pendingJoin = null;
  if (S.route.view === "game") {
    const G = gameView(S.route.code);
    if (m.code === "no_such_game" && !G.state) {
      G.missing = `There is no game ${G.code} on the server now: it may have finished a while ago. Its replay may still be available.`;
      return render();
    }
    onGameError(G, m);
    return render();
  }
  showLobbyError(text);
  render();
}

function onMessage(m) {
  switch (m.type) {
    case "snapshot": {
      const G = onSnapshot(m);
      if (S.pendingJoin === m.game) {
        S.pendingJoin = null;
        navigate(`/g/${m.game}`);
      }
      checkBot(G);
      return renderFor(m.game);
    }
    case "event": {
      const G = gameView(m.game);
      const r = onEvent(m);
      if (r !== "ok") watchGame(G, r === "resync"); // a gap: the missed events; a disagreement: a snapshot
      if (m.kind === "game_over" && mySide(G)) setTimeout(() => loadRecent(), 500);
      return renderFor(m.game);
    }
    case "game_created": {
      const G = gameView(m.code);
      G.watchSent = true; // the creator is subscribed already
      if (S.bot) {
        G.botLevel = S.bot.level;
        S.bot = null;
      }
      return navigate(`/g/${m.code}`);
    }
    case "lobby":
      S.lobby = Array.isArray(m.games) ? m.games : [];
      return renderFor(null);
    case "live":
      S.live = Array.isArray(m.games) ? m.games : [];
      return renderFor(null);
    case "quick_match_waiting":
      S.quick = { state: "waiting", variant: m.variant, time_control: m.time_control };
      return render();
    case "quick_match_cancelled":
      S.quick = null;
      return render();
    case "matched":
      S.quick = null;
      gameView(m.code).watchSent = true;
      return navigate(`/g/${m.code}`);
    case "error":
      return onError(m);
    default:
      return undefined; // ack, pong, anything newer: nothing to show
  }
}

function setStatus(s) {
  const c = $("conn");
  c.className = `conn conn-${s}`;
  c.textContent = { connecting: "connecting…", online: "● online", offline: "○ offline — reconnecting…" }[s];
}

async function main() {
  try {
    await Rules.load();
  } catch (e) {
    $("loading").textContent = `Could not load the rules module: ${e.message}`;
    return;
  }
  $("loading").hidden = true;
  Object.assign(app, { render, navigate, joinGame, newIdentity });
  setupLobby();
  setupGameControls();
  setupReplay();
  renderLegend($("how-legend"));
  document.querySelector(".skip").addEventListener("click", (ev) => {
    ev.preventDefault();
    $("main").focus();
  });
  for (const a of document.querySelectorAll("a[data-nav]"))
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      navigate(a.getAttribute("href"));
    });
  app.conn = new Connection({ getName: storedName, onMessage, onStatus: setStatus, onWelcome });
  window.addEventListener("online", () => app.conn.retryNow());
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  route();
  app.conn.connect();
  window.trunkfield = { S, app, get conn() { return app.conn; } }; // for debugging and the browser tests
}

main();
