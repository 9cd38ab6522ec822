#!/usr/bin/env python3
"""docker/haproxy.cfg, the compose profile `cluster`'s load balancer, running for real in front
of the real server (issue 31: "the cluster profile logs real client addresses").

Containers cannot run here, so the file is run by Debian's haproxy with only what ties it to
compose changed: the `haproxy` user, Docker's resolvers, `maxconn` (the descriptors a container
gets are not this machine's), the listening ports (loopback ports
instead of 80, 443 and 8081), the certificate (a self-signed one) and the three nodes' `server`
lines (one server on loopback instead). Everything else (forwardfor, send-proxy-v2, the checks,
the timeouts) is the file's. The server trusts HAProxy (`--trusted-proxies 127.0.0.1`), as the
compose nodes trust its fixed address. Then, from 127.0.0.2, a client other than HAProxy's own
address:
  - over TCP (the PROXY protocol v2): the server logs the client's address, and an address over
    --max-connections-per-ip is refused while another address is not;
  - over wss:// (X-Forwarded-For): the server logs the client's address;
  - a forged X-Forwarded-For from the client is not believed.
Exit 77 (skipped) without haproxy or openssl.

usage: haproxy_test.py SERVER_BIN
"""
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "package"))
import tfproto  # noqa: E402


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)



def local_config(text, pem, ports, node_http, node_tcp):
    """docker/haproxy.cfg with what ties it to compose swapped for this machine's."""
    out = []
    skip = False
    for line in text.splitlines():
        s = line.strip()
        if s and not line[0].isspace() and not s.startswith("#"):
            skip = s.startswith("resolvers ")  # Docker's DNS: a section of its own, dropped
        if skip or s in ("user haproxy", "group haproxy"):
            continue
        if s.startswith("maxconn "):  # the container's descriptor limit is not this machine's
            line = line.replace(s, "maxconn 2000")
        if s.startswith("default-server "):
            line = line.replace("init-addr last,libc,none resolvers docker ", "")
        line = line.replace('"${TRUNKFIELD_TLS_PEM}"', pem)
        for public, local in ports.items():
            line = re.sub(rf"bind :{public}\b", f"bind 127.0.0.1:{local}", line)
        m = re.match(r"(\s*)server (node\d+) node\d+:(\d+)(.*)$", line)
        if m:
            if m.group(2) != "node1":
                continue
            port = node_http if m.group(3) == "8080" else node_tcp
            rest = m.group(4).replace("port 8080", f"port {node_http}")
            line = f"{m.group(1)}server node1 127.0.0.1:{port}{rest}"
        out.append(line)
    return "\n".join(out) + "\n"


def main():
    server_bin = sys.argv[1]
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
    if not haproxy or not shutil.which("openssl"):
        print("SKIP: needs haproxy and openssl (bash scripts/setup.sh installs them)")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="tf-haproxy.")
    server = lb = None
    try:
        http, tcp = tfproto.free_port(), tfproto.free_port()
        log_path = os.path.join(work, "server.log")
        server = subprocess.Popen(
            [server_bin, "--http-port", str(http), "--tcp-port", str(tcp), "--data",
             os.path.join(work, "data"), "--trusted-proxies", "127.0.0.1",
             "--max-connections-per-ip", "2", "--web-root", ""],
            stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while "listening" not in open(log_path).read():
            if time.time() > deadline or server.poll() is not None:
                fail("the server did not start:\n" + open(log_path).read())
            time.sleep(0.05)

        pem = os.path.join(work, "site.pem")
        key = os.path.join(work, "key.pem")
        cert = os.path.join(work, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-keyout", key, "-out", cert, "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True)
        with open(pem, "w") as f:
            f.write(open(cert).read() + open(key).read())
        ports = {80: tfproto.free_port(), 443: tfproto.free_port(), 8081: tfproto.free_port()}
        cfg_path = os.path.join(work, "haproxy.cfg")
        with open(cfg_path, "w") as f:
            f.write(local_config(open(os.path.join(ROOT, "docker", "haproxy.cfg")).read(), pem,
                                 ports, http, tcp))
        check = subprocess.run([haproxy, "-c", "-f", cfg_path], capture_output=True, text=True)
        if check.returncode != 0:
            fail(f"haproxy -c refuses the local copy:\n{check.stdout}{check.stderr}\n" +
                 open(cfg_path).read())
        lb = subprocess.Popen([haproxy, "-db", "-f", cfg_path], stdout=open(os.path.join(work, "haproxy.log"), "w"),
                              stderr=subprocess.STDOUT)
        # Until HAProxy takes connections and its check finds the node up.
        deadline = time.time() + 30
        while True:
            try:
                c = tfproto.TcpConn.connect("127.0.0.1", ports[8081], timeout=2)
                w = tfproto.hello(c, "probe")
                c.close()
                if w.get("type") == "welcome":
                    break
            except (OSError, tfproto.ProtocolError):
                pass
            if time.time() > deadline or lb.poll() is not None:
                fail("HAProxy did not pass a connection on:\n" +
                     open(os.path.join(work, "haproxy.log")).read())
            time.sleep(0.2)

        def logged(pattern, within=5):
            end = time.time() + within
            while time.time() < end:
                if re.search(pattern, open(log_path).read()):
                    return True
                time.sleep(0.05)
            return False

        # TCP: the PROXY protocol names the client.
        t = tfproto.TcpConn.connect("127.0.0.1", ports[8081], source="127.0.0.2")
        w = tfproto.hello(t, "tcp-player")
        if not logged(r"tcp#\d+ \[127\.0\.0\.2\]: hello from player " + w["player_id"]):
            fail("the server did not log the TCP client's address behind HAProxy:\n" +
                 open(log_path).read()[-2000:])
        # The per-address limit counts the client, not HAProxy: a second connection from
        # 127.0.0.2 is its last, a third is refused; 127.0.0.3 still gets in.
        t2 = tfproto.TcpConn.connect("127.0.0.1", ports[8081], source="127.0.0.2")
        tfproto.hello(t2, "second")
        t3 = tfproto.TcpConn.connect("127.0.0.1", ports[8081], source="127.0.0.2")
        t3.send({"type": "hello", "version": 1})
        m = t3.recv(10)
        if not m or m.get("code") != "too_many_connections":
            fail(f"a third connection from 127.0.0.2 through HAProxy: {m}")
        other = tfproto.TcpConn.connect("127.0.0.1", ports[8081], source="127.0.0.3")
        if tfproto.hello(other, "another").get("type") != "welcome":
            fail("another address was refused")
        for c in (t, t2, t3, other):
            c.close()

        # wss://: X-Forwarded-For names the client; a forged one from the client is dropped.
        tls = ssl.create_default_context(cafile=cert)
        sock = socket.create_connection(("127.0.0.1", ports[443]), timeout=10,
                                        source_address=("127.0.0.4", 0))
        sock = tls.wrap_socket(sock, server_hostname="localhost")
        import base64
        key_b64 = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(("GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                      f"Sec-WebSocket-Key: {key_b64}\r\nX-Forwarded-For: 198.51.100.66\r\n"
                      "Origin: https://localhost\r\n\r\n").encode())
        ws = tfproto.WsConn(sock)
        while b"\r\n\r\n" not in ws.buf:
            if not ws._fill(10):
                fail("no answer to the WebSocket upgrade through HAProxy")
        head, ws.buf = ws.buf.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            fail(f"the upgrade through HAProxy: {head[:200]!r}")
        w = tfproto.hello(ws, "wss-player")
        if not logged(r"ws#\d+ \[127\.0\.0\.4\]: hello from player " + w["player_id"]):
            fail("the server did not log the WebSocket client's address behind HAProxy:\n" +
                 open(log_path).read()[-2000:])
        if "198.51.100.66" in open(log_path).read():
            fail("a client's own X-Forwarded-For was believed")
        ws.close()
        print("ok: through docker/haproxy.cfg: the TCP client's address (PROXY v2) and the "
              "WebSocket client's (X-Forwarded-For) logged and limited, a forged header ignored")
    finally:
        for p in (lb, server):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
