#!/usr/bin/env python3
"""Draws the reduction lab's figures as SVG, with no dependencies beyond Python 3.

    python3 labs/reduction/img/reduction_figures.py                 # the three addressing figures
    python3 labs/reduction/img/reduction_figures.py --csv FILE      # also the ladder chart from labbench's CSV

Writes, into this script's folder (labs/reduction/img/):
    reduction-interleaved.svg   steps 1 and 2: interleaved addressing, who works in each round
    reduction-sequential.svg    step 3: sequential addressing
    reduction-shuffle.svg       step 8: a warp reduced with __shfl_down_sync
    reduction-ladder-h100.svg   (with --csv) every step's bandwidth at n = 2^26 beside CUB and
                                the copy, from `labbench reduction --csv FILE`
"""
import argparse
import csv
import os

IMG = os.path.dirname(os.path.abspath(__file__))
VALUES = [3, 1, 7, 0, 4, 1, 6, 3, 2, 5, 1, 4, 0, 2, 8, 1]  # any 16 numbers will do
STEPS = ["1-interleaved-divergent", "2-interleaved-strided", "3-sequential", "4-first-add",
         "5-unroll-last-warp", "6-complete-unroll", "7-multiple-elements", "8-warp-shuffle"]

CELL, GAP, ROW = 34, 4, 74  # cell width, gap between cells, height of one round
LEFT, TOP = 20, 40
FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'
ACTIVE, IDLE, LINE = "#f4a259", "#e8eef4", "#5b6c7d"


def svg_open(width, height, title):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            f'<title>{title}</title>',
            f'<rect width="{width}" height="{height}" fill="white"/>']


def text(x, y, s, size=13, anchor="middle", weight="normal", fill="#1d2731"):
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}" {FONT}>{s}</text>')


def cell_x(i):
    return LEFT + i * (CELL + GAP)


def row_of_cells(y, values, active):
    out = []
    for i, v in enumerate(values):
        fill = ACTIVE if i in active else IDLE
        out.append(f'<rect x="{cell_x(i)}" y="{y}" width="{CELL}" height="{CELL - 6}" rx="4" '
                   f'fill="{fill}" stroke="#9aa8b5"/>')
        out.append(text(cell_x(i) + CELL / 2, y + 19, v))
    return out


def arrows(y_from, y_to, pairs):
    """Lines from element src of the row above to element dst of the row below."""
    out = []
    for src, dst in pairs:
        x1, x2 = cell_x(src) + CELL / 2, cell_x(dst) + CELL / 2
        out.append(f'<line x1="{x1}" y1="{y_from + CELL - 6}" x2="{x2}" y2="{y_to}" '
                   f'stroke="{LINE}" stroke-width="1.3"/>')
    return out


def tree_figure(rounds, title, note_for_round, filename, header):
    """rounds: list of (s, list of destination indices) in order."""
    values = list(VALUES)
    width = cell_x(len(values)) + 330
    height = TOP + ROW * (len(rounds) + 1) + 20
    out = svg_open(width, height, title)
    out.append(text(LEFT, 24, header, size=14, anchor="start", weight="bold"))
    y = TOP
    out += row_of_cells(y, values, set())
    out.append(text(cell_x(len(values)) + 10, y + 19, "shared memory after the load",
                    anchor="start"))
    for s, dsts in rounds:
        new = list(values)
        for d in dsts:
            new[d] = values[d] + values[d + s]
        y_next = y + ROW
        out += arrows(y, y_next, [(d + s, d) for d in dsts] + [(d, d) for d in dsts])
        out += row_of_cells(y_next, new, set(dsts))
        out.append(text(cell_x(len(values)) + 10, y_next + 12, f"s = {s}", anchor="start",
                        weight="bold"))
        out.append(text(cell_x(len(values)) + 10, y_next + 30, note_for_round(s, dsts),
                        size=11, anchor="start"))
        values, y = new, y_next
    out.append("</svg>")
    with open(os.path.join(IMG, filename), "w") as f:
        f.write("\n".join(out) + "\n")


def interleaved():
    n = len(VALUES)
    rounds, s = [], 1
    while s < n:
        rounds.append((s, [i for i in range(0, n, 2 * s)]))
        s *= 2

    def note(s, dsts):
        shown = ", ".join(str(d) for d in dsts[:4])
        step1 = "threads " + shown + (", ..." if len(dsts) > 4 else "")
        step2 = f"threads 0-{len(dsts) - 1}" if len(dsts) > 1 else "thread 0"
        return f"step 1: {step1}   step 2: {step2}"

    tree_figure(rounds, "Interleaved addressing", note, "reduction-interleaved.svg",
                "Interleaved addressing (steps 1 and 2): element i += element i + s")


def sequential():
    n = len(VALUES)
    rounds, s = [], n // 2
    while s >= 1:
        rounds.append((s, list(range(s))))
        s //= 2

    def note(s, dsts):
        return f"threads 0-{s - 1}, contiguous" if s > 1 else "thread 0"

    tree_figure(rounds, "Sequential addressing", note, "reduction-sequential.svg",
                "Sequential addressing (step 3): thread i < s adds element i + s")


def shuffle():
    lanes = 8
    values = VALUES[:lanes]
    width = cell_x(lanes) + 360
    offsets = [4, 2, 1]
    height = TOP + ROW * (len(offsets) + 1) + 20
    out = svg_open(width, height, "A warp reduced with shuffles")
    out.append(text(LEFT, 24, "__shfl_down_sync: lane i adds the register of lane i + offset "
                    "(8 lanes drawn; a warp has 32)", size=14, anchor="start", weight="bold"))
    y = TOP
    out += row_of_cells(y, values, set())
    out.append(text(cell_x(lanes) + 10, y + 19, "one register per lane", anchor="start"))
    for off in offsets:
        new = [values[i] + (values[i + off] if i + off < lanes else 0) for i in range(lanes)]
        y_next = y + ROW
        useful = set(range(off))
        out += arrows(y, y_next, [(i + off, i) for i in range(lanes - off)])
        out += row_of_cells(y_next, new, useful)
        out.append(text(cell_x(lanes) + 10, y_next + 12, f"offset = {off}", anchor="start",
                        weight="bold"))
        out.append(text(cell_x(lanes) + 10, y_next + 30,
                        "every lane computes; lanes " + (f"0-{off - 1}" if off > 1 else "0") +
                        " hold what is used", size=11, anchor="start"))
        values, y = new, y_next
    out.append("</svg>")
    with open(os.path.join(IMG, "reduction-shuffle.svg"), "w") as f:
        f.write("\n".join(out) + "\n")


def ladder_chart(csv_path):
    """Horizontal bars: GB/s of every step at n = 2^26 (block 256 unless absent), CUB, copy."""
    rows = list(csv.DictReader(open(csv_path)))
    n = str(1 << 26)
    device = rows[0]["device"] if rows else "unknown device"
    best, copy = {}, 0.0
    for r in rows:
        if r["lab"] != "reduction" or r["n"] != n:
            continue
        step, block = r["step"], int(r["block_size"])
        if (step in STEPS and block == 256) or step in ("cub", "cub-int32"):
            best[step] = float(r["gb_per_s"])
            copy = float(r["copy_gb_per_s"])
    if not best:
        raise SystemExit(f"{csv_path}: no reduction rows with n = 2^26")
    bars = [k for k in STEPS if k in best]
    bars += [k for k in ("cub", "cub-int32") if k in best]
    bars.append("copy")
    best["copy"] = copy
    top = max(best.values()) * 1.1
    label_w, bar_w, bar_h = 190, 520, 24
    height = 70 + len(bars) * (bar_h + 8) + 30
    out = svg_open(label_w + bar_w + 120, height, "The ladder on the H100")
    out.append(text(20, 26, f"Int sum of 2^26 elements, block size 256: GB/s read ({device})",
                    size=14, anchor="start", weight="bold"))
    out.append(text(20, 46, "copy = device-to-device cudaMemcpy, bytes read + written per second",
                    size=11, anchor="start"))
    y = 62
    for b in bars:
        w = bar_w * best[b] / top
        color = "#5b8def" if b[0].isdigit() else "#8c9aa8"
        out.append(text(label_w - 8, y + 17, b, anchor="end"))
        out.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color}"/>')
        out.append(text(label_w + w + 6, y + 17, f"{best[b]:.0f}", anchor="start"))
        y += bar_h + 8
    out.append("</svg>")
    with open(os.path.join(IMG, "reduction-ladder-h100.svg"), "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", help="labbench CSV (labbench reduction --csv FILE)")
    args = parser.parse_args()
    interleaved()
    sequential()
    shuffle()
    if args.csv:
        ladder_chart(args.csv)


if __name__ == "__main__":
    main()
