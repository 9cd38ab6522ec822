#!/usr/bin/env python3
"""Summarizes bench/run's raw.jsonl into a Markdown table: medians of the runs, ratios to the
relay, the issue's goals, and a note when a figure is noisy.

usage: summarize.py RAW.jsonl SUMMARY.md [STORE_OFF_FLAG]
"""
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def pick(rows, bench, server):
    return [r for r in rows if r.get("bench") == bench and r.get("target") == server]


def dig(r, *keys):
    for k in keys:
        if not isinstance(r, dict) or r.get(k) is None:
            return None
        r = r[k]
    return r


class Figure:
    """The values of one figure over the runs, the median and the notes about them."""

    def __init__(self, rows, *keys, scale=1.0):
        self.rows = rows
        self.values = [v * scale for v in (dig(r, *keys) for r in rows) if v is not None]
        self.notes = []
        if not self.values:
            self.median = None
            kinds = sorted({k for r in rows for k in r.get("error_kinds", {})})
            if kinds:
                self.notes.append("errors: " + "; ".join(kinds))
            return
        self.median = statistics.median(self.values)
        if len(self.values) > 1 and self.median:
            spread = (max(self.values) - min(self.values)) / abs(self.median)
            if spread > 0.25:
                self.notes.append(f"noisy: spread {spread:.0%}")
        bad = [i + 1 for i, r in enumerate(rows) if "ok" in r and not r["ok"]]
        if bad:
            kinds = sorted({k for r in rows for k in r.get("error_kinds", {})})
            self.notes.append("loss or errors in run " + ", ".join(map(str, bad)) +
                              (" (" + "; ".join(kinds) + ")" if kinds else ""))
        loads = [x for r in rows for x in r.get("loadavg", [])]
        if loads and max(loads) > 2.5:
            self.notes.append(f"load average up to {max(loads):.1f}")

    def cell(self, fmt="{:,.2f}"):
        if self.median is None:
            return "failed" if self.rows else "n/a"
        return fmt.format(self.median)

    def runs(self, fmt="{:,.2f}"):
        return " / ".join(fmt.format(v) for v in self.values) or "-"


def ratio(a, b):
    if a.median is None or b.median is None or not b.median:
        return None
    return a.median / b.median


def main():
    rows = load(sys.argv[1])
    store_off = sys.argv[3] if len(sys.argv) > 3 else ""
    lines = [
        "| figure | trunkfield-server | relay (Node 20 + ws) | ratio | goal | met | runs: ours; relay | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def row(name, ours, relay, goal, test, fmt="{:,.2f}", on="ratio"):
        """`test` checks the ratio ours/relay (on="ratio") or our median (on="ours")."""
        r = ratio(ours, relay) if relay else None
        value = r if on == "ratio" else ours.median
        failed = ours.median is None and bool(ours.rows)
        met = "–" if test is None else ("**no**" if failed else "n/a" if value is None else
                                        ("yes" if test(value) else "**no**"))
        notes = "; ".join(ours.notes + ([f"relay {n}" for n in relay.notes] if relay else []))
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
            name, ours.cell(fmt), relay.cell(fmt) if relay else "–",
            f"{r:.2f}×" if r is not None else "–", goal, met,
            ours.runs(fmt) + ("; " + relay.runs(fmt) if relay else ""), notes))

    lat_o = Figure(pick(rows, "latency", "ours"), "latency_ms", "opponent", "p99")
    lat_r = Figure(pick(rows, "latency", "relay"), "latency_ms", "opponent", "p99")
    row("p99 move latency at 2,000 moves/s, WebSocket (ms, sent → opponent)", lat_o, lat_r,
        "≤ 0.8× relay", lambda v: v <= 0.8)
    ack_o = Figure(pick(rows, "latency", "ours"), "latency_ms", "ack", "p99")
    row("p99 sent → own ack at 2,000 moves/s (ms)", ack_o, None, "–", None)
    tcp = Figure(pick(rows, "latency-tcp", "ours"), "latency_ms", "opponent", "p99")
    row("p99 move latency at 2,000 moves/s, TCP (ms)", tcp, None, "–", None)
    cpu_o = Figure(pick(rows, "latency", "ours"), "server", "cpu_pct")
    cpu_r = Figure(pick(rows, "latency", "relay"), "server", "cpu_pct")
    row("server CPU at 2,000 moves/s (% of one core)", cpu_o, cpu_r, "–", None, "{:,.1f}")

    max_o = Figure(pick(rows, "max", "ours"), "max_rate")
    max_r = Figure(pick(rows, "max", "relay"), "max_rate")
    row("highest sustained moves/s (p99 < 50 ms, nothing lost)", max_o, max_r, "≥ 3× relay",
        lambda v: v >= 3, "{:,.0f}")
    row("validated and persisted moves/s (store on, sync full)", max_o, None, "≥ 5,000",
        lambda v: v >= 5000, "{:,.0f}", on="ours")

    for label, what in (("ours-store-off", f"store off ({store_off})"),
                        ("ours-sync-off", "--sync off (interim: no flag turns the store off)")):
        off = Figure(pick(rows, "max", label), "max_rate")
        if off.median is not None:
            lines.append("| durable on vs {}: sustained moves/s | {} (on) | {} (off) | {} | ≥ 0.8× | {} | {}; {} | {} |".format(
                what, max_o.cell("{:,.0f}"), off.cell("{:,.0f}"),
                f"{ratio(max_o, off):.2f}×" if ratio(max_o, off) else "–",
                "n/a" if ratio(max_o, off) is None else ("yes" if ratio(max_o, off) >= 0.8 else "**no**"),
                max_o.runs("{:,.0f}"), off.runs("{:,.0f}"), "; ".join(off.notes)))

    idle_o = Figure(pick(rows, "idle", "ours"), "idle_conns", "bytes_per_conn")
    idle_r = Figure(pick(rows, "idle", "relay"), "idle_conns", "bytes_per_conn")
    row("resident memory per idle WebSocket connection at 10,000 (bytes)", idle_o, idle_r,
        "≤ 0.5× relay", lambda v: v <= 0.5, "{:,.0f}")
    tot_o = Figure(pick(rows, "idle", "ours"), "idle_conns", "rss_after_kb", scale=1 / 1024)
    tot_r = Figure(pick(rows, "idle", "relay"), "idle_conns", "rss_after_kb", scale=1 / 1024)
    row("server RSS with 10,000 idle WebSocket connections (MB)", tot_o, tot_r, "< 150 MB (ours)",
        lambda v: v < 150, "{:,.1f}", on="ours")

    sp_o = Figure(pick(rows, "spectators", "ours"), "latency_ms", "spectator", "p99")
    sp_r = Figure(pick(rows, "spectators", "relay"), "latency_ms", "spectator", "p99")
    row("p99 delivery to 5,000 spectators of one game at 2 moves/s (ms)", sp_o, sp_r, "< 50 ms (ours)",
        lambda v: v < 50, on="ours")

    text = "\n".join(lines) + "\n"
    with open(sys.argv[2], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
