#!/usr/bin/env python3
# Resident memory per game held in memory (issue 21, "Memory over time"): the server (durable,
# default flags but --threads 1, pinned to CPU 0) under tf-loadgen (100 games, CPU 1) at RATE
# moves/s for DUR seconds; samples RSS and trunkfield_games_in_memory every 5 s. Finished games
# pile up for --retention-seconds (600), so the slope of RSS over games in memory is what one
# retained finished game costs.
#   usage: bench/retained_memory.py SERVER_BIN LOADGEN_BIN RATE DURATION_S
import subprocess, sys, time, re, urllib.request, tempfile, shutil, socket
server, loadgen, rate, dur = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
def port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
http = port(); data = tempfile.mkdtemp()
p = subprocess.Popen(["taskset", "-c", "0", server, "--http-port", str(http), "--tcp-port", "0", "--data", data,
                      "--threads", "1", "--rate", "1000000", "--burst", "1000000", "--max-connections-per-ip", "0"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
def rss():
    return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{p.pid}/status").read()).group(1))
def games():
    m = urllib.request.urlopen(f"http://127.0.0.1:{http}/metrics").read().decode()
    return int(float(re.search(r"^trunkfield_games_in_memory (\S+)", m, re.M).group(1)))
r0, g0 = rss(), games()
lg = subprocess.Popen(["taskset", "-c", "1", loadgen, "--port", str(http), "--games", "100", "--rate", rate,
                       "--duration", str(dur), "--warmup", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
samples = []
t0 = time.time()
while lg.poll() is None:
    time.sleep(5); samples.append((round(time.time() - t0), rss(), games()))
r1, g1 = rss(), games()
print("samples (s, RSS kB, games in memory):", samples)
print(f"RSS {r0} -> {r1} kB, games in memory {g0} -> {g1}")
# The slope after the first sample (the 100 live games and the warm-up are in the first one).
(_, ra, ga), (_, rb, gb) = samples[0], samples[-2]
print(f"slope: {(rb - ra) * 1024 / max(gb - ga, 1):.0f} bytes of RSS per game retained")
p.terminate(); p.wait(); shutil.rmtree(data)
