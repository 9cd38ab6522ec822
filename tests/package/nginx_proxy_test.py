#!/usr/bin/env python3
"""packaging/nginx-trunkfield.conf, the reverse-proxy example of docs/OPERATING.md, in front of
the real server (issue 22).

Runs Debian's nginx with that file, changed only where it must be on a test machine (loopback
ports instead of 80 and 443, a self-signed certificate for play.example.org and 127.0.0.1
instead of Let's Encrypt's, the server's port), in front of trunkfield-server started with the
settings the file's header names, and checks through it, over TLS:
  - plain HTTP redirects to https://, the lobby is served, /metrics is not (directly it is);
  - the server trusts nginx (trusted-proxies) and sees the player's address: a player
    connecting from 127.0.0.2 is logged as 127.0.0.2, and the per-address limits are on;
  - a WebSocket upgrade with the allowed Origin gets 101 and hello/welcome; another Origin
    gets the server's 403 (the proxy passes Origin on);
  - a whole game from a `trunkfield rules random` record, both players over wss://, and its
    record from the history API through the proxy replays to the stored result.
Exit 77 (skipped) without nginx or openssl.

usage: nginx_proxy_test.py SERVER_BIN CLI_BIN
"""
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import tfproto  # noqa: E402

SNIPPET = os.path.join(ROOT, "packaging", "nginx-trunkfield.conf")
NAME = "play.example.org"


def fail(why):
    print(f"FAIL: {why}")
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def replace_once(text, pattern, repl, what):
    new, n = re.subn(pattern, repl, text, flags=re.M)
    if n == 0:
        fail(f"the snippet has no {what} (pattern {pattern!r}): update this test with it")
    return new


def proxied_snippet(text, https_port, http_port, server_port, cert, key):
    """The snippet with the machine-specific parts swapped for this test's."""
    text = re.sub(r"^\s*listen \[::\]:\d+.*\n", "", text, flags=re.M)  # no IPv6 needed here
    text = replace_once(text, r"^(\s*)listen 443 ssl", rf"\1listen 127.0.0.1:{https_port} ssl",
                        "listen 443 ssl")
    text = replace_once(text, r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{http_port};",
                        "listen 80")
    text = replace_once(text, r"^(\s*ssl_certificate\s+)\S+;", rf"\g<1>{cert};",
                        "ssl_certificate")
    text = replace_once(text, r"^(\s*ssl_certificate_key\s+)\S+;", rf"\g<1>{key};",
                        "ssl_certificate_key")
    text = replace_once(text, r"http://127\.0\.0\.1:8080;", f"http://127.0.0.1:{server_port};",
                        "proxy_pass to 127.0.0.1:8080")
    return text


def server_settings(text):
    """The trunkfield-server settings the snippet's header asks for ("#   flag = value")."""
    return re.findall(r"^#\s+([a-z-]+ = \S+)", text, re.M)


def start_server(binary, work, settings):
    conf = os.path.join(work, "trunkfield.conf")
    with open(conf, "w") as f:
        f.write("\n".join(settings) + "\n")
    log_path = os.path.join(work, "server.log")
    log = open(log_path, "w")
    proc = subprocess.Popen([binary, "--config", conf, "--http-port", "0", "--tcp-port", "0",
                             "--data", os.path.join(work, "data")],
                            stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.time() + 30
    while time.time() < deadline:
        m = re.search(r"listening http=[^ ]*:(\d+)", open(log_path).read())
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    fail("the server did not start:\n" + open(log_path).read())


def wait_port(port, proc, what):
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def main():
    server_bin, cli = sys.argv[1], sys.argv[2]
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                      else None)
    if not nginx or not shutil.which("openssl"):
        print("SKIP: needs nginx and openssl (bash scripts/setup.sh installs them)")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="tf-nginx.")
    os.chmod(work, 0o755)  # nginx's workers run as nobody when the test runs as root
    server = proxy = None
    try:
        cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-keyout", key, "-out", cert, "-subj", f"/CN={NAME}",
                        "-addext", f"subjectAltName=DNS:{NAME},IP:127.0.0.1"],
                       check=True, capture_output=True)
        snippet = open(SNIPPET).read()
        settings = server_settings(snippet)
        if not any(s.startswith("trusted-proxies") for s in settings):
            fail(f"the snippet's header names no trusted-proxies setting: {settings}")
        if any(s.startswith("max-connections-per-ip") for s in settings):
            fail(f"the per-address limits are off behind the proxy: {settings}")
        server, server_port = start_server(server_bin, work, settings)

        https_port, http_port = free_port(), free_port()
        with open(os.path.join(work, "trunkfield.nginx"), "w") as f:
            f.write(proxied_snippet(snippet, https_port, http_port, server_port, cert, key))
        temp = "\n".join(f"    {k}_temp_path {work}/tmp-{k};"
                         for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.mkdir(os.path.join(work, f"tmp-{k}"), 0o777)
            os.chmod(os.path.join(work, f"tmp-{k}"), 0o777)
        user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
        with open(os.path.join(work, "nginx.conf"), "w") as f:
            f.write(f"""{user}worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {work}/nginx-access.log;
{temp}
    include {work}/trunkfield.nginx;
}}
""")
        cmd = [nginx, "-p", work, "-c", os.path.join(work, "nginx.conf"), "-e",
               os.path.join(work, "nginx-error.log")]
        t = subprocess.run(cmd + ["-t"], capture_output=True, text=True)
        if t.returncode != 0:
            fail(f"nginx -t refuses the snippet:\n{t.stderr}")
        proxy = subprocess.Popen(cmd + ["-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        if not wait_port(https_port, proxy, "nginx"):
            fail("nginx did not start:\n" + open(os.path.join(work, "nginx-error.log")).read())

        tls = ssl.create_default_context(cafile=cert)
        get = lambda path, **kw: tfproto.http_get("127.0.0.1", https_port, path, tls=tls,
                                                  host_header=NAME, **kw)
        status, headers, _ = tfproto.http_get("127.0.0.1", http_port, "/g/abc234",
                                              host_header=NAME)
        if status != 301 or headers.get("location") != f"https://{NAME}/g/abc234":
            fail(f"plain HTTP: {status} {headers.get('location')}, expected a redirect")
        status, headers, body = get("/")
        if status != 200 or b"<title>Trunkfield</title>" not in body:
            fail(f"GET / through the proxy: {status} {body[:120]!r}")
        if "max-age=" not in headers.get("strict-transport-security", ""):
            fail(f"no HSTS header over TLS: {headers}")
        if "strict-transport-security" in tfproto.http_get("127.0.0.1", server_port, "/")[1]:
            fail("HSTS sent over plain HTTP (it must only follow X-Forwarded-Proto: https)")
        status, _, body = get("/healthz")
        if status != 200 or body != b"ok":
            fail(f"GET /healthz through the proxy: {status} {body!r}")
        if get("/metrics")[0] != 404:
            fail("/metrics is reachable through the proxy")
        if tfproto.http_get("127.0.0.1", server_port, "/metrics")[0] != 200:
            fail("/metrics is not served directly")

        origin = re.search(r'allowed-origins = "([^",]+)', "\n".join(settings))
        origin = origin.group(1) if origin else f"https://{NAME}"
        ws = lambda o: tfproto.WsConn.connect("127.0.0.1", https_port, tls=tls,
                                              host_header=NAME, origin=o)
        c = tfproto.WsConn.connect("127.0.0.1", https_port, tls=tls, host_header=NAME,
                                   origin=origin, source="127.0.0.2")
        welcome = tfproto.hello(c, "through-nginx")
        if not welcome.get("token"):
            fail(f"welcome through the proxy: {welcome}")
        c.close()
        log = open(os.path.join(work, "server.log")).read()
        if not re.search(r"ws#\d+ \[127\.0\.0\.2\]: hello from player " + welcome["player_id"], log):
            fail("the server did not log the player's address (127.0.0.2) behind nginx:\n" + log[-2000:])
        try:
            ws("https://elsewhere.example").close()
            fail("a WebSocket from another origin was accepted through the proxy")
        except tfproto.HandshakeRefused as e:
            if e.status != 403:
                fail(f"another origin got {e.status}, expected 403")

        record = json.loads(subprocess.run([cli, "rules", "random", "5"], capture_output=True,
                                           text=True, check=True).stdout)
        code, over = tfproto.play_record(ws(origin), ws(origin), record)
        status, _, stored = get(f"/api/games/{code}/record")
        if status != 200:
            fail(f"the record through the proxy: {status}")
        r = subprocess.run([cli, "rules", "replay", "-"], input=stored, capture_output=True)
        got = json.loads(r.stdout)
        for k in ("over", "winner", "reason", "score"):
            if got.get(k) != over.get(k):
                fail(f"game {code}: the record replays to {k}={got.get(k)}, game_over said "
                     f"{over.get(k)}")
        print(f"ok: through nginx over TLS: redirect, lobby, /metrics hidden, the player's address, Origin checked, "
              f"game {code} played over wss:// ({len(record['turns'])} turns, {over['reason']})")
    finally:
        if proxy and proxy.poll() is None:
            proxy.send_signal(signal.SIGQUIT)
            try:
                proxy.wait(10)
            except subprocess.TimeoutExpired:
                proxy.kill()
        if server and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
