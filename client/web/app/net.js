// The WebSocket connection to trunkfield-server (proto/PROTOCOL.md): hello with the saved token,
// automatic reconnection with backoff, and a heartbeat that notices a dead connection within a
// few seconds (a socket whose network is gone stays "open" for minutes otherwise).
//
// Heartbeat: a ping every PING_MS while connected, and at once after anything important was
// sent (probe()); when nothing at all (pong or other) arrives within PONG_MS of a ping — or
// four round trips, on a network slower than that — the connection is declared dead, dropped
// and replaced. The browser's `offline` event drops it at once and `online` reconnects at once.
//
// Emits every server message to onMessage(message, text) (parsed, and the frame's text for those
// that want to read it themselves: the game mirror) and connection changes to
// onStatus("connecting" | "online" | "reconnecting" | "offline").
//
// Pacing: every message costs one of the connection's credits at the server (PROTOCOL.md
// "Limits": a bucket of 40, 20 a second; a message without one is refused, rate_limited). The
// page keeps a bucket of its own a little under those, and what it would send without a credit
// waits for one, in order: a welcome that watches dozens of games (correspondence games) is
// sent over a few seconds instead of losing the watches past the fortieth.
const TOKEN_KEY = "trunkfield.token";
const PING_MS = 5000;
const PONG_MS = 3500;
const CREDIT_BURST = 36;
const CREDIT_RATE = 18; // per second

export class Connection {
  constructor({ getName, onMessage, onStatus, onWelcome }) {
    this.getName = getName;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onWelcome = onWelcome;
    this.ws = null;
    this.ready = false;
    this.retry = 0;
    this.queue = [];
    this.backlog = []; // welcomed, waiting for a credit (pacing)
    this.credits = CREDIT_BURST;
    this.refilled = Date.now();
    this.flushTimer = null;
    this.deadline = 0; // a ping is unanswered until then (0: none outstanding)
    this.lastPing = 0;
    this.sentAt = 0; // when the outstanding ping (or hello) left
    this.rtt = 0; // smoothed round trip, ms
    this.signedOut = null; // the error code when the server revoked this connection's token
    this.timer = setInterval(() => this.beat(), 500);
  }

  get token() {
    return localStorage.getItem(TOKEN_KEY);
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    let ws;
    try {
      ws = new WebSocket(`${proto}://${location.host}/ws`);
    } catch {
      return this.lost("offline");
    }
    this.ws = ws;
    this.ready = false;
    this.deadline = Date.now() + 10000; // the handshake too must be answered
    this.sentAt = Date.now();
    this.onStatus(navigator.onLine === false ? "offline" : this.retry ? "reconnecting" : "connecting");
    ws.onopen = () => {
      this.credits = CREDIT_BURST - 1; // a new connection has a full bucket; the hello takes one
      this.refilled = Date.now();
      const hello = { type: "hello", version: 1 };
      const name = this.getName();
      if (name) hello.name = name;
      if (this.token) hello.token = this.token;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      if (this.deadline && this.sentAt) {
        const rtt = Date.now() - this.sentAt;
        this.rtt = this.rtt ? 0.8 * this.rtt + 0.2 * rtt : rtt;
      }
      this.deadline = 0; // anything at all proves the connection alive
      this.sentAt = 0;
      let m;
      try {
        m = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (m.type === "welcome") {
        localStorage.setItem(TOKEN_KEY, m.token);
        this.ready = true;
        this.retry = 0;
        this.onStatus("online");
        this.onWelcome(m);
        const q = this.queue;
        this.queue = [];
        for (const x of q) this.send(x);
        return;
      }
      if (m.type === "error" && m.code === "bad_name" && !this.ready) {
        // The saved name cannot be had (an account's, a reserved one): come in as a guest
        // without one, and say why.
        const hello = { type: "hello", version: 1 };
        if (this.token) hello.token = this.token;
        this.spend();
        ws.send(JSON.stringify(hello));
        this.onMessage(m, null);
        return;
      }
      if (m.type === "error" && (m.code === "bad_token" || (m.code === "account_closed" && !m.ref))) {
        // At the hello: the server forgot us (a new database). Later: this account was signed
        // out by another connection (sign out everywhere, a new password: bad_token) or a
        // moderator closed the account (account_closed), and the server closes this one. Either
        // way the token is void: start over as a new player (account.js says why at the next
        // welcome).
        if (this.ready) this.signedOut = m.code;
        localStorage.removeItem(TOKEN_KEY);
        ws.close();
        return;
      }
      if (m.type === "pong") return;
      this.onMessage(m, typeof ev.data === "string" ? ev.data : null);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.lost(navigator.onLine === false ? "offline" : "reconnecting");
    };
  }

  // The connection is gone (closed, dead or the browser is offline): forget the socket and try
  // again after a backoff (at once the first time).
  lost(status) {
    const ws = this.ws;
    this.ws = null;
    this.ready = false;
    // what waited for a credit goes after the next welcome, as anything sent while away
    this.queue = [...this.backlog, ...this.queue];
    this.backlog = [];
    clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.deadline = 0;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      try {
        ws.close();
      } catch { /* already closed */ }
    }
    this.onStatus(status);
    clearTimeout(this.retryTimer);
    const delay = this.retry === 0 ? 0 : Math.min(5000, 250 * 2 ** this.retry);
    this.retry++;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  beat() {
    const now = Date.now();
    if (this.deadline && now > this.deadline) return this.lost(navigator.onLine === false ? "offline" : "reconnecting");
    if (this.ready && !this.deadline && now - this.lastPing >= PING_MS) this.ping();
  }

  ping() {
    if (!this.ready || this.ws?.readyState !== WebSocket.OPEN) return;
    this.lastPing = Date.now();
    if (!this.deadline) {
      this.sentAt = this.lastPing;
      this.deadline = this.lastPing + Math.max(PONG_MS, 4 * this.rtt);
    }
    this.spend();
    try {
      this.ws.send('{"type":"ping"}');
    } catch {
      this.lost("reconnecting");
    }
  }

  // Something was sent that must not go unanswered (a turn): check the connection now.
  probe() {
    this.ping();
  }

  // The browser says the network is gone / back.
  offline() {
    this.retry = Math.max(this.retry, 1);
    this.lost("offline");
  }
  retryNow() {
    if (this.ws && (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN)) return this.probe();
    clearTimeout(this.retryTimer);
    this.connect();
  }

  // Sends now when welcomed and a credit is there, after the messages waiting for one; when not
  // welcomed, after the next welcome.
  send(msg) {
    if (!(this.ready && this.ws?.readyState === WebSocket.OPEN)) return void this.queue.push(msg);
    this.backlog.push(msg);
    this.flush();
  }

  refill() {
    const now = Date.now();
    this.credits = Math.min(CREDIT_BURST, this.credits + ((now - this.refilled) * CREDIT_RATE) / 1000);
    this.refilled = now;
  }
  spend() {
    this.refill();
    this.credits -= 1;
  }
  flush() {
    this.refill();
    while (this.backlog.length && this.credits >= 1 && this.ws?.readyState === WebSocket.OPEN) {
      this.credits -= 1;
      this.ws.send(JSON.stringify(this.backlog.shift()));
    }
    if (this.backlog.length && !this.flushTimer) {
      const wait = Math.ceil(((1 - this.credits) * 1000) / CREDIT_RATE) + 5;
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        if (this.ready) this.flush();
      }, Math.max(5, wait));
    }
  }

  forgetToken() {
    localStorage.removeItem(TOKEN_KEY);
  }

  // For tests and a new identity: drop the socket; reconnection follows.
  drop() {
    this.retry = 0;
    this.lost("reconnecting");
  }
}
