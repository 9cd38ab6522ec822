"""docker/compose.yaml run with plain `podman` commands, for tests/docker/compose_test.py.

Debian 12's podman-compose (1.0.3) cannot run our compose file: it does not know `profiles:`
(an `up` starts every service of every profile, and they clash on their host ports) and does not
wait for `depends_on: condition: service_healthy`. So this reads the file as docker compose does,
for the parts the file uses, and nothing else:
- `${VAR}`, `${VAR:-default}` and `$$` from an environment (the test's stand-in for docker/.env);
- services selected as `docker compose --profile P up SERVICE...` does: the named services and,
  recursively, what they depend on; without names, every service active in the profiles;
- `depends_on` as a list or with `condition: service_healthy` / `service_started`; a healthy
  condition waits until the dependency's healthcheck (the service's own or its image's
  HEALTHCHECK) passes, run by `podman healthcheck run` (there is no systemd timer here to run it);
- `build` (context relative to the file, dockerfile relative to the context), `image`,
  `command`, `environment`, `volumes` (named volumes only), `ports`, `healthcheck`,
  `stop_grace_period`, `networks: default: ipv4_address`, and the top-level network's subnet;
- containers named PROJECT-SERVICE, reachable from the others by their service name (podman's
  network DNS, aardvark-dns), volumes named PROJECT_VOLUME.
Ports: a test must not take the host's 80, 443 or 8080, so `ports` are published on 127.0.0.1 at
free ports instead, and host_port(service, container_port) says where.
"""
import json
import os
import re
import subprocess
import sys
import time

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "package"))
from tfproto import free_port  # noqa: E402


def interpolate(value, env):
    """docker compose's variable substitution, for the forms the file uses."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m):
        if m.group(0) == "$$":
            return "$"
        name, default = m.group(1) or m.group(3), m.group(2)
        got = env.get(name)
        if default is not None:
            return got if got else default  # ${VAR:-default}: unset or empty
        return got or ""
    return re.sub(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)",
                  sub, value)


def seconds(text):
    """'30s', '1m30s', '5s' -> seconds."""
    if isinstance(text, (int, float)):
        return float(text)
    total = 0.0
    for n, unit in re.findall(r"([0-9.]+)(ms|s|m|h)", text):
        total += float(n) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


class PodmanError(Exception):
    pass


class Podman:
    """The podman command line, with the test's containers.conf and runc."""

    def __init__(self, conf, log):
        self.env = {**os.environ, "CONTAINERS_CONF": conf}
        self.log = log

    def run(self, *args, check=True, timeout=600, quiet=False, input_bytes=None, nice=False):
        cmd = ["podman", "--runtime", "runc", *args]
        if nice:
            cmd = ["nice", "-n", "10"] + cmd
        if input_bytes is None:
            r = subprocess.run(cmd, env=self.env, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL)
        else:
            r = subprocess.run(cmd, env=self.env, capture_output=True, timeout=timeout,
                               input=input_bytes)
            r.stdout, r.stderr = (r.stdout.decode(errors="replace"),
                                  r.stderr.decode(errors="replace"))
        if not quiet:
            self.log(f"$ {' '.join(cmd)}" + (f" -> {r.returncode}" if r.returncode else ""))
        if check and r.returncode != 0:
            raise PodmanError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-3000:]}"
                              f"\n{r.stderr[-3000:]}")
        return r


class Compose:
    def __init__(self, podman, path, project, env, log):
        self.podman = podman
        self.path = os.path.abspath(path)
        self.dir = os.path.dirname(self.path)
        self.project = project
        self.log = log
        self.spec = interpolate(yaml.safe_load(open(self.path)), env)
        self.services = self.spec["services"]
        self.ports = {}  # (service, container port) -> host port
        self.anonymous = set()  # the removed containers' anonymous volumes
        self.network = f"{project}_default"

    # --- selection ------------------------------------------------------------------------

    def depends(self, name):
        d = self.services[name].get("depends_on") or []
        return dict(d) if isinstance(d, dict) else {n: {"condition": "service_started"}
                                                      for n in d}

    def selected(self, profiles, names):
        """The services `docker compose --profile ... up [names]` starts, dependencies first."""
        def active(n):
            p = self.services[n].get("profiles")
            return not p or any(x in profiles for x in p)
        wanted = list(names) if names else [n for n in self.services if active(n)]
        order, seen = [], set()

        def visit(n):
            if n in seen:
                return
            seen.add(n)
            if not active(n):
                raise PodmanError(f"service {n} is not in the profiles {profiles}")
            for dep in self.depends(n):
                visit(dep)
            order.append(n)
        for n in wanted:
            visit(n)
        return order

    def images(self, names):
        """{image: (context, dockerfile)} of the services named."""
        out = {}
        for n in names:
            s = self.services[n]
            b = s.get("build")
            if b:
                ctx = os.path.normpath(os.path.join(self.dir, b.get("context", ".")))
                out[s["image"]] = (ctx, os.path.join(ctx, b.get("dockerfile", "Dockerfile")))
        return out

    # --- running ---------------------------------------------------------------------------

    def container(self, name):
        return f"{self.project}-{name}"

    def ensure_network(self):
        if self.podman.run("network", "exists", self.network, check=False, quiet=True).returncode == 0:
            return
        args = ["network", "create"]
        for cfg in ((self.spec.get("networks") or {}).get("default") or {}).get("ipam", {}).get(
                "config", []):
            if "subnet" in cfg:
                args += ["--subnet", cfg["subnet"]]
            if "ip_range" in cfg:
                args += ["--ip-range", cfg["ip_range"]]
        self.podman.run(*args, self.network)

    def volume(self, name):
        return f"{self.project}_{name}"

    def start(self, name):
        """podman run of one service (its container must not exist)."""
        s = self.services[name]
        args = ["run", "-d", "--name", self.container(name), "--network", self.network,
                "--network-alias", name, "--hostname", name]
        net = (s.get("networks") or {}).get("default") or {}
        if net.get("ipv4_address"):
            args += ["--ip", net["ipv4_address"]]
        if s.get("restart"):
            args += ["--restart", {"unless-stopped": "always"}.get(s["restart"], s["restart"])]
        env = s.get("environment") or {}
        if isinstance(env, list):
            env = dict(e.split("=", 1) for e in env)
        for k, v in env.items():
            args += ["--env", f"{k}={v}"]
        for v in s.get("volumes") or []:
            src, dst = v.split(":", 1)
            if src.startswith((".", "/")):
                src = os.path.normpath(os.path.join(self.dir, src))
            else:
                src = self.volume(src)
            args += ["--volume", f"{src}:{dst}"]
        for p in s.get("ports") or []:
            container_port = int(str(p).split(":")[-1].split("/")[0])
            host = self.ports.get((name, container_port)) or free_port()
            self.ports[(name, container_port)] = host
            args += ["--publish", f"127.0.0.1:{host}:{container_port}"]
        hc = s.get("healthcheck")
        if hc:
            test = hc["test"]
            if isinstance(test, list) and test[0] == "CMD":
                args += ["--health-cmd", json.dumps(test[1:])]
            elif isinstance(test, list) and test[0] == "CMD-SHELL":
                args += ["--health-cmd", test[1]]
            for key, flag in (("interval", "--health-interval"), ("timeout", "--health-timeout"),
                              ("start_period", "--health-start-period"),
                              ("retries", "--health-retries")):
                if key in hc:
                    args += [flag, str(hc[key])]
        if s.get("stop_grace_period"):
            args += ["--stop-timeout", str(int(seconds(s["stop_grace_period"])))]
        args.append(s["image"])
        args += [str(c) for c in s.get("command") or []]
        self.podman.run(*args)

    def has_healthcheck(self, name):
        r = self.podman.run("inspect", "--format", "{{json .Config.Healthcheck}}",
                            self.container(name), check=False, quiet=True)
        return r.returncode == 0 and r.stdout.strip() not in ("", "null", "{}")

    def healthy(self, name, within=120):
        """Runs the service's healthcheck until it passes (True) or `within` seconds pass."""
        deadline = time.time() + within
        while time.time() < deadline:
            r = self.podman.run("healthcheck", "run", self.container(name), check=False,
                                quiet=True, timeout=60)
            if r.returncode == 0:
                return True
            if self.state(name) not in ("running", "created"):
                return False
            time.sleep(1)
        return False

    def health_status(self, name):
        r = self.podman.run("inspect", "--format", "{{.State.Health.Status}}",
                            self.container(name), check=False, quiet=True)
        return r.stdout.strip()

    def state(self, name):
        r = self.podman.run("inspect", "--format", "{{.State.Status}}", self.container(name),
                            check=False, quiet=True)
        return r.stdout.strip() if r.returncode == 0 else "missing"

    def up(self, profiles=(), names=()):
        """`docker compose --profile ... up -d names`; returns the services started."""
        self.ensure_network()
        order = self.selected(profiles, names)
        for n in order:
            if self.state(n) == "running":
                continue
            if self.state(n) != "missing":
                self.podman.run("rm", "-f", self.container(n))
            for dep, cond in self.depends(n).items():
                if (cond or {}).get("condition") == "service_healthy" and not self.healthy(dep):
                    raise PodmanError(f"{n}: its dependency {dep} never became healthy:\n"
                                      + self.logs(dep))
            self.start(n)
        return order

    def logs(self, name, tail=60):
        r = self.podman.run("logs", "--tail", str(tail), self.container(name), check=False,
                            quiet=True)
        return r.stdout + r.stderr

    def stop(self, name, timeout=None):
        grace = timeout if timeout is not None else int(seconds(
            self.services[name].get("stop_grace_period", "10s")))
        self.podman.run("stop", "--time", str(grace), self.container(name), check=False,
                        timeout=grace + 60)

    def down(self, names, volumes=False):
        """`docker compose down`: containers stopped and removed, the network too; named
        volumes only with volumes=True (`down -v`)."""
        for n in reversed(names):
            if self.state(n) != "missing":
                self.stop(n)
                # The anonymous volumes of the images' VOLUME (a node's /data) outlive their
                # containers, as with docker compose: kept in mind, removed with -v.
                r = self.podman.run("inspect", "--format",
                                    "{{range .Mounts}}{{.Name}} {{end}}", self.container(n),
                                    check=False, quiet=True)
                self.anonymous.update(v for v in r.stdout.split()
                                      if not v.startswith(self.project + "_"))
                self.podman.run("rm", "-f", self.container(n), check=False)
        self.podman.run("network", "rm", "-f", self.network, check=False)
        if volumes:
            for v in list(self.spec.get("volumes") or {}) + sorted(self.anonymous):
                name = v if v in self.anonymous else self.volume(v)
                self.podman.run("volume", "rm", "-f", name, check=False, quiet=True)
            self.anonymous.clear()

    def host_port(self, name, container_port):
        return self.ports[(name, container_port)]

    def volume_path(self, volume):
        r = self.podman.run("volume", "inspect", "--format", "{{.Mountpoint}}",
                            self.volume(volume), quiet=True)
        return r.stdout.strip()
