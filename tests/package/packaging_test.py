#!/usr/bin/env python3
"""The package's files against the server they are for (no root, no chroot):

- packaging/trunkfield.conf names every setting the server has (`--print-config` lists them),
  each commented line shows the server's default, and the file as shipped and with every line
  uncommented is accepted;
- what wins: a flag over its TRUNKFIELD_* variable over the --config file over the default;
  TRUNKFIELD_CONFIG names the file; a misspelt setting in the file stops the server;
  `backup` takes the data folder from --config;
- packaging/trunkfield-server.service has the settings issue 22 asks for, its ExecStart is
  accepted by the server, and `systemd-analyze verify` (when installed) finds nothing to say;
- docs/OPERATING.md shows packaging/nginx-trunkfield.conf verbatim (the file the proxy test
  runs) and the unit's and the config file's paths.

usage: packaging_test.py SERVER_BIN
"""
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
CONF = os.path.join(ROOT, "packaging", "trunkfield.conf")
UNIT = os.path.join(ROOT, "packaging", "trunkfield-server.service")
PACKAGE_WEB_ROOT = "/usr/lib/trunkfield/web"  # cmake/packaging.cmake


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def server(*args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("TRUNKFIELD_")}
    e.update(env or {})
    return subprocess.run([SERVER, *args], capture_output=True, text=True, env=e, timeout=30)


def settings(text):
    """{name: value} of `name = value` lines (unquoted), as --print-config prints them."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z][a-z0-9-]*) = (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip().strip('"')
    return out


def print_config(*args, env=None):
    r = server(*args, "--print-config", env=env)
    if r.returncode != 0:
        raise AssertionError(f"--print-config {args} failed: {r.stderr}")
    return settings(r.stdout)


def conf_lines(text):
    """[(commented, name, value)] of the config file's setting lines."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(# )?([a-z][a-z0-9-]*) = (.*)$", line)
        if m:
            out.append((bool(m.group(1)), m.group(2), m.group(3).strip().strip('"')))
    return out


class ConfigFile(unittest.TestCase):
    def setUp(self):
        self.defaults = print_config()
        self.lines = conf_lines(read(CONF))

    def test_every_setting_once(self):
        names = [n for _, n, _ in self.lines]
        self.assertEqual(sorted(set(names)), sorted(names), "a setting appears twice")
        self.assertEqual(set(names), set(self.defaults),
                         "packaging/trunkfield.conf must name exactly the server's settings")

    def test_commented_lines_show_the_defaults(self):
        for commented, name, value in self.lines:
            if not commented:
                continue
            want = PACKAGE_WEB_ROOT if name == "web-root" else self.defaults[name]
            self.assertEqual(value, want, f"# {name} = ... is not the default")

    def test_file_accepted_as_shipped_and_uncommented(self):
        got = print_config("--config", CONF)
        active = {n: v for c, n, v in self.lines if not c}
        self.assertEqual(active.get("data"), "/var/lib/trunkfield")
        self.assertEqual(active.get("mine-puzzles"), "true", "the package mines puzzles")
        for name, value in got.items():
            self.assertEqual(value, active.get(name, self.defaults[name]), name)
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write(re.sub(r"(?m)^# ([a-z][a-z0-9-]*) = ", r"\1 = ", read(CONF)))
            f.flush()
            got = print_config("--config", f.name)
        for name, value in got.items():
            want = {"data": "/var/lib/trunkfield", "web-root": PACKAGE_WEB_ROOT,
                    "mine-puzzles": "true"}.get(name, self.defaults[name])
            self.assertEqual(value, want, name)


class Precedence(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.conf = os.path.join(self.tmp.name, "t.conf")
        with open(self.conf, "w") as f:
            f.write('http-port = 1111\ntcp-port = 1112\nsync = "normal"\n'
                    f'data = "{self.tmp.name}/from-file"\n')

    def tearDown(self):
        self.tmp.cleanup()

    def test_flag_environment_file_default(self):
        got = print_config("--config", self.conf)
        self.assertEqual((got["http-port"], got["tcp-port"], got["sync"]), ("1111", "1112", "normal"))
        got = print_config("--config", self.conf, env={"TRUNKFIELD_HTTP_PORT": "2222"})
        self.assertEqual((got["http-port"], got["tcp-port"]), ("2222", "1112"))
        got = print_config("--config", self.conf, "--http-port", "3333",
                           env={"TRUNKFIELD_HTTP_PORT": "2222"})
        self.assertEqual(got["http-port"], "3333")
        self.assertEqual(got["bind"], print_config()["bind"])

    def test_config_from_the_environment(self):
        got = print_config(env={"TRUNKFIELD_CONFIG": self.conf})
        self.assertEqual(got["http-port"], "1111")
        r = server("--print-config", env={"TRUNKFIELD_CONFIG": self.conf + ".missing"})
        self.assertNotEqual(r.returncode, 0, "a missing TRUNKFIELD_CONFIG file must be an error")

    def test_lists(self):
        for value in ('"https://a.example,http://b.example:8080"',
                      '["https://a.example", "http://b.example:8080"]'):
            with open(self.conf, "w") as f:
                f.write(f"allowed-origins = {value}\n")
            got = print_config("--config", self.conf)
            self.assertEqual(got["allowed-origins"],
                             '["https://a.example", "http://b.example:8080"]'.strip('"'))
        with open(self.conf, "w") as f:
            f.write('allowed-origins = ""\n')
        self.assertEqual(print_config("--config", self.conf)["allowed-origins"], "")

    def test_misspelt_setting_stops_the_server(self):
        with open(self.conf, "w") as f:
            f.write("htp-port = 1\n")
        r = server("--config", self.conf, "--print-config")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("htp-port", r.stderr)

    def test_backup_reads_the_data_folder_from_the_file(self):
        r = server("--config", self.conf, "backup", "--to", os.path.join(self.tmp.name, "b.db"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"{self.tmp.name}/from-file/trunkfield.db", r.stderr)


class Unit(unittest.TestCase):
    def setUp(self):
        self.text = read(UNIT)
        self.service = {}
        section = None
        for line in self.text.splitlines():
            if line.startswith("["):
                section = line.strip().strip("[]")
            elif section == "Service" and "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                self.service.setdefault(k, []).append(v)

    def test_required_settings(self):
        want = {"Type": "notify", "Restart": "on-failure", "NoNewPrivileges": "yes",
                "ProtectSystem": "strict", "PrivateTmp": "yes", "User": "trunkfield",
                "StandardOutput": "journal", "StandardError": "journal"}
        for k, v in want.items():
            self.assertEqual(self.service.get(k, [None])[-1], v, k)
        self.assertIn("/var/lib/trunkfield", self.service["ReadWritePaths"][-1].split())
        self.assertIn("WantedBy=multi-user.target", self.text)

    def test_exec_start_is_accepted(self):
        argv = shlex.split(self.service["ExecStart"][-1])
        self.assertEqual(argv[:3], ["/usr/bin/trunkfield-server", "--config",
                                    "/etc/trunkfield/trunkfield.conf"])
        got = print_config(*[CONF if a == "/etc/trunkfield/trunkfield.conf" else a
                             for a in argv[1:]])
        self.assertEqual(got["data"], "/var/lib/trunkfield")

    def test_systemd_analyze_verify(self):
        if not shutil.which("systemd-analyze"):
            self.skipTest("systemd-analyze is not installed")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trunkfield-server.service")
            with open(path, "w") as f:
                f.write(self.text.replace("/usr/bin/trunkfield-server", os.path.abspath(SERVER)))
            r = subprocess.run(["systemd-analyze", "verify", path], capture_output=True,
                               text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((r.stdout + r.stderr).strip(), "", "systemd-analyze verify complains")


class Docs(unittest.TestCase):
    def test_operating_shows_the_tested_nginx_file(self):
        doc = read(os.path.join(ROOT, "docs", "OPERATING.md"))
        blocks = re.findall(r"```nginx\n(.*?)```", doc, re.S)
        self.assertIn(read(os.path.join(ROOT, "packaging", "nginx-trunkfield.conf")), blocks,
                      "docs/OPERATING.md must show packaging/nginx-trunkfield.conf verbatim")

    def test_operating_names_the_paths(self):
        doc = read(os.path.join(ROOT, "docs", "OPERATING.md"))
        for s in ("/etc/trunkfield/trunkfield.conf", "/var/lib/trunkfield",
                  "trunkfield-server backup", "trunkfield-server restore", "/metrics",
                  "max-connections-per-ip", "allowed-origins", "pg_dump"):
            self.assertIn(s, doc)


if __name__ == "__main__":
    SERVER = sys.argv.pop(1)
    unittest.main(verbosity=2)
