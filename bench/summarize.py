#!/usr/bin/env python3
"""Summarizes bench/run's raw.jsonl into Markdown tables: medians of the runs, ratios to the
relay, the issue's goals, and a note when a figure is noisy; from the step latency (and
spectators), the table "Issue 21 goals"; and, from the step postgres, the table "SQLite vs
PostgreSQL" (our server on each durable store).

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

    def __init__(self, rows, *keys, scale=1.0, fn=None):
        """The value of a row is dig(row, *keys) * scale, or fn(row) when fn is given."""
        self.rows = rows
        get = fn or (lambda r: dig(r, *keys))
        self.values = [v * scale for v in map(get, rows) if v is not None]
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


def per_move_ms(cpu_s, r, seconds):
    """CPU milliseconds per delivered move, over `seconds` of the generator's steady rate."""
    rate = r.get("turns_per_s")
    if cpu_s is None or not rate or not seconds:
        return None
    return 1000 * cpu_s / (rate * seconds)


def bucket_quantile(buckets, q):
    """Quantile q (0..1) of a Prometheus histogram's counts {le: cumulative count}, linear
    within the bucket it falls in (the first bucket from 0)."""
    if not buckets:
        return None
    edges = sorted(((float("inf") if le == "+Inf" else float(le)), n) for le, n in buckets.items())
    total = edges[-1][1]
    if total <= 0:
        return None
    want, lo, below = q * total, 0.0, 0.0
    for le, n in edges:
        if n >= want:
            if le == float("inf"):
                return lo  # beyond the last finite bucket: its edge is all we know
            return lo + (le - lo) * (want - below) / (n - below) if n > below else le
        lo, below = le, n
    return lo


def share_over(buckets, le):
    if not buckets or not buckets.get("+Inf"):
        return None
    return 1 - buckets.get(le, 0) / buckets["+Inf"]


def by_run(rows):
    return {r.get("run"): r for r in rows}


def issue21_table(rows):
    """Issue 21's goals: the step latency's three servers (targets ours = durable --sync full,
    ours-memory = --store memory, relay), the fdatasync probe of the same runs (bench fsync) and,
    when that step ran, the step spectators."""
    dur, mem, rel = (pick(rows, "latency", t) for t in ("ours", "ours-memory", "relay"))
    probe = pick(rows, "fsync", "disk")
    if not (dur or mem or rel):
        return []
    lines = ["", "### Issue 21 goals", "",
             "One `bench/run`, per run: ours durable (`--sync full`), ours `--store memory` and the "
             "relay at 2,000 moves/s over WebSocket (server on one core), and the fdatasync "
             "probe right before the durable server. Medians of the runs; the ratio is of the "
             "medians, the notes give it per run.", "",
             "| figure | ours | relay | ratio | goal | met | runs: ours; relay | notes |",
             "|---|---|---|---|---|---|---|---|"]

    def per_run_ratios(ours, relay, get_o, get_r):
        o, r = by_run(ours), by_run(relay)
        out = []
        for run in sorted(set(o) & set(r), key=lambda x: (x is None, x)):
            a, b = get_o(o[run]), get_r(r[run])
            if a is not None and b:
                out.append(a / b)
        return out

    def row(name, ours_rows, relay_rows, get, goal, limit, fmt):
        a, b = Figure(ours_rows, fn=get), Figure(relay_rows, fn=get)
        q = ratio(a, b)
        failed = a.median is None and bool(a.rows)
        met = "**no**" if failed else "n/a" if q is None else ("yes" if q <= limit else "**no**")
        each = per_run_ratios(ours_rows, relay_rows, get, get)
        notes = ([("per run " + " / ".join(f"{x:.2f}×" for x in each))] if len(each) > 1 else []) \
            + a.notes + [f"relay {n}" for n in b.notes]
        # three decimals where two would round onto the goal's limit
        shown = "–" if q is None else f"{q:.3f}×" if round(q, 2) == limit and q != limit else f"{q:.2f}×"
        lines.append("| {} | {} | {} | {} | {} | {} | {}; {} | {} |".format(
            name, a.cell(fmt), b.cell(fmt), shown, goal, met,
            a.runs(fmt), b.runs(fmt), "; ".join(notes)))

    def cpu_ms(r):
        return per_move_ms(dig(r, "server", "cpu_s"), r, dig(r, "options", "duration_s"))

    def p99(r):
        return dig(r, "latency_ms", "opponent", "p99")

    row("server CPU per delivered move, durable (`--sync full`) vs relay (ms)", dur, rel, cpu_ms,
        "≤ 1.0×", 1.0, "{:,.3f}")
    row("server CPU per delivered move, `--store memory` vs relay (ms)", mem, rel, cpu_ms,
        "≤ 0.5×", 0.5, "{:,.3f}")
    row("p99 sent → opponent, `--store memory` vs relay (ms)", mem, rel, p99, "≤ 0.8×", 0.8,
        "{:,.2f}")

    # durable p99 against relay p99 + 2 × the disk's fdatasync p99, both of the same run
    pr, rr = by_run(probe), by_run(rel)
    bounds = []
    for run in sorted(set(pr) & set(rr), key=lambda x: (x is None, x)):
        f, r = pr[run].get("p99_ms"), p99(rr[run])
        if f is not None and r is not None:
            bounds.append({"run": run, "bound": r + 2 * f, "loadavg": rr[run].get("loadavg", []),
                           "ok": rr[run].get("ok", True)})
    a = Figure(dur, fn=p99)
    bound = Figure(bounds, "bound")
    fs = Figure(probe, "p99_ms")
    relay_p99 = Figure(rel, fn=p99)
    failed = a.median is None and bool(a.rows)
    met = "**no**" if failed else "n/a" if a.median is None or bound.median is None else (
        "yes" if a.median <= bound.median else "**no**")
    ours_by_run = by_run(dur)
    each = [(b["run"], p99(ours_by_run[b["run"]]), b["bound"]) for b in bounds
            if b["run"] in ours_by_run and p99(ours_by_run[b["run"]]) is not None]
    notes = []
    if each:
        notes.append("under the bound in {} of {} runs".format(sum(o <= x for _, o, x in each), len(each)))
    notes += a.notes + [f"bound {n}" for n in bound.notes]
    q = ratio(a, bound)
    lines.append("| p99 sent → opponent, durable (`--sync full`) (ms) | {} | {} (median of the runs' relay p99 + 2 × fdatasync p99; medians {} and {}) | {} | ≤ bound | {} | {}; bound {} | {} |".format(
        a.cell(), bound.cell(), relay_p99.cell(), fs.cell(), f"{q:.2f}× the bound" if q is not None else "–",
        met, a.runs(), bound.runs(), "; ".join(notes)))

    sp_o = pick(rows, "spectators", "ours")
    sp_r = pick(rows, "spectators", "relay")
    if sp_o or sp_r:
        row("p99 delivery to 5,000 spectators of one game at 2 moves/s vs relay (ms)", sp_o, sp_r,
            lambda r: dig(r, "latency_ms", "spectator", "p99"), "≤ 0.8×", 0.8, "{:,.1f}")
    else:
        lines.append("| p99 delivery to 5,000 spectators vs relay | – | – | – | ≤ 0.8× | not run | – | the step spectators did not run |")

    # the figures behind the goals
    cpu_r = Figure(rel, "server", "cpu_pct")
    for name, x in (("durable", dur), ("`--store memory`", mem)):
        cpu_o = Figure(x, "server", "cpu_pct")
        q = ratio(cpu_o, cpu_r)
        lines.append("| server CPU at 2,000 moves/s, {} vs relay (% of one core) | {} | {} | {} | – | – | {}; {} | {} |".format(
            name, cpu_o.cell("{:,.1f}"), cpu_r.cell("{:,.1f}"), f"{q:.2f}×" if q is not None else "–",
            cpu_o.runs("{:,.1f}"), cpu_r.runs("{:,.1f}"), "; ".join(cpu_o.notes + [f"relay {n}" for n in cpu_r.notes])))
    # The floor under the durable CPU goal: what one write + fdatasync costs the process that
    # makes it (the kernel's share of a server's CPU needs perf: bench/kernel_share.sh; /proc's
    # user/system split is sampled by the tick and misattributes processes that sleep often).
    rel_all = Figure(rel, fn=cpu_ms)
    cpu_call = Figure(probe, "cpu_ms_per_call")
    if cpu_call.median is not None:
        lines.append("| the fdatasync probe's own CPU per 4 KiB write + fdatasync (ms) | {} | {} (relay's whole per move) | {} | – | – | {} | {} |".format(
            cpu_call.cell("{:,.3f}"), rel_all.cell("{:,.3f}"),
            "{:.2f}×".format(cpu_call.median / rel_all.median) if rel_all.median else "–",
            cpu_call.runs("{:,.3f}"), "; ".join(cpu_call.notes)))
    med = Figure(probe, "median_ms")
    mx = Figure(probe, "max_ms")
    fs_kind = next((r.get("fs") for r in probe if r.get("fs")), "?")
    count = next((r.get("count") for r in probe if r.get("count")), "?")
    lines.append("| fdatasync of 4 KiB in the data directory's folder ({}; {} calls per run): median / p99 / max (ms) | {} / {} / {} | – | – | – | – | median {}; p99 {}; max {} | {} |".format(
        fs_kind, count, med.cell(), fs.cell(), mx.cell(), med.runs(), fs.runs(), mx.runs(),
        "; ".join(fs.notes)))
    return lines


def store_table(rows):
    """SQLite vs PostgreSQL: bench/run's step postgres (records store-latency, store-commit and
    max with targets store-sqlite / store-postgres)."""
    lat = {s: pick(rows, "store-latency", s) for s in ("sqlite", "postgres")}
    com = {s: pick(rows, "store-commit", s) for s in ("sqlite", "postgres")}
    mx = {s: pick(rows, "max", "store-" + s) for s in ("sqlite", "postgres")}
    if not any(lat.values()) and not any(mx.values()):
        return []
    cluster = next((r for r in rows if r.get("bench") == "pg-cluster"), {})
    lines = ["", "### SQLite vs PostgreSQL", "",
             "Our server (`--threads 1`, on SERVER_CPU) on each durable store; PostgreSQL "
             f"pinned to CPU {cluster.get('pg_cpu', '?')} ({cluster.get('settings', '')}).", "",
             "| figure | SQLite (`--sync full`) | PostgreSQL | PostgreSQL / SQLite | runs: SQLite; PostgreSQL | notes |",
             "|---|---|---|---|---|---|"]

    def row(name, a, b, fmt="{:,.2f}"):
        r = ratio(b, a)
        notes = "; ".join([f"SQLite {n}" for n in a.notes] + [f"PostgreSQL {n}" for n in b.notes])
        lines.append("| {} | {} | {} | {} | {}; {} | {} |".format(
            name, a.cell(fmt) if a.rows else "– (inside the server)", b.cell(fmt), f"{r:.2f}×" if r is not None else "–",
            a.runs(fmt), b.runs(fmt), notes))

    def both(*keys, **kw):
        return [Figure(lat[s], *keys, **kw) for s in ("sqlite", "postgres")]

    row("p99 sent → opponent at 2,000 moves/s, WebSocket (ms)", *both("latency_ms", "opponent", "p99"))
    row("p50 sent → opponent at 2,000 moves/s (ms)", *both("latency_ms", "opponent", "p50"))
    row("p99.9 sent → opponent at 2,000 moves/s (ms)", *both("latency_ms", "opponent", "p999"))
    row("max sent → opponent at 2,000 moves/s (ms)", *both("latency_ms", "opponent", "max"))
    row("p99 sent → own ack at 2,000 moves/s (ms)", *both("latency_ms", "ack", "p99"))
    row("server CPU at 2,000 moves/s (% of one core)", *both("server", "cpu_pct"), fmt="{:,.1f}")
    srv = both(fn=lambda r: per_move_ms(dig(r, "server", "cpu_s"), r, dig(r, "options", "duration_s")))
    row("server CPU per move (ms)", *srv, fmt="{:,.3f}")
    pg_pct = Figure(lat["postgres"], "sample", "pg_cpu_pct")
    pg_ms = Figure(lat["postgres"], fn=lambda r: per_move_ms(
        dig(r, "sample", "pg_cpu_s"), r, dig(r, "sample", "wall_s")))
    none = Figure([])  # SQLite runs inside the server: its CPU is the server's
    row("PostgreSQL's processes' CPU at 2,000 moves/s (% of one core, /proc)", none, pg_pct, "{:,.1f}")
    row("PostgreSQL's processes' CPU per move (ms)", none, pg_ms, "{:,.3f}")

    def total(r):
        a = per_move_ms(dig(r, "server", "cpu_s"), r, dig(r, "options", "duration_s"))
        b = per_move_ms(dig(r, "sample", "pg_cpu_s"), r, dig(r, "sample", "wall_s"))
        return None if a is None or b is None else a + b
    row("server + PostgreSQL CPU per move (ms)", srv[0], Figure(lat["postgres"], fn=total), "{:,.3f}")
    row("generator CPU at 2,000 moves/s (% of one core; it shares its core with PostgreSQL)",
        *both("loadgen_cpu_pct"), fmt="{:,.1f}")
    def window_q(q):
        return both(fn=lambda r: (lambda v: None if v is None else 1000 * v)(
            bucket_quantile(dig(r, "sample", "commit_buckets"), q)))
    row("commit latency median, queued → durable, in the window (ms; /metrics, interpolated)",
        *window_q(0.5))
    row("commit latency p99 in the window (ms; /metrics buckets, interpolated)", *window_q(0.99))
    row("commit latency median (ms; server's exit line)",
        *[Figure(com[s], "median_ms") for s in ("sqlite", "postgres")])
    row("commit latency p99 (ms; server's exit line)",
        *[Figure(com[s], "p99_ms") for s in ("sqlite", "postgres")])
    for le, name in (("0.0025", "2.5"), ("0.005", "5"), ("0.01", "10")):
        row(f"operations committed in over {name} ms, in the window (%; /metrics)",
            *both(fn=lambda r, le=le: (lambda v: None if v is None else 100 * v)(
                share_over(dig(r, "sample", "commit_buckets"), le))), fmt="{:,.2f}")
    row("highest sustained validated + persisted moves/s (p99 < 50 ms, nothing lost)",
        *[Figure(mx[s], "max_rate") for s in ("sqlite", "postgres")], fmt="{:,.0f}")
    ops = [c.get("window_ops") for s in ("sqlite", "postgres") for c in com[s] if c.get("window_ops")]
    if ops:
        lines += ["", f"The exit line's median and p99 cover the last {max(ops):,} operations of "
                  "each server: the end of the measured window and the writes of the "
                  "connections' close after it. The /metrics figures cover the window less its "
                  "first and last second (buckets 0.25, 0.5, 1, 2.5, 5, 10, 25, 50 ms: the "
                  "quantile is interpolated within one)."]
    return lines


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

    main_benches = {"latency", "latency-tcp", "idle", "spectators"}
    main_targets = {"ours", "relay", "ours-store-off", "ours-sync-off"}
    if not any(r.get("bench") in main_benches or
               (r.get("bench") == "max" and r.get("target") in main_targets) for r in rows):
        lines = []  # only the step postgres ran
    lines += issue21_table(rows)
    lines += store_table(rows)
    text = "\n".join(lines).lstrip("\n") + "\n"
    with open(sys.argv[2], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
