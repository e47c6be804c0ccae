#!/usr/bin/env python3
"""bench/report/compare.py: compares two fl_bench programs row by row, from
the runs of bench/compare_runs.sh.

    compare.py RUN_DIR... [--threshold 0.05] [--time cpu|real] [--rows]

Each RUN_DIR holds before/ and after/, each with fl_bench JSON files (any
depth: alloc/ rounds are directories); several RUN_DIRs are pooled. Every iteration of a row in every file of a
side is pooled; a row's figure is the median of the pool, its range the
pool's min and max. Prints a Markdown summary per section (rows compared,
geometric mean of after/before, rows over the threshold, rows flagged), the
flagged rows, the rows over the threshold that stay inside the spread, and
the rows that exist on one side only (new or gone).

A row is flagged when after/before exceeds 1 + threshold and each side's
median lies outside the other side's range (the after median above every
before iteration, the before median below every after iteration): a
slowdown larger than the spread of both runs.

--rows reads a rerun (compare_runs.sh with a FILTER, files rows.<round>.json
and alloc.<round>/): it prints each row's ratio per round (the medians of
that round's repetitions) and the ratio of the pooled medians, and calls a
row a regression when the pooled ratio exceeds 1 + threshold and after was
slower in every round, else noise.

Times are CPU time (--time real for wall time); the names are read as
report.py reads them (section/case/library, Google Benchmark's suffixes
dropped).
"""

import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import _TO_NS, split_name  # noqa: E402  (one reader of names)


def bench_regex_literal(name):
    """`name` as a literal in Google Benchmark's --benchmark_filter regex:
    re.escape's escapes of '-' (and other characters that need none) are
    refused there ("Invalid escape in regular expression"), so only the
    characters with a meaning in a regex are escaped."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", name)


def load_side(run_dirs, side, time_key):
    """{row: {round: [ns, ...]}} of every file below RUN_DIR/side; the round
    is the number after the group in the file (or directory) name, 0 if
    none."""
    rows = {}
    order = []
    paths = []
    for d in run_dirs:
        side_dir = os.path.join(d, side)
        paths += [(side_dir, p) for p in sorted(glob.glob(os.path.join(side_dir, "**", "*.json"), recursive=True))]
    for side_dir, path in paths:
        rel = os.path.relpath(path, side_dir)
        m = re.search(r"\.(\d+)(?:/|\.json$)", rel)
        rnd = int(m.group(1)) if m else 0
        try:
            with open(path) as f:
                data = json.load(f)
        except ValueError as e:  # a run still writing it, or one killed
            print(f"compare.py: {path} skipped: {e}", file=sys.stderr)
            continue
        for b in data.get("benchmarks", []):
            if b.get("run_type") == "aggregate" or b.get("error_occurred"):
                continue
            name = b.get("run_name") or b.get("name", "")
            parsed = split_name(name)
            if parsed is None or b.get(time_key) is None:
                continue
            row = "/".join(parsed)
            if row not in rows:
                rows[row] = {}
                order.append(row)
            scale = _TO_NS.get(b.get("time_unit", "ns"), 1.0)
            rows[row].setdefault(rnd, []).append(b[time_key] * scale)
    return rows, order


def pooled(rounds):
    return [t for ts in rounds.values() for t in ts]


def fmt_ns(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= div:
            return f"{ns / div:.3g} {unit}"
    return f"{ns:.3g} ns"


def compare(before, after, order, threshold):
    """(per-section summary, flagged, over-but-within-spread, new, gone)."""
    sections = {}
    flagged, within, new, gone = [], [], [], []
    for row in order:
        sec = row.split("/", 1)[0]
        s = sections.setdefault(sec, {"rows": 0, "logs": [], "over": 0, "flagged": 0, "new": 0, "gone": 0})
        if row not in before:
            s["new"] += 1
            new.append(row)
            continue
        if row not in after:
            s["gone"] += 1
            gone.append(row)
            continue
        b, a = pooled(before[row]), pooled(after[row])
        mb, ma = statistics.median(b), statistics.median(a)
        if mb <= 0 or ma <= 0:
            continue
        ratio = ma / mb
        s["rows"] += 1
        s["logs"].append(math.log(ratio))
        if ratio <= 1 + threshold:
            continue
        s["over"] += 1
        entry = (row, ratio, mb, ma, min(b), max(b), min(a), max(a), len(b), len(a))
        if ma > max(b) and mb < min(a):
            s["flagged"] += 1
            flagged.append(entry)
        else:
            within.append(entry)
    return sections, flagged, within, new, gone


def print_compare(run_dirs, threshold, time_key):
    before, order_b = load_side(run_dirs, "before", time_key)
    after, order_a = load_side(run_dirs, "after", time_key)
    order = order_a + [r for r in order_b if r not in after]
    sections, flagged, within, new, gone = compare(before, after, order, threshold)
    print(f"| section | rows | geomean after/before | over {1 + threshold:.2f}x | flagged | new | gone |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    all_logs = []
    for sec, s in sections.items():
        gm = f"{math.exp(statistics.mean(s['logs'])):.3f}" if s["logs"] else "-"
        all_logs += s["logs"]
        print(f"| {sec}/ | {s['rows']} | {gm} | {s['over']} | {s['flagged']} | {s['new']} | {s['gone']} |")
    if all_logs:
        print(f"| all | {len(all_logs)} | {math.exp(statistics.mean(all_logs)):.3f} | "
              f"{sum(s['over'] for s in sections.values())} | {len(flagged)} | {len(new)} | {len(gone)} |")

    def table(title, entries):
        print(f"\n{title} ({len(entries)}):\n")
        if not entries:
            return
        print("| row | after/before | before median (range, n) | after median (range, n) |")
        print("| --- | ---: | --- | --- |")
        for row, r, mb, ma, lb, hb, la, ha, nb, na in sorted(entries, key=lambda e: -e[1]):
            print(f"| `{row}` | {r:.3f} | {fmt_ns(mb)} ({fmt_ns(lb)}-{fmt_ns(hb)}, {nb}) | "
                  f"{fmt_ns(ma)} ({fmt_ns(la)}-{fmt_ns(ha)}, {na}) |")

    table("Flagged: slower by more than the threshold and outside both ranges", flagged)
    table("Over the threshold, inside the spread (not flagged)", within)
    print(f"\nNew rows (after only, {len(new)}): " + (", ".join(f"`{r}`" for r in new) or "none"))
    print(f"\nGone rows (before only, {len(gone)}): " + (", ".join(f"`{r}`" for r in gone) or "none"))
    print("\nFlagged filter: " + ("'^(" + "|".join(bench_regex_literal(e[0]) for e in flagged) + ")(/|$)'" if flagged else "-"))


def print_rows(run_dirs, threshold, time_key):
    before, _ = load_side(run_dirs, "before", time_key)
    after, order_a = load_side(run_dirs, "after", time_key)
    print("| row | after/before per round | pooled after/before | before median | after median | verdict |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for row in order_a:
        if row not in before:
            continue
        rounds = sorted(set(before[row]) & set(after[row]))
        per = [statistics.median(after[row][k]) / statistics.median(before[row][k]) for k in rounds]
        mb, ma = statistics.median(pooled(before[row])), statistics.median(pooled(after[row]))
        ratio = ma / mb
        real = ratio > 1 + threshold and per and all(p > 1 for p in per)
        print(f"| `{row}` | {' '.join(f'{p:.3f}' for p in per)} | {ratio:.3f} | {fmt_ns(mb)} | {fmt_ns(ma)} | "
              f"{'regression' if real else 'noise'} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dirs", nargs="+")
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--time", choices=["cpu", "real"], default="cpu")
    ap.add_argument("--rows", action="store_true", help="a rerun of a few rows: ratios per round")
    args = ap.parse_args()
    time_key = "cpu_time" if args.time == "cpu" else "real_time"
    if args.rows:
        print_rows(args.run_dirs, args.threshold, time_key)
    else:
        print_compare(args.run_dirs, args.threshold, time_key)


if __name__ == "__main__":
    main()
