#!/usr/bin/env python3
"""Draws the hashing lab's measured figures as SVG from its recorded benchmark, with the Python
standard library only.

    python3 labs/hashing/img/hashing_figures.py [CSV]    (default: results/hashing-h200.csv)

writes, each naming the GPU and the date of the run it draws:
    labs/hashing/img/hashing-load.svg    finds of present and of absent keys (G/s, log scale)
                                         against the load factor, steps 2, 4 and 5, beside the
                                         random-gather limit and the sorted table's binary search
    labs/hashing/img/hashing-ladder.svg  every step at load 0.5 as a share of its limit: builds
                                         of the random-CAS rate, finds of the random-gather rate
"""
import csv
import math
import os
import sys

IMG = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(IMG, "..", "results", "hashing-h200.csv")
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
STEP_COLORS = {"1-linear": "#9e9e9e", "2-packed": "#1f77b4", "3-counted": "#bcbd22",
               "4-cooperative": "#ff7f0e", "5-double": "#2ca02c", "6-count": "#9467bd"}
LOADS = ["0.50", "0.80", "0.90", "0.95"]


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(x, y, s, size=12, anchor="middle", color="#000"):
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
            f"fill='{color}' {FONT}>{esc(s)}</text>")


def line(x1, y1, x2, y2, color="#000", width=1.0, dash=""):
    d = f" stroke-dasharray='{dash}'" if dash else ""
    return (f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{color}' "
            f"stroke-width='{width}'{d}/>")


def write(name, width, height, items):
    with open(os.path.join(IMG, name), "w") as f:
        f.write(f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
                f"viewBox='0 0 {width} {height}'>\n<rect width='100%' height='100%' fill='#fff'/>\n")
        f.write("\n".join(items) + "\n</svg>\n")


def rates(path):
    """{step column: G/s}, and 'GPU, date' of the run."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {r["step"]: float(r["gelem_per_s"]) for r in rows}, "%s, %s" % (rows[0]["device"],
                                                                           rows[0]["date"])


def load_panel(items, left, top, w, h, kind, rate, title):
    """One panel: `kind` (hit or miss) G/s against the load factor, log scale 0.25-64 G/s."""
    lo, hi = math.log2(0.25), math.log2(64)
    y_of = lambda g: top + h - (math.log2(max(g, 0.25)) - lo) / (hi - lo) * h
    x_of = lambda i: left + 30 + i * (w - 60) / (len(LOADS) - 1)
    items.append(text(left + w / 2, top - 10, title, 13))
    for g in (0.25, 1, 4, 16, 64):
        items.append(line(left, y_of(g), left + w, y_of(g), "#ddd"))
        items.append(text(left - 6, y_of(g) + 4, "%g" % g, 11, "end"))
    for i, load in enumerate(LOADS):
        items.append(text(x_of(i), top + h + 16, load, 11))
    for name, color, dash in (("gather", "#d62728", "6,3"), ("sorted-find", "#7f7f7f", "2,3")):
        items.append(line(left, y_of(rate[name]), left + w, y_of(rate[name]), color, 1.5, dash))
    for step in ("2-packed", "4-cooperative", "5-double"):
        pts = [(x_of(i), y_of(rate["%s %s@%s" % (step, kind, load)])) for i, load in enumerate(LOADS)]
        items.append("<polyline fill='none' stroke='%s' stroke-width='2' points='%s'/>" % (
            STEP_COLORS[step], " ".join("%.1f,%.1f" % p for p in pts)))
        items.extend("<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>" % (x, y, STEP_COLORS[step])
                     for x, y in pts)
    items.append(f"<rect x='{left}' y='{top}' width='{w}' height='{h}' fill='none' stroke='#333'/>")
    items.append(text(left + w / 2, top + h + 34, "load factor", 12))


def draw_load(rate, run):
    items = [text(440, 22, "Finds against the load factor (2^27 slots; %s)" % run, 14)]
    load_panel(items, 70, 60, 320, 260, "hit", rate, "present keys (hits), G/s")
    load_panel(items, 480, 60, 320, 260, "miss", rate, "absent keys (misses), G/s")
    legend = [(s, STEP_COLORS[s], "") for s in ("2-packed", "4-cooperative", "5-double")] + [
        ("random 8-byte gathers", "#d62728", "6,3"), ("sorted table, binary search", "#7f7f7f", "2,3")]
    for i, (name, color, dash) in enumerate(legend):
        x = 40 + i * 165
        items.append(line(x, 392, x + 24, 392, color, 2, dash))
        items.append(text(x + 30, 396, name, 11, "start"))
    write("hashing-load.svg", 880, 410, items)


def draw_ladder(rate, run):
    steps = list(STEP_COLORS)
    left, top, w, h = 70, 50, 720, 240
    items = [text(420, 22, "Every step at load 0.5, as a share of its limit (%s)" % run, 14)]
    y_of = lambda share: top + h - share * h
    for share in (0, 0.25, 0.5, 0.75, 1.0):
        items.append(line(left, y_of(share), left + w, y_of(share), "#ddd"))
        items.append(text(left - 6, y_of(share) + 4, "%d%%" % round(100 * share), 11, "end"))
    group = w / len(steps)
    for i, step in enumerate(steps):
        shares = ((rate[step + " insert@0.50"] / rate["cas"], "#8c564b", "build / CAS"),
                  (rate[step + " hit@0.50"] / rate["gather"], "#17becf", "hit / gather"))
        for j, (share, color, _) in enumerate(shares):
            x = left + i * group + 20 + j * (group - 40) / 2
            bw = (group - 40) / 2 - 4
            items.append(f"<rect x='{x:.1f}' y='{y_of(min(share, 1)):.1f}' width='{bw:.1f}' "
                         f"height='{min(share, 1) * h:.1f}' fill='{color}'/>")
            items.append(text(x + bw / 2, y_of(min(share, 1)) - 4, "%d%%" % round(100 * share), 10))
        items.append(text(left + (i + 0.5) * group, top + h + 16, step, 12))
    items.append(f"<rect x='{left}' y='{top}' width='{w}' height='{h}' fill='none' stroke='#333'/>")
    for j, (color, name) in enumerate((("#8c564b", "build, of the random-CAS rate (%.1f G/s)" %
                                        rate["cas"]), ("#17becf", "find of present keys, of the "
                                        "random-gather rate (%.1f G/s)" % rate["gather"]))):
        items.append(f"<rect x='{70 + j * 350}' y='{top + h + 30}' width='14' height='10' fill='{color}'/>")
        items.append(text(90 + j * 350, top + h + 39, name, 11, "start"))
    write("hashing-ladder.svg", 840, 340, items)


def main():
    rate, run = rates(sys.argv[1] if len(sys.argv) > 1 else CSV)
    draw_load(rate, run)
    draw_ladder(rate, run)


if __name__ == "__main__":
    main()
