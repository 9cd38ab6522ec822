// The game mirror of the client library through the WebAssembly bindings (RulesMirror): the
// browser reads the server's messages with the same C++ code as the terminal client and the bot.
//
//   node --test tests/wasm/mirror.test.mjs      (CTest: wasm_mirror; paths as conformance.test.mjs)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bundle = path.resolve(process.env.TF_WASM_BUNDLE || path.join(repo, "build/web/trunkfield-rules.js"));
const cli = path.resolve(process.env.TF_CLI || path.join(repo, "build/bin/trunkfield"));
const { Rules, RulesGame, RulesMirror } = await import(pathToFileURL(bundle).href);
await Rules.load();

// A complete legal game from the native CLI, and what the server would send about it.
const record = JSON.parse(spawnSync(cli, ["rules", "random", "4"], { encoding: "utf8" }).stdout);
const code = "abc234";
const fresh = new RulesGame(record.variant);
const snapshot = {
  type: "snapshot", game: code, version: 1, status: "playing", state: fresh.state(),
  record: { variant: record.variant, time_control: null, setup: { silver: null, bronze: null }, turns: [] },
  players: { silver: { id: "p1", name: "ann", away: null }, bronze: { id: "p2", name: "bob", away: null } },
  clocks: null, spectators: 0, draw_offer: null,
};
fresh.dispose();
const event = (version, kind, payload) => JSON.stringify({ type: "event", game: code, version, kind, payload, clocks: null });

test("the mirror follows a whole game from a snapshot and its events", () => {
  const m = new RulesMirror("p2");
  assert.equal(m.view(), null);
  assert.equal(m.apply(JSON.stringify(snapshot)).update, "snapshot");
  assert.equal(m.view().my_side, "bronze");
  let v = 1;
  assert.equal(m.apply(event(++v, "setup", { side: "silver", setup: record.setup.silver })).update, "event");
  assert.equal(m.apply(event(++v, "setup", { side: "bronze", setup: record.setup.bronze })).update, "event");
  const replay = new RulesGame(record.variant);
  replay.applySetup("silver", record.setup.silver);
  replay.applySetup("bronze", record.setup.bronze);
  record.turns.forEach((turn, i) => {
    const r = m.apply(event(++v, "turn", { side: i % 2 ? "bronze" : "silver", turn }));
    assert.equal(r.update, "event");
    assert.equal(r.kind, "turn");
    assert.ok(Array.isArray(r.event.payload.captures));
    replay.applyTurn(turn);
  });
  const view = m.view();
  assert.equal(view.version, v);
  assert.equal(view.turns.length, record.turns.length);
  assert.deepEqual(view.state, replay.state());
  // Old versions are ignored; a version that skips one is a gap; a turn that does not apply
  // to the mirror's copy is a divergence.
  assert.equal(m.apply(event(3, "chat", { from: { id: "p1", name: "ann" }, text: "x" })).update, "ignored");
  assert.equal(m.apply(event(v + 2, "chat", { from: { id: "p1", name: "ann" }, text: "x" })).update, "gap");
  if (!view.state.over)
    assert.equal(m.apply(event(v + 1, "turn", { side: view.state.to_move, turn: { elephant: { from: [0, 0], path: [[0, 1]] } } })).update, "diverged");
  assert.equal(m.apply("{not json").update, "error");
  replay.dispose();
  m.dispose();
});

test("a snapshot's turn list carries each turn's captures, as live events do", () => {
  const live = new RulesMirror("");
  live.apply(JSON.stringify(snapshot));
  let v = 1;
  live.apply(event(++v, "setup", { side: "silver", setup: record.setup.silver }));
  live.apply(event(++v, "setup", { side: "bronze", setup: record.setup.bronze }));
  record.turns.forEach((turn, i) => live.apply(event(++v, "turn", { side: i % 2 ? "bronze" : "silver", turn })));
  const late = new RulesMirror("");
  const end = live.view();
  late.apply(JSON.stringify({
    ...snapshot, version: v, state: end.state, status: end.state.over ? "over" : "playing",
    record: { ...snapshot.record, setup: record.setup, turns: record.turns },
  }));
  assert.deepEqual(late.view().turns, end.turns);
  live.dispose();
  late.dispose();
});

test("the view has what the web client draws: presence, spectators, chat with its room", () => {
  const m = new RulesMirror("p1");
  const sam = { id: "p3", name: "sam" };
  m.apply(JSON.stringify({ ...snapshot, chat: [{ from: { id: "p2", name: "bob" }, text: "hello", room: "players" }] }));
  assert.deepEqual(m.view().chat, [{ from: { id: "p2", name: "bob" }, text: "hello", room: "players" }]);
  assert.equal(m.view().players.bronze.away, null);
  let r = m.apply(event(2, "player_left", { side: "bronze", claim_at: 1000, award_at: 2000 }));
  assert.equal(r.kind, "player_left");
  assert.deepEqual(m.view().players.bronze, { id: "p2", name: "bob", away: { claim_at: 1000, award_at: 2000 }, rating: null });
  m.apply(event(3, "player_back", { side: "bronze" }));
  assert.equal(m.view().players.bronze.away, null);
  // The spectator count and the spectators' room carry the version without adding one.
  r = m.apply(event(3, "spectators", { count: 2 }));
  assert.equal(r.update, "event");
  assert.equal(m.view().spectators, 2);
  r = m.apply(event(3, "chat", { from: sam, text: "nice", room: "spectators" }));
  assert.equal(r.update, "event");
  assert.equal(r.event.payload.room, "spectators");
  // A line without a room (stored before rooms existed) is the players'.
  assert.equal(m.apply(event(4, "chat", { from: { id: "p1", name: "ann" }, text: "gl" })).update, "event");
  const v = m.view();
  assert.equal(v.version, 4);
  assert.deepEqual(v.chat.map((c) => [c.from.name, c.text, c.room]),
    [["bob", "hello", "players"], ["sam", "nice", "spectators"], ["ann", "gl", "players"]]);
  m.dispose();
});

test("a turn event without captures (an older server) is returned with the mirror's", () => {
  // docs/RULES.md's example game: d1-d2 W5-1 captures bronze's a4.
  const setup = {
    silver: { elephants: [[2, 1], [3, 1], [5, 1], [7, 1], [8, 1]], guardians: [[1, 0], [0, 5]] },
    bronze: { elephants: [[1, 2], [1, 3], [1, 4], [1, 7], [1, 9]], guardians: [[10, 0], [10, 8]] },
  };
  const turns = [{ elephant: { from: [2, 1], path: [[4, 1]], facing: "N" } }, { elephant: { from: [1, 3], path: [[2, 3]] } },
    { elephant: { from: [4, 1], path: [[4, 2]] }, guardians: [{ from: [0, 5], dir: "ccw", steps: 1 }] }];
  const g = new RulesGame(null);
  g.applySetup("silver", setup.silver);
  g.applySetup("bronze", setup.bronze);
  const m = new RulesMirror("p1");
  m.apply(JSON.stringify({ ...snapshot, version: 3, state: g.state(), record: { ...snapshot.record, variant: g.state().variant, setup } }));
  assert.deepEqual(m.apply(event(4, "turn", { side: "silver", turn: turns[0] })).event.payload.captures, []);
  m.apply(event(5, "turn", { side: "bronze", turn: turns[1] }));
  const r = m.apply(event(6, "turn", { side: "silver", turn: turns[2] }));
  assert.deepEqual(r.event.payload.captures, [{ side: "bronze", cell: [1, 4] }]);
  assert.deepEqual(m.view().turns.map((t) => t.captures.length), [0, 0, 1]);
  g.dispose();
  m.dispose();
});

test("rematch events after the game are taken with or without a version of their own", () => {
  const m = new RulesMirror("p1");
  const g = new RulesGame(record.variant);
  g.applySetup("silver", record.setup.silver);
  g.applySetup("bronze", record.setup.bronze);
  m.apply(JSON.stringify({ ...snapshot, version: 3, state: g.state(), record: { ...snapshot.record, setup: record.setup } }));
  m.apply(event(4, "resign", { side: "silver" }));
  assert.equal(m.apply(event(5, "game_over", { over: true, reason: "resign", winner: "bronze", score: g.state().score, to_move: null })).update, "event");
  let v = m.view();
  assert.equal(v.status, "over");
  assert.equal(v.result.winner, "bronze");
  assert.deepEqual([v.rematch_offer, v.rematch_declined, v.rematch_code], [null, null, null]);
  assert.equal(m.apply(event(5, "rematch_offer", { side: "bronze" })).update, "event"); // the current version
  assert.equal(m.view().rematch_offer, "bronze");
  m.apply(event(5, "rematch_decline", { side: "silver" }));
  v = m.view();
  assert.deepEqual([v.rematch_offer, v.rematch_declined, v.version], [null, "silver", 5]);
  m.apply(event(6, "rematch_offer", { side: "silver" })); // a version of its own
  m.apply(event(7, "rematch", { code: "def567" }));
  v = m.view();
  assert.deepEqual([v.rematch_offer, v.rematch_declined, v.rematch_code, v.version], [null, null, "def567", 7]);
  assert.equal(m.apply(event(9, "rematch_decline", { side: "bronze" })).update, "gap");
  g.dispose();
  m.dispose();
});

test("what the web client takes from apply(): the event as the mirror read it, never one twice", () => {
  const m = new RulesMirror("p1");
  const g = new RulesGame(record.variant);
  g.applySetup("silver", record.setup.silver);
  g.applySetup("bronze", record.setup.bronze);
  m.apply(JSON.stringify({ ...snapshot, version: 3, state: g.state(), record: { ...snapshot.record, setup: record.setup } }));
  let r = m.apply(event(4, "draw_offer", { side: "silver" }));
  assert.equal(m.view().draw_offer, "silver");
  r = m.apply(event(5, "draw_decline", { side: "bronze" }));
  assert.deepEqual([r.kind, r.event.payload, m.view().draw_offer], ["draw_decline", { side: "bronze" }, null]);
  assert.equal(m.apply(event(5, "draw_decline", { side: "bronze" })).update, "ignored"); // no second notice
  // An abort says why in its payload; the status and the result come with the game_over.
  r = m.apply(event(6, "abort", { reason: "abandoned" }));
  assert.deepEqual([r.kind, r.event.payload.reason], ["abort", "abandoned"]);
  r = m.apply(event(7, "game_over", { over: true, reason: "aborted", winner: null, score: g.state().score, to_move: null }));
  assert.equal(r.update, "event");
  const v = m.view();
  assert.equal(v.status, "aborted");
  assert.deepEqual([v.result.reason, v.result.winner], ["aborted", null]);
  g.dispose();
  m.dispose();
});

test("the view keeps the last 300 chat lines, and the rematch across a snapshot of the same game", () => {
  const m = new RulesMirror("p1");
  const ann = { id: "p1", name: "ann" };
  const lines = Array.from({ length: 50 }, (_, i) => ({ from: ann, text: `s${i}`, room: "players" }));
  m.apply(JSON.stringify({ ...snapshot, status: "over", chat: lines }));
  assert.equal(m.view().chat.length, 50);
  let v = 1;
  for (let i = 0; i < 260; i++) assert.equal(m.apply(event(++v, "chat", { from: ann, text: `e${i}`, room: "players" })).update, "event");
  let chat = m.view().chat;
  assert.equal(chat.length, 300);
  assert.deepEqual([chat[0].text, chat.at(-1).text], ["s10", "e259"]);
  m.apply(event(++v, "rematch_offer", { side: "bronze" }));
  m.apply(event(++v, "rematch", { code: "def567" }));
  // A fresh snapshot (a resync) has the last lines only, and says nothing of the rematch.
  m.apply(JSON.stringify({ ...snapshot, status: "over", version: v, chat: lines.slice(-2) }));
  const view = m.view();
  assert.deepEqual(view.chat.map((c) => c.text), ["s48", "s49"]);
  assert.deepEqual([view.rematch_offer, view.rematch_declined, view.rematch_code], [null, null, "def567"]);
  m.dispose();
});

test("a rated game: the flag, each seat's rating as the game began, and the changes after it", () => {
  const casual = new RulesMirror("p1");
  casual.apply(JSON.stringify(snapshot));
  let v = casual.view();
  assert.deepEqual([v.rated, v.ratings, v.players.silver.rating, v.players.bronze.rating], [false, null, null, null]);
  casual.dispose();

  const r1500 = { rating: 1500, deviation: 500, games: 0, provisional: true };
  const r1720 = { rating: 1720, deviation: 80, games: 31, provisional: false };
  const rated = { ...snapshot, rated: true, players: { silver: { ...snapshot.players.silver, rating: r1500 },
    bronze: { ...snapshot.players.bronze, rating: r1720 } } };
  const m = new RulesMirror("p1");
  m.apply(JSON.stringify(rated));
  v = m.view();
  assert.equal(v.rated, true);
  assert.deepEqual(v.players.silver.rating, r1500);
  assert.deepEqual(v.players.bronze.rating, r1720);
  assert.equal(v.ratings, null);
  // After the game the server sends the changes, unversioned (the game's current version).
  m.apply(event(2, "resign", { side: "bronze" }));
  m.apply(event(3, "game_over", { over: true, reason: "resign", winner: "silver", score: { silver: 0, bronze: 0 }, to_move: null }));
  const change = { category: "untimed",
    silver: { before: 1500, after: { rating: 1662, deviation: 290, games: 1, provisional: true } },
    bronze: { before: 1720, after: { rating: 1712, deviation: 79, games: 32, provisional: false } } };
  const r = m.apply(event(3, "ratings", change));
  assert.deepEqual([r.update, r.kind], ["event", "ratings"]);
  v = m.view();
  assert.equal(v.version, 3);
  assert.deepEqual(v.ratings, change);
  // The seats keep the ratings as the game began.
  assert.deepEqual(v.players.bronze.rating, r1720);
  m.dispose();

  // A spectator who opens the finished game later reads them from the snapshot.
  const late = new RulesMirror("");
  late.apply(JSON.stringify({ ...rated, version: 3, status: "over", ratings: change }));
  assert.deepEqual(late.view().ratings, change);
  // A join event carries no rating: the seat has none until the next snapshot.
  const open = new RulesMirror("p1");
  open.apply(JSON.stringify({ ...rated, status: "open", players: { silver: rated.players.silver, bronze: null } }));
  open.apply(event(2, "join", { side: "bronze", player: { id: "p2", name: "bob" } }));
  v = open.view();
  assert.deepEqual([v.rated, v.players.silver.rating, v.players.bronze.rating], [true, r1500, null]);
  late.dispose();
  open.dispose();
});

test("a takeback drops the turns and replays the rest; preferences and time given", () => {
  const m = new RulesMirror("p1");
  m.apply(JSON.stringify(snapshot));
  let v = 1;
  m.apply(event(++v, "setup", { side: "silver", setup: record.setup.silver }));
  m.apply(event(++v, "setup", { side: "bronze", setup: record.setup.bronze }));
  const replay = new RulesGame(record.variant);
  replay.applySetup("silver", record.setup.silver);
  replay.applySetup("bronze", record.setup.bronze);
  const states = [];
  for (let i = 0; i < 4; i++) {
    states.push(replay.state());
    m.apply(event(++v, "turn", { side: i % 2 ? "bronze" : "silver", turn: record.turns[i] }));
    replay.applyTurn(record.turns[i]);
  }
  let view = m.view();
  assert.deepEqual([view.takebacks_on, view.takeback_turns.silver, view.takeback_turns.bronze], [true, 2, 1]);
  assert.equal(m.apply(event(++v, "takeback_offer", { side: "silver" })).kind, "takeback_offer");
  assert.equal(m.view().takeback_offer, "silver");
  // A takeback of other turns than the mirror's rule says does not apply.
  assert.equal(m.apply(event(v + 1, "takeback", { side: "silver", turns: 1 })).update, "diverged");
  assert.equal(m.apply(event(++v, "takeback", { side: "silver", turns: 2 })).update, "event");
  view = m.view();
  assert.deepEqual([view.turns.length, view.takeback_offer, view.state.to_move], [2, null, "silver"]);
  assert.deepEqual(view.state, states[2]);
  // The game's first turn never goes.
  assert.equal(view.takeback_turns.silver, 0);
  m.apply(event(++v, "preferences", { side: "bronze", takeback: false, more_time: true }));
  view = m.view();
  assert.deepEqual([view.takebacks_on, view.preferences.bronze], [false, { takeback: false, more_time: true }]);
  assert.equal(m.apply(event(++v, "time_given", { side: "silver", ms: 15000 })).kind, "time_given");
  replay.dispose();
  m.dispose();
});
