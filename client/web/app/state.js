// The page's shared state and the hooks app.js fills in (so screens can send, navigate and
// redraw without importing app.js).
export const S = {
  me: null,            // welcome: {player_id, name, token, games, account: null | {username, ratings}}
  route: { view: "lobby" }, // {view: "lobby" | "game" | "replay" | "how" | "profile" | "leaderboard", code?, name?, category?}
  games: new Map(),    // code -> game view (game.js)
  lobby: [],           // open games (lobby message)
  live: [],            // live games (live message)
  quick: null,         // quick match: null | {state: "asking" | "waiting", time_control, variant}
  bot: null,           // a create_game with a bot in flight: {level, code?, at}
  recent: { games: [], next: null, error: null, loading: false, loadedFor: null },
  replay: null,        // replay.js
  profile: null,       // the player page shown (profile.js)
  board: null,         // the leaderboard shown (leaderboard.js)
  notes: null,         // the account's notifications (notices.js): {for, unread, list, loading, loaded, error}
  rel: null,           // the account's follows and blocks (relations.js): {for, following, blocked, loading, loaded, error, ...}
  pendingJoin: null,   // the code of a join_game in flight
  creating: null,      // a create_game in flight: {ref, at} (sendCreate)
  refSeq: 0,
  doneRefs: new Set(), // refs of setups/turns already settled (a resent one's late error is void)
  rulesReady: false,   // the WebAssembly rules are loaded
  conn: "connecting",  // connecting | online | reconnecting | offline
};

export const app = {
  conn: null,          // net.js Connection
  render: () => {},
  navigate: (_path) => {},
  local: (_msg) => false, // localgame.js: takes the messages about games on this device
};

// The display name the player chose, kept on the device ("" for none).
export const NAME_KEY = "trunkfield.name";
export const storedName = () => localStorage.getItem(NAME_KEY) ?? "";

// To the server, or to the local room of a game on this device.
export const send = (msg) => (app.local(msg) ? undefined : app.conn?.send(msg));

// A create_game, sent once however often its button is clicked: while one is in flight (5 s at
// most) further clicks do nothing and the buttons that create stay disabled; its ref makes the
// server answer a repeat with the same game, should one get through.
const CREATE_BUTTONS = ["create-btn", "again-btn"];
export function sendCreate(msg) {
  if (S.creating && Date.now() - S.creating.at < 5000) return false;
  const ref = `c${++S.refSeq}`;
  S.creating = { ref, at: Date.now() };
  S.lastCreate = msg;
  setCreateButtons(true);
  setTimeout(() => {
    if (S.creating?.ref === ref) createAnswered(ref);
  }, 5000);
  send({ ...msg, ref });
  return true;
}
// The answer to a create_game (game_created or an error with its ref) came: the buttons work again.
export function createAnswered(ref) {
  if (!S.creating || (ref && S.creating.ref !== ref)) return;
  S.creating = null;
  setCreateButtons(false);
}
function setCreateButtons(busy) {
  for (const id of CREATE_BUTTONS) {
    const b = document.getElementById(id);
    if (b) b.disabled = busy;
  }
}

// The side the signed-in player holds in game view G, or null (a spectator). A local game (the
// practice of How to play) says which side the player has.
export const mySide = (G) =>
  G?.localSide ?? (["silver", "bronze"].find((s) => G?.players?.[s] && S.me && G.players[s].id === S.me.player_id) ?? null);

// A house bot (PROTOCOL.md "House bots": the bot account "Level3", played by the server's own
// computer): its level, else null.
export const houseBot = (player) => {
  const m = player?.bot ? /^Level([1-5])$/.exec(player.name ?? "") : null;
  return m ? Number(m[1]) : null;
};

// A server-seated computer player ({id: "bot3", name: "Computer (level 3)"}): its level, else null.
export const botLevel = (player) => {
  const m = /^bot([1-5])$/.exec(player?.id ?? "");
  return m ? Number(m[1]) : null;
};
