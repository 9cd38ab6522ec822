// A bare WebSocket relay: the floor any JSON game server over WebSocket stands on. It is the
// peer trunkfield-server is compared with in bench/run (docs/BENCHMARKS.md, issue 7): Node 20
// and the `ws` package, no validation, no persistence, no game logic.
//
// Relay protocol (what tf-loadgen --proto relay speaks):
//   1. Connect to ws://HOST:PORT/ (any path). One message per text frame, 16 KiB at most.
//   2. The first message joins a room:
//        {"type":"join","room":"NAME","role":"player"}     (at most two players per room)
//        {"type":"join","room":"NAME","role":"spectator"}  (any number)
//      answered {"type":"joined","room":"NAME","role":"player"}, or
//      {"type":"error","code":"bad_join"|"room_full"} (the connection stays open; join again).
//   3. Every later message is opaque: it is forwarded verbatim, unparsed, to every other member
//      of the room (players and spectators), in the order received. Nothing is answered.
//   A room disappears with its last member. Closing the connection leaves the room.
//
// Usage: node relay.mjs [--host 127.0.0.1] [--port 0]
// Prints "listening relay=HOST:PORT" on stdout once it accepts connections.
import { WebSocketServer } from 'ws';

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const host = option('--host', '127.0.0.1');
const port = Number(option('--port', '0'));

// Same transport settings as trunkfield-server: no compression, 16 KiB frames, TCP_NODELAY
// (ws sets it on every socket).
const wss = new WebSocketServer({
  host,
  port,
  perMessageDeflate: false,
  maxPayload: 16 * 1024,
  clientTracking: false,
});

const rooms = new Map(); // name -> {players: number, members: Set<WebSocket>}

function leave(ws) {
  const room = ws.room;
  if (!room) return;
  room.members.delete(ws);
  if (ws.role === 'player') room.players--;
  if (room.members.size === 0) rooms.delete(ws.roomName);
  ws.room = null;
}

function join(ws, data) {
  let msg;
  try {
    msg = JSON.parse(data);
  } catch {
    msg = null;
  }
  const ok =
    msg && msg.type === 'join' && typeof msg.room === 'string' && msg.room.length > 0 &&
    msg.room.length <= 64 && (msg.role === 'player' || msg.role === 'spectator');
  if (!ok) return ws.send('{"type":"error","code":"bad_join"}');
  let room = rooms.get(msg.room);
  if (!room) {
    room = { players: 0, members: new Set() };
    rooms.set(msg.room, room);
  }
  if (msg.role === 'player' && room.players >= 2) {
    if (room.members.size === 0) rooms.delete(msg.room);
    return ws.send('{"type":"error","code":"room_full"}');
  }
  if (msg.role === 'player') room.players++;
  room.members.add(ws);
  ws.room = room;
  ws.roomName = msg.room;
  ws.role = msg.role;
  ws.send(JSON.stringify({ type: 'joined', room: msg.room, role: msg.role }));
}

wss.on('connection', (ws) => {
  ws.room = null;
  ws.on('message', (data, isBinary) => {
    if (!ws.room) return join(ws, data.toString());
    for (const other of ws.room.members)
      if (other !== ws) other.send(data, { binary: isBinary });
  });
  ws.on('close', () => leave(ws));
  ws.on('error', () => leave(ws));
});

wss.on('listening', () => {
  const a = wss.address();
  console.log(`listening relay=${a.address}:${a.port}`);
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
