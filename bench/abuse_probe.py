#!/usr/bin/env python3
"""What one attacker on one address can do to a server (issue 31), measured the same way before
and after the limits: run it against any build of trunkfield-server.

  bench/abuse_probe.py SERVER_BIN [open|logins|descriptors ...]

  open         fresh guests (a new TCP connection each, closed after its game_created) create
               public games for 10 s: how many games were created, how many the lobby lists,
               and how many are still listed 75 s later (their creators long gone).
  logins       100 connections log in to one account over and over for 20 s (correct
               password); meanwhile another account logs in every second on a connection of its
               own from the same machine: its login times (median, max), and the flood's answers.
  logins-from-many
               the same through a trusted proxy (--trusted-proxies 127.0.0.1, PROXY protocol v2
               headers): the flood's 100 connections each from an address of its own, the other
               user from another (servers that know --trusted-proxies only).
  descriptors  the server with RLIMIT_NOFILE 256; 400 connections are opened and held: the
               server's CPU and its log's growth over the next 5 s, and whether a connection
               made after the 400 are closed is served.

Each probe starts a fresh server on loopback ports (SQLite in a temporary folder) and prints one
line of figures. Nothing here asserts anything: tests/integration checks the limits.
"""
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import shutil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "package"))
import tfproto  # noqa: E402



class Server:
    def __init__(self, binary, extra=(), nofile=None):
        self.data = tempfile.mkdtemp(prefix="tf-abuse-")
        self.log_path = os.path.join(self.data, "server.log")
        self.http, self.tcp = tfproto.free_port(), tfproto.free_port()
        args = [binary, "--http-port", str(self.http), "--tcp-port", str(self.tcp),
                "--data", os.path.join(self.data, "db"), "--web-root", ""] + list(extra)

        def limits():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT,
                                     preexec_fn=limits)
        deadline = time.time() + 30
        while b"listening" not in open(self.log_path, "rb").read():
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("the server did not start:\n" + open(self.log_path).read())
            time.sleep(0.05)

    def cpu_seconds(self):
        fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_bytes(self):
        return os.path.getsize(self.log_path)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


def proxy_v2(address):
    """A PROXY protocol v2 header saying `address` (IPv4) connected."""
    src = socket.inet_aton(address)
    return (b"\r\n\r\n\x00\r\nQUIT\n" + bytes([0x21, 0x11, 0, 12]) + src +
            socket.inet_aton("127.0.0.1") + (40000).to_bytes(2, "big") + (8081).to_bytes(2, "big"))


def connect(srv, address=None):
    c = tfproto.TcpConn.connect("127.0.0.1", srv.tcp)
    if address:
        c.sock.sendall(proxy_v2(address))
    return c


def lobby_size(srv):
    c = connect(srv)
    tfproto.hello(c, name="watcher")
    c.send({"type": "list_games"})
    m = c.wait(lambda m: m["type"] == "lobby", what="lobby")
    c.close()
    return len(m["games"])


def probe_open(binary):
    srv = Server(binary)
    try:
        created = refused = 0
        codes = {}
        end = time.time() + 10
        while time.time() < end:
            c = connect(srv)
            try:
                c.send({"type": "hello", "version": 1})
                c.send({"type": "create_game", "time_control": None, "color": "silver",
                        "public": True, "ref": "c"})
                m = c.wait(lambda m: m["type"] in ("game_created", "error"), timeout=10)
                if m["type"] == "game_created":
                    created += 1
                else:
                    refused += 1
                    codes[m["code"]] = codes.get(m["code"], 0) + 1
            except tfproto.ProtocolError:
                refused += 1
                codes["closed"] = codes.get("closed", 0) + 1
            finally:
                c.close()
        listed = lobby_size(srv)
        time.sleep(75)
        later = lobby_size(srv)
        rss = int(open(f"/proc/{srv.proc.pid}/status").read().split("VmRSS:")[1].split()[0])
        print(f"open: {created} games created in 10 s by fresh guests from one address "
              f"({refused} refused: {codes}); lobby lists {listed}; 75 s after their creators "
              f"left it lists {later}; server RSS {rss} kB")
    finally:
        srv.stop()


def account(srv, name, password):
    c = connect(srv)
    tfproto.hello(c, name=name)
    c.send({"type": "register", "username": name, "password": password, "ref": "r"})
    m = c.wait(lambda m: m.get("ref") == "r", what="register")
    assert m["type"] == "welcome", m
    c.close()


def probe_logins(binary, many=False):
    srv = Server(binary, extra=["--trusted-proxies", "127.0.0.1"] if many else [])
    try:
        account(srv, "flooder", "flood password 1")
        account(srv, "victim", "victim password 1")
        def victim_login(v, ref):
            t0 = time.monotonic()
            v.send({"type": "login", "username": "victim", "password": "victim password 1",
                    "ref": ref})
            m = v.wait(lambda m: m.get("ref") == ref, timeout=120)
            return (time.monotonic() - t0) * 1000, m.get("code", m["type"])

        quiet = []
        q = connect(srv, "203.0.113.9" if many else None)
        tfproto.hello(q)
        for i in range(5):
            quiet.append(victim_login(q, f"q{i}")[0])
        q.close()
        stop = threading.Event()
        counts = {"welcome": 0}
        lock = threading.Lock()

        def flood(n):
            try:
                c = connect(srv, f"198.51.{n // 250}.{n % 250 + 1}" if many else None)
                tfproto.hello(c)
                i = 0
                while not stop.is_set():
                    i += 1
                    c.send({"type": "login", "username": "flooder",
                            "password": "flood password 1", "ref": str(i)})
                    m = c.wait(lambda m: m.get("ref") == str(i) or m["type"] == "error",
                               timeout=60)
                    with lock:
                        counts[m.get("code", m["type"])] = counts.get(m.get("code", m["type"]),
                                                                       0) + 1
                    if m["type"] == "error":
                        time.sleep(0.5)
                c.close()
            except (tfproto.ProtocolError, OSError) as e:
                with lock:
                    counts["closed"] = counts.get("closed", 0) + 1

        threads = [threading.Thread(target=flood, args=(n,), daemon=True) for n in range(100)]
        for t in threads:
            t.start()
        time.sleep(2)
        times, answers = [], {}
        end = time.time() + 20
        v = connect(srv, "203.0.113.9" if many else None)
        tfproto.hello(v)
        i = 0
        while time.time() < end:
            i += 1
            ms, answer = victim_login(v, f"v{i}")
            times.append(ms)
            answers[answer] = answers.get(answer, 0) + 1
            time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join(60)
        print(f"logins{'-from-many' if many else ''}: the other user's login took median "
              f"{statistics.median(times):.0f} ms (alone: {statistics.median(quiet):.0f} ms), "
              f"max {max(times):.0f} ms over {len(times)} logins ({answers}); the flood got "
              f"{counts}")
    finally:
        srv.stop()


def probe_descriptors(binary):
    srv = Server(binary, nofile=256)
    socks = []
    try:
        for _ in range(400):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", srv.tcp))
            except BlockingIOError:
                pass
            socks.append(s)
        time.sleep(1)
        c0, l0, t0 = srv.cpu_seconds(), srv.log_bytes(), time.time()
        time.sleep(5)
        c1, l1, t1 = srv.cpu_seconds(), srv.log_bytes(), time.time()
        for s in socks:
            s.close()
        socks = []
        time.sleep(1)
        try:
            c = connect(srv)
            served = tfproto.hello(c, name="after")["type"] == "welcome"
            c.close()
        except (tfproto.ProtocolError, OSError):
            served = False
        print(f"descriptors: at RLIMIT_NOFILE 256 with 400 connections held, the server used "
              f"{100 * (c1 - c0) / (t1 - t0):.0f} % of a core and logged "
              f"{(l1 - l0) / (t1 - t0) / 1e6:.2f} MB/s; a connection after they closed was "
              f"{'served' if served else 'NOT served'}")
    finally:
        for s in socks:
            s.close()
        srv.stop()


if __name__ == "__main__":
    binary = sys.argv[1]
    probes = sys.argv[2:] or ["open", "logins", "descriptors"]
    for p in probes:
        {"open": probe_open, "logins": probe_logins, "descriptors": probe_descriptors,
         "logins-from-many": lambda b: probe_logins(b, many=True)}[p](binary)
