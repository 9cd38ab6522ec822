#!/usr/bin/env python3
"""docker/Dockerfile against README.md and the scripts (docker cannot run on the build machines):

- the build stage runs exactly the build commands of the README's quick start, i.e. the
  `bash scripts/...` lines that scripts/run.sh runs before it starts the server, in order;
- the runtime stage copies the server and the web client from where scripts/build.sh puts them;
- every flag in ENTRYPOINT and CMD is one `trunkfield-server --help` lists; --data is the VOLUME,
  --bind listens on all addresses, the ports are the EXPOSEd ones and the healthcheck's;
- docker/compose.yaml builds that Dockerfile and mounts a named volume on the data directory;
- its profile `postgres` (the default service stays without one) runs docker/postgres.Dockerfile
  (Debian's postgresql-15, data on a named volume, a pg_isready healthcheck) and a server started
  on it with --store postgres and a TRUNKFIELD_DATABASE_URL naming that service, the role and the database
  its entrypoint creates, once the database is healthy;
- its profile `cluster` runs that database too, Redis (docker/redis.Dockerfile: Debian's
  redis-server, nothing saved), at least three server nodes with distinct --node-id, each with
  --store postgres, the bus on that Redis, the database URL from the environment and no published
  port, and HAProxy in front (docker/haproxy.Dockerfile, Debian's haproxy and openssl), depending
  on every node, whose docker/haproxy.cfg lists exactly those nodes and passes `haproxy -c`
  (with the certificate docker/haproxy-entrypoint.sh makes, run for real) without warnings;
- the entrypoints' shell syntax (bash -n);
- README.md has a "Deploy with Docker" section naming those files and the profiles, and
  docs/OPERATING.md a "Several nodes" section.

    python3 tests/docker/dockerfile_test.py --server build/bin/trunkfield-server
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SERVER = None


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def section(markdown, title):
    """The text of the '## title' section (up to the next '## ')."""
    m = re.search(r"^## " + re.escape(title) + r"[^\n]*\n(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    if not m:
        raise AssertionError(f"no '## {title}' section")
    return m.group(1)


def shell_commands(text):
    """Commands of the fenced sh blocks in a markdown text, comments and blank lines dropped."""
    cmds = []
    for block in re.findall(r"```(?:sh|bash|console)?\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                cmds.append(" ".join(shlex.split(line)))
    return cmds


def script_commands(script_text):
    """Non-comment lines of a shell script, continuation lines joined."""
    out, cur = [], ""
    for line in script_text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        out.append(cur + s)
        cur = ""
    return out


def quick_start_build_commands(readme, read_script):
    """The build commands the README's quick start runs: for the quick-start command whose script
    starts the server, the `bash scripts/...` lines it runs before starting it."""
    found = None
    for cmd in shell_commands(section(readme, "Quick start")):
        words = shlex.split(cmd)
        if len(words) == 2 and words[0] == "bash" and words[1].startswith("scripts/"):
            lines = script_commands(read_script(words[1]))
            start = [i for i, l in enumerate(lines) if "trunkfield-server" in l and
                     not l.startswith("echo")]
            if start:
                found = [" ".join(shlex.split(l)) for l in lines[:start[0]]
                         if re.match(r"bash scripts/\S+\.sh\b", l)]
                break
        elif "trunkfield-server" in cmd:  # the quick start spells out its commands
            found = [c for c in shell_commands(section(readme, "Quick start"))
                     if re.match(r"bash scripts/\S+\.sh\b", c)]
            break
    if not found:
        raise AssertionError("no quick-start command of README.md builds and starts the server")
    return found


def dockerfile_instructions(text):
    """[(stage_index, INSTRUCTION, arguments)] with continuation lines joined."""
    out, cur, stage = [], "", -1
    for line in text.splitlines():
        s = line.strip()
        if not cur and (not s or s.startswith("#")):
            continue
        if s.startswith("#"):
            continue
        if s.endswith("\\"):
            cur += s[:-1].strip() + " "
            continue
        full = (cur + s).strip()
        cur = ""
        word, _, args = full.partition(" ")
        word = word.upper()
        if word == "FROM":
            stage += 1
        out.append((stage, word, args.strip()))
    return out


def docker_build_commands(dockerfile):
    """The build stage's RUN commands that run the project's scripts, normalized."""
    ins = dockerfile_instructions(dockerfile)
    return [" ".join(shlex.split(a)) for st, w, a in ins
            if st == 0 and w == "RUN" and re.match(r"bash scripts/", a)]


def exec_form(args):
    v = json.loads(args)
    assert isinstance(v, list) and all(isinstance(x, str) for x in v), args
    return v


def flag_values(argv):
    """{--flag: value} for the '--flag value' and '--flag=value' pairs of an argument list."""
    out, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            if "=" in a:
                k, v = a.split("=", 1)
                out[k] = v
            elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                out[a] = argv[i + 1]
                i += 1
            else:
                out[a] = None
        i += 1
    return out


class QuickStartAgreement(unittest.TestCase):
    def setUp(self):
        self.readme = read("README.md")
        self.dockerfile = read("docker/Dockerfile")

    def test_build_stage_runs_the_quick_start_build(self):
        want = quick_start_build_commands(self.readme, read)
        got = docker_build_commands(self.dockerfile)
        self.assertEqual(got, want, "docker/Dockerfile's build stage must run the same build "
                         "commands as the README's quick start (scripts/run.sh)")

    def test_drift_is_detected(self):
        # The comparison itself: a quick start or a Dockerfile changed alone no longer agrees.
        want = quick_start_build_commands(self.readme, read)
        for changed in [re.sub(r"RUN bash scripts/setup\.sh[^\n]*\n", "", self.dockerfile),
                        self.dockerfile.replace("scripts/build.sh", "scripts/build.sh --fast")]:
            self.assertNotEqual(docker_build_commands(changed), want)
        run_sh = read("scripts/run.sh")
        edited = run_sh.replace("bash scripts/build.sh", "bash scripts/build.sh\nbash scripts/extra.sh")
        reader = lambda rel: edited if rel == "scripts/run.sh" else read(rel)
        self.assertNotEqual(quick_start_build_commands(self.readme, reader),
                            docker_build_commands(self.dockerfile))

    def test_runtime_copies_what_the_build_makes(self):
        build_sh = " ".join(script_commands(read("scripts/build.sh")))
        m = re.search(r"cmake -S \. -B (\S+)", build_sh)
        self.assertIsNotNone(m, "scripts/build.sh configures no build folder")
        build_dir = m.group(1)
        ins = dockerfile_instructions(self.dockerfile)
        workdir = [a for st, w, a in ins if st == 0 and w == "WORKDIR"][-1]
        copies = [a.split() for st, w, a in ins if st == 1 and w == "COPY" and "--from=build" in a]
        sources = {c[-2]: c[-1] for c in copies}
        exe = f"{workdir}/{build_dir}/bin/trunkfield-server"
        self.assertIn(exe, sources)
        self.assertIn(f"{workdir}/{build_dir}/web", sources)
        # The server looks for the web client at <folder of the executable>/../web.
        exe_dir = os.path.dirname(sources[exe])
        self.assertEqual(os.path.normpath(os.path.join(exe_dir, "..", "web")),
                         sources[f"{workdir}/{build_dir}/web"])
        # The same executable scripts/run.sh starts.
        self.assertIn(f"{build_dir}/bin/trunkfield-server", read("scripts/run.sh"))


class RuntimeFlags(unittest.TestCase):
    def setUp(self):
        ins = dockerfile_instructions(read("docker/Dockerfile"))
        self.ins = ins
        entry = [exec_form(a) for st, w, a in ins if st == 1 and w == "ENTRYPOINT"]
        cmd = [exec_form(a) for st, w, a in ins if st == 1 and w == "CMD"]
        self.assertEqual(len(entry), 1, "one ENTRYPOINT in exec form")
        self.assertEqual(len(cmd), 1, "one CMD in exec form")
        self.argv = entry[0] + cmd[0]
        self.flags = flag_values(self.argv[1:])

    def test_flags_exist_in_help(self):
        self.assertTrue(self.argv[0].endswith("/trunkfield-server"))
        if not SERVER:
            self.skipTest("no --server given")
        out = subprocess.run([SERVER, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        listed = set(re.findall(r"(--[a-z][a-z0-9-]*)", out.stdout))
        for flag in self.flags:
            self.assertIn(flag, listed, f"{flag} (docker/Dockerfile) is not in --help")
        # And their values pass the server's checks: CLI11 converts and validates every value
        # before it acts on --help, so this starts nothing and still fails on a bad value.
        argv = [SERVER] + self.argv[1:] + ["--help"]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_listen_data_ports_healthcheck(self):
        self.assertEqual(self.flags.get("--bind"), "0.0.0.0")
        volumes = [a for st, w, a in self.ins if st == 1 and w == "VOLUME"]
        self.assertEqual(len(volumes), 1)
        vol = volumes[0].strip('[]" ')
        self.assertEqual(self.flags.get("--data"), vol)
        exposed = set()
        for st, w, a in self.ins:
            if st == 1 and w == "EXPOSE":
                exposed |= {p.split("/")[0] for p in a.split()}
        http, tcp = self.flags.get("--http-port"), self.flags.get("--tcp-port")
        self.assertEqual(exposed, {http, tcp})
        health = [a for st, w, a in self.ins if st == 1 and w == "HEALTHCHECK"]
        self.assertEqual(len(health), 1)
        self.assertIn(f"127.0.0.1:{http}/healthz", health[0])
        users = [a for st, w, a in self.ins if st == 1 and w == "USER"]
        self.assertTrue(users and users[-1] not in ("root", "0"), "the runtime runs as non-root")

    def test_compose(self):
        compose = read("docker/compose.yaml")
        self.assertRegex(compose, r"dockerfile:\s*docker/Dockerfile")
        self.assertRegex(compose, r"context:\s*\.\.")
        m = re.search(r"-\s*([A-Za-z0-9_.-]+):(/\S+)", compose)
        self.assertIsNotNone(m, "compose.yaml mounts no named volume")
        self.assertEqual(m.group(2), self.flags.get("--data"))
        self.assertRegex(compose, r"(?m)^volumes:\s*\n\s+" + re.escape(m.group(1)) + r":")
        for port in (self.flags.get("--http-port"), self.flags.get("--tcp-port")):
            self.assertRegex(compose, rf'"?\d+:{port}"?')


def compose_services(text):
    """{service name: its block of docker/compose.yaml} (two-space indented keys under
    `services:`, up to the next one or the next top-level key)."""
    body = re.search(r"(?ms)^services:[ \t]*\n(.*?)(?=^\S|\Z)", text).group(1)
    parts = re.split(r"(?m)^  ([A-Za-z0-9_.-]+):[ \t]*\n", body)
    return dict(zip(parts[1::2], parts[2::2]))


def compose_command(block):
    """The service's `command:` in flow form (a JSON list of strings), or None."""
    m = re.search(r"(?s)command:\s*(\[.*?\])", block)
    return exec_form(m.group(1)) if m else None


def profiles(block):
    """The service's `profiles: [a, b]`."""
    m = re.search(r"(?m)^    profiles:\s*\[([^\]]*)\]", block)
    return [p.strip() for p in m.group(1).split(",")] if m else []


def depends_on(block):
    """{service: condition} of the service's `depends_on:`, in list or map form."""
    m = re.search(r"(?ms)^    depends_on:[ \t]*\n(.*?)(?=^    \S|\Z)", block)
    out, last = {}, None
    for line in (m.group(1).splitlines() if m else []):
        item = re.match(r"      (?:- )?([A-Za-z0-9_.-]+):?\s*$", line)
        cond = re.match(r"        condition:\s*(\S+)\s*$", line)
        if item:
            last = item.group(1)
            out[last] = "service_started"
        elif cond and last:
            out[last] = cond.group(1)
    return out


def database_url(block):
    """The service's TRUNKFIELD_DATABASE_URL as (user, host, database), or None."""
    env = re.search(r'TRUNKFIELD_DATABASE_URL:\s*"([^"]*)"', block)
    if not env:
        return None
    url = re.match(r"postgresql://([^:@/]+):[^@/]*@([^:/]+)/(\w+)$", env.group(1))
    return url.groups() if url else None


def single_from(rel):
    """The one FROM image of a Dockerfile under docker/, and its instructions."""
    ins = dockerfile_instructions(read(rel))
    froms = [a for st, w, a in ins if w == "FROM"]
    assert len(froms) == 1, f"{rel}: {froms}"
    return froms[0], ins


def substitute(text):
    """Compose's ${VAR:-default} / ${VAR} interpolation with every variable unset."""
    return re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}", lambda m: m.group(1) or "", text)


class PostgresProfile(unittest.TestCase):
    def setUp(self):
        self.compose = read("docker/compose.yaml")
        self.services = compose_services(self.compose)
        self.db = self.services.get("postgres")
        self.server = self.services.get("trunkfield-postgres")
        self.assertIsNotNone(self.db, "compose.yaml has no `postgres` service")
        self.assertIsNotNone(self.server, "compose.yaml has no `trunkfield-postgres` service")

    def test_default_profile_unchanged(self):
        self.assertNotIn("profiles:", self.services["trunkfield"])
        for name, block in self.services.items():
            if name != "trunkfield":  # every other service is in a profile
                self.assertTrue(set(profiles(block)) & {"postgres", "cluster"}, name)
        # A required variable (${X:?}) would be demanded by `docker compose up` of the default
        # profile too: compose interpolates the whole file before it looks at profiles.
        code = re.sub(r"(?m)^\s*#.*$", "", self.compose)
        self.assertNotRegex(code, r"\$\{[^}]*:?\?")

    def test_database_image(self):
        self.assertRegex(self.db, r"context:\s*\.\s*\n")
        self.assertRegex(self.db, r"dockerfile:\s*postgres\.Dockerfile")
        ins = dockerfile_instructions(read("docker/postgres.Dockerfile"))
        froms = [a for st, w, a in ins if w == "FROM"]
        self.assertEqual(len(froms), 1)
        self.assertRegex(froms[0], r"^debian:12\b")
        runs = " ".join(a for st, w, a in ins if w == "RUN")
        self.assertRegex(runs, r"apt-get install [^&]*\bpostgresql-15\b")
        for st, w, a in ins:
            if w == "COPY":  # from the build context, docker/
                self.assertTrue(os.path.exists(os.path.join(ROOT, "docker", a.split()[0])), a)
        env = " ".join(a for st, w, a in ins if w == "ENV")
        pgdata = re.search(r"PGDATA=(\S+)", env).group(1)
        volumes = [a.strip('[]" ') for st, w, a in ins if w == "VOLUME"]
        self.assertEqual(volumes, [pgdata])
        m = re.search(r"-\s*([A-Za-z0-9_.-]+):(/\S+)", self.db)
        self.assertIsNotNone(m, "the database mounts no named volume")
        self.assertEqual(m.group(2), pgdata)
        top = re.search(r"(?ms)^volumes:[ \t]*\n(.*?)(?=^\S|\Z)", self.compose).group(1)
        self.assertRegex(top, r"(?m)^\s+" + re.escape(m.group(1)) + r":")
        users = [a for st, w, a in ins if w == "USER"]
        self.assertTrue(users and users[-1] not in ("root", "0"), "PostgreSQL runs as non-root")
        self.assertRegex(self.db, r"healthcheck:\s*\n\s+test:.*pg_isready")

    def test_server_on_postgres(self):
        self.assertRegex(self.server, r"context:\s*\.\.")
        self.assertRegex(self.server, r"dockerfile:\s*docker/Dockerfile")
        self.assertRegex(self.server, r"depends_on:\s*\n\s+postgres:\s*\n\s+condition:\s*"
                                      r"service_healthy")
        flags = flag_values(compose_command(self.server))
        self.assertEqual(flags.get("--store"), "postgres")
        # The URL (with its password) comes from the environment, never the command line.
        self.assertNotIn("--database-url", flags)
        env = re.search(r'TRUNKFIELD_DATABASE_URL:\s*"([^"]*)"', self.server)
        self.assertIsNotNone(env, "no TRUNKFIELD_DATABASE_URL in the server's environment")
        url = re.match(r"postgresql://([^:@/]+):[^@/]*@([^:/]+)/(\w+)$", env.group(1))
        self.assertIsNotNone(url, f"TRUNKFIELD_DATABASE_URL {env.group(1)}")
        user, host, db = url.groups()
        self.assertEqual(host, "postgres")  # the database's service name on the network
        init = read("docker/postgres-entrypoint.sh")
        self.assertRegex(init, rf"CREATE ROLE {user} LOGIN PASSWORD")
        self.assertRegex(init, rf"CREATE DATABASE {db} OWNER {user}")
        self.assertRegex(init, rf"(?m)^\s*echo \"host {db} {user} all scram-sha-256\"")
        health = re.search(r"test:\s*(\[.*?\])", self.db).group(1)
        self.assertIn(f'"-U", "{user}"', health)
        self.assertIn(f'"-d", "{db}"', health)
        # The image's ports, published on other host ports than the default service's.
        default = set(re.findall(r'"(\d+):\d+"', self.services["trunkfield"]))
        mine = dict(re.findall(r'"(\d+):(\d+)"', self.server))
        self.assertEqual(set(mine.values()), {flags.get("--http-port"), flags.get("--tcp-port")})
        self.assertFalse(default & set(mine), "host ports shared with the default service")

    def test_server_flags_in_help(self):
        if not SERVER:
            self.skipTest("no --server given")
        ins = dockerfile_instructions(read("docker/Dockerfile"))
        entry = [exec_form(a) for st, w, a in ins if st == 1 and w == "ENTRYPOINT"][0]
        argv = [SERVER] + entry[1:] + [substitute(a) for a in compose_command(self.server)]
        out = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)


# Server flags of the cluster's nodes that are being added to the server: checked against --help
# once it lists them, reported as skipped until then.
PENDING_FLAGS = ("--bus", "--node-id")


def haproxy_sections(cfg):
    """{(keyword, name): [lines]} of an HAProxy configuration, comments and blank lines dropped
    (name "" for global and an unnamed defaults)."""
    out, cur = {}, None
    for line in cfg.splitlines():
        s = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not s:
            continue
        if not line[0].isspace():
            words = s.split()
            cur = (words[0], words[1] if len(words) > 1 else "")
            out[cur] = []
        elif cur:
            out[cur].append(" ".join(s.split()))
    return out


def haproxy_binary():
    return shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None)


class ClusterProfile(unittest.TestCase):
    def setUp(self):
        self.compose = read("docker/compose.yaml")
        self.services = compose_services(self.compose)
        for name in ("postgres", "redis", "lb"):
            self.assertIn(name, self.services, f"compose.yaml has no `{name}` service")
        # The nodes: the cluster's services running the server's image.
        self.nodes = {n: b for n, b in self.services.items()
                      if "cluster" in profiles(b) and re.search(r"dockerfile:\s*docker/Dockerfile\b", b)}
        self.cfg = haproxy_sections(read("docker/haproxy.cfg"))

    def node_flags(self, block):
        return flag_values(compose_command(block) or [])

    def lb_address(self):
        """HAProxy's fixed address on the compose network, inside the network's subnet."""
        m = re.search(r"ipv4_address:\s*([0-9.]+)", self.services["lb"])
        self.assertIsNotNone(m, "lb has no fixed ipv4_address")
        subnet = re.search(r"(?m)^networks:\n  default:\n(?:    .*\n)*?\s+- subnet:\s*([0-9./]+)", self.compose)
        self.assertIsNotNone(subnet, "the default network has no fixed subnet")
        import ipaddress
        self.assertIn(ipaddress.ip_address(m.group(1)), ipaddress.ip_network(subnet.group(1)))
        # The other containers' addresses come from a range without it.
        dynamic = re.search(r"(?m)^\s+ip_range:\s*([0-9./]+)", self.compose)
        self.assertIsNotNone(dynamic, "the default network has no ip_range for the others")
        self.assertNotIn(ipaddress.ip_address(m.group(1)), ipaddress.ip_network(dynamic.group(1)))
        self.assertTrue(ipaddress.ip_network(dynamic.group(1)).subnet_of(
            ipaddress.ip_network(subnet.group(1))))
        return m.group(1)

    def test_services_in_the_profile(self):
        self.assertEqual(set(profiles(self.services["postgres"])), {"postgres", "cluster"})
        for name in ["redis", "lb"] + list(self.nodes):
            self.assertEqual(profiles(self.services[name]), ["cluster"], name)
        self.assertGreaterEqual(len(self.nodes), 3, sorted(self.nodes))
        for name in self.nodes:
            self.assertRegex(name, r"^node\d+$")

    def test_nodes(self):
        pg_url = database_url(self.services["trunkfield-postgres"])
        ids = []
        for name, block in sorted(self.nodes.items()):
            flags = self.node_flags(block)
            self.assertEqual(flags.get("--store"), "postgres", name)
            # The password stays out of the command line (and of `ps`).
            self.assertNotIn("--database-url", flags, name)
            self.assertEqual(database_url(block), pg_url, name)
            env_bus = re.search(r"TRUNKFIELD_BUS:\s*\"?([^\"\s]+)", block)
            bus = flags.get("--bus") or (env_bus.group(1) if env_bus else None)
            self.assertIsNotNone(bus, f"{name}: no --bus (or TRUNKFIELD_BUS)")
            m = re.match(r"redis://([A-Za-z0-9_.-]+):(\d+)$", bus)
            self.assertIsNotNone(m, f"{name}: bus {bus}")
            self.assertEqual(m.group(1), "redis", name)  # the Redis service on the network
            self.assertEqual(m.group(2), "6379", name)
            ids.append(flags.get("--node-id"))
            self.assertEqual(flags.get("--node-id"), name)
            # WebSockets only from the pages of the name the certificate is for.
            self.assertRegex(block, r'TRUNKFIELD_ALLOWED_ORIGINS:\s*"https://\$\{TRUNKFIELD_TLS_NAME:-localhost\}"', name)
            # Every connection comes from HAProxy, at its fixed address, which names the client:
            # the node trusts it alone, and keeps its per-address limits on.
            self.assertNotIn("--max-connections-per-ip", flags, name)
            self.assertEqual(flags.get("--trusted-proxies"), self.lb_address(), name)
            # Listening on all addresses: the image's --bind 0.0.0.0, not replaced.
            self.assertNotIn("--bind", flags, name)
            self.assertNotRegex(block, r"(?m)^    ports:", f"{name} publishes ports")
            self.assertRegex(block, r"(?m)^    stop_grace_period:\s*30s\s*$", name)
            deps = depends_on(block)
            self.assertEqual(deps.get("postgres"), "service_healthy", name)
            self.assertEqual(deps.get("redis"), "service_healthy", name)
        self.assertEqual(len(set(ids)), len(ids), f"node ids not distinct: {ids}")
        entry = [exec_form(a) for st, w, a in dockerfile_instructions(read("docker/Dockerfile"))
                 if st == 1 and w == "ENTRYPOINT"][0]
        self.assertEqual(flag_values(entry[1:]).get("--bind"), "0.0.0.0")

    def test_redis(self):
        block = self.services["redis"]
        self.assertRegex(block, r"context:\s*\.\s*\n")
        self.assertRegex(block, r"dockerfile:\s*redis\.Dockerfile")
        image, ins = single_from("docker/redis.Dockerfile")
        self.assertRegex(image, r"^debian:12\b")
        runs = " ".join(a for st, w, a in ins if w == "RUN")
        self.assertRegex(runs, r"apt-get install [^&]*\bredis-server\b")
        entry = [exec_form(a) for st, w, a in ins if w == "ENTRYPOINT"]
        cmd = [exec_form(a) for st, w, a in ins if w == "CMD"]
        argv = entry[0] + (cmd[0] if cmd else [])
        self.assertEqual(argv[0], "redis-server")
        flags = flag_values(argv[1:])
        self.assertEqual(flags.get("--bind"), "0.0.0.0")
        self.assertEqual(flags.get("--protected-mode"), "no")
        # Nothing durable: no snapshots, no append-only file, no volume.
        self.assertEqual(flags.get("--save"), "")
        self.assertEqual(flags.get("--appendonly"), "no")
        self.assertFalse([a for st, w, a in ins if w == "VOLUME"])
        self.assertNotRegex(block, r"(?m)^    (ports|volumes):")
        self.assertRegex(block, r"healthcheck:\s*\n\s+test:.*redis-cli.*ping")
        users = [a for st, w, a in ins if w == "USER"]
        self.assertTrue(users and users[-1] not in ("root", "0"), "Redis runs as non-root")

    def test_load_balancer_service(self):
        block = self.services["lb"]
        self.assertRegex(block, r"context:\s*\.\s*\n")
        self.assertRegex(block, r"dockerfile:\s*haproxy\.Dockerfile")
        self.assertTrue(set(self.nodes) <= set(depends_on(block)), depends_on(block))
        image, ins = single_from("docker/haproxy.Dockerfile")
        self.assertRegex(image, r"^debian:12\b")
        runs = " ".join(a for st, w, a in ins if w == "RUN")
        self.assertRegex(runs, r"apt-get install [^&]*\bhaproxy\b")
        self.assertRegex(runs, r"apt-get install [^&]*\bopenssl\b")
        copies = {a.split()[-1]: a.split()[0] for st, w, a in ins if w == "COPY"}
        for src in copies.values():  # from the build context, docker/
            self.assertTrue(os.path.exists(os.path.join(ROOT, "docker", src)), src)
        self.assertEqual(copies.get("/etc/haproxy/haproxy.cfg"), "haproxy.cfg")
        entry = [exec_form(a) for st, w, a in ins if w == "ENTRYPOINT"][0]
        cmd = [exec_form(a) for st, w, a in ins if w == "CMD"][0]
        self.assertEqual(copies.get(entry[0]), "haproxy-entrypoint.sh")
        self.assertEqual(cmd[cmd.index("-f") + 1], "/etc/haproxy/haproxy.cfg")
        self.assertIn("-db", cmd)  # in the foreground, as PID 1
        # Published: exactly the ports haproxy.cfg binds.
        binds = {int(l.split()[1].rsplit(":", 1)[1]) for k, lines in self.cfg.items()
                 if k[0] == "frontend" for l in lines if l.startswith("bind ")}
        published = {int(c) for h, c in re.findall(r'"(\d+):(\d+)"', block)}
        self.assertEqual(binds, {80, 443, 8081})
        self.assertEqual(published, binds)
        # The certificate folder: a named volume by default, the operator's folder instead.
        m = re.search(r"-\s*\$\{TRUNKFIELD_TLS_DIR:-([A-Za-z0-9_.-]+)\}:(/\S+)", block)
        self.assertIsNotNone(m, "lb mounts no ${TRUNKFIELD_TLS_DIR:-volume} folder")
        volume, folder = m.groups()
        top = re.search(r"(?ms)^volumes:[ \t]*\n(.*?)(?=^\S|\Z)", self.compose).group(1)
        self.assertRegex(top, r"(?m)^\s+" + re.escape(volume) + r":")
        self.assertEqual([a.strip('[]" ') for st, w, a in ins if w == "VOLUME"], [folder])
        default = re.search(r"TRUNKFIELD_TLS_SELF_SIGNED:-([^}]+)\}",
                            read("docker/haproxy-entrypoint.sh")).group(1)
        self.assertEqual(os.path.dirname(default), folder)
        self.assertRegex(block, r"TRUNKFIELD_TLS_NAME:\s*\$\{TRUNKFIELD_TLS_NAME:-localhost\}")
        self.assertRegex(block, r"TRUNKFIELD_TLS_PEM:\s*\$\{TRUNKFIELD_TLS_PEM:-\}")

    def test_haproxy_config(self):
        cfg = self.cfg
        frontends = {k[1]: v for k, v in cfg.items() if k[0] == "frontend"}
        backends = {k[1]: v for k, v in cfg.items() if k[0] == "backend"}
        defaults = next(v for k, v in cfg.items() if k[0] == "defaults")
        everything = [l for v in cfg.values() for l in v]
        # Keep-alive, which passes the WebSocket Upgrade through; no closing mode anywhere.
        self.assertFalse([l for l in everything if re.match(r"option (http-server-close|httpclose)", l)])
        self.assertIn("mode http", defaults)
        self.assertIn("timeout tunnel 1h", defaults)
        self.assertTrue([l for l in defaults if l.startswith("default-server ")
                         and re.search(r"\bcheck\b", l)
                         and all(f in l for f in ("inter 2s", "fall 2", "rise 2"))],
                        "default-server ... check inter 2s fall 2 rise 2")
        tls = [f for f, v in frontends.items() if any(re.match(r'bind :443 ssl crt "\$\{TRUNKFIELD_TLS_PEM\}"', l) for l in v)]
        self.assertEqual(len(tls), 1, "one frontend terminates TLS on 443 with $TRUNKFIELD_TLS_PEM")
        https = frontends[tls[0]]
        self.assertIn("option forwardfor", https)
        self.assertIn("http-request del-header X-Forwarded-For", https)
        self.assertIn("http-request set-header X-Forwarded-Proto https", https)
        plain = [v for v in frontends.values() if "bind :80" in v][0]
        self.assertIn("http-request redirect scheme https code 301", plain)
        tcp = [v for v in frontends.values() if "bind :8081" in v][0]
        self.assertIn("mode tcp", tcp)
        self.assertIn("timeout client 1h", tcp)
        # Both backends: every node, least connections, healthy while GET /readyz answers 200.
        http_port = {self.node_flags(b).get("--http-port") for b in self.nodes.values()}
        tcp_port = {self.node_flags(b).get("--tcp-port") for b in self.nodes.values()}
        self.assertEqual(len(http_port), 1)
        self.assertEqual(len(tcp_port), 1)
        http_port, tcp_port = http_port.pop(), tcp_port.pop()
        by_port = {}
        for name, lines in backends.items():
            self.assertIn("balance leastconn", lines, name)
            self.assertIn("option httpchk", lines, name)
            self.assertTrue([l for l in lines if l.startswith("http-check send meth GET uri /readyz")], name)
            self.assertIn("http-check expect status 200", lines, name)
            servers = [l.split() for l in lines if l.startswith("server ")]
            self.assertEqual(sorted(w[1] for w in servers), sorted(self.nodes), name)
            for w in servers:
                host, port = w[2].rsplit(":", 1)
                self.assertEqual(host, w[1], w)
                by_port.setdefault(port, []).append(name)
                if port == tcp_port:  # checked on the node's HTTP port
                    self.assertEqual(w[w.index("port") + 1], http_port, w)
        self.assertEqual(set(by_port), {http_port, tcp_port})
        tcp_backend = backends[by_port[tcp_port][0]]
        self.assertIn("mode tcp", tcp_backend)
        self.assertIn("timeout server 1h", tcp_backend)
        # The TCP connections start with the client's address (the PROXY protocol v2).
        for l in tcp_backend:
            if l.startswith("server "):
                self.assertIn("send-proxy-v2", l.split(), l)
        self.assertNotIn("mode tcp", backends[by_port[http_port][0]])

    def run_entrypoint(self, env, *args):
        """docker/haproxy-entrypoint.sh with haproxy -c on docker/haproxy.cfg instead of a start."""
        full = {k: v for k, v in os.environ.items() if not k.startswith("TRUNKFIELD_")}
        full["PATH"] = os.path.dirname(self.haproxy) + os.pathsep + full.get("PATH", "")
        full.update(env)
        return subprocess.run(["bash", os.path.join(ROOT, "docker/haproxy-entrypoint.sh"),
                               "-c", "-f", os.path.join(ROOT, "docker/haproxy.cfg")] + list(args),
                              env=full, capture_output=True, text=True, timeout=60)

    def assert_valid(self, out):
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("Configuration file is valid", out.stdout + out.stderr)
        # The only warnings allowed: the nodes' names do not resolve outside compose.
        for line in (out.stdout + out.stderr).splitlines():
            if "[WARNING]" in line or "[ALERT]" in line:
                self.assertRegex(line, r"could not resolve address 'node\d+'", line)

    def certificate(self, pem):
        out = subprocess.run(["openssl", "x509", "-in", pem, "-noout", "-subject", "-nameopt",
                              "RFC2253", "-ext", "subjectAltName"],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        return " ".join(out.stdout.split())

    def test_haproxy_accepts_the_config(self):
        self.haproxy = haproxy_binary()
        if not self.haproxy or not shutil.which("openssl"):
            self.skipTest("needs haproxy and openssl (bash scripts/setup.sh installs them)")
        with tempfile.TemporaryDirectory() as tmp:
            pem = os.path.join(tmp, "self-signed.pem")
            # No certificate given: the entrypoint makes one, and haproxy accepts the config.
            out = self.run_entrypoint({"TRUNKFIELD_TLS_SELF_SIGNED": pem,
                                       "TRUNKFIELD_TLS_NAME": "play.example.org"})
            self.assert_valid(out)
            self.assertEqual(self.certificate(pem), "subject=CN=play.example.org "
                             "X509v3 Subject Alternative Name: DNS:play.example.org")
            self.assertEqual(os.stat(pem).st_mode & 0o077, 0, "the key is readable by others")
            with open(pem) as f:
                first = f.read()
            self.assertRegex(first, r"-----BEGIN CERTIFICATE-----(.|\n)*-----BEGIN PRIVATE KEY-----")
            # The next start keeps it; another name makes a new one (an address: an IP SAN).
            self.assert_valid(self.run_entrypoint({"TRUNKFIELD_TLS_SELF_SIGNED": pem,
                                                   "TRUNKFIELD_TLS_NAME": "play.example.org"}))
            with open(pem) as f:
                self.assertEqual(f.read(), first)
            self.assert_valid(self.run_entrypoint({"TRUNKFIELD_TLS_SELF_SIGNED": pem,
                                                   "TRUNKFIELD_TLS_NAME": "192.0.2.7"}))
            self.assertEqual(self.certificate(pem), "subject=CN=192.0.2.7 "
                             "X509v3 Subject Alternative Name: IP Address:192.0.2.7")
            # The operator's certificate: used as it is, nothing made.
            site = os.path.join(tmp, "site.pem")
            os.rename(pem, site)
            self.assert_valid(self.run_entrypoint({"TRUNKFIELD_TLS_SELF_SIGNED": pem,
                                                   "TRUNKFIELD_TLS_PEM": site}))
            self.assertFalse(os.path.exists(pem))
            # Refused: a certificate that is not there, or without its key, or a strange name.
            cert_only = os.path.join(tmp, "cert-only.pem")
            with open(cert_only, "w") as f:
                f.write(re.sub(r"(?s)-----BEGIN PRIVATE KEY-----.*", "", first))
            for env, says in [({"TRUNKFIELD_TLS_PEM": os.path.join(tmp, "missing.pem")}, "TRUNKFIELD_TLS_PEM"),
                              ({"TRUNKFIELD_TLS_PEM": cert_only}, "private key"),
                              ({"TRUNKFIELD_TLS_SELF_SIGNED": pem, "TRUNKFIELD_TLS_NAME": "a b;c"}, "TRUNKFIELD_TLS_NAME")]:
                out = self.run_entrypoint(env)
                self.assertNotEqual(out.returncode, 0, env)
                self.assertIn(says, out.stderr, env)
                self.assertNotIn("Configuration file is valid", out.stdout + out.stderr, env)

    def test_shell_syntax(self):
        for name in sorted(os.listdir(os.path.join(ROOT, "docker"))):
            if name.endswith(".sh"):
                out = subprocess.run(["bash", "-n", os.path.join(ROOT, "docker", name)],
                                     capture_output=True, text=True, timeout=30)
                self.assertEqual(out.returncode, 0, f"{name}: {out.stderr}")

    def test_node_flags_in_help(self):
        if not SERVER:
            self.skipTest("no --server given")
        out = subprocess.run([SERVER, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        listed = set(re.findall(r"(--[a-z][a-z0-9-]*)", out.stdout))
        pending = [f for f in PENDING_FLAGS if f not in listed]
        entry = [exec_form(a) for st, w, a in dockerfile_instructions(read("docker/Dockerfile"))
                 if st == 1 and w == "ENTRYPOINT"][0]
        for name, block in sorted(self.nodes.items()):
            cmd = [substitute(a) for a in compose_command(block)]
            for flag in flag_values(cmd):
                if flag not in pending:
                    self.assertIn(flag, listed, f"{flag} ({name}) is not in --help")
            # The values pass the server's checks too (see RuntimeFlags), without the pending flags.
            kept, i = [], 0
            while i < len(cmd):
                if cmd[i] in pending:
                    i += 2
                    continue
                kept.append(cmd[i])
                i += 1
            out = subprocess.run([SERVER] + entry[1:] + kept + ["--help"],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 0, f"{name}: {out.stderr}")
        for flag in pending:
            with self.subTest(flag=flag):
                self.skipTest(f"{flag} is not in this server's --help yet (being added)")


class Readme(unittest.TestCase):
    def test_deploy_section(self):
        text = section(read("README.md"), "Deploy with Docker")
        cmds = shell_commands(text)
        self.assertTrue(any("docker build" in c and "-f docker/Dockerfile" in c for c in cmds), cmds)
        self.assertTrue(any("docker compose -f docker/compose.yaml" in c for c in cmds), cmds)
        self.assertIn("cannot", text.lower())  # says docker does not run on our build machines
        self.assertTrue(any("--profile postgres" in c for c in cmds), cmds)
        self.assertIn("--profile cluster", text)

    def test_operating_cluster_section(self):
        text = section(read("docs/OPERATING.md"), "Several nodes")
        cmds = shell_commands(text)
        self.assertTrue(any("docker compose -f docker/compose.yaml --profile cluster up -d" in c
                            for c in cmds), cmds)
        for word in ("TRUNKFIELD_DB_PASSWORD", "TRUNKFIELD_TLS_NAME", "TRUNKFIELD_TLS_DIR",
                     "TRUNKFIELD_TLS_PEM", "wss://", "443", "8081", "node4"):
            self.assertIn(word, text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", help="trunkfield-server executable (for the --help check)")
    args, rest = ap.parse_known_args()
    SERVER = args.server
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
