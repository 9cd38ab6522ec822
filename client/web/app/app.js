// Trunkfield web client: routing, the server connection and its messages (proto/PROTOCOL.md).
// Screens: lobby (lobby.js), game and spectator view (gamescreen.js over game.js and turn.js),
// replay viewer (replay.js), How to play with its practice (howto.js); challenges (challenge.js),
// an account's notifications (notices.js: the bell, the toast of a challenge), the games it is
// playing (playing.js: the lobby's "Your games", the top bar's count of those where it is to
// move) and its follows, blocks and mutes (relations.js: the lobby's Following panel, the player
// page's buttons), its e-mail settings (mail.js), reports (report.js) and the moderators' page
// (moderation.js). The C++ rules run as WebAssembly (trunkfield-rules.js): they load in parallel
// with the first screen, and the lobby works before they are ready; game messages wait for them.
//
// Addresses: /            lobby (/#your-games: scrolled to the account's games being played)
//            /g/CODE      a game (the shareable link the server hands out)
//            /#replay/CODE  the replay of a finished game
//            /#how        How to play
//            /#analysis/POSITION?line=…&at=…   the analysis board (explore.js)
//            /#editor/POSITION  the position editor (editor.js)
//            /#puzzles, /#puzzles/daily, /#puzzles/ID  puzzles (puzzles.js)
//            /#local/ID   a game on this device (localgame.js), against the computer or two players
//            /@/NAME      a player's page (ratings, their history, results, recent games)
//            /players     the leaderboard (?category=blitz, &bots=true: the bot accounts')
//            /tournaments the tournaments (tournaments.js: the list, the form that makes one)
//            /t/ID        a tournament: its live standings, Join / Withdraw
//            /mod         the moderators' page (reports and the audit log)
//            anything else: "page not found" (the server answers such an address 404 with this page)
import { Rules } from "./trunkfield-rules.js";
import { Connection } from "./net.js";
import { $, errorText, playerName, other } from "./dom.js";
import { t, lang, setLang, translatePage } from "./i18n.js";
import { S, app, send, mySide, botLevel, createAnswered, storedName } from "./state.js";
import { gameView, onSnapshot, onEvent, onGameError, watchGame, resendPending, gameHooks, dropGames } from "./game.js";
import { turnPhase, playPremove } from "./turn.js";
import { renderGame, setupGameControls, onTurnShown, showNotice, clearNotice, notation, announce } from "./gamescreen.js";
import { renderLobby, setupLobby, showLobbyError, loadRecent, translateLobbyForms } from "./lobby.js";
import { openReplay, closeReplay, renderReplay, setupReplay } from "./replay.js";
import { renderHow, setupHow } from "./howto.js";
import { openExplore, closeExplore, renderExplore, setupExplore, exploreRulesReady } from "./explore.js";
import { openEditor, renderEditor, setupEditor, editorRulesReady } from "./editor.js";
import { openPuzzles, closePuzzles, renderPuzzles, setupPuzzles, puzzlesRulesReady } from "./puzzles.js";
import { rememberCreated } from "./result.js";
import { playSound, played, isMuted, setMuted, unlockAudio } from "./sound.js";
import { motion } from "./anim.js";
import { svgEl } from "./board.js";
import { setupAccount, renderAccount, accountWelcome, accountError, accountConnectionLost, toast } from "./account.js";
import { openProfile, renderProfile } from "./profile.js";
import { openLeaderboard, renderLeaderboard } from "./leaderboard.js";
import { openTournaments, openTournament, closeTournaments, renderTournaments, setupTournaments, tournamentTitle } from "./tournaments.js";
import { setupFlip } from "./flip.js";
import { setupLocal, localSend } from "./localgame.js";
import { isLocalCode, LOCAL_PREFIX, keepOnDevice } from "./device.js";
import { registerServiceWorker } from "./pwa.js";
import { setupChallenge, challengeAnswered, translateChallengeForm, declineRefused } from "./challenge.js";
import { setupNotes, notesWelcome, onNotification, renderNotes } from "./notices.js";
import { setupRelations, relationsWelcome, renderFollowing, loadRelations } from "./relations.js";
import { setupReport } from "./report.js";
import { setupMail, mailWelcome } from "./mail.js";
import { setupTokens } from "./tokens.js";
import { setupVacation } from "./vacation.js";
import { setupMod, renderMod, openMod, modWelcome } from "./moderation.js";
import { setupPlaying, playingWelcome, renderPlayingBadge, reloadPlayingSoon, showPlayingCard, CARD_HASH } from "./playing.js";

const BOT_WAIT_MS = 3000;
const rulesLoading = Rules.load(); // at once: in parallel with everything below
const waiting = []; // game messages that arrived before the rules: [message, frame text]

// ------------------------------------------------------------------ routing
function parseRoute() {
  // Codes are case-insensitive: "/g/K3V9QA" is game k3v9qa.
  const g = location.pathname.match(/^\/g\/([A-Za-z0-9]{1,16})\/?$/);
  if (g) return { view: "game", code: g[1].toLowerCase() };
  const p = location.pathname.match(/^\/@\/([A-Za-z0-9_-]{1,20})\/?$/);
  if (p) return { view: "profile", name: p[1] };
  if (/^\/players\/?$/.test(location.pathname)) {
    const q = new URLSearchParams(location.search);
    return { view: "leaderboard", category: q.get("category") ?? "blitz", bots: q.get("bots") === "true" };
  }
  if (/^\/mod\/?$/.test(location.pathname)) return { view: "mod" };
  if (/^\/tournaments\/?$/.test(location.pathname)) return { view: "tournaments" };
  const tn = location.pathname.match(/^\/t\/([A-Za-z0-9]{1,16})\/?$/);
  if (tn) return { view: "tournament", code: tn[1].toLowerCase() };
  const hash = location.hash.replace(/^#\/?/, "");
  const r = hash.match(/^replay\/([A-Za-z0-9_-]+)$/);
  if (r) return { view: "replay", code: r[1].toLowerCase() };
  if (hash === "how") return { view: "how" };
  const a = hash.match(/^analysis(?:\/(.*))?$/);
  if (a) return { view: "analysis", rest: a[1] ?? "" };
  const ed = hash.match(/^editor(?:\/(.*))?$/);
  if (ed) return { view: "editor", rest: ed[1] ?? "" };
  const pz = hash.match(/^puzzles(?:\/(.*))?$/);
  if (pz) return { view: "puzzles", rest: pz[1] ?? "" };
  const l = hash.match(/^local\/([a-z0-9]{1,10})$/);
  if (l) return { view: "game", code: LOCAL_PREFIX + l[1] };
  if (!/^\/(index\.html)?$/.test(location.pathname)) return { view: "notfound" }; // the server said 404 too
  return { view: "lobby" };
}

function route() {
  const prev = S.route;
  S.route = parseRoute();
  if (prev.view === "replay" && S.route.view !== "replay") closeReplay();
  if (prev.view === "analysis" && S.route.view !== "analysis") closeExplore();
  if (prev.view === "puzzles" && S.route.view !== "puzzles") closePuzzles();
  if (["tournaments", "tournament"].includes(prev.view) && (prev.view !== S.route.view || prev.code !== S.route.code)) closeTournaments();
  if (S.route.view === "game") {
    const G = gameView(S.route.code);
    if ((S.me || isLocalCode(G.code)) && !G.watchSent) watchGame(G);
  } else if (S.route.view === "replay") {
    openReplay(S.route.code);
  } else if (S.route.view === "analysis") {
    openExplore(S.route.rest);
  } else if (S.route.view === "editor") {
    openEditor(S.route.rest);
  } else if (S.route.view === "puzzles") {
    openPuzzles(S.route.rest);
  } else if (S.route.view === "lobby") {
    if (S.me) loadRecent();
    loadRelations(); // who of the followed is online, and playing

  } else if (S.route.view === "profile") {
    openProfile(S.route.name);
  } else if (S.route.view === "leaderboard") {
    openLeaderboard(S.route.category, S.route.bots);
  } else if (S.route.view === "mod") {
    openMod();
  } else if (S.route.view === "tournaments") {
    openTournaments();
  } else if (S.route.view === "tournament") {
    openTournament(S.route.code);
  }
  if (prev.view !== S.route.view || prev.code !== S.route.code || prev.name !== S.route.name) {
    window.scrollTo(0, 0);
    clearNotice(); // about the screen that was
  }
  render();
  if (S.route.view === "lobby" && location.hash === CARD_HASH) showPlayingCard();
}

function navigate(url) {
  const u = new URL(url, location.origin);
  if (u.pathname + u.search + u.hash !== location.pathname + location.search + location.hash) history.pushState({}, "", u.pathname + u.search + u.hash);
  route();
}

function render() {
  $("loading").hidden = true;
  $("me").textContent = S.me && !S.me.account ? t("app.playingAs", { name: S.me.name }) : "";
  renderAccount();
  renderNotes();
  renderPlayingBadge();
  const v = S.route.view;
  const screens = { lobby: "lobby", game: "game", replay: "replay", how: "howto", profile: "profile", leaderboard: "leaderboard",
    notfound: "notfound", analysis: "analysis", editor: "editor", puzzles: "puzzles", mod: "mod", tournaments: "tournaments", tournament: "tournament" };
  for (const [view, id] of Object.entries(screens)) $(id).hidden = view !== v;
  for (const a of document.querySelectorAll(".nav a")) a.classList.toggle("active", a.dataset.view === (v === "tournament" ? "tournaments" : v));
  if (v === "lobby") {
    renderLobby();
    renderFollowing();
  }
  else if (v === "game") renderGame(gameView(S.route.code));
  else if (v === "replay") renderReplay();
  else if (v === "how") renderHow();
  else if (v === "analysis") renderExplore();
  else if (v === "editor") renderEditor();
  else if (v === "puzzles") renderPuzzles();
  else if (v === "profile") renderProfile();
  else if (v === "leaderboard") renderLeaderboard();
  else if (v === "mod") renderMod();
  else if (v === "tournaments" || v === "tournament") renderTournaments();
  updateTitle();
}

// Redraws after news about game `code` (null: lobby lists) only when the screen shows it, so a
// busy server does not redraw the board under the player's pointer.
function renderFor(code) {
  if (S.route.view === "lobby" || (S.route.view === "game" && S.route.code === code)) render();
}

// ------------------------------------------------------------------ the tab's title
// "▶ Your turn · …" while the player is to move; flashing while the tab is not in front.
let flashOn = false;
function baseTitle() {
  const v = S.route.view;
  if (v === "game") return t("title.game", { code: S.route.code });
  if (v === "replay") return t("title.replay", { code: S.route.code });
  if (v === "how") return t("title.how");
  if (v === "analysis") return t("title.analysis");
  if (v === "editor") return t("title.editor");
  if (v === "puzzles") return t("title.puzzles");
  if (v === "profile") return t("title.profile", { name: S.profile?.data?.username ?? S.route.name });
  if (v === "leaderboard") return t("title.leaderboard");
  if (v === "notfound") return t("title.notfound");
  if (v === "mod") return t("title.mod");
  if (v === "tournaments") return t("title.tournaments");
  if (v === "tournament") return t("title.tournament", { name: tournamentTitle() ?? S.route.code });
  return t("app.title");
}
function myTurnNow() {
  if (S.route.view !== "game") return false;
  const G = S.games.get(S.route.code);
  const p = G && S.rulesReady ? turnPhase(G) : null;
  return p === "turn" || p === "setup";
}
function updateTitle() {
  const mine = myTurnNow();
  const away = document.hidden || !document.hasFocus();
  window.trunkfield && (window.trunkfield.titleFlashing = mine && away);
  if (mine && away && flashOn) document.title = `▶▶ ${t("title.yourTurn")} ▶▶`;
  else document.title = mine ? `▶ ${t("title.yourTurn")} · ${baseTitle()}` : baseTitle();
}
setInterval(() => {
  flashOn = !flashOn;
  updateTitle();
}, 1000);
window.addEventListener("focus", updateTitle);
document.addEventListener("visibilitychange", updateTitle);

// ------------------------------------------------------------------ actions
function joinGame(code) {
  S.pendingJoin = code;
  showLobbyError("");
  send({ type: "join_game", code });
}

// A new display name is a new identity on the server: forget the token and reconnect.
function newIdentity() {
  dropGames();
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
      showLobbyError(t("lobby.noBot"));
    } else G.botLevel = null;
  }, BOT_WAIT_MS);
}

// ------------------------------------------------------------------ server messages
function onWelcome(m) {
  // Another player now (a login, a logout, a forgotten token): the games seen as the previous
  // one are watched afresh as this one, and its finished games are listed.
  if (S.me && S.me.player_id !== m.player_id) {
    dropGames();
    S.recent = { games: [], next: null, error: null, loading: false, loadedFor: null };
  }
  const prev = S.me;
  S.me = m;
  accountWelcome(m, prev);
  notesWelcome(m);
  relationsWelcome(m);
  mailWelcome(m);
  playingWelcome(m);
  modWelcome();
  S.quick = null; // a dropped connection withdrew any quick-match request
  // A setup or turn that was in flight when the connection dropped is sent again after the
  // watch below: if the server already had it, its event comes back with the missed ones
  // and the copy is refused harmlessly (S.doneRefs); if not, it is played now.
  app.conn.queue = app.conn.queue.filter((q) => q.type !== "turn" && q.type !== "setup");
  const codes = new Set([...S.games.keys(), ...(m.games ?? [])]);
  if (S.route.view === "game") codes.add(S.route.code);
  for (const code of codes) {
    if (isLocalCode(code)) continue; // the device's own: no server to ask
    const G = gameView(code);
    watchGame(G);
    if (G.pending) resendPending(G);
  }
  send({ type: "list_games" });
  send({ type: "list_live" });
  if (S.recent.loadedFor !== m.player_id) loadRecent();
  render();
}

function onError(m) {
  if (m.ref && S.doneRefs.has(m.ref)) return; // the late answer to a resent copy
  if (m.ref && S.creating?.ref === m.ref) createAnswered(m.ref);
  if (accountError(m)) return render(); // shown in the account dialog
  if (challengeAnswered(m)) return render(); // shown in the challenge form
  // a refused setup/turn: roll the prediction back
  for (const G of S.games.values()) {
    if (G.pending && m.ref && G.pending.ref === m.ref) {
      onGameError(G, m);
      return render();
    }
  }
  // an older server that does not know the rematch messages
  if ((m.code === "unknown_type" || m.code === "bad_message") && S.rematchProbe && Date.now() - S.rematchProbe.at < 10000) {
    const G = S.games.get(S.rematchProbe.code);
    S.rematchProbe = null;
    if (G) G.rematch = { ...G.rematch, unsupported: true, sent: false };
    return render();
  }
  if (S.bot) {
    S.bot = null;
    showLobbyError(t("lobby.botFailed", { reason: errorText({ code: m.code, message: m.message }) }));
    return render();
  }
  if (S.quick?.state === "asking") S.quick = null;
  if (S.pendingJoin) S.pendingJoin = null;
  if (declineRefused(m)) return render(); // a challenge declined from the toast was gone already
  if (S.route.view === "game" && m.game && m.game !== S.route.code) {
    // about another game than the page's (a challenge declined from the toast, a game watched
    // in the background): said briefly, not on this page
    toast(errorText({ code: m.code, message: m.message }));
    return render();
  }
  if (S.route.view === "game") {
    const G = gameView(S.route.code);
    if (m.code === "no_such_game" && !G.state) {
      G.missing = true;
      return render();
    }
    if (m.code === "store_failed" && typeof m.version === "number") {
      G.status = "suspended";
      if (G.pending) onGameError(G, m);
      return render();
    }
    onGameError(G, m);
    return render();
  }
  showLobbyError(errorText({ code: m.code, message: m.message }));
  render();
}

// A snapshot or event, as parsed and as the frame's text (null when delivered as an object).
function onGameMessage(m, raw) {
  if (m.type === "snapshot") {
    const G = onSnapshot(m, raw);
    if (S.pendingJoin === m.game) {
      S.pendingJoin = null;
      navigate(`/g/${m.game}`);
    }
    checkBot(G);
    return renderFor(m.game);
  }
  // an event of a game the page never watched (a challenge declined from the toast, whose decliner
  // is told): nothing to apply it to, and no game to watch again after a reconnection
  if (!S.games.has(m.game)) return undefined;
  const G = gameView(m.game);
  const r = onEvent(m, raw);
  if (r !== "ok") watchGame(G, r === "resync"); // a gap: the missed events; a disagreement: a snapshot
  return renderFor(m.game);
}

// An event the game mirror applied (game.js gameHooks.event; `ev` as the mirror read it): the
// premove after the opponent's turn, and what the page says about the others' doings.
function onGameEvent(G, ev) {
  // the news of the moment replaces what the page said about the previous one (the player's own
  // turn coming back is no news: a premove's notice stays until the opponent has answered it)
  const shown = S.route.view === "game" && S.route.code === G.code;
  if (shown && ((ev.kind === "turn" && ev.payload.side !== mySide(G)) || ev.kind === "game_over")) clearNotice();
  if (ev.kind === "turn") {
    const pm = playPremove(G);
    if (pm?.sent) {
      playSound("move");
      showNotice(t("premove.played", { turn: notation(pm.sent, G.state.variant.size) }));
    } else if (pm?.cancelled) {
      showNotice(t("premove.cancelled", { turn: notation(pm.turn, G.state.variant.size), reason: errorText(pm.cancelled) }));
    }
  }
  if (ev.kind === "draw_decline" && ev.payload.side !== mySide(G)) showNotice(t("notice.drawDeclined", { name: playerName(G.players, ev.payload.side) }));
  // a seat taken, a setup, a turn (the player's or the opponent's), a takeback, a vacation or a
  // berserk (the time left) or the end of one of the account's games: its games being played,
  // and whose move it is there, changed
  if (["join", "setup", "turn", "takeback", "game_over", "abort", "vacation", "berserk"].includes(ev.kind) && mySide(G) && !isLocalCode(G.code)) reloadPlayingSoon();
  if (ev.kind === "game_over" && mySide(G) && !isLocalCode(G.code)) {
    keepFinished(G);
    setTimeout(() => loadRecent(), 500);
  }
  announce(G, ev); // said to a screen reader (the game page's live region)
  // The account's own rating in the category, as the server now has it.
  const mine = ev.kind === "ratings" && mySide(G) ? ev.payload?.[mySide(G)] : null;
  if (mine?.after && S.me?.account) S.me.account.ratings = { ...(S.me.account.ratings ?? {}), [ev.payload.category]: mine.after };
}

// An online game the player just finished is kept on the device too, to replay without the network.
function keepFinished(G) {
  const v = G.mirror?.view();
  if (!v?.setup || !G.result) return;
  const level = botLevel(G.players[other(mySide(G))]);
  keepOnDevice({ code: G.code, kind: level ? "bot" : "online", level, human: mySide(G), players: G.players, record: { variant: v.variant ?? G.state.variant, setup: v.setup, turns: v.turns.map((x) => x.turn) },
    result: G.result, time_control: G.timeControl, created_at: Date.now(), finished_at: Date.now() });
}

function onMessage(m, raw = null) {
  switch (m.type) {
    case "snapshot":
    case "event":
      if (!S.rulesReady) return void waiting.push([m, raw]);
      return onGameMessage(m, raw);
    case "game_created": {
      if (m.ref && S.creating?.ref !== m.ref && !S.lastCreate) return undefined; // a repeat's answer
      createAnswered(m.ref);
      challengeAnswered(m); // the challenge form closes
      const G = gameView(m.code);
      G.watchSent = true; // the creator is subscribed already
      if (S.lastCreate) rememberCreated(m.code, S.lastCreate);
      S.lastCreate = null;
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
      S.quick = { state: "waiting", variant: m.variant, time_control: m.time_control, rated: !!m.rated };
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
    case "notification":
      return onNotification(m);
    case "shutdown":
      return undefined; // the connection closes; net.js reconnects
    default:
      return undefined; // ack, pong, anything newer: nothing to show
  }
}

function setStatus(s) {
  S.conn = s;
  const c = $("conn");
  c.className = `conn conn-${s}`;
  c.dataset.state = s;
  c.textContent = t(`conn.${s}`);
  if (s !== "online") accountConnectionLost();
  if (S.route.view === "game" || S.route.view === "lobby") render(); // the lobby says what works offline
}

// A loudspeaker, with sound waves or crossed out (an SVG: emoji fonts are not everywhere).
function speakerIcon(muted) {
  const svg = svgEl("svg", { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true", class: "speaker" });
  svgEl("path", { d: "M3 9h4l5-4v14l-5-4H3z", class: "speaker-body" }, svg);
  if (muted) svgEl("path", { d: "M16 9l5 6M21 9l-5 6", class: "speaker-line" }, svg);
  else svgEl("path", { d: "M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12", class: "speaker-line" }, svg);
  return svg;
}

function renderMute() {
  const b = $("mute-btn");
  const m = isMuted();
  b.replaceChildren(speakerIcon(m));
  b.setAttribute("aria-pressed", m ? "true" : "false");
  b.setAttribute("aria-label", m ? t("sound.unmute") : t("sound.mute"));
  b.title = b.getAttribute("aria-label");
}

// ------------------------------------------------------------------ start
function main() {
  document.documentElement.lang = lang();
  translatePage();
  $("lang-select").value = lang();
  $("lang-select").addEventListener("change", (ev) => {
    setLang(ev.target.value);
    translateLobbyForms();
    translateChallengeForm();
    renderMute();
    setStatus(S.conn);
    render();
  });
  renderMute();
  $("mute-btn").addEventListener("click", () => {
    setMuted(!isMuted());
    unlockAudio();
    renderMute();
  });
  for (const ev of ["pointerdown", "keydown"]) window.addEventListener(ev, unlockAudio, { once: false, passive: true });
  Object.assign(app, { render, navigate, joinGame, newIdentity, local: localSend });
  setupLocal((m) => onMessage(m, null));
  Object.assign(gameHooks, {
    turn: onTurnShown,
    over: (G) => {
      if (S.route.view === "game" && S.route.code === G.code) playSound("end");
    },
    event: onGameEvent,
  });
  setupLobby();
  setupChallenge(); // after the lobby: its form has the create form's pieces
  setupNotes();
  setupPlaying();
  setupRelations();
  setupMail();
  setupTokens();
  setupVacation();
  setupReport();
  setupMod();
  setupTournaments();
  setupGameControls();
  setupReplay();
  setupFlip();
  setupHow();
  setupExplore();
  setupEditor();
  setupPuzzles();
  setupAccount();
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
  window.addEventListener("offline", () => app.conn.offline());
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  // for debugging and the browser tests
  window.trunkfield = { S, app, motion, sounds: played, deliver: onMessage,
    get conn() { return app.conn; }, get rulesReady() { return S.rulesReady; } };
  route();
  app.conn.connect();
  // The app kept on the device (offline play, installing); a newer build taking over says so.
  $("update-reload").addEventListener("click", () => location.reload());
  registerServiceWorker(() => ($("update-note").hidden = false), (url) => navigate(url));
  rulesLoading.then(() => {
    S.rulesReady = true;
    for (const [m, raw] of waiting.splice(0)) onGameMessage(m, raw);
    exploreRulesReady();
    editorRulesReady();
    puzzlesRulesReady();
    render();
  }, (e) => {
    S.rulesError = e.message;
    $("loading").hidden = false;
    $("loading").textContent = t("app.rulesFailed", { reason: e.message });
  });
}

main();
