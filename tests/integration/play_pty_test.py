#!/usr/bin/env python3
"""`trunkfield play` driven through a real pseudo-terminal against the real server.

usage: play_pty_test.py TRUNKFIELD_BIN SERVER_BIN

The player (silver) is typed into a pty: create a game, read its code off the screen, make a
setup, then several turns picked from the client's own `moves` output; the screen must show
each of them (the board, the turn counter, the last turn in notation). Also checked: a locally
rejected turn shows the rules library's error and sends nothing; a dropped connection
(through a proxy the test controls) is resumed with the saved token; a spectator with piped
stdin sees the game; colours appear unless NO_COLOR is set.

The opponent (bronze) is `trunkfield bot --level 1 --code CODE` when the binary has a `bot`
command, else a small scripted player over TCP that asks `trunkfield rules moves` for legal
turns. Python standard library only.
"""
import json
import os
import pty
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import threading
import time

TIMEOUT = 30.0  # seconds to wait for any one expected screen; a guard, not a speed check
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def fail(msg):
    print("FAIL: " + msg, flush=True)
    raise SystemExit(1)


def plain(text):
    """The text as a terminal shows it: a carriage return starts the line over (the client
    always rewrites the whole prompt line after one), escape sequences are dropped."""
    lines = text.replace("\r\n", "\n").split("\n")  # the terminal's own newline mapping
    return "\n".join(ANSI.sub("", line.rsplit("\r", 1)[-1]) for line in lines)


class Server:
    def __init__(self, binary, tmp):
        self.log_path = os.path.join(tmp, "server.log")
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "--http-port", "0", "--tcp-port", "0", "--bind", "127.0.0.1", "--data", data],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            with open(self.log_path) as f:
                m = re.search(r"listening http=\S*:(\d+) tcp=\S*:(\d+)", f.read())
            if m:
                self.tcp_port = int(m.group(2))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        with open(self.log_path) as f:
            fail("server did not start:\n" + f.read())

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Proxy:
    """TCP relay from an ephemeral port to the server; drop() cuts every relayed connection."""

    def __init__(self, target_port):
        self.target = target_port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.socks = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.socks += [client, upstream]
                self.accepted += 1
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drop(self):
        with self.lock:
            socks, self.socks = self.socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.listener.close()
        self.drop()


class PtyClient:
    """A process on a pseudo-terminal; `out` accumulates everything it wrote."""

    def __init__(self, argv, env):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 120, 0, 0))
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.fd = master
        self.raw = ""
        self.mark = 0  # expect() searches the screen text written after this point

    def pump(self, wait):
        r, _, _ = select.select([self.fd], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.raw += data.decode("utf-8", "replace")
        return True

    def text(self):
        return plain(self.raw)

    def expect(self, pattern, what, timeout=TIMEOUT):
        """Waits until `pattern` appears after the mark; moves the mark past it."""
        deadline = time.time() + timeout
        rx = re.compile(pattern, re.M)
        while True:
            t = self.text()
            m = rx.search(t, self.mark)
            if m:
                self.mark = m.end()
                return m
            if time.time() > deadline:
                tail = t[-3000:]
                fail(f"timed out waiting for {what} ({pattern!r}); screen tail:\n{tail}")
            if self.proc.poll() is not None and not self.pump(0.05):
                fail(f"client exited ({self.proc.returncode}) waiting for {what}; screen:\n{t[-3000:]}")
            self.pump(0.1)

    def type(self, line):
        self.keys((line + "\r").encode())

    def keys(self, data):
        """Sends raw keys; expect() then searches from the prompt line on (it gets rewritten)."""
        t = self.text()
        self.mark = t.rfind("\n") + 1
        os.write(self.fd, data)

    def close(self):
        if self.fd < 0:
            return
        if self.proc.poll() is None:
            try:
                os.write(self.fd, b"quit\r")
                deadline = time.time() + 5
                while self.proc.poll() is None and time.time() < deadline:
                    self.pump(0.05)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self.fd)
        self.fd = -1


def last_board(text):
    """The rows of the last board on screen: {y: line}."""
    starts = [m.start() for m in re.finditer(r"^ {7}  a  b", text, re.M)]
    if len(starts) < 2:
        fail("no board on screen")
    top = starts[-2]
    rows = {}
    for line in text[top:].split("\n")[1:]:
        m = re.match(r"^ *(\d+) ", line)
        if m:
            rows[int(m.group(1))] = line
        elif rows and line.startswith("       "):
            break
    return rows


def cell_at(text, name):
    rows = last_board(text)
    x = ord(name[0]) - ord("a") + 1
    y = int(name[1:])
    line = rows.get(y)
    if line is None:
        fail(f"row {y} not on the board")
    return line[4 + 3 * x: 7 + 3 * x].strip()


# ---- the opponent -------------------------------------------------------------------------------

class ScriptedBronze(threading.Thread):
    """Joins as bronze, plays a fixed legal setup and then the first legal move each turn."""

    SETUP = {"elephants": [[1, 2], [1, 3], [1, 4], [1, 7], [1, 9]], "guardians": [[10, 0], [10, 8]]}

    def __init__(self, port, code, trunkfield):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rw", encoding="utf-8", newline="\n")
        self.code = code
        self.trunkfield = trunkfield
        self.error = None
        self.record = None
        self.version = 0

    def send(self, msg):
        self.file.write(json.dumps(msg) + "\n")
        self.file.flush()

    def run(self):
        try:
            self.send({"type": "hello", "version": 1, "name": "scripted"})
            self.send({"type": "join_game", "code": self.code})
            for line in self.file:
                m = json.loads(line)
                if m["type"] == "snapshot":
                    self.record = m["record"]
                    self.version = m["version"]
                    self.act(m["state"]["phase"], m["state"]["to_move"])
                elif m["type"] == "event":
                    self.version = m["version"]
                    p = m["payload"]
                    if m["kind"] == "setup":
                        self.record["setup"][p["side"]] = p["setup"]
                        if p["side"] == "silver":
                            self.act("setup_bronze", "bronze")
                    elif m["kind"] == "turn":
                        self.record["turns"].append(p["turn"])
                        if p["side"] == "silver":
                            self.act("play", "bronze")
                    elif m["kind"] == "game_over":
                        return
                elif m["type"] == "error":
                    self.error = m
        except (OSError, ValueError) as e:
            self.error = str(e)

    def act(self, phase, to_move):
        if to_move != "bronze":
            return
        if phase == "setup_bronze":
            self.send({"type": "setup", "game": self.code, "setup": self.SETUP, "version": self.version})
        elif phase == "play":
            rec = dict(self.record)
            rec.setdefault("turns", [])
            out = subprocess.run([self.trunkfield, "rules", "moves", "-"], input=json.dumps(rec),
                                 capture_output=True, text=True)
            moves = json.loads(out.stdout)["moves"]
            turn = {"elephant": moves[0]} if moves else {}
            self.send({"type": "turn", "game": self.code, "turn": turn, "version": self.version})

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def has_bot_command(trunkfield):
    out = subprocess.run([trunkfield, "--help"], capture_output=True, text=True)
    return re.search(r"^\s+bot\s", out.stdout + out.stderr, re.M) is not None


# ---- the test -----------------------------------------------------------------------------------

def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    trunkfield, server_bin = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tf-play-pty-")
    server = Server(server_bin, tmp)
    proxy = Proxy(server.tcp_port)
    env = dict(os.environ)
    env.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": tmp})
    env.pop("NO_COLOR", None)
    token_file = os.path.join(tmp, "token")
    ann = PtyClient([trunkfield, "play", "--server", f"127.0.0.1:{proxy.port}", "--name", "ann",
                     "--token-file", token_file, "--no-color", "--ascii"], env)
    opponent = bot = spectator = None
    try:
        ann.expect(r"Connected as ann", "the welcome")
        st = os.stat(token_file)
        if st.st_mode & 0o077:
            fail(f"token file is readable by others: {oct(st.st_mode)}")

        # An account: the password is asked for on the next lines and never shown.
        ann.type("register ann")
        ann.expect(r"new password \(8 or more characters\): ", "the password prompt")
        ann.type("sesame-street")
        ann.expect(r"the same password again: ", "the repeat prompt")
        ann.type("sesame-street")
        ann.expect(r"Signed in as ann", "the registered account")
        if "sesame-street" in ann.text():
            fail("the password was echoed")

        ann.type("create side=silver")
        code = ann.expect(r"Game created: ([a-z0-9]{6})", "the game code").group(1)
        ann.expect(r"waiting for an opponent: they can type  join " + code, "the open game")

        if has_bot_command(trunkfield):
            print("opponent: trunkfield bot --level 1", flush=True)
            bot = subprocess.Popen([trunkfield, "bot", "--server", f"127.0.0.1:{server.tcp_port}",
                                    "--level", "1", "--code", code],
                                   stdout=open(os.path.join(tmp, "bot.log"), "w"), stderr=subprocess.STDOUT)
        else:
            print("opponent: scripted player (no bot command in this build)", flush=True)
            opponent = ScriptedBronze(server.tcp_port, code, trunkfield)
            opponent.start()
        ann.expect(r"joined as bronze", "the opponent joining")
        ann.expect(r"Your setup: 5 cells of b1\.\.i1", "the setup prompt")

        # A setup with a typo is refused locally, then a legal one is accepted.
        ann.type("setup b1 c1 e1 g1 z9 | Sa W5")
        ann.expect(r"setup: 'z9' is not a cell of this board", "a setup parse error")
        ann.type("setup b1 c1 e1 g1 h1 | Sa W5")
        ann.expect(r"turn 1: silver to move \(you\)", "silver's first turn after both setups")
        screen = ann.text()
        for cell in ("b1", "c1", "e1", "g1", "h1"):
            if cell_at(screen, cell) != "S^":
                fail(f"silver elephant missing on {cell}: {cell_at(screen, cell)!r}")
        if "Gs" not in last_board(screen)[5]:
            fail("silver guardian on W5 not drawn")

        # Locally rejected turns: nothing reaches the server, the library's message is shown.
        ann.type("b1-b4")
        ann.expect(r"Illegal turn \(step_shape\): ", "a local step_shape rejection")
        ann.type("b1-d1")
        ann.expect(r"Illegal turn \(facing_required\): the move ends on the free cell d1", "facing_required")
        ann.type("c1-c3-c4:N")
        ann.expect(r"Illegal turn \(\w+\)", "another local rejection")
        ann.type("zz-9")
        ann.expect(r"Cannot read that turn: ", "a notation error")
        ann.type("board")
        # Still the first turn, and no "last turn" line between the turn line and the next one.
        ann.expect(r"turn 1: silver to move \(you\)[^\n]*\n watched:", "still silver's first turn, no turn played")

        played = []
        for i in range(4):
            turn_no = 2 * i + 1
            ann.type("moves")
            m = ann.expect(r"legal moves per elephant.*\n\s+(\S+): \d+", "the move counts")
            cell = m.group(1).rstrip(":")
            ann.type(f"moves {cell}")
            line = ann.expect(r"Moves of " + cell + r" \(\d+; .*\):\n((?:  .*\n)+)", "a move list").group(1)
            moves = line.split()
            if not moves:
                fail("empty move list")
            # Prefer a move that ends on a free cell (it needs a facing): it shows the arrow.
            choice = next((mv for mv in moves if mv.endswith(":F")), moves[0]).replace(":F", ":E")
            if i == 3:
                # After a dropped connection the client must reconnect and resume first.
                before = proxy.accepted
                proxy.drop()
                ann.expect(r"connection lost", "the dropped connection")
                ann.expect(r"Connected as ann", "the reconnection")
                if proxy.accepted <= before:
                    fail("no new connection after the drop")
                ann.type("board")
                ann.expect(rf"turn {turn_no}: silver to move \(you\)", "the resumed game")
            ann.type(choice)
            ann.expect(rf"turn {turn_no + 1}: bronze to move", "bronze to move")
            shown = ann.expect(rf"last turn {turn_no} \(silver\): {re.escape(choice)}\n", f"turn {turn_no} on screen")
            dest = choice.split()[0].split(":")[0].split("-")[-1]
            screen = ann.text()[:shown.end()]  # the board drawn with this status, not a later one
            got = cell_at(screen, dest) if re.fullmatch(r"[a-i]\d", dest) else "S"
            if not got.startswith("S"):
                fail(f"after {choice} the board shows {got!r} on {dest}")
            if choice.endswith(":E") and got != "S>":
                fail(f"after {choice} the elephant on {dest} should face east, shows {got!r}")
            played.append(choice)
            ann.expect(rf"turn {turn_no + 2}: silver to move \(you\)", "silver to move again")
            ann.expect(rf"last turn {turn_no + 1} \(bronze\): \S+", f"bronze's turn {turn_no + 1}")

        ann.type("history")
        ann.expect(r"1\. " + re.escape(played[0]), "the history")
        # The line editor: cursor keys, backspace, End, Ctrl-C, and the up arrow's history.
        ann.keys(b"hist\x1b[D\x1b[Dxx\x7f\x7f\x1b[Fory\r")
        ann.expect(r"> history\n  1\. " + re.escape(played[0]), "history typed with editing keys")
        ann.keys(b"nonsense\x03\x1b[A\r")
        ann.expect(r"> history\n  1\. " + re.escape(played[0]), "history recalled with the up arrow")
        if "nonsense" in ann.text()[ann.mark - 400:]:
            fail("Ctrl-C did not clear the line")

        # A spectator with piped stdin and --color: it sees the game and may not play.
        spectator = subprocess.Popen(
            [trunkfield, "play", "--server", f"127.0.0.1:{server.tcp_port}", "--name", "eve",
             "--token-file", os.path.join(tmp, "token-eve"), "--color"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        spectator.stdin.write(f"watch {code}\n".encode())
        spectator.stdin.flush()
        buf = b""
        deadline = time.time() + TIMEOUT
        while b"last turn" not in buf and time.time() < deadline:
            r, _, _ = select.select([spectator.stdout], [], [], 0.2)
            if r:
                chunk = os.read(spectator.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
        spectator.stdin.write(b"c1-c2\nquit\n")
        spectator.stdin.flush()
        rest, _ = spectator.communicate(timeout=TIMEOUT)
        if spectator.returncode != 0:
            fail(f"the piped spectator exited with {spectator.returncode}:\n{rest.decode(errors='replace')[-2000:]}")
        spectator = None
        text = (buf + rest).decode("utf-8", "replace")
        if "You are watching this game, not playing in it." not in plain(text):
            fail("spectator: a turn was not refused:\n" + plain(text)[-2000:])
        if "\x1b[1;96m" not in text:
            fail("--color given, but the spectator's board has no colours")

        # NO_COLOR on a terminal: no colours (the line editor's cursor codes remain).
        nenv = dict(env)
        nenv["NO_COLOR"] = "1"
        eve = PtyClient([trunkfield, "play", "--server", f"127.0.0.1:{server.tcp_port}", "--name", "eve",
                         "--token-file", os.path.join(tmp, "token-eve")], nenv)
        eve.expect(r"Connected as", "the spectator's welcome")
        eve.type(f"watch {code}")
        eve.expect(r"last turn \d+", "the spectator's board")
        eve.close()
        if eve.proc.returncode != 0:
            fail(f"the spectator's client exited with {eve.proc.returncode} after quit")
        if re.search(r"\x1b\[[0-9;]*m", eve.raw):
            fail("NO_COLOR set, but the terminal output has colour codes")

        ann.type("resign")
        ann.expect(r"Type  yes  to confirm", "the resign confirmation")
        ann.type("yes")
        ann.expect(r"GAME OVER: bronze wins .*silver resigned", "the game-over banner")
        ann.close()
        if ann.proc.returncode != 0:
            fail(f"the player's client exited with {ann.proc.returncode} after quit")
        print(f"ok: game {code}, turns typed: {', '.join(played)}", flush=True)
        return 0
    finally:
        ann.close()
        if opponent:
            opponent.close()
        if bot and bot.poll() is None:
            bot.terminate()
            try:
                bot.wait(5)
            except subprocess.TimeoutExpired:
                bot.kill()
        if spectator and spectator.poll() is None:
            spectator.kill()
        proxy.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
