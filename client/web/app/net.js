// The WebSocket connection to trunkfield-server (proto/PROTOCOL.md): hello with the saved token,
// automatic reconnection with backoff, keep-alive pings. Emits every server message to onMessage
// and connection changes to onStatus("connecting" | "online" | "offline").
const TOKEN_KEY = "trunkfield.token";

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
    this.pingTimer = null;
  }

  get token() {
    return localStorage.getItem(TOKEN_KEY);
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws`);
    this.ws = ws;
    this.ready = false;
    this.onStatus("connecting");
    ws.onopen = () => {
      const hello = { type: "hello", version: 1 };
      const name = this.getName();
      if (name) hello.name = name;
      if (this.token) hello.token = this.token;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (ev) => {
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
      if (m.type === "error" && m.code === "bad_token" && !this.ready) {
        // The server forgot us (restart): start over as a new player.
        localStorage.removeItem(TOKEN_KEY);
        ws.close();
        return;
      }
      if (m.type === "pong") return;
      this.onMessage(m);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ready = false;
      this.onStatus("offline");
      const delay = Math.min(5000, 300 * 2 ** this.retry++);
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (this.ready) this.ws.send('{"type":"ping"}');
    }, 20000);
  }

  // The browser says the network is back: try at once instead of waiting for the backoff.
  retryNow() {
    const st = this.ws?.readyState;
    if (st === WebSocket.CONNECTING || st === WebSocket.OPEN) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  // Sends now when welcomed, else after the next welcome.
  send(msg) {
    if (this.ready && this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }

  forgetToken() {
    localStorage.removeItem(TOKEN_KEY);
  }

  // For tests and the "reconnect" button: drop the socket; reconnection follows.
  drop() {
    this.ws?.close();
  }
}
