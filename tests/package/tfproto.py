"""A small client of proto/PROTOCOL.md for the package and reverse-proxy tests (Python standard
library only): newline-delimited JSON over TCP, or WebSocket (ws:// or, through a TLS proxy,
wss://) with the client side of RFC 6455, and play_record(), which plays a complete game record
(`trunkfield rules random SEED`) as both players, one move at a time, each acknowledged.
"""
import base64
import http.client
import json
import os
import select
import socket
import ssl
import struct
import time


def free_port():
    """A TCP port free on loopback right now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class ProtocolError(Exception):
    pass


class Conn:
    """One connection; messages are dicts. seen keeps every message received."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.seen = []

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _fill(self, timeout):
        """Reads more bytes into buf; False when nothing came within timeout."""
        if not (isinstance(self.sock, ssl.SSLSocket) and self.sock.pending()):
            ready, _, _ = select.select([self.sock], [], [], max(timeout, 0))
            if not ready:
                return False
        data = self.sock.recv(65536)
        if not data:
            raise ProtocolError("connection closed by the server")
        self.buf += data
        return True

    def recv(self, timeout=30.0):
        """The next message, or None after timeout seconds without one."""
        deadline = time.time() + timeout
        while True:
            msg = self._take()
            if msg is not None:
                self.seen.append(msg)
                return msg
            if not self._fill(deadline - time.time()) and time.time() >= deadline:
                return None

    def wait(self, pred, timeout=30.0, what="a message"):
        deadline = time.time() + timeout
        while True:
            msg = self.recv(max(deadline - time.time(), 0))
            if msg is None:
                raise ProtocolError(f"no {what} within {timeout} s (last: {self.seen[-3:]})")
            if pred(msg):
                return msg

    def drain(self):
        """Reads whatever has arrived, without waiting."""
        while self.recv(0) is not None:
            pass


class TcpConn(Conn):
    @classmethod
    def connect(cls, host, port, timeout=10, source=None):
        """source: the local address to connect from (e.g. "127.0.0.2", another loopback)."""
        return cls(socket.create_connection((host, port), timeout=timeout,
                                            source_address=(source, 0) if source else None))

    def send(self, msg):
        self.sock.sendall(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def _take(self):
        nl = self.buf.find(b"\n")
        if nl < 0:
            return None
        line, self.buf = self.buf[:nl], self.buf[nl + 1:]
        return json.loads(line) if line.strip() else self._take()


class HandshakeRefused(ProtocolError):
    def __init__(self, status, head):
        super().__init__(f"WebSocket upgrade refused: {status}")
        self.status = status
        self.head = head


class WsConn(Conn):
    @classmethod
    def connect(cls, host, port, path="/ws", tls=None, host_header=None, origin=None,
                timeout=10, source=None):
        """tls: an ssl.SSLContext for wss:// (the certificate is checked against host); source:
        the local address to connect from."""
        sock = socket.create_connection((host, port), timeout=timeout,
                                        source_address=(source, 0) if source else None)
        if tls is not None:
            sock = tls.wrap_socket(sock, server_hostname=host)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host_header or f'{host}:{port}'}",
                 "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                 "Sec-WebSocket-Version: 13"]
        if origin:
            lines.append(f"Origin: {origin}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        conn = cls(sock)
        while b"\r\n\r\n" not in conn.buf:
            if not conn._fill(timeout):
                raise ProtocolError("no answer to the WebSocket upgrade")
        head, conn.buf = conn.buf.split(b"\r\n\r\n", 1)
        head = head.decode("latin-1")
        status = int(head.split(" ", 2)[1])
        if status != 101:
            sock.close()
            raise HandshakeRefused(status, head)
        return conn

    def _frame(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, msg):
        self._frame(0x1, json.dumps(msg, separators=(",", ":")).encode())

    def _take(self):
        while True:
            if len(self.buf) < 2:
                return None
            b0, b1 = self.buf[0], self.buf[1]
            n, off = b1 & 0x7F, 2
            if n == 126:
                if len(self.buf) < 4:
                    return None
                n, off = struct.unpack("!H", self.buf[2:4])[0], 4
            elif n == 127:
                if len(self.buf) < 10:
                    return None
                n, off = struct.unpack("!Q", self.buf[2:10])[0], 10
            if b1 & 0x80:
                raise ProtocolError("the server masked a frame")
            if len(self.buf) < off + n:
                return None
            payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
            opcode = b0 & 0x0F
            if opcode == 0x9:  # ping: answer, go on
                self._frame(0xA, payload)
            elif opcode == 0x8:
                raise ProtocolError(f"WebSocket closed by the server: {payload!r}")
            elif opcode == 0x1:
                return json.loads(payload)


def hello(conn, name=None, token=None):
    msg = {"type": "hello", "version": 1}
    if token:
        msg["token"] = token
    else:
        msg["name"] = name
    conn.send(msg)
    return conn.wait(lambda m: m["type"] == "welcome", what="welcome")


def _act(conn, msg, ref, others):
    """Sends a setup or turn and waits for its ack, again after a rate_limited refusal."""
    msg = dict(msg, ref=ref)
    for _ in range(20):
        conn.send(msg)
        while True:
            m = conn.wait(lambda m: m["type"] in ("ack", "error"), what=f"ack of {ref}")
            if m["type"] == "ack" and m.get("ref") == ref:
                for o in others:
                    o.drain()
                return m
            if m["type"] == "error" and m.get("code") == "rate_limited":
                time.sleep(1.0)
                break  # dropped unread: send it again
            if m["type"] == "error" and m.get("ref") == ref:
                raise ProtocolError(f"{ref} refused: {m}")
    raise ProtocolError(f"{ref}: rate limited again and again")


class RecordGame:
    """Plays a complete game record (`trunkfield rules random`) as both players: silver creates
    a private untimed game of the record's variant, bronze joins, then both send the record's
    setups and turns one at a time, each acknowledged. play() may stop half-way; after a server
    restart, reconnect() goes on with new connections and the players' tokens."""

    def __init__(self, record, pace=0.03):
        self.record = record
        self.pace = pace  # seconds between moves: under the default 20 messages/s per connection
        self.moves = [("setup", "silver", record["setup"]["silver"]),
                      ("setup", "bronze", record["setup"]["bronze"])]
        self.moves += [("turn", "silver" if i % 2 == 0 else "bronze", t)
                       for i, t in enumerate(record["turns"])]
        self.next = 0
        self.code = None
        self.tokens = {}
        self.seats = {}

    def start(self, silver, bronze):
        self.seats = {"silver": silver, "bronze": bronze}
        for side, conn in self.seats.items():
            self.tokens[side] = hello(conn, f"{side}-player")["token"]
        silver.send({"type": "create_game", "variant": self.record["variant"],
                     "time_control": None, "color": "silver", "public": False})
        self.code = silver.wait(lambda m: m["type"] == "game_created", what="game_created")["code"]
        bronze.send({"type": "join_game", "code": self.code})
        bronze.wait(lambda m: m["type"] == "snapshot" and m["game"] == self.code, what="snapshot")

    def reconnect(self, silver, bronze):
        """New connections for both seats (hello with the token, watch the game); returns the
        snapshot silver got."""
        self.seats = {"silver": silver, "bronze": bronze}
        snap = None
        for side, conn in self.seats.items():
            hello(conn, token=self.tokens[side])
            conn.send({"type": "watch", "code": self.code})
            s = conn.wait(lambda m: m["type"] == "snapshot" and m["game"] == self.code,
                          what="snapshot")
            snap = snap or s
        return snap

    def play(self, until=None):
        """Plays the moves up to index `until` (setups count: 0 and 1), or to the end. Returns
        the game_over payload once the record is played out, else None."""
        until = len(self.moves) if until is None else until
        while self.next < until:
            kind, side, data = self.moves[self.next]
            me = self.seats[side]
            time.sleep(self.pace)
            _act(me, {"type": kind, "game": self.code, kind: data}, f"m{self.next}",
                 [c for c in self.seats.values() if c is not me])
            self.next += 1
        if self.next < len(self.moves):
            return None
        silver = self.seats["silver"]
        is_over = lambda m: (m["type"] == "event" and m.get("game") == self.code and
                             m.get("kind") == "game_over")
        over = next((m for m in silver.seen if is_over(m)), None)
        return (over or silver.wait(is_over, what="game_over"))["payload"]


def play_record(silver, bronze, record, pace=0.03):
    """A whole game on two fresh connections; returns (code, game_over payload)."""
    g = RecordGame(record, pace)
    g.start(silver, bronze)
    return g.code, g.play()


def http_get(host, port, path, tls=None, host_header=None, headers=None, timeout=10):
    """(status, headers dict with lower-case names, body bytes)."""
    if tls is not None:
        conn = http.client.HTTPSConnection(host, port, context=tls, timeout=timeout)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
    h = dict(headers or {})
    if host_header:
        h["Host"] = host_header
    try:
        conn.request("GET", path, headers=h)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()
