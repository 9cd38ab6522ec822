#!/usr/bin/env python3
"""docker/ for real (issue 33): every image of docker/ built with podman, every compose profile
started from docker/compose.yaml and checked as a user would.

  base images  debian:12 and debian:12-slim are not in any registry we reach: both are made from
               a debootstrap minbase of bookworm (the package test's cached tarball), imported
               once per machine;
  images       trunkfield (docker/Dockerfile: its runtime stage on the host's build, or with
               --build-inside the README's setup and build inside the image), trunkfield-postgres,
               trunkfield-redis, trunkfield-haproxy, each built once;
  default      the server alone: healthcheck healthy, the lobby served, a game over WebSocket
               (silver) and TCP (bronze) played out, a second one left half-way, `down` + `up`,
               and the half game goes on from where it was (the volume);
  postgres     the same on the PostgreSQL container (password from the environment, as
               docker/.env gives it);
  cluster      PostgreSQL, Redis, three nodes and HAProxy: the lobby over HTTPS with the
               self-signed certificate the entrypoint made (verified with it as the CA), port 80
               redirecting, a game over wss:// and the TCP port, the node owning a game killed
               and the game going on on another, `down` + `up` keeping every game.
Compose runs through tests/docker/podcompose.py (Debian's podman-compose 1.0.3 does not know
profiles). podman needs runc (crun fails here: cgroups in hybrid mode) and no default ulimits
(setrlimit is refused): a containers.conf of the test's own says so.

Prints image sizes and the time from `up` to a served lobby (docs/BENCHMARKS.md).
Exit 77 (skipped) when podman cannot run containers here, saying why.

usage: compose_test.py CLI_BIN [--profiles default,postgres,cluster] [--no-build] [--build-inside]
(the images stay in podman's store; containers, the network and volumes are removed)
"""
import argparse
import json
import os
import secrets
import shutil
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "package"))
import tfproto  # noqa: E402
from deb_install_test import base_tarball  # noqa: E402
import podcompose  # noqa: E402

FAILS = []


def log(msg):
    print(msg, flush=True)


def check(ok, what):
    log(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)
    return ok


def skip(why):
    log(f"SKIP: {why}")
    sys.exit(77)


def podman_works(podman):
    if not shutil.which("podman"):
        skip("no podman (bash scripts/setup.sh test installs podman and runc)")
    if not shutil.which("runc"):
        skip("no runc")
    return podman


# Debian's own sources, as in the images of the Docker library (debootstrap wrote only the
# mirror's bookworm, without updates and security).
SOURCES = """Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
# What debian:12-slim leaves out, as the Docker library's slim images do (dpkg path-exclude).
SLIM = """path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
"""


def base_images(podman):
    """debian:12 and debian:12-slim from the debootstrap minbase tarball, once per machine:
    without the downloaded packages and package lists (as the Docker library's images), with
    Debian's sources; the slim one also without documentation, manuals and translations."""
    have = podman.run("images", "--format", "{{.Repository}}:{{.Tag}}", quiet=True).stdout.split()
    if "localhost/debian:12" in have and "localhost/debian:12-slim" in have:
        return
    tar = base_tarball()
    root = tempfile.mkdtemp(prefix="tf-base.", dir="/var/tmp")
    try:
        subprocess.run(["tar", "-C", root, "-xf", tar], check=True)
        for d in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for f in os.listdir(os.path.join(root, d)):
                p = os.path.join(root, d, f)
                if os.path.isfile(p) and f != "lock":
                    os.remove(p)
        for f in os.listdir(os.path.join(root, "var/cache/apt")):
            if f.endswith(".bin"):
                os.remove(os.path.join(root, "var/cache/apt", f))
        if os.path.exists(os.path.join(root, "etc/apt/sources.list")):
            os.remove(os.path.join(root, "etc/apt/sources.list"))
        with open(os.path.join(root, "etc/apt/sources.list.d/debian.sources"), "w") as f:
            f.write(SOURCES)
        tar_in = subprocess.run(["tar", "-C", root, "-c", "."], capture_output=True, check=True)
        podman.run("import", "-", "debian:12", input_bytes=tar_in.stdout, timeout=600)
        with open(os.path.join(root, "etc/dpkg/dpkg.cfg.d/docker-slim"), "w") as f:
            f.write(SLIM)
        for d in ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale"):
            full = os.path.join(root, d)
            for f in os.listdir(full) if os.path.isdir(full) else []:
                p = os.path.join(full, f)
                if d == "usr/share/doc" and os.path.isdir(p):
                    for g in os.listdir(p):
                        if g != "copyright":
                            q = os.path.join(p, g)
                            shutil.rmtree(q) if os.path.isdir(q) else os.remove(q)
                elif not (d == "usr/share/locale" and f == "locale.alias"):
                    shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        tar_in = subprocess.run(["tar", "-C", root, "-c", "."], capture_output=True, check=True)
        podman.run("import", "-", "debian:12-slim", input_bytes=tar_in.stdout, timeout=600)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def host_build_context(work, cli, dockerfile):
    """A build context for docker/Dockerfile whose build stage is the host's own build (the
    release tree the suite just built: the server, the web client) instead of the README's setup
    and build run inside the image; the runtime stage is the Dockerfile's, verbatim, and the
    packages it installs are what docker/runtime-packages.sh finds for the host's server (the
    host is Debian 12 as the image is). The build stage's commands are the quick start's, which
    tests/docker/dockerfile_test.py holds to README.md and ../shared/tools/fresh-debian runs on a
    fresh Debian 12; compiling them again inside the image took 9 to 15 minutes of the suite's 2
    cores. None (the Dockerfile as it is) when the host's build is not there."""
    bin_dir = os.path.dirname(os.path.abspath(cli))
    server = os.path.join(bin_dir, "trunkfield-server")
    web = os.path.join(os.path.dirname(bin_dir), "web")
    if not (os.path.isfile(server) and os.path.isfile(os.path.join(web, "index.html"))):
        return None
    with open(dockerfile) as f:
        lines = f.read().splitlines(keepends=True)
    froms = [i for i, line in enumerate(lines) if line.startswith("FROM ")]
    if len(froms) != 2 or not lines[froms[0]].startswith("FROM debian:12 AS build"):
        check(False, "docker/Dockerfile has one build stage `FROM debian:12 AS build`, then the "
              "runtime stage")
        return None
    ctx = os.path.join(work, "server-image")
    os.makedirs(os.path.join(ctx, "src", "build", "bin"))
    shutil.copy2(server, os.path.join(ctx, "src", "build", "bin"))
    shutil.copytree(web, os.path.join(ctx, "src", "build", "web"))
    pkgs = subprocess.run(["bash", os.path.join(ROOT, "docker", "runtime-packages.sh"), server],
                          capture_output=True, text=True)
    if not check(pkgs.returncode == 0 and pkgs.stdout.strip(),
                 f"runtime-packages.sh names the host server's libraries' packages "
                 f"({pkgs.stderr.strip()[-300:]})"):
        return None
    with open(os.path.join(ctx, "runtime-packages.txt"), "w") as f:
        f.write(pkgs.stdout)
    stage = ("FROM debian:12 AS build\n"
             "# (tests/docker/compose_test.py) the host's build in place of the README's inside\n"
             "COPY src /src\n"
             "COPY runtime-packages.txt /runtime-packages.txt\n\n")
    out = os.path.join(ctx, "Dockerfile")
    with open(out, "w") as f:
        f.write("".join(lines[:froms[0]]) + stage + "".join(lines[froms[1]:]))
    log(f"     the server image's build stage: the host's build ({len(pkgs.stdout.split())} "
        f"runtime packages); --build-inside compiles it inside as docker/Dockerfile says")
    return ctx, out


def build(podman, image, context, dockerfile):
    """`docker build`; --format docker keeps HEALTHCHECK (the OCI format has none and podman
    drops it); the host's network, so that apt reaches the mirror the host uses. Niced: the
    suite's other tests go first."""
    t = time.time()
    podman.run("build", "--format", "docker", "--network", "host", "-f", dockerfile, "-t", image,
               context, timeout=3600, nice=True)
    size = int(podman.run("image", "inspect", "--format", "{{.Size}}", image,
                          quiet=True).stdout.strip())
    log(f"     image {image}: {size / 1e6:.0f} MB, built in {time.time() - t:.0f} s")
    return size


def wait_http(host, port, path, tls=None, within=120, host_header=None):
    """(status, headers, body) of the first answer that is not a 503, or the last 503, or None.
    A server that is still restoring its games answers 503 with Retry-After (OPERATING.md,
    waiting for PostgreSQL): a client waits and asks again, as a load balancer does."""
    deadline = time.time() + within
    last = None
    while time.time() < deadline:
        try:
            last = tfproto.http_get(host, port, path, tls=tls, host_header=host_header, timeout=5)
            if last[0] != 503:
                return last
        except (OSError, ssl.SSLError, ConnectionError):
            pass
        time.sleep(0.3)
    return last


def lobby_served(name, http_port, tls=None, host_header=None):
    r = wait_http("127.0.0.1" if tls is None else "localhost", http_port, "/", tls=tls,
                  host_header=host_header)
    return check(r is not None and r[0] == 200 and b"<html" in r[2].lower()
                 and b"Trunkfield" in r[2], f"{name}: the lobby page is served "
                 f"({r[0] if r else 'no answer'})")


def record(cli, seed):
    return json.loads(subprocess.run([cli, "rules", "random", str(seed)], capture_output=True,
                                     text=True, check=True).stdout)


class Endpoints:
    """How a profile's players connect: WebSocket and TCP."""

    def __init__(self, ws_port, tcp_port, tls=None, origin=None):
        self.ws_port, self.tcp_port, self.tls, self.origin = ws_port, tcp_port, tls, origin

    def ws(self):
        host = "localhost" if self.tls else "127.0.0.1"
        return tfproto.WsConn.connect(host, self.ws_port, tls=self.tls, origin=self.origin)

    def tcp(self):
        return tfproto.TcpConn.connect("127.0.0.1", self.tcp_port)


def play_games(name, ends, cli, seed):
    """A whole game (silver over WebSocket, bronze over TCP) and a second one left after its
    setups and two turns; returns the unfinished RecordGame and the finished game's code."""
    code, over = tfproto.play_record(ends.ws(), ends.tcp(), record(cli, seed))
    check(over.get("over") is True, f"{name}: a game over WebSocket and TCP is played out "
          f"({code}: {over.get('reason')}, winner {over.get('winner')})")
    half = tfproto.RecordGame(record(cli, seed + 1))
    half.start(ends.ws(), ends.tcp())
    half.play(until=4)
    return half, code


def goes_on(name, half, ends, what):
    """The half game's players reconnect (hello with their tokens, watch) and play it out."""
    try:
        snap = half.reconnect(ends.ws(), ends.tcp())
        check(snap["version"] >= 4, f"{name}: {what}: the half game's snapshot is at version "
              f"{snap['version']} (4 moves were acknowledged)")
        over = half.play()
        check(over.get("over") is True, f"{name}: {what}: the half game is played out")
    except tfproto.ProtocolError as e:
        check(False, f"{name}: {what}: the half game goes on ({e})")


def history_has(name, port, code, tls=None):
    r = wait_http("localhost" if tls else "127.0.0.1", port, f"/api/games/{code}", tls=tls,
                  within=30)
    ok = r is not None and r[0] == 200 and json.loads(r[2]).get("code") == code
    check(ok, f"{name}: the finished game {code} is in the history API "
          f"({r[0] if r else 'no answer'})")


def tear_down(compose, started):
    """The end of a profile: what its containers logged last, then `down -v`."""
    for s in started:
        if compose.state(s) != "missing":
            log(f"--- {s} ---\n{compose.logs(s, 25)}")
    compose.down(started, volumes=True)


def single(name, compose, cli, profiles, service, seed, times):
    """The default and postgres profiles: one server."""
    started = []
    try:
        t = time.time()
        started = compose.up(profiles, [service])
        http = compose.host_port(service, 8080)
        lobby_served(name, http)
        times[name] = time.time() - t
        check(compose.healthy(service, 60), f"{name}: the server's healthcheck passes")
        for dep in started:
            if dep != service and compose.has_healthcheck(dep):
                check(compose.healthy(dep, 60), f"{name}: {dep}'s healthcheck passes")
        ends = Endpoints(http, compose.host_port(service, 8081))
        half, done = play_games(name, ends, cli, seed)
        compose.down(started)
        compose.up(profiles, [service])
        ends = Endpoints(compose.host_port(service, 8080), compose.host_port(service, 8081))
        lobby_served(f"{name}: after down and up", ends.ws_port)
        history_has(name, ends.ws_port, done)
        goes_on(name, half, ends, "after down and up")
    finally:
        tear_down(compose, started)


def owner(compose, code):
    """The node owning a game, read in the database container (its socket, peer auth)."""
    r = compose.podman.run("exec", compose.container("postgres"), "psql", "-U", "postgres",
                           "-d", "trunkfield", "-tAc",
                           f"SELECT coalesce(owner, '') FROM games WHERE code = '{code}'",
                           check=False, quiet=True)
    if r.returncode != 0:
        log(f"     psql in the database container: {r.stderr.strip()}")
    return r.stdout.strip()


def cluster(compose, cli, seed, times):
    name = "cluster"
    started = []
    try:
        t = time.time()
        started = compose.up(["cluster"], ["lb"])
        for dep in started:
            if compose.has_healthcheck(dep):
                check(compose.healthy(dep, 90), f"{name}: {dep}'s healthcheck passes")
        pem = os.path.join(compose.volume_path("trunkfield-tls"), "self-signed.pem")
        deadline = time.time() + 60
        while not os.path.exists(pem) and time.time() < deadline:
            time.sleep(0.3)
        if not check(os.path.exists(pem), f"{name}: the entrypoint made a self-signed "
                     f"certificate on the volume trunkfield-tls"):
            return
        tls = ssl.create_default_context(cafile=pem)
        https = compose.host_port("lb", 443)
        lobby_served(name + " (https, the certificate verified)", https, tls=tls)
        times[name] = time.time() - t
        r = wait_http("127.0.0.1", compose.host_port("lb", 80), "/", host_header="localhost")
        check(r is not None and r[0] == 301 and r[1].get("location", "").startswith(
            "https://localhost"), f"{name}: port 80 redirects to https "
            f"({r[0] if r else None}, {r[1].get('location') if r else None})")
        ends = Endpoints(https, compose.host_port("lb", 8081), tls=tls,
                         origin="https://localhost")
        # HAProxy's checks find the nodes up a moment after they start.
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                tfproto.hello(ends.tcp(), "probe")
                break
            except (OSError, tfproto.ProtocolError):
                time.sleep(0.5)
        half, done = play_games(name, ends, cli, seed)
        # The node owning the half game killed: it goes on on another node.
        victim = owner(compose, half.code)
        check(victim in ("node1", "node2", "node3"), f"{name}: the half game is owned by a "
              f"node ({victim!r})")
        if victim in ("node1", "node2", "node3"):
            compose.podman.run("kill", compose.container(victim))
            deadline = time.time() + 40
            while time.time() < deadline and owner(compose, half.code) in (victim, ""):
                time.sleep(0.5)
            now = owner(compose, half.code)
            check(now not in (victim, ""), f"{name}: {victim} killed (podman kill): another "
                  f"node owns its game within 40 s ({now!r})")
            moves = half.next
            goes_on(name, half, ends, f"after {victim} was killed")
            log(f"     the half game went on from move {moves} on {owner(compose, half.code)}")
            half = tfproto.RecordGame(record(cli, seed + 2))
            half.start(ends.ws(), ends.tcp())
            half.play(until=4)
        compose.down(started)
        compose.up(["cluster"], ["lb"])
        ends = Endpoints(compose.host_port("lb", 443), compose.host_port("lb", 8081), tls=tls,
                         origin="https://localhost")
        lobby_served(f"{name}: after down and up (the same certificate)", ends.ws_port, tls=tls)
        history_has(name, ends.ws_port, done, tls=tls)
        goes_on(name, half, ends, "after down and up")
    finally:
        tear_down(compose, started)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--profiles", default="default,postgres,cluster")
    ap.add_argument("--no-build", action="store_true",
                    help="use the images already built (by hand, after a first run)")
    ap.add_argument("--build-inside", action="store_true",
                    default=os.environ.get("TF_DOCKER_BUILD_INSIDE") == "1",
                    help="build the server image as docker/Dockerfile says, compiling inside "
                    "(9 to 15 minutes here; also TF_DOCKER_BUILD_INSIDE=1); by default its "
                    "build stage is the host's build")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tf-docker.")
    conf = os.path.join(work, "containers.conf")
    with open(conf, "w") as f:
        # netavark: its DNS lets the containers find each other by service name (podman picks
        # CNI when netavark is missing, and that has no DNS without a plugin).
        f.write("[containers]\ndefault_ulimits = []\n[engine]\nruntime = \"runc\"\n"
                "[network]\nnetwork_backend = \"netavark\"\n")
    podman = podman_works(podcompose.Podman(conf, log))
    try:
        base_images(podman)
    except podcompose.PodmanError as e:
        skip(f"podman cannot import the base image here: {e}")
    r = podman.run("run", "--rm", "--network", "none", "debian:12", "true", check=False)
    if r.returncode != 0:
        skip(f"podman cannot run a container here: {r.stderr.strip()[-800:]}")

    project = f"tf{os.getpid()}"
    env = {"TRUNKFIELD_DB_PASSWORD": secrets.token_hex(16), "TRUNKFIELD_TLS_NAME": "localhost"}
    compose = podcompose.Compose(podman, os.path.join(ROOT, "docker", "compose.yaml"), project,
                                 env, log)
    profiles = a.profiles.split(",")
    names = {"default": [], "postgres": ["trunkfield-postgres"], "cluster": ["lb"]}
    wanted = []
    for p in profiles:
        wanted += compose.selected([] if p == "default" else [p], names[p] or ["trunkfield"])
    sizes = {}
    try:
        server_dockerfile = os.path.join(ROOT, "docker", "Dockerfile")
        for image, (ctx, dockerfile) in compose.images(dict.fromkeys(wanted)).items():
            if (not a.no_build and not a.build_inside
                    and os.path.realpath(dockerfile) == os.path.realpath(server_dockerfile)):
                ctx, dockerfile = host_build_context(work, a.cli, dockerfile) or (ctx, dockerfile)
            if not a.no_build:
                sizes[image] = build(podman, image, ctx, dockerfile)
        times = {}
        seed = 40
        if "default" in profiles:
            single("default", compose, a.cli, [], "trunkfield", seed, times)
        if "postgres" in profiles:
            single("postgres", compose, a.cli, ["postgres"], "trunkfield-postgres", seed + 10,
                   times)
        if "cluster" in profiles:
            cluster(compose, a.cli, seed + 20, times)
        log("image sizes: " + ", ".join(f"{k} {v / 1e6:.0f} MB" for k, v in sizes.items()))
        log("up to a served lobby: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    except (podcompose.PodmanError, tfproto.ProtocolError, OSError) as e:
        check(False, f"the run stopped: {e}")
    finally:
        podman.run("network", "rm", "-f", compose.network, check=False, quiet=True)
        # The build stages and the images the new ones replaced (2.6 GB a run otherwise).
        podman.run("image", "prune", "-f", check=False, quiet=True, timeout=300)
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        log(f"{len(FAILS)} check(s) failed")
        sys.exit(1)
    log("all checks passed")


if __name__ == "__main__":
    main()
