#!/usr/bin/env python3
"""Draws the bitonic_sort lab's figures as SVG, with no dependencies beyond Python 3.

    python3 labs/bitonic_sort/img/bitonic_sort_figures.py

Writes, into this script's folder (labs/bitonic_sort/img/):
    bitonic_sort-network8-seed.svg   the seed's network for 8 wires: half of the sequences are
                                     sorted downwards, so comparators point both ways
    bitonic_sort-network16-flip.svg  the flip form for 16 wires, the one every GPU step runs:
                                     all comparators point the same way; drawn for n = 13, so the
                                     comparators that touch the 3 missing wires are skipped
    bitonic_sort-layouts.svg         step 4: which thread holds which key of a tile in the low
                                     and high layouts (a toy tile of 4 threads x 4 keys)

Wires run left to right, position 0 at the top. A comparator is a vertical segment; its arrow
head marks the wire that receives the larger key.
"""
import os

IMG = os.path.dirname(os.path.abspath(__file__))
FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'
INK, WIRE, UP, DOWN, SKIP = "#1d2731", "#9aa8b5", "#c8553d", "#2f6690", "#d5dbe1"
MIRROR_BG, PLAIN_BG = "#fdf0e6", "#eef3f8"


def svg_open(width, height, title):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            f'<title>{title}</title>',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            '<defs>'
            f'<marker id="head-down" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{DOWN}"/></marker>'
            f'<marker id="head-up" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{UP}"/></marker>'
            '</defs>']


def text(x, y, s, size=12, anchor="middle", weight="normal", fill=INK):
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}" {FONT}>{s}</text>')


def seed_layers(n):
    """The seed's network: (size, stride, [(lo, hi, ascending)]) per layer. Block lo // size
    sorts ascending when bit `size` of lo is clear, as the seed's ddd says."""
    layers = []
    size = 2
    while size <= n:
        stride = size // 2
        while stride > 0:
            comps = []
            for lo in range(n):
                if lo & stride == 0:
                    ascending = (lo & size) == 0 or size == n
                    comps.append((lo, lo + stride, ascending))
            layers.append((size, stride, comps))
            stride //= 2
        size *= 2
    return layers


def flip_layers(n_wires):
    """The flip form: (size, stride, [(lo, hi)]) per layer; the first layer of a size pairs each
    position with its mirror."""
    layers = []
    size = 2
    while size <= n_wires:
        stride = size // 2
        while stride > 0:
            comps = []
            for c in range(n_wires // 2):
                lo = 2 * c - (c & (stride - 1))
                hi = lo ^ (size - 1) if stride == size // 2 else lo + stride
                comps.append((lo, hi))
            layers.append((size, stride, comps))
            stride //= 2
        size *= 2
    return layers


def columns_of(comps):
    """Places a layer's comparators in sub-columns so that no two drawn segments overlap."""
    cols = []
    for comp in sorted(comps, key=lambda c: (c[1] - c[0], c[0])):
        lo, hi = comp[0], comp[1]
        for col in cols:
            if all(hi < a or lo > b for a, b, *_ in col):
                col.append(comp)
                break
        else:
            cols.append([comp])
    return cols


def draw_network(n_wires, layers, title, subtitle, n_real=None, seed_form=False):
    pitch, sub, gap, left, top = 26, 13, 22, 60, 96
    widths = [len(columns_of(comps)) * sub for _, _, comps in layers]
    width = max(left + sum(widths) + gap * len(layers) + 40, 640)
    height = top + pitch * (n_wires - 1) + 70
    out = svg_open(width, height, title)
    out.append(text(20, 24, title, 15, "start", "bold"))
    for i, line in enumerate(subtitle.split("\n")):
        out.append(text(20, 44 + 16 * i, line, 12, "start"))
    y = lambda w: top + w * pitch
    # Layer backgrounds and labels first, then wires, then comparators on top.
    x = left + gap / 2
    xs = []
    for (size, stride, comps), w in zip(layers, widths):
        mirror = (not seed_form) and stride == size // 2
        out.append(f'<rect x="{x - 6}" y="{top - 16}" width="{w + 12}" '
                   f'height="{pitch * (n_wires - 1) + 32}" rx="5" '
                   f'fill="{MIRROR_BG if mirror else PLAIN_BG}"/>')
        out.append(text(x + w / 2, height - 30, f"s{stride}", 10))
        xs.append(x)
        x += w + gap
    # Size brackets under the layers.
    x = left + gap / 2
    i = 0
    while i < len(layers):
        size = layers[i][0]
        j = i
        while j < len(layers) and layers[j][0] == size:
            j += 1
        x0, x1 = xs[i] - 6, xs[j - 1] + widths[j - 1] + 6
        out.append(f'<line x1="{x0}" y1="{height - 22}" x2="{x1}" y2="{height - 22}" stroke="{INK}"/>')
        out.append(text((x0 + x1) / 2, height - 8, f"size {size}", 11, weight="bold"))
        i = j
    for w in range(n_wires):
        missing = n_real is not None and w >= n_real
        dash = ' stroke-dasharray="4 4"' if missing else ""
        out.append(f'<line x1="{left - 10}" y1="{y(w)}" x2="{width - 20}" y2="{y(w)}" '
                   f'stroke="{SKIP if missing else WIRE}" stroke-width="1.5"{dash}/>')
        out.append(text(left - 16, y(w) + 4, w, 11, "end", fill=SKIP if missing else INK))
    if n_real is not None:
        out.append(text(width - 24, y(n_real) - 6, "wires " + str(n_real) + "-" + str(n_wires - 1)
                        + " are past n: +inf, never moved", 10, "end", fill="#7a8793"))
    for (size, stride, comps), x0 in zip(layers, xs):
        for k, col in enumerate(columns_of(comps)):
            cx = x0 + k * sub + sub / 2
            for comp in col:
                lo, hi = comp[0], comp[1]
                ascending = comp[2] if seed_form else True
                skipped = n_real is not None and hi >= n_real
                if skipped:
                    out.append(f'<line x1="{cx}" y1="{y(lo)}" x2="{cx}" y2="{y(hi)}" '
                               f'stroke="{SKIP}" stroke-width="1.5" stroke-dasharray="2 3"/>')
                    continue
                colour = DOWN if ascending else UP
                head = "head-down" if ascending else "head-up"
                y_from, y_to = (y(lo), y(hi)) if ascending else (y(hi), y(lo))
                out.append(f'<circle cx="{cx}" cy="{y_from}" r="3" fill="{colour}"/>')
                out.append(f'<line x1="{cx}" y1="{y_from}" x2="{cx}" y2="{y_to}" stroke="{colour}" '
                           f'stroke-width="2" marker-end="url(#{head})"/>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


def draw_layouts():
    """Step 4's two layouts for a toy tile: B = 4 threads, E = 4 keys each, T = 16."""
    B, E = 4, 4
    cell, left, top = 34, 150, 70
    colours = ["#f4a259", "#8cb369", "#5b8e7d", "#bc4b51"]
    width, height = left + 16 * cell + 40, top + 3 * 90 + 30
    out = svg_open(width, height, "Step 4 layouts")
    out.append(text(20, 24, "Step 4: which thread holds which key of a tile (toy: 4 threads x 4 keys)", 15, "start", "bold"))
    out.append(text(20, 44, "Colour = thread, number = register index r. A layer whose stride is a register bit needs no data from other threads.", 12, "start"))
    rows = [
        ("low layout", "position t*E + r", lambda t, r: t * E + r,
         "strides 1, 2: registers; strides 4, 8: other lanes (shuffles)"),
        ("high layout", "position r*B + t", lambda t, r: r * B + t,
         "strides 4, 8: registers; global loads and stores coalesced"),
        ("twisted high", "upper half: t ^ (B-1)", lambda t, r: r * B + (t ^ (B - 1) if r >= E // 2 else t),
         "the mirror of size 16 pairs r with E-1-r in the same thread"),
    ]
    for i, (name, rule, where, note) in enumerate(rows):
        y0 = top + i * 90
        out.append(text(20, y0 + 22, name, 13, "start", "bold"))
        out.append(text(20, y0 + 40, rule, 11, "start"))
        owner = {}
        for t in range(B):
            for r in range(E):
                owner[where(t, r)] = (t, r)
        for pos in range(B * E):
            t, r = owner[pos]
            x = left + pos * cell
            out.append(f'<rect x="{x}" y="{y0}" width="{cell - 3}" height="{cell - 3}" rx="4" '
                       f'fill="{colours[t]}" stroke="#6b7785"/>')
            out.append(text(x + (cell - 3) / 2, y0 + 20, f"r{r}", 11))
            if i == 0:
                out.append(text(x + (cell - 3) / 2, y0 - 8, pos, 10, fill="#6b7785"))
        out.append(text(left, y0 + cell + 16, note, 11, "start", fill="#4a5661"))
    for t in range(B):
        x = left + t * 110
        out.append(f'<rect x="{x}" y="{height - 24}" width="14" height="14" rx="3" fill="{colours[t]}" stroke="#6b7785"/>')
        out.append(text(x + 20, height - 12, f"thread {t}", 11, "start"))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def main():
    figures = {
        "bitonic_sort-network8-seed.svg": draw_network(
            8, seed_layers(8), "The seed's bitonic network, 8 wires (24 comparators, 6 layers)",
            "Arrow: the wire that receives the larger key. Blue: ascending run (larger key down);\n"
            "red: descending run (larger key up), the runs the seed's ddd marks.",
            seed_form=True),
        "bitonic_sort-network16-flip.svg": draw_network(
            16, flip_layers(16), "The flip form, 16 wires, drawn for n = 13",
            "Every comparator sends the larger key down (arrow). Orange: the first layer of each size\n"
            "compares position i with its mirror i ^ (size - 1). Dotted: skipped (it touches a wire past n).",
            n_real=13),
        "bitonic_sort-layouts.svg": draw_layouts(),
    }
    for name, svg in figures.items():
        path = os.path.join(IMG, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(svg)
        print("wrote", path)


if __name__ == "__main__":
    main()
