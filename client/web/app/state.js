// The page's shared state and the hooks app.js fills in (so screens can send, navigate and
// redraw without importing app.js).
export const S = {
  me: null,            // welcome: {player_id, name, token, games}
  route: { view: "lobby" }, // {view: "lobby" | "game" | "replay" | "how", code?}
  games: new Map(),    // code -> game view (game.js)
  lobby: [],           // open games (lobby message)
  live: [],            // live games (live message)
  quick: null,         // quick match: null | {state: "asking" | "waiting", time_control, variant}
  bot: null,           // a create_game with a bot in flight: {level, code?, at}
  recent: { games: [], next: null, error: null, loading: false, loadedFor: null },
  replay: null,        // replay.js
  pendingJoin: null,   // the code of a join_game in flight
  refSeq: 0,
};

export const app = {
  conn: null,          // net.js Connection
  render: () => {},
  navigate: (_path) => {},
};

export const send = (msg) => app.conn?.send(msg);

// The side the signed-in player holds in game view G, or null (a spectator).
export const mySide = (G) =>
  ["silver", "bronze"].find((s) => G?.players?.[s] && S.me && G.players[s].id === S.me.player_id) ?? null;
