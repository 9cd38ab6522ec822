#!/usr/bin/env python3
"""A real SMTP server on loopback for the mail tests (Debian's python3-aiosmtpd): every message
it accepts is written to FOLDER as N.eml (the envelope's recipients in N.rcpt) until SIGTERM.

usage: smtp_sink.py FOLDER PORT      (or, from a test: Sink(folder, port).start())
"""
import email
import email.policy
import os
import signal
import subprocess
import sys
import threading
import time


class Sink:
    """The sink as a child process: start(), stop(), messages()."""

    def __init__(self, folder, port):
        self.folder, self.port, self.proc = folder, port, None
        os.makedirs(folder, exist_ok=True)

    def start(self):
        # Debian's interpreter, which has Debian's aiosmtpd (another python3 may come first).
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), self.folder,
                                      str(self.port)])
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(os.path.join(self.folder, "ready")):
                return self
            time.sleep(0.05)
        raise SystemExit("the SMTP sink did not start")

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None
        try:
            os.unlink(os.path.join(self.folder, "ready"))
        except FileNotFoundError:
            pass

    def messages(self):
        """[(recipients, email.message.EmailMessage)] in the order they came."""
        out = []
        names = sorted((f for f in os.listdir(self.folder) if f.endswith(".eml")),
                       key=lambda f: int(f.split(".")[0]))
        for f in names:
            with open(os.path.join(self.folder, f), "rb") as fh:
                msg = email.message_from_binary_file(fh, policy=email.policy.default)
            with open(os.path.join(self.folder, f[:-4] + ".rcpt")) as fh:
                rcpt = fh.read().split()
            out.append((rcpt, msg))
        return out


def serve(folder, port):
    from aiosmtpd.controller import Controller

    lock = threading.Lock()

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            with lock:
                n = len([f for f in os.listdir(folder) if f.endswith(".eml")]) + 1
                with open(os.path.join(folder, f"{n}.rcpt"), "w") as fh:
                    fh.write("\n".join(envelope.rcpt_tos))
                tmp = os.path.join(folder, f"{n}.tmp")
                with open(tmp, "wb") as fh:
                    fh.write(envelope.original_content or envelope.content)
                os.rename(tmp, os.path.join(folder, f"{n}.eml"))
            return "250 Message accepted for delivery"

    c = Controller(Handler(), hostname="127.0.0.1", port=port)
    c.start()
    open(os.path.join(folder, "ready"), "w").close()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    c.stop()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1])
        sys.exit(2)
    serve(sys.argv[1], int(sys.argv[2]))
