#!/usr/bin/env python3
"""Draws the scan lab's algorithm figures as SVG, with the Python standard library only.

    python3 labs/scan/img/scan_figures.py

writes (the values in them are computed here, so they are always right):
    labs/scan/img/scan-hillis-steele.svg   step 2: the naive scan of 8 elements, one row per level
    labs/scan/img/scan-blelloch-blocks.svg the reduce/downsweep example of 8 elements in two blocks of 4
    labs/scan/img/scan-look-back.svg       step 7: tiles, their status words and the look-back window
The measured plots (labs/scan/img/scan-ladder.svg, scan-sizes.svg, scan-blocks.svg) come from the
benchmark's CSV through bench/plot.py.
"""
import os

IMG = os.path.dirname(os.path.abspath(__file__))

CELL_W, CELL_H = 44, 28
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
BLOCK_FILL = ["#ffffff", "#e4e4e4"]  # block 0, block 1
CHANGED_FILL = "#cfe3f7"             # a cell written at this level
ARROW_COPY = "#d98c1a"
ARROW_ADD = "#2f7d32"


class Svg:
    def __init__(self, width, height):
        self.width, self.height, self.items = width, height, []

    def add(self, item):
        self.items.append(item)

    def text(self, x, y, s, size=13, anchor="middle", weight="normal", color="#000"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add(f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
                 f"font-weight='{weight}' fill='{color}' {FONT}>{s}</text>")

    def rect(self, x, y, w, h, fill, stroke="#333", width=1.0, dash=None):
        d = f" stroke-dasharray='{dash}'" if dash else ""
        self.add(f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{h:.1f}' fill='{fill}' "
                 f"stroke='{stroke}' stroke-width='{width}'{d}/>")

    def line(self, x1, y1, x2, y2, color="#333", width=1.2, arrow=False, dash=None):
        a = " marker-end='url(#head-%s)'" % color.lstrip("#") if arrow else ""
        d = f" stroke-dasharray='{dash}'" if dash else ""
        self.add(f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{color}' "
                 f"stroke-width='{width}'{a}{d}/>")

    def save(self, name):
        colors = {ARROW_COPY, ARROW_ADD, "#333", "#555"}
        markers = "".join(
            f"<marker id='head-{c.lstrip('#')}' viewBox='0 0 10 10' refX='9' refY='5' "
            f"markerWidth='7' markerHeight='7' orient='auto-start-reverse'>"
            f"<path d='M0,0 L10,5 L0,10 z' fill='{c}'/></marker>" for c in sorted(colors))
        body = "\n".join(self.items)
        path = os.path.join(IMG, name)
        with open(path, "w") as f:
            f.write(f"<svg xmlns='http://www.w3.org/2000/svg' width='{self.width}' "
                    f"height='{self.height}' viewBox='0 0 {self.width} {self.height}'>\n"
                    f"<defs>{markers}</defs>\n<rect width='100%' height='100%' fill='white'/>\n"
                    f"{body}\n</svg>\n")
        print("wrote", os.path.relpath(path))


def draw_row(svg, x0, y, values, fills, label=None):
    for i, v in enumerate(values):
        svg.rect(x0 + i * CELL_W, y, CELL_W, CELL_H, fills[i])
        svg.text(x0 + i * CELL_W + CELL_W / 2, y + CELL_H / 2 + 5, str(v))
    if label:
        svg.text(x0 - 14, y + CELL_H / 2 + 5, label, size=12, anchor="end")


def cell_bottom(x0, y, i):
    return x0 + i * CELL_W + CELL_W / 2, y + CELL_H


def cell_top(x0, y, i):
    return x0 + i * CELL_W + CELL_W / 2, y


def arrow(svg, x0, y_from, i, y_to, j, color):
    xa, ya = cell_bottom(x0, y_from, i)
    xb, yb = cell_top(x0, y_to, j)
    svg.line(xa, ya + 2, xb, yb - 2, color=color, arrow=True)


# ---------------------------------------------------------------------------------------------
# Step 2: Hillis-Steele
# ---------------------------------------------------------------------------------------------

def hillis_steele():
    values = [3, 1, 7, 0, 4, 1, 6, 3]
    n = len(values)
    x0, y, gap = 190, 50, 70
    svg = Svg(x0 + n * CELL_W + 40, 50 + 4 * gap + 10)
    svg.text(svg.width / 2, 24, "Step 2, Hillis-Steele: level k adds the element 2^k places to the left",
             size=14, weight="bold")
    draw_row(svg, x0, y, values, ["#fff"] * n, "input")
    offset = 1
    while offset < n:
        new = [values[i] + (values[i - offset] if i >= offset else 0) for i in range(n)]
        y_next = y + gap
        for i in range(n):
            if i >= offset:
                arrow(svg, x0, y, i - offset, y_next, i, ARROW_ADD)
            arrow(svg, x0, y, i, y_next, i, ARROW_ADD if i >= offset else ARROW_COPY)
        fills = [CHANGED_FILL if i >= offset else "#fff" for i in range(n)]
        draw_row(svg, x0, y_next, new, fills, f"offset {offset}")
        values, y, offset = new, y_next, offset * 2
    svg.text(x0 + n * CELL_W / 2, y + CELL_H + 26,
             "inclusive scan after log2(8) = 3 levels; n log n additions in all", size=12)
    svg.save("scan-hillis-steele.svg")


# ---------------------------------------------------------------------------------------------
# The reduce/downsweep example in two blocks (after the seed's figure, redrawn)
# ---------------------------------------------------------------------------------------------

def blelloch_blocks():
    data = [0, 2, 3, 6, 9, 3, 5, 7]
    block = 4
    n = len(data)
    fills_base = [BLOCK_FILL[i // block] for i in range(n)]
    x0, gap = 230, 62
    rows = []  # (label, values, changed indices, arrows [(from, to, color)])

    # Reduce inside each block.
    x = list(data)
    rows.append(("input (2 blocks of 4)", list(x), set(), []))
    stride = 2
    while stride <= block:
        arrows, changed = [], set()
        for b in range(0, n, block):
            for k in range(b, b + block, stride):
                left, right = k + stride // 2 - 1, k + stride - 1
                arrows += [(left, right, ARROW_ADD), (right, right, ARROW_ADD)]
                changed.add(right)
        for b in range(0, n, block):
            for k in range(b, b + block, stride):
                left, right = k + stride // 2 - 1, k + stride - 1
                x[right] += x[left]
        rows.append((f"reduce, stride {stride}", list(x), changed, arrows))
        stride *= 2
    sums = [x[b + block - 1] for b in range(0, n, block)]
    # Scan of the block sums (2 elements: one reduce, clear, one downsweep).
    # Each entry: label, values, arrows from the row above [(from, to, color)], changed cells.
    sums_rows = [("block totals", list(sums), [], set())]
    s = list(sums)
    s[1] += s[0]
    sums_rows.append(("reduce", list(s), [(0, 0, "#555"), (0, 1, ARROW_ADD), (1, 1, ARROW_ADD)], {1}))
    s[1] = 0
    sums_rows.append(("clear root", list(s), [(0, 0, "#555")], {1}))
    s[0], s[1] = s[1], s[1] + s[0]
    sums_rows.append(("downsweep = offsets", list(s),
                      [(1, 0, ARROW_COPY), (0, 1, ARROW_ADD), (1, 1, ARROW_ADD)], {0, 1}))
    offsets = s
    # Each block's root gets its offset; then the downsweep inside each block.
    for b in range(0, n, block):
        x[b + block - 1] = offsets[b // block]
    rows.append(("roots ← block offsets", list(x), {b + block - 1 for b in range(0, n, block)}, []))
    stride = block
    while stride >= 2:
        arrows, changed = [], set()
        for b in range(0, n, block):
            for k in range(b, b + block, stride):
                left, right = k + stride // 2 - 1, k + stride - 1
                arrows += [(right, left, ARROW_COPY), (left, right, ARROW_ADD), (right, right, ARROW_ADD)]
                changed |= {left, right}
        for b in range(0, n, block):
            for k in range(b, b + block, stride):
                left, right = k + stride // 2 - 1, k + stride - 1
                x[left], x[right] = x[right], x[right] + x[left]
        rows.append((f"downsweep, stride {stride}", list(x), changed, arrows))
        stride //= 2
    expected = [sum(data[:i]) for i in range(n)]
    assert x == expected, (x, expected)

    # Layout: the reduce rows, then the scan of the block sums in the columns under the roots
    # (a 2-element list of its own), then the downsweep rows.
    sums_col = block - 1                  # the list's first cell sits under block 0's root
    mini_gap = 58
    split = 3                             # rows before the block-sum scan
    svg = Svg(x0 + n * CELL_W + 40, 0)  # the height is known once the rows are placed
    svg.text(svg.width / 2, 24, "Reduce and downsweep over two blocks: the exclusive scan of 8 elements",
             size=14, weight="bold")
    y = 50
    row_y = []
    for r, (label, values, changed, arrows) in enumerate(rows):
        if r == split:
            # The block totals go down into the list, are scanned there, and come back as offsets.
            mini_x = x0 + sums_col * CELL_W
            first = row_y[-1] + CELL_H + 40
            for k, (mlabel, mvalues, marrows, mchanged) in enumerate(sums_rows):
                yy = first + k * mini_gap
                if k == 0:
                    for bi in range(len(sums)):
                        arrow(svg, x0, row_y[-1], bi * block + block - 1, yy, sums_col + bi, "#555")
                for i, j, color in marrows:
                    arrow(svg, mini_x, yy - mini_gap, i, yy, j, color)
                draw_row(svg, mini_x, yy, mvalues,
                         [CHANGED_FILL if c in mchanged else "#fff7e0" for c in range(2)])
                svg.text(mini_x - 12, yy + CELL_H / 2 + 5, mlabel, size=12, anchor="end")
            last_mini = first + (len(sums_rows) - 1) * mini_gap
            y = last_mini + gap
            for bi in range(len(sums)):
                arrow(svg, x0, last_mini, sums_col + bi, y, bi * block + block - 1, "#555")
        elif r > 0 and arrows:
            for i, j, color in arrows:
                arrow(svg, x0, row_y[-1], i, y, j, color)
        fills = [CHANGED_FILL if i in changed else fills_base[i] for i in range(n)]
        draw_row(svg, x0, y, values, fills, label)
        row_y.append(y)
        y += gap
    svg.text(x0 + n * CELL_W / 2, y - gap + CELL_H + 24,
             "= exclusive scan of the input", size=12)
    height = y - gap + CELL_H + 76
    svg.height = height
    # Legend.
    ly = height - 18
    svg.line(20, ly - 4, 44, ly - 4, color=ARROW_ADD, arrow=True)
    svg.text(50, ly, "adds into", size=12, anchor="start")
    svg.line(140, ly - 4, 164, ly - 4, color=ARROW_COPY, arrow=True)
    svg.text(170, ly, "copies into", size=12, anchor="start")
    svg.rect(270, ly - 14, 18, 14, BLOCK_FILL[1])
    svg.text(294, ly, "block 1", size=12, anchor="start")
    svg.rect(360, ly - 14, 18, 14, CHANGED_FILL)
    svg.text(384, ly, "written at this level", size=12, anchor="start")
    svg.save("scan-blelloch-blocks.svg")


# ---------------------------------------------------------------------------------------------
# Step 7: the look-back
# ---------------------------------------------------------------------------------------------

def look_back():
    # Tile totals 7 4 9 3 5 6 6 2 8 5 ? 3. A shows a tile's total, P its inclusive prefix.
    states = ["P", "P", "P", "P", "P", "A", "P", "A", "A", "me", "X", "A"]
    sums = [7, 11, 20, 23, 28, 6, 40, 2, 8, 5, None, 3]
    w = 60
    x0, y = 40, 70
    svg = Svg(x0 + len(states) * w + 40, 300)
    svg.text(svg.width / 2, 24, "Step 7: tile 9 looks back over the status words of the tiles before it",
             size=14, weight="bold")
    colors = {"P": "#c8e6c9", "A": "#fff3c4", "X": "#eeeeee", "me": "#cfe3f7"}
    for t, st in enumerate(states):
        svg.rect(x0 + t * w, y, w - 6, 46, colors[st])
        svg.text(x0 + t * w + (w - 6) / 2, y - 8, f"tile {t}", size=11)
        if st == "me":
            svg.text(x0 + t * w + (w - 6) / 2, y + 20, "scans", size=11)
            svg.text(x0 + t * w + (w - 6) / 2, y + 36, "its tile", size=11)
        elif st == "X":
            svg.text(x0 + t * w + (w - 6) / 2, y + 28, "X", size=14, weight="bold")
        else:
            svg.text(x0 + t * w + (w - 6) / 2, y + 20, st, size=14, weight="bold")
            svg.text(x0 + t * w + (w - 6) / 2, y + 38, str(sums[t]), size=12)
    # Window: tiles 8, 7, 6 (P found at 6: stop there).
    me = 9
    for t in (8, 7, 6):
        x1 = x0 + me * w + (w - 6) / 2
        x2 = x0 + t * w + (w - 6) / 2
        svg.add(f"<path d='M{x1:.1f},{y + 50} C{x1:.1f},{y + 50 + 22 + 8 * (me - t)} "
                f"{x2:.1f},{y + 50 + 22 + 8 * (me - t)} {x2:.1f},{y + 52}' fill='none' "
                f"stroke='#555' stroke-width='1.2' marker-end='url(#head-555)'/>")
    prefix = sums[8] + sums[7] + sums[6]
    svg.text(x0 + 7.5 * w, y + 120, f"exclusive prefix of tile 9 = 8 + 2 + 40 = {prefix}", size=13)
    svg.text(x0 + 7.5 * w, y + 140, f"tile 9 then publishes P {prefix + sums[9]} (its total is {sums[9]})",
             size=13)
    lines = [
        "X: nothing published yet (wait);  A: the tile's own total;  P: the total of the tile and all before it.",
        "Each tile publishes A as soon as its total is known, then P once its look-back is done; the look-back",
        "adds A's until it meets a P. Tiles get their numbers from an atomic counter in the order they start.",
    ]
    for k, s in enumerate(lines):
        svg.text(20, y + 172 + 17 * k, s, size=12, anchor="start")
    svg.save("scan-look-back.svg")


def main():
    hillis_steele()
    blelloch_blocks()
    look_back()


if __name__ == "__main__":
    main()
