#!/usr/bin/env python3
"""The disk's own fdatasync latency in a folder: the floor under every durable commit there.
bench/run runs it once per run, in the folder that holds the durable server's data directory,
right before that server's latency measurement (never at the same time as a server).

usage: fsync_probe.py DIR [--count N] [--block BYTES]

Creates a scratch file in DIR, allocates count blocks of `block` bytes in it (written and
fsync'ed once, untimed), then COUNT times overwrites the next block with fresh bytes and calls
os.fdatasync(), timing the write and the fdatasync together. Overwriting blocks already
allocated keeps the size and the extents unchanged, so the fdatasync flushes data alone, as in
SQLite's WAL once it is reused after a checkpoint. Prints one JSON line: count, block,
median_ms, p99_ms, max_ms, mean_ms, the probe's own CPU per call (cpu_ms_per_call: what one durable commit
costs its writer at the least, the filesystem journal's work on the kernel's own threads not
counted), the folder and its
filesystem type. Deletes the file.
"""
import argparse
import json
import math
import os
import resource
import statistics
import time


def fs_type(path):
    """The type of the filesystem holding path, from /proc/self/mounts (longest mount prefix)."""
    path = os.path.realpath(path)
    best, kind = "", "?"
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                parts = line.split()
                mnt = parts[1].replace("\\040", " ")
                if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                    best, kind = mnt, f"{parts[2]} on {parts[0]}"
    except OSError:
        pass
    return kind


def quantile(sorted_values, q):
    """Nearest-rank quantile q (0..1) of an ascending list."""
    i = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[i]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--block", type=int, default=4096)
    args = p.parse_args()
    path = os.path.join(args.dir, f"fsync-probe.{os.getpid()}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, b"\0" * (args.block * args.count))  # allocate, untimed
        os.fsync(fd)
        blocks = [os.urandom(args.block) for _ in range(args.count)]
        times = []
        c0 = resource.getrusage(resource.RUSAGE_SELF)
        for i in range(args.count):
            t0 = time.perf_counter()
            os.pwrite(fd, blocks[i], i * args.block)
            os.fdatasync(fd)
            times.append(time.perf_counter() - t0)
        c1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        os.close(fd)
        os.unlink(path)
    ms = sorted(1000 * t for t in times)
    print(json.dumps({"count": args.count, "block": args.block,
                      "median_ms": statistics.median(ms), "p99_ms": quantile(ms, 0.99),
                      "max_ms": ms[-1], "mean_ms": statistics.fmean(ms),
                      # this process's CPU per write + fdatasync
                      "cpu_ms_per_call": 1000 * ((c1.ru_utime - c0.ru_utime)
                                                 + (c1.ru_stime - c0.ru_stime)) / args.count,
                      "dir": os.path.realpath(args.dir), "fs": fs_type(args.dir)}))


if __name__ == "__main__":
    main()
