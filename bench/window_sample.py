#!/usr/bin/env python3
"""Samples, beside a tf-loadgen run, what the generator cannot see: the CPU time of a PostgreSQL
cluster's processes (from /proc) and the server's commit-latency histogram (/metrics), at two
moments inside the generator's measured window. bench/run starts it together with tf-loadgen.

usage: window_sample.py --start S --length L [--postmaster-pid-file F] [--metrics-url URL]

Sleeps S seconds, samples, sleeps L seconds, samples again and prints one JSON line: the
seconds actually elapsed, the cluster's CPU seconds in between (the postmaster's own time, its
live children's, and the time of the children that exited meanwhile, which the kernel adds to
the postmaster's cutime/cstime), and the growth of every bucket of
trunkfield_store_commit_seconds. bench/run picks S = warm-up + 1 s and L = duration - 2 s, so
the interval lies inside the generator's window as long as its connections were set up in
under a second (200 games over loopback: ~0.1 s), and a second before its end.
"""
import argparse
import json
import os
import time
import urllib.request

CLK = os.sysconf("SC_CLK_TCK")


def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()  # fields from the state on (field 3)


def cluster_cpu_seconds(postmaster):
    f = stat_fields(postmaster)
    ticks = sum(int(x) for x in f[11:15])  # utime stime cutime cstime of the postmaster
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == postmaster:
            continue
        try:
            c = stat_fields(name)
        except (OSError, ValueError):
            continue  # exited meanwhile
        if int(c[1]) == postmaster:
            ticks += int(c[11]) + int(c[12])
    return ticks / CLK


def commit_buckets(url):
    out = {}
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("trunkfield_store_commit_seconds_bucket{le=\""):
                    le = line.split('"')[1]
                    out[le] = float(line.rsplit(" ", 1)[1])
    except OSError:
        return None
    return out


def sample(args, postmaster):
    return (time.monotonic(),
            cluster_cpu_seconds(postmaster) if postmaster else None,
            commit_buckets(args.metrics_url) if args.metrics_url else None)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--start", type=float, required=True)
    p.add_argument("--length", type=float, required=True)
    p.add_argument("--postmaster-pid-file")
    p.add_argument("--metrics-url")
    args = p.parse_args()
    postmaster = None
    if args.postmaster_pid_file:
        with open(args.postmaster_pid_file) as f:
            postmaster = int(f.readline())
    time.sleep(args.start)
    t0, cpu0, b0 = sample(args, postmaster)
    time.sleep(args.length)
    t1, cpu1, b1 = sample(args, postmaster)
    out = {"wall_s": t1 - t0}
    if postmaster:
        out["pg_cpu_s"] = cpu1 - cpu0
        out["pg_cpu_pct"] = 100 * (cpu1 - cpu0) / (t1 - t0)
    if b0 is not None and b1 is not None:
        out["commit_buckets"] = {le: b1[le] - b0.get(le, 0) for le in b1}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
