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
- README.md has a "Deploy with Docker" section naming those files and the profile.

    python3 tests/docker/dockerfile_test.py --server build/bin/trunkfield-server
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
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
        raise AssertionError(f"README.md has no '## {title}' section")
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
            if name != "trunkfield":
                self.assertRegex(block, r"profiles:\s*\[\s*postgres\s*\]", name)
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


class Readme(unittest.TestCase):
    def test_deploy_section(self):
        text = section(read("README.md"), "Deploy with Docker")
        cmds = shell_commands(text)
        self.assertTrue(any("docker build" in c and "-f docker/Dockerfile" in c for c in cmds), cmds)
        self.assertTrue(any("docker compose -f docker/compose.yaml" in c for c in cmds), cmds)
        self.assertIn("cannot", text.lower())  # says docker does not run on our build machines
        self.assertTrue(any("--profile postgres" in c for c in cmds), cmds)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", help="trunkfield-server executable (for the --help check)")
    args, rest = ap.parse_known_args()
    SERVER = args.server
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
