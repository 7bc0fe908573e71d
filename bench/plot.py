#!/usr/bin/env python3
"""Draw the handouts' measured figures from benchmark CSVs (labbench --csv).

    python3 bench/plot.py [--date YYYY-MM-DD] [CSV ...]
                                         default: labs/<lab>/results/<lab>-h100.csv of every lab

For each lab found it writes, into the lab's labs/<lab>/img/:
  <lab>-ladder.svg   GB/s of every step at the largest n (best block size), with the copy bandwidth
  <lab>-sizes.svg    GB/s against n for every step (best block size at each n)
  <lab>-blocks.svg   GB/s against the block size at the largest n (when several were measured)
Python's standard library aggregates; gnuplot (Debian: gnuplot-nox) draws. Each figure names the
GPU and the date from the CSV, so a figure never loses where its numbers came from. A CSV may
hold several runs of one GPU (each row names its device and date): a figure draws one run, by
default the one with the most rows (a lab's full benchmark, not a later rerun of a few sizes;
the latest of equals), or the one --date names. The rows of one lab must come from one GPU:
plot each GPU's CSV on its own.
"""
import csv
import glob
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def img_dir(lab):
    return os.path.join(ROOT, "labs", lab, "img")


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                for key in ("n", "block_size"):
                    row[key] = int(row[key])
                for key in ("ms", "gelem_per_s", "gb_per_s", "copy_gb_per_s", "yardstick_ms"):
                    row[key] = float(row[key])
                rows.append(row)
    return rows


def one_run(rows, date=None):
    """The rows of one run (one date): `date`, or the date with the most rows, the latest of
    equals (ISO dates sort as text)."""
    counts = defaultdict(int)
    for r in rows:
        counts[r["date"]] += 1
    if date is None:
        date = max(counts, key=lambda d: (counts[d], d))
    return [r for r in rows if r["date"] == date], date, len(counts)


def runs_of(rows):
    """The device and the date of the rows, for a figure's title."""
    return f"{rows[0]['device']}, {' and '.join(sorted({r['date'] for r in rows}))}"


def step_order(step):
    # "3-sequential" sorts by its number; named yardsticks ("cub", "copy") go last.
    head = step.split("-", 1)[0]
    return (0, int(head), step) if head.isdigit() else (1, 0, step)


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def quote(text):
    return '"' + text.replace('"', "'") + '"'


def split_keep_ratios(lab, rows):
    """Compaction rows name their keep ratio after the step ("5-single-pass@75"). Draw the usual
    figures from the rows at 75% kept (the performance target's ratio), under the plain step
    name, plus <lab>-ratios.svg: throughput against the keep ratio at the largest n."""
    if not any("@" in r["step"] for r in rows):
        return rows
    by_ratio = defaultdict(dict)
    largest = max(r["n"] for r in rows)
    kept = []
    for r in rows:
        step, _, ratio = r["step"].partition("@")
        if ratio and r["n"] == largest and r["block_size"] == 0 and r["gb_per_s"] > 0:
            by_ratio[step][int(ratio)] = r["gb_per_s"]
        if not ratio or ratio == "75":
            kept.append(dict(r, step=step))
    steps = sorted(by_ratio, key=step_order)
    blocks_of_data, plots = [], []
    for s in steps:
        if not s.startswith("1"):  # the CPU rows would flatten the plot
            blocks_of_data.append("\n".join(f"{k} {g:.3f}" for k, g in sorted(by_ratio[s].items())) + "\ne")
            plots.append(f'"-" using 1:2 with linespoints title {quote(s)}')
    gnuplot(f"""
set terminal svg size 900,520 dynamic noenhanced font "sans,12"
set output "{img_dir(lab)}/{lab}-ratios.svg"
set title "{lab}: throughput against the keep ratio at n = {largest} ({runs_of(rows)})"
set xlabel "elements kept (%)"
set ylabel "GB/s (4n + 4 kept bytes; 8n for splits)"
set key outside right
set grid
plot {", ".join(plots)}
""" + "\n".join(blocks_of_data) + "\n")
    return kept


# Sorting is judged in keys per second; the primitives in bytes per second.
RATE = {"radix_sort": ("gelem_per_s", "G keys/s"), "bitonic_sort": ("gelem_per_s", "G keys/s")}


def plot_lab(lab, rows):
    rows = split_keep_ratios(lab, rows)
    if all(r["gb_per_s"] == 0 for r in rows):
        plot_times(lab, rows)  # no bytes counted (the ODE lab): time is the measure
        return
    rate, unit = RATE.get(lab, ("gb_per_s", "GB/s"))
    for r in rows:
        r["rate"] = r[rate]
    title_tail = runs_of(rows)
    steps = sorted({r["step"] for r in rows}, key=step_order)
    copy = max((r["copy_gb_per_s"] for r in rows), default=0.0) if rate == "gb_per_s" else 0.0
    largest = max(r["n"] for r in rows)

    # Ladder: best GB/s per step at the largest n.
    best = {}
    for r in rows:
        if r["n"] == largest and r["rate"] > best.get(r["step"], 0.0):
            best[r["step"]] = r["rate"]
    data = "\n".join(f"{quote(s)} {best[s]:.3f}" for s in steps if s in best)
    gnuplot(f"""
set terminal svg size 900,480 dynamic noenhanced font "sans,12"
set output "{img_dir(lab)}/{lab}-ladder.svg"
set title "{lab}: every step at n = {largest} ({title_tail})"
set ylabel "{unit}"
set style fill solid 0.8
set boxwidth 0.7
set xtics rotate by -30
set grid ytics
set yrange [0:*]
{"set arrow from graph 0, first %f to graph 1, first %f nohead dt 2 lw 2 lc rgb 'red'" % (copy, copy) if copy else ""}
{"set label 'device-to-device copy' at graph 0.01, first %f offset 0,0.7 tc rgb 'red'" % copy if copy else ""}
plot "-" using 0:2:xtic(1) with boxes notitle lc rgb "#3a6ea5"
{data}
e
""")

    # Size sweep: one line per step, best block size at each n.
    per_step = defaultdict(dict)
    for r in rows:
        cur = per_step[r["step"]].get(r["n"], 0.0)
        per_step[r["step"]][r["n"]] = max(cur, r["rate"])
    if len({r["n"] for r in rows}) > 1:
        blocks_of_data = []
        plots = []
        for s in steps:
            points = sorted(per_step[s].items())
            blocks_of_data.append("\n".join(f"{n} {g:.3f}" for n, g in points if g > 0) + "\ne")
            plots.append(f'"-" using 1:2 with linespoints title {quote(s)}')
        gnuplot(f"""
set terminal svg size 900,520 dynamic noenhanced font "sans,12"
set output "{img_dir(lab)}/{lab}-sizes.svg"
set title "{lab}: throughput against n ({title_tail})"
set logscale x 2
set format x "2^{{%L}}"
set xlabel "n (elements)"
set ylabel "{unit}"
set key left top
set grid
plot {", ".join(plots)}
""" + "\n".join(blocks_of_data) + "\n")

    # Block-size sweep at the largest n.
    by_block = defaultdict(dict)
    for r in rows:
        if r["n"] == largest and r["block_size"] > 0:
            by_block[r["step"]][r["block_size"]] = r["rate"]
    if len({b for d in by_block.values() for b in d}) > 1:
        blocks_of_data, plots = [], []
        for s in steps:
            if len(by_block.get(s, {})) > 1:
                points = sorted(by_block[s].items())
                blocks_of_data.append("\n".join(f"{b} {g:.3f}" for b, g in points) + "\ne")
                plots.append(f'"-" using 1:2 with linespoints title {quote(s)}')
        gnuplot(f"""
set terminal svg size 900,520 dynamic noenhanced font "sans,12"
set output "{img_dir(lab)}/{lab}-blocks.svg"
set title "{lab}: block size at n = {largest} ({title_tail})"
set logscale x 2
set xlabel "threads per block"
set ylabel "{unit}"
set key outside right
set grid
plot {", ".join(plots)}
""" + "\n".join(blocks_of_data) + "\n")


def plot_times(lab, rows):
    """Bars of the median time per step (log scale) for labs whose work is not bytes."""
    best = {}
    for r in rows:
        if r["ms"] > 0 and (r["step"] not in best or r["ms"] < best[r["step"]]):
            best[r["step"]] = r["ms"]
    steps = sorted(best, key=step_order)
    data = "\n".join(f"{quote(s)} {best[s]:.6f}" for s in steps)
    gnuplot(f"""
set terminal svg size 900,480 dynamic noenhanced font "sans,12"
set output "{img_dir(lab)}/{lab}-ladder.svg"
set title "{lab}: time per step ({runs_of(rows)})"
set ylabel "ms (log scale, lower is better)"
set logscale y
set style fill solid 0.8
set boxwidth 0.7
set xtics rotate by -30
set grid ytics
plot "-" using 0:2:xtic(1) with boxes notitle lc rgb "#3a6ea5"
{data}
e
""")


def main(argv):
    args = argv[1:]
    date = None
    if args[:1] == ["--date"] and len(args) >= 2:
        date, args = args[1], args[2:]
    paths = args or sorted(glob.glob(os.path.join(ROOT, "labs", "*", "results", "*-h100.csv")))
    if not paths:
        print("plot.py: no CSV given and no labs/<lab>/results/<lab>-h100.csv", file=sys.stderr)
        return 1
    by_lab = defaultdict(list)
    for r in read_rows(paths):
        by_lab[r["lab"]].append(r)
    for lab, rows in sorted(by_lab.items()):
        devices = sorted({r["device"] for r in rows})
        if len(devices) > 1:
            print(f"plot.py: {lab}: rows of {' and '.join(devices)}: plot each GPU's CSV on its own",
                  file=sys.stderr)
            return 1
        picked, run, runs = one_run(rows, date)
        if not picked:
            print(f"plot.py: {lab}: no rows of {run}", file=sys.stderr)
            return 1
        if runs > 1:
            print(f"plot.py: {lab}: drawing the run of {run} ({len(picked)} of {len(rows)} rows; "
                  "--date picks another)")
        rows = picked
        plot_lab(lab, rows)
        print(f"plot.py: wrote labs/{lab}/img/{lab}-*.svg from {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
