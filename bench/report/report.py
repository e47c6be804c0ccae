#!/usr/bin/env python3
"""bench/report/report.py: turns fl_bench's Google Benchmark JSON into a
side-by-side report.

    report.py RESULTS_JSON OUT_DIR [--time cpu|real] [--sections a,b,...]
              [--update-doc docs/performance.md] [--merge FILE_OR_DIR ...]
              [--targets bench/report/targets.toml]

Writes OUT_DIR/report.md (one table per section: each case's libraries side
by side, ratio to the section's baseline, spread) and OUT_DIR/<section>.png
(bar chart of the ratios), and prints the tables to stdout. With
--update-doc FILE it also replaces the text between the lines
"<!-- fl-bench:begin -->" and "<!-- fl-bench:end -->" in FILE by the same
header and tables (only the --sections given, default all), so the
performance notes are regenerated from a run instead of pasted by hand.

Names are section/case/library: the section is the first component, the
library the last, the case everything in between. Google Benchmark's own
suffixes ("/min_time:0.050", "/repeats:3", "/threads:1", ...) are dropped.

Numbers: with repetitions, Google Benchmark writes mean/median/stddev/cv
aggregates; the table shows the median time, the ratio of medians, and the
largest coefficient of variation (stddev/mean) among the libraries of the
row. Without aggregates (one repetition) the single run is used and the
spread reads "-". Times are CPU time by default: the benchmarks are
single-threaded, and on a shared machine CPU time leaves out the time the
process waited for a core (--time real to use wall time instead).

--merge adds the benchmarks of other fl_bench JSON files (a directory means
every *.json in it) to RESULTS_JSON and rewrites it, so one results.json holds
the whole run: `make bench` runs the alloc/ section in processes of their own,
one per row and allocator (bench/alloc_runs.sh), and merges them here. A
benchmark of a merged file replaces one of the same name already present, so
merging twice changes nothing. The allocator each merged file ran on (its
"alloc_allocator" context) is listed in the report's header.

Targets: each section's table is followed by the checks of the rules of
bench/report/targets.toml (or --targets FILE) that apply to its cases, one
line per case: met, tie (a miss within the run's spread) or MISSED. A rule
that checks no row of a section present in the results is named in a warning
on stderr.

Missing data: a row whose error message starts with "no data:" (its input
data set was not found; bench/json_data.hpp) is shown as `skipped (no data:
set VAR)`, not as `error`, and the header lists every data set the run
describes in its context ("data_set/<name>" keys) with whether it was found.

Counters: a section whose benchmarks report one of COUNTERS (e.g. alloc/'s
peak_rss_mb) gets a second table of that counter's medians and ratios.

Needs only the Python standard library (3.11 or later, for tomllib); charts need matplotlib, and without
it the script prints a note and writes the tables only.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys

# The library each section is compared against. A section not listed uses
# "std". When a case has no run of its baseline, its first library is used.
BASELINE = {
    "c": "c",
    "io": "raw",
    "json": "nlohmann",
}
DEFAULT_BASELINE = "std"

# User counters shown in a table of their own, next to the times.
COUNTERS = ["peak_rss_mb", "idle_rss_mb", "trimmed_rss_mb"]

# Said under a section's heading.
SECTION_NOTES = {
    "alloc": "Times are process CPU time (all threads) per round; `<case>/<n>` runs n threads. "
             "The reference machine gives about 1.1 cores of parallel throughput, so 2 and 4 threads "
             "show what contention costs, not speed-up. Each repetition ran in a process of its own, "
             "every library's in turn (bench/alloc_runs.sh), and a row's time is the median over them; "
             "std_mimalloc/std_jemalloc/std_tcmalloc are std::string with that malloc preloaded.",
    "paper": "`*_2threads` rows run the test in two threads at once (time per operation of one thread); "
             "the reference machine gives about 1.1 cores of parallel throughput, so two threads show "
             "contention, not speed-up.",
}

# The targets: bench/report/targets.toml (its header describes the rules);
# --targets names another file.
TARGETS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.toml")


class Rule:
    """One target of targets.toml: `library`'s value over the best of `peers`
    must stay within `limit` for every case of `section` that `cases` matches."""

    # type -> (metric is a counter, strict comparison, limit required)
    TYPES = {
        "at_most": (False, False, True),
        "faster_than": (False, True, False),
        "counter_at_most": (True, False, True),
    }

    def __init__(self, d, where):
        def need(key, kind):
            if key not in d:
                raise ValueError(f"{where}: missing key '{key}'")
            if not isinstance(d[key], kind):
                raise ValueError(f"{where}: '{key}' must be {kind.__name__}")
            return d[key]

        self.name = need("name", str)
        where = f"{where} ({self.name})"
        self.type = need("type", str)
        if self.type not in Rule.TYPES:
            raise ValueError(f"{where}: unknown type '{self.type}' (one of {', '.join(Rule.TYPES)})")
        counter, self.strict, limit_required = Rule.TYPES[self.type]
        self.section = need("section", str)
        try:
            self.cases = re.compile(need("cases", str))
        except re.error as e:
            raise ValueError(f"{where}: bad 'cases' regular expression: {e}") from None
        self.library = need("library", str)
        self.peers = need("peers", list)
        if not self.peers or not all(isinstance(p, str) for p in self.peers):
            raise ValueError(f"{where}: 'peers' must be a non-empty list of names")
        self.metric = need("counter", str) if counter else "time"
        if "limit" in d or limit_required:
            self.limit = Rule.parse_limit(d.get("limit"), where)
        else:
            self.limit = 1.0
        known = {"name", "type", "section", "cases", "library", "peers", "limit", "counter"}
        extra = sorted(set(d) - known)
        if extra:
            raise ValueError(f"{where}: unknown key(s) {', '.join(extra)}")
        self.matched = False

    @staticmethod
    def parse_limit(v, where):
        """A positive number, or a string "a/b" read as a / b."""
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            value = float(v)
        elif isinstance(v, str) and v.count("/") == 1:
            num, den = v.split("/")
            try:
                value = float(num) / float(den)
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"{where}: bad 'limit' {v!r}") from None
        else:
            raise ValueError(f"{where}: 'limit' must be a number or a string \"a/b\"")
        if not value > 0:
            raise ValueError(f"{where}: 'limit' must be positive")
        return value


def load_targets(path):
    """The rules of a targets file, in file order; exits with a message when
    the file cannot be read or a rule is malformed."""
    try:
        import tomllib
    except ImportError:
        sys.exit("report.py: reading the targets needs Python 3.11 or later (tomllib)")
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
        rules = [Rule(d, f"{path}: rule {i + 1}") for i, d in enumerate(data.get("rule", []))]
    except (OSError, tomllib.TOMLDecodeError, ValueError) as e:
        sys.exit(f"report.py: {e}")
    names = [r.name for r in rules]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        sys.exit(f"report.py: {path}: rule names used twice: {', '.join(dup)}")
    return rules


# Google Benchmark appends these to a name when a benchmark sets them.
_GB_SUFFIX = re.compile(
    r"^(min_time|min_warmup_time|iterations|repeats|threads|real_time|manual_time|process_time)(:.*)?$")

_TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def row_time_key(name, time_key):
    """The clock a row is reported in: wall time for a benchmark registered
    with UseRealTime() alone (its name ends in /real_time: rows that wait for
    the disk, whose flushes are the point and cost no CPU time), otherwise
    `time_key` (CPU time by default; /process_time rows count every thread).
    A row with UseManualTime() (/manual_time: it times one call inside an
    iteration that also does untimed work, json/scale/) has its own time in
    the real_time field; its cpu_time covers the untimed work too."""
    parts = name.split("/")
    if "manual_time" in parts:
        return "real_time"
    return "real_time" if "real_time" in parts and "process_time" not in parts else time_key


def split_name(name):
    """(section, case, library) of a benchmark name, or None."""
    parts = name.split("/")
    while parts and _GB_SUFFIX.match(parts[-1]):
        parts.pop()
    if len(parts) < 3:
        return None
    return parts[0], "/".join(parts[1:-1]), parts[-1]


class Stat:
    """One library's numbers for one case."""

    def __init__(self):
        self.times = []        # ns, one per repetition (iteration runs)
        self.agg = {}          # aggregate name -> ns (or fraction for cv)
        self.bps = []          # bytes_per_second per repetition
        self.bps_agg = {}      # aggregate name -> bytes_per_second
        self.counters = {}     # COUNTERS name -> values, one per repetition
        self.counters_agg = {} # COUNTERS name -> {aggregate name -> value}
        self.error = None

    def counter(self, name):
        """Median of a counter over repetitions, or None."""
        v = self.counters_agg.get(name, {}).get("median")
        if v is None and self.counters.get(name):
            v = statistics.median(self.counters[name])
        return v

    def value(self, metric):
        return self.median() if metric == "time" else self.counter(metric)

    def median(self):
        if "median" in self.agg:
            return self.agg["median"]
        if self.times:
            return statistics.median(self.times)
        return None

    def cv(self):
        """Coefficient of variation (fraction), or None with one repetition."""
        if "cv" in self.agg:
            return self.agg["cv"]
        if "stddev" in self.agg and self.agg.get("mean"):
            return self.agg["stddev"] / self.agg["mean"]
        if len(self.times) > 1:
            m = statistics.mean(self.times)
            return statistics.stdev(self.times) / m if m else None
        return None

    def gbps(self):
        v = self.bps_agg.get("median")
        if v is None and self.bps:
            v = statistics.median(self.bps)
        return v / 1e9 if v else None


def load(path, time_key):
    with open(path) as f:
        data = json.load(f)
    ctx = data.get("context", {})
    # sections -> cases -> libs -> Stat, all in first-seen (registration) order
    sections = {}
    for b in data.get("benchmarks", []):
        name = b.get("run_name") or b.get("name", "")
        parsed = split_name(name)
        if parsed is None:
            continue
        section, case, lib = parsed
        st = sections.setdefault(section, {}).setdefault(case, {}).setdefault(lib, Stat())
        if b.get("error_occurred"):
            st.error = b.get("error_message", "error")
            continue
        scale = _TO_NS.get(b.get("time_unit", "ns"), 1.0)
        t = b.get(row_time_key(name, time_key))
        if t is None:
            continue
        if b.get("run_type") == "aggregate":
            agg = b.get("aggregate_name", "")
            if agg == "cv" or b.get("aggregate_unit") == "percentage":
                st.agg["cv"] = t  # a fraction, not a time
            else:
                st.agg[agg] = t * scale
                if "bytes_per_second" in b:
                    st.bps_agg[agg] = b["bytes_per_second"]
                for c in COUNTERS:
                    if c in b:
                        st.counters_agg.setdefault(c, {})[agg] = b[c]
        else:
            st.times.append(t * scale)
            if "bytes_per_second" in b:
                st.bps.append(b["bytes_per_second"])
            for c in COUNTERS:
                if c in b:
                    st.counters.setdefault(c, []).append(b[c])
    return ctx, sections


def merge_files(path, extra):
    """Adds the benchmarks of the files (or directories of *.json) in `extra`
    to the JSON file `path` and rewrites it; returns the merged files'
    allocator descriptions (their "alloc_allocator" context), in order."""
    files = []
    for e in extra:
        if os.path.isdir(e):
            names = [n for n in os.listdir(e) if n.endswith(".json")]
            # alloc_runs.sh numbers its files in run order: 1.json, 2.json, ...
            names.sort(key=lambda n: (int(n[:-5]) if n[:-5].isdigit() else math.inf, n))
            files += [os.path.join(e, n) for n in names]
        else:
            files.append(e)
    with open(path) as f:
        data = json.load(f)
    added, allocators = [], []
    for fp in files:
        with open(fp) as f:
            other = json.load(f)
        added += other.get("benchmarks", [])
        a = other.get("context", {}).get("alloc_allocator")
        if a and a not in allocators:
            allocators.append(a)
    names = {b.get("run_name") or b.get("name") for b in added}
    kept = [b for b in data.get("benchmarks", []) if (b.get("run_name") or b.get("name")) not in names]
    data["benchmarks"] = kept + added
    if allocators:
        data.setdefault("context", {})["alloc_allocators"] = allocators
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
    return allocators


def baseline_of(section, libs):
    want = BASELINE.get(section, DEFAULT_BASELINE)
    ok = [l for l in libs if libs[l].median() is not None]
    if want in ok:
        return want
    return ok[0] if ok else None


def fmt_time(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            v = ns / scale
            break
    else:
        unit, v = "ns", ns
    return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


# A row that could not run for want of its input data ends with an error
# message starting with this (bench/json_data.hpp); it is a skip, not a failure.
NO_DATA = "no data:"


def error_cell(message):
    """The table cell of a row that ended with an error: `skipped (no data: set
    VAR)` when its input data set was not found, else `error`."""
    if not message.startswith(NO_DATA):
        return "error"
    m = re.match(r"no data: set (\S+)", message)
    return f"skipped (no data: set {m.group(1)})" if m else f"skipped ({message})"


def data_set_line(ctx):
    """The header line listing each input data set (context keys
    "data_set/<name>") and whether it was found, or None when none is named."""
    found = [(k[len("data_set/"):], v) for k, v in sorted(ctx.items()) if k.startswith("data_set/")]
    if not found:
        return None
    return "- Data sets: " + "; ".join(f"{name}: {what}" for name, what in found)


def section_libs(cases):
    """Libraries of a section in first-seen order."""
    libs = []
    for per_lib in cases.values():
        for lib in per_lib:
            if lib not in libs:
                libs.append(lib)
    return libs


def section_table(section, cases):
    """Markdown lines of one section's table, plus the ratio rows for charts:
    [(case, {lib: ratio})]."""
    libs = section_libs(cases)
    want = BASELINE.get(section, DEFAULT_BASELINE)
    order = ([want] if want in libs else []) + [l for l in libs if l != want]
    others = [l for l in order if l != want]
    head = ["case"] + order + [f"{l}/{want}" for l in others] + ["spread (max cv)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratio_rows = []
    for case, per_lib in cases.items():
        base = baseline_of(section, per_lib)
        base_t = per_lib[base].median() if base else None
        cells, ratios, worst = [case], {}, None
        for lib in order:
            st = per_lib.get(lib)
            if st is None:
                cells.append("")
                continue
            if st.error:
                cells.append(error_cell(st.error))
                continue
            t = st.median()
            cell = fmt_time(t)
            g = st.gbps()
            if g is not None:
                cell += f" ({g:.2f} GB/s)"
            cells.append(cell)
            cv = st.cv()
            if cv is not None and (worst is None or cv > worst[0]):
                worst = (cv, lib)
        for lib in order:
            st = per_lib.get(lib)
            t = st.median() if st is not None and not st.error else None
            r = t / base_t if (t is not None and base_t) else None
            if r is not None:
                ratios[lib] = r
            if lib == want:
                continue
            # A case without the section's baseline is compared with its
            # first library instead, and says so.
            mark = f" (vs {base})" if base != want and r is not None else ""
            cells.append(fmt_ratio(r) + mark if r is not None else "")
        cells.append("-" if worst is None else f"{worst[0] * 100:.1f}% ({worst[1]})")
        lines.append("| " + " | ".join(cells) + " |")
        ratio_rows.append((case, base, ratios))
    return lines, ratio_rows


def counter_table(section, cases, counter):
    """Markdown lines of a table of one counter's medians with ratios to the
    baseline, or [] when no library of the section reports it."""
    libs = [l for l in section_libs(cases)
            if any(per_lib.get(l) and per_lib[l].counter(counter) is not None for per_lib in cases.values())]
    if not libs:
        return []
    want = BASELINE.get(section, DEFAULT_BASELINE)
    order = ([want] if want in libs else []) + [l for l in libs if l != want]
    others = [l for l in order if l != want]
    head = ["case"] + order + [f"{l}/{want}" for l in others]
    lines = [f"{counter} (median):", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, per_lib in cases.items():
        vals = {l: per_lib[l].counter(counter) for l in order if l in per_lib}
        if all(v is None for v in vals.values()):
            continue  # a case that does not report this counter (alloc/'s idle_rss_mb)
        base = vals.get(want)
        cells = [case] + [("-" if vals.get(l) is None else f"{vals[l]:.1f}") for l in order]
        cells += [fmt_ratio(vals[l] / base) if vals.get(l) is not None and base else "" for l in others]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def target_lines(section, cases, targets):
    """Markdown bullet lines checking this section's targets, one per case.
    Marks each rule that applied to at least one case as matched."""
    rules = [r for r in targets if r.section == section]
    out = []
    for case, per_lib in cases.items():
        checks = []
        for rule in rules:
            lib, peers, limit, strict, metric = rule.library, rule.peers, rule.limit, rule.strict, rule.metric
            if not rule.cases.fullmatch(case):
                continue
            mine = per_lib.get(lib)
            times = [(per_lib[p].value(metric), p) for p in peers if p in per_lib and per_lib[p].value(metric)]
            if mine is None or mine.value(metric) is None or not times:
                continue
            rule.matched = True
            best, who = min(times)
            r = mine.value(metric) / best
            # A miss smaller than the run's own spread is reported as a tie,
            # not as a win: it says the run cannot tell.
            noise = max(mine.cv() or 0.0, per_lib[who].cv() or 0.0)
            ok = r < limit if strict else r <= limit
            verdict = "met" if ok else ("tie" if r <= limit * (1 + noise) else "missed")
            against = who if len(peers) == 1 else f"best of {'/'.join(peers)} ({who})"
            what = "" if metric == "time" else f" {metric}"
            checks.append((verdict, f"{lib}{what} {r:.2f}x {against} (target {'<' if strict else '<='} {limit:.2f}x)"))
        if checks:
            verdicts = {c[0] for c in checks}
            word = "MISSED" if "missed" in verdicts else ("tie   " if "tie" in verdicts else "met   ")
            out.append(f"- {word} `{section}/{case}`: " + "; ".join(c[1] for c in checks))
    return out


def warn_unmatched(targets, sections, only):
    """Names, on stderr, every rule of a reported section that checked no
    row, and the sections with rules that the results do not have."""
    absent = []
    for rule in targets:
        if only and rule.section not in only:
            continue
        if rule.section not in sections:
            if rule.section not in absent:
                absent.append(rule.section)
        elif not rule.matched:
            print(f"report.py: warning: target '{rule.name}' matches no row of {rule.section}/ "
                  f"(cases '{rule.cases.pattern}', {rule.library} against {'/'.join(rule.peers)})",
                  file=sys.stderr)
    if absent:
        print(f"report.py: note: no results for section(s) {', '.join(absent)}: their targets were not checked",
              file=sys.stderr)


def header_lines(ctx, time_key, reps):
    date = ctx.get("date", "")
    cpu = ctx.get("cpu_model", "unknown")
    ncpu = ctx.get("num_cpus")
    mhz = ctx.get("mhz_per_cpu")
    cpu_line = cpu + (f", {ncpu} CPUs" if ncpu else "") + (f" @ {mhz} MHz" if mhz else "")
    lines = [
        f"- Date: {date}",
        f"- CPU: {cpu_line}",
        f"- Compiler: {ctx.get('compiler', 'unknown')}; flags: `{ctx.get('flags', '').strip() or 'unknown'}`",
        f"- Commit: {ctx.get('commit', 'unknown')}",
        f"- Repetitions: {reps}; min time per benchmark: {ctx.get('min_time_s', '?')} s; "
        f"seed: {ctx.get('seed', '?')}; times: {'CPU' if time_key == 'cpu_time' else 'wall'} time, median"
        + ("; rows registered with UseRealTime() alone (json/, io/, persist/sync_4k_dirty: they wait for "
           "files and flushes) "
           "in wall time" if time_key == "cpu_time" else ""),
        f"- Peers compiled in: {ctx.get('peers', 'unknown')}; missing: {ctx.get('peers_missing', 'unknown')}",
        f"- Heap: {ctx.get('malloc', 'default')}",
    ]
    data = data_set_line(ctx)
    if data:
        lines.append(data)
    if ctx.get("alloc_allocators"):
        lines.append("- alloc/ allocators (Debian packages): " + "; ".join(ctx["alloc_allocators"]))
    if ctx.get("library_build_type") == "debug":
        lines.append("- Note: the Google Benchmark library itself was built as debug (as Debian ships it); "
                     "this affects only its own bookkeeping, not the measured code")
    return lines


def repetitions(path):
    with open(path) as f:
        data = json.load(f)
    reps = 1
    for b in data.get("benchmarks", []):
        reps = max(reps, int(b.get("repetitions", 1) or 1))
    return reps


def render(ctx, sections, time_key, reps, targets, only=None):
    md = ["# fl benchmark report", ""] + header_lines(ctx, time_key, reps) + [""]
    md += ["Each row is one case; times are the median over repetitions; `lib/base` is that library's "
           "time divided by the baseline's (below 1.00x is faster than the baseline); spread is the "
           "largest coefficient of variation among the row's libraries.", ""]
    charts = {}
    for section, cases in sections.items():
        if only and section not in only:
            continue
        want = BASELINE.get(section, DEFAULT_BASELINE)
        md += [f"## {section}/ (baseline: {want})", ""]
        if section in SECTION_NOTES:
            md += [SECTION_NOTES[section], ""]
        lines, rows = section_table(section, cases)
        md += lines + [""]
        for counter in COUNTERS:
            md += counter_table(section, cases, counter)
        checks = target_lines(section, cases, targets)
        if checks:
            md += ["Targets:", ""] + checks + [""]
        charts[section] = rows
    return md, charts


def chart(section, rows, out_path, plt):
    libs = []
    for _, base, ratios in rows:
        for lib in ratios:
            if lib != base and lib not in libs:
                libs.append(lib)
    if not libs:
        return False
    cases = [c for c, _, _ in rows]
    values = [r for _, _, ratios in rows for r in ratios.values() if r and r > 0]
    log = bool(values) and max(values) / min(values) > 20
    n = len(cases)
    bar_h = 0.8 / len(libs)
    fig_h = max(2.5, 0.3 * n * max(1, len(libs)) * 0.9 + 1.2)
    fig, ax = plt.subplots(figsize=(9, fig_h))
    colors = plt.rcParams["axes.prop_cycle"].by_key().get("color", [None])
    for i, lib in enumerate(libs):
        ys = [j + (i - (len(libs) - 1) / 2) * bar_h for j in range(n)]
        xs = [rows[j][2].get(lib, float("nan")) for j in range(n)]
        ax.barh(ys, xs, height=bar_h, label=lib, color=colors[i % len(colors)])
        for y, x in zip(ys, xs):
            if x == x:  # not NaN
                ax.text(x, y, f" {x:.2f}", va="center", fontsize=7)
    ax.axvline(1.0, color="black", linewidth=1, linestyle="--")
    ax.set_yticks(range(n))
    ax.set_yticklabels(cases, fontsize=8)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
        lo, hi = min(values), max(values)
        ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
                 if lo / 2 <= t <= hi * 2]
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks])
        ax.minorticks_off()
    base = BASELINE.get(section, DEFAULT_BASELINE)
    ax.set_xlabel(f"time / {base} time (lower is faster; dashed line = {base})" + (", log scale" if log else ""))
    ax.set_title(f"fl_bench {section}/: ratio to {base}")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return True


def update_doc(path, text):
    begin, end = "<!-- fl-bench:begin -->", "<!-- fl-bench:end -->"
    with open(path) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        sys.exit(f"report.py: {path} has no {begin} ... {end} block")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text + "\n" + end + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("out_dir")
    ap.add_argument("--time", choices=["cpu", "real"], default="cpu")
    ap.add_argument("--sections", default="", help="comma-separated sections (default: all)")
    ap.add_argument("--update-doc", default="", help="file with an fl-bench:begin/end block to refresh")
    ap.add_argument("--merge", nargs="*", default=[], help="more result files or directories to merge in")
    ap.add_argument("--targets", default=TARGETS_FILE, help="the targets file (default: targets.toml beside report.py)")
    args = ap.parse_args()
    if args.merge:
        merge_files(args.results, args.merge)

    time_key = "cpu_time" if args.time == "cpu" else "real_time"
    ctx, sections = load(args.results, time_key)
    if not sections:
        sys.exit(f"report.py: no section/case/library benchmarks in {args.results}")
    reps = repetitions(args.results)
    only = [s for s in args.sections.split(",") if s] or None
    targets = load_targets(args.targets)
    md, charts = render(ctx, sections, time_key, reps, targets, only)
    warn_unmatched(targets, sections, only)

    os.makedirs(args.out_dir, exist_ok=True)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
        note = "matplotlib not installed: charts skipped (apt-get install python3-matplotlib)"
        print(f"report.py: {note}", file=sys.stderr)
        md += [f"_{note}_", ""]
    if plt is not None:
        written = []
        for section, rows in charts.items():
            png = os.path.join(args.out_dir, f"{section}.png")
            if chart(section, rows, png, plt):
                written.append(f"{section}.png")
        if written:
            md += ["Charts: " + ", ".join(f"[{w}]({w})" for w in written), ""]

    text = "\n".join(md)
    with open(os.path.join(args.out_dir, "report.md"), "w") as f:
        f.write(text)
    print(text)
    if args.update_doc:
        body = "\n".join(l for l in md[2:] if not l.startswith("Charts: "))
        update_doc(args.update_doc, body.strip() + "\n")


if __name__ == "__main__":
    main()
