#!/usr/bin/env python3
"""Draws the compaction handout's figures (labs/compaction/img/compaction-*.svg) as plain SVG.

    python3 labs/compaction/img/compaction_figures.py labs/compaction/img
"""
import html

FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'
KEEP = '#cfe8cf'
DROP = '#eeeeee'
REST = '#f6dcc0'
EDGE = '#444444'
ARROW_KEEP = '#2e7d32'
ARROW_REST = '#c77700'


class Svg:
    def __init__(self, w, h, title):
        self.w, self.h = w, h
        self.parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
            f'<title>{html.escape(title)}</title>',
            '<defs>',
            *[f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
              f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
              for name, color in (('keep', ARROW_KEEP), ('rest', ARROW_REST), ('dark', EDGE))],
            '</defs>',
            f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>',
        ]

    def text(self, x, y, s, size=14, anchor='middle', weight='normal', color='#222', italic=False):
        style = ' font-style="italic"' if italic else ''
        self.parts.append(
            f'<text x="{x}" y="{y}" {FONT} font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{color}"{style}>{html.escape(str(s))}</text>')

    def box(self, x, y, w, h, fill, label=None, size=14, stroke=EDGE, weight='normal', dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ''
        self.parts.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"{d}/>')
        if label is not None:
            self.text(x + w / 2, y + h / 2 + size * 0.36, label, size, weight=weight)

    def arrow(self, x1, y1, x2, y2, kind='keep', width=1.6):
        color = {'keep': ARROW_KEEP, 'rest': ARROW_REST, 'dark': EDGE}[kind]
        self.parts.append(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}" '
            f'marker-end="url(#arrow-{kind})"/>')

    def path(self, d, kind='dark', width=1.4, dash=None):
        color = {'keep': ARROW_KEEP, 'rest': ARROW_REST, 'dark': EDGE}[kind]
        ds = f' stroke-dasharray="{dash}"' if dash else ''
        self.parts.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}"{ds} '
                          f'marker-end="url(#arrow-{kind})"/>')

    def save(self, path):
        self.parts.append('</svg>')
        with open(path, 'w') as f:
            f.write('\n'.join(self.parts) + '\n')


def row(svg, x0, y, cell, values, fills, label, size=15):
    svg.text(x0 - 12, y + cell * 0.62, label, 14, anchor='end', weight='bold')
    for i, (v, fill) in enumerate(zip(values, fills)):
        svg.box(x0 + i * cell, y, cell, cell * 0.8, fill, v, size)


def map_scan_scatter(path):
    values = [4, 0, 7, 0, 0, 3, 9, 1]
    flags = [1 if v else 0 for v in values]
    offsets, run = [], 0
    for f in flags:
        offsets.append(run)
        run += f
    cell, x0 = 56, 170
    svg = Svg(x0 + cell * 8 + 200, 470, 'Stream compaction as map, scan, scatter')
    svg.text(svg.w / 2, 28, 'Compaction = map → exclusive scan → scatter (keep x ≠ 0)', 17, weight='bold')
    fills = [KEEP if f else DROP for f in flags]
    y_in, y_flag, y_off, y_out = 60, 150, 240, 380
    svg.text(x0 + cell * 8 + 16, 60 + 30, 'input', 13, anchor='start', italic=True)
    for i in range(8):
        svg.text(x0 + i * cell + cell / 2, y_in - 6, f'{i}', 11, color='#777')
    row(svg, x0, y_in, cell, values, fills, 'in')
    row(svg, x0, y_flag, cell, flags, fills, 'flags')
    row(svg, x0, y_off, cell, offsets, fills, 'offsets')
    for i in range(8):
        svg.arrow(x0 + i * cell + cell / 2, y_in + cell * 0.8 + 2, x0 + i * cell + cell / 2, y_flag - 4, 'dark', 1.0)
    svg.text(x0 + cell * 8 + 16, y_flag + 28, 'map: keeps(in[i]) ? 1 : 0', 13, anchor='start', italic=True)
    svg.text(x0 + cell * 8 + 16, y_off + 20, 'exclusive scan', 13, anchor='start', italic=True)
    svg.text(x0 + cell * 8 + 16, y_off + 38, 'of the flags', 13, anchor='start', italic=True)
    svg.text(x0 + cell * 8 + 16, y_out - 24, 'scatter: out[offsets[i]]', 13, anchor='start', italic=True)
    svg.text(x0 + cell * 8 + 16, y_out - 6, '= in[i] where flags[i]', 13, anchor='start', italic=True)
    count = offsets[-1] + flags[-1]
    out = [v for v in values if v]
    row(svg, x0, y_out, cell, out, [KEEP] * len(out), 'out')
    for i in range(8):
        if flags[i]:
            svg.arrow(x0 + i * cell + cell / 2, y_off + cell * 0.8 + 2,
                      x0 + offsets[i] * cell + cell / 2, y_out - 4, 'keep', 1.8)
    svg.text(x0, y_out + cell * 0.8 + 34,
             f'count = offsets[n−1] + flags[n−1] = {offsets[-1]} + {flags[-1]} = {count}', 14, anchor='start')
    svg.save(path)


def split(path):
    side = ['r', 'l', 'r', 'l', 'l', 'r']
    bit = [1 if s == 'l' else 0 for s in side]
    prefix, run = [], 0
    for b in bit:
        prefix.append(run)
        run += b
    nf = run
    right = [i - prefix[i] + nf for i in range(6)]
    address = [prefix[i] if bit[i] else right[i] for i in range(6)]
    cell, x0 = 64, 190
    svg = Svg(x0 + cell * 6 + 260, 640, 'Stable split with one prefix sum: the kd-tree triangle example')
    svg.text(svg.w / 2, 28, 'Split: address = side == l ? prefix : i − prefix + nf', 17, weight='bold')
    fills = [KEEP if b else REST for b in bit]
    ys = {'tri': 60, 'side': 130, 'bit': 200, 'prefix': 270, 'right': 340, 'addr': 410, 'out': 540}
    for i in range(6):
        svg.text(x0 + i * cell + cell / 2, ys['tri'] - 6, f'i = {i}', 11, color='#777')
    row(svg, x0, ys['tri'], cell, [f't{i}' for i in range(6)], fills, 'triangles')
    row(svg, x0, ys['side'], cell, side, fills, 'side')
    row(svg, x0, ys['bit'], cell, bit, fills, 'l = 1, r = 0')
    row(svg, x0, ys['prefix'], cell, prefix, fills, 'prefix')
    row(svg, x0, ys['right'], cell, right, [DROP if b else REST for b in bit], 'right')
    row(svg, x0, ys['addr'], cell, address, fills, 'address')
    xr = x0 + cell * 6 + 18
    svg.text(xr, ys['bit'] + 30, 'exclusive scan →', 13, anchor='start', italic=True)
    svg.text(xr, ys['prefix'] + 24, f'nf = {prefix[-1]} + {bit[-1]} = {nf}', 14, anchor='start')
    svg.text(xr, ys['prefix'] + 42, '(the number of l)', 12, anchor='start', italic=True)
    svg.text(xr, ys['right'] + 30, 'i − prefix[i] + nf', 13, anchor='start', italic=True)
    svg.text(xr, ys['addr'] + 30, 'l: prefix, r: right', 13, anchor='start', italic=True)
    out = [None] * 6
    for i in range(6):
        out[address[i]] = i
    row(svg, x0, ys['out'], cell, [f't{t}' for t in out], [KEEP if bit[t] else REST for t in out], 'out')
    for i in range(6):
        svg.arrow(x0 + i * cell + cell / 2, ys['addr'] + cell * 0.8 + 2,
                  x0 + address[i] * cell + cell / 2, ys['out'] - 4, 'keep' if bit[i] else 'rest', 1.8)
    svg.text(x0, ys['out'] + cell * 0.8 + 30,
             'Both halves keep their input order: t1 t3 t4 | t0 t2 t5', 14, anchor='start')
    svg.save(path)


def warp_enqueue(path):
    keep = [0, 1, 1, 0, 1, 0, 0, 1]
    cell, x0 = 52, 120
    w = x0 + 8 * cell + 40
    svg = Svg(2 * w + 40, 560, 'Parallel enqueue: one atomic per element versus one per warp')
    svg.text(svg.w / 2, 28, 'Enqueue with atomics (8 lanes shown; a warp has 32)', 17, weight='bold')

    # Left: naive.
    svg.text(x0 + 4 * cell, 62, '4a: one atomicAdd per kept lane', 15, weight='bold')
    fills = [KEEP if k else DROP for k in keep]
    for i in range(8):
        svg.text(x0 + i * cell + cell / 2, 90, f'lane {i}', 11, color='#777')
    row(svg, x0, 96, cell, ['keep' if k else '–' for k in keep], fills, 'vote', 12)
    ctr_y = 230
    svg.box(x0 + 2.5 * cell, ctr_y, 3 * cell, 40, '#fff7cc', 'count (global)', 13)
    order = {1: 12, 2: 10, 4: 13, 7: 11}  # slots as the atomics happened to come back
    for i in range(8):
        if keep[i]:
            svg.arrow(x0 + i * cell + cell / 2, 96 + cell * 0.8 + 2, x0 + 4 * cell, ctr_y - 4, 'dark', 1.0)
    svg.text(x0 + 4 * cell, ctr_y + 62, '4 atomics on one address, served one', 13, italic=True)
    svg.text(x0 + 4 * cell, ctr_y + 80, 'after another, in whatever order they arrive', 13, italic=True)
    out_y = 380
    slots = list(range(10, 18))
    owner = {v: k for k, v in order.items()}
    row(svg, x0, out_y, cell, [f'L{owner[s]}' if s in owner else '' for s in slots],
        [KEEP if s in owner else 'white' for s in slots], 'out', 13)
    for i, s in enumerate(slots):
        svg.text(x0 + i * cell + cell / 2, out_y + cell * 0.8 + 16, f'{s}', 11, color='#777')
    svg.text(x0 + 4 * cell, out_y + cell * 0.8 + 50, 'slots follow the atomics: lane order is lost', 13)
    svg.text(x0 + 4 * cell, out_y + cell * 0.8 + 68, '(and changes from run to run)', 13)

    # Right: warp-aggregated.
    x1 = x0 + w + 20
    svg.text(x1 + 4 * cell, 62, '4b: one atomicAdd per warp', 15, weight='bold')
    for i in range(8):
        svg.text(x1 + i * cell + cell / 2, 90, f'lane {i}', 11, color='#777')
    row(svg, x1, 96, cell, ['keep' if k else '–' for k in keep], fills, 'vote', 12)
    mask = ''.join(str(k) for k in reversed(keep))
    svg.text(x1 + 4 * cell, 170, f'mask = __ballot_sync(…) = 0b{mask}   (bit i = lane i)', 13)
    ranks, run = [], 0
    for k in keep:
        ranks.append(run if k else '')
        run += k
    row(svg, x1, 182, cell, ranks, fills, 'rank', 13)
    svg.text(x1 + 4 * cell, 250, 'rank = __popc(mask & lanes below)', 13, italic=True)
    svg.box(x1 + 1.5 * cell, 266, 5 * cell, 40, '#fff7cc', 'leader: base = atomicAdd(count, 4)', 12)
    svg.text(x1 + 4 * cell, 328, 'the leader is lane 1; base = 10 reaches every lane via __shfl_sync', 12, italic=True)
    row(svg, x1, out_y, cell, ['L1', 'L2', 'L4', 'L7', '', '', '', ''],
        [KEEP] * 4 + ['white'] * 4, 'out', 13)
    for i, s in enumerate(slots):
        svg.text(x1 + i * cell + cell / 2, out_y + cell * 0.8 + 16, f'{s}', 11, color='#777')
    svg.text(x1 + 4 * cell, out_y - 14, 'each kept lane writes out[base + rank]', 13, italic=True)
    svg.text(x1 + 4 * cell, out_y + cell * 0.8 + 50, 'in order inside the warp; the warps', 13)
    svg.text(x1 + 4 * cell, out_y + cell * 0.8 + 68, 'themselves still land in any order', 13)
    svg.save(path)


def lookback(path):
    tiles = [('P', 96, 96), ('P', 112, 208), ('A', 130, None), ('A', 118, None), ('A', 127, None),
             ('me', 101, None), ('X', None, None), ('X', None, None)]
    cell_w, cell_h, x0, y0 = 104, 64, 60, 110
    svg = Svg(x0 * 2 + cell_w * 8, 490, 'Single-pass compaction: decoupled look-back over tile status words')
    svg.text(svg.w / 2, 28, 'Step 5: each tile publishes its count, then looks back', 17, weight='bold')
    colors = {'P': '#cfe0f5', 'A': '#fff7cc', 'X': '#eeeeee', 'me': KEEP}
    for t, (flag, own, incl) in enumerate(tiles):
        x = x0 + t * cell_w
        svg.text(x + cell_w / 2, y0 - 10, f'tile {t}', 12, color='#555')
        if flag == 'me':
            svg.box(x + 4, y0, cell_w - 8, cell_h, colors[flag], None, weight='bold')
            svg.text(x + cell_w / 2, y0 + 26, 'this tile', 13, weight='bold')
            svg.text(x + cell_w / 2, y0 + 46, f'count {own}', 13)
        else:
            svg.box(x + 4, y0, cell_w - 8, cell_h, colors[flag], None)
            if flag == 'P':
                svg.text(x + cell_w / 2, y0 + 26, 'PREFIX', 13, weight='bold')
                svg.text(x + cell_w / 2, y0 + 46, f'{incl}', 13)
            elif flag == 'A':
                svg.text(x + cell_w / 2, y0 + 26, 'AGGREGATE', 12, weight='bold')
                svg.text(x + cell_w / 2, y0 + 46, f'{own}', 13)
            else:
                svg.text(x + cell_w / 2, y0 + 26, 'EMPTY', 13, weight='bold')
                svg.text(x + cell_w / 2, y0 + 46, 'not yet', 12, italic=True)
    me = 5
    ya = y0 + cell_h + 28
    xs = x0 + me * cell_w + cell_w / 2
    for t in (4, 3, 2, 1):
        xt = x0 + t * cell_w + cell_w / 2
        depth = y0 + cell_h + 12 + 9 * (me - t)
        svg.path(f'M{xs},{y0 + cell_h + 4} C{xs},{depth} {xt},{depth} {xt},{y0 + cell_h + 6}', 'dark', 1.3)
    ya += 20
    total = 127 + 118 + 130 + 208
    svg.text(x0 + 3 * cell_w, ya + 44,
             f'look-back: 127 + 118 + 130 (aggregates) + 208 (a prefix: stop) = {total}', 14)
    svg.text(x0 + 3 * cell_w, ya + 68,
             f'this tile writes its kept elements to out[{total} … {total + 101}) and publishes PREFIX {total + 101}', 14)
    lines = [
        'A status word is 64 bits: flag (high half) and count (low half), written and read as one.',
        'EMPTY: nothing yet (wait). AGGREGATE: the tile\'s own count. PREFIX: the count of it and every tile before it.',
        'Warp 0 reads 32 predecessors at once (lane k reads tile − 1 − k), adds up to the nearest PREFIX, or all 32 and goes on.',
        'Tiles are handed out in launch order by an atomic counter, so every tile waited on is already running.',
    ]
    for k, line in enumerate(lines):
        svg.text(x0, ya + 110 + 22 * k, line, 13, anchor='start')
    svg.save(path)


def tile_layout(path):
    # One warp's share of a tile: item k of lane l is element first + 32 k + l.
    cell, x0, y0 = 22, 150, 90
    lanes, items = 8, 4
    svg = Svg(x0 + cell * lanes * items + 260, 430, 'Step 5 inside a tile: coalesced loads, ballots, staging')
    svg.text(svg.w / 2, 28, 'Inside a tile (step 5): load, rank with ballots, stage, copy out', 17, weight='bold')
    keep = [[(l * 5 + k * 3) % 4 != 0 for l in range(lanes)] for k in range(items)]
    svg.text(x0 - 12, y0 + 15, "warp's run", 13, anchor='end', weight='bold')
    for k in range(items):
        for l in range(lanes):
            x = x0 + (k * lanes + l) * cell
            svg.box(x, y0, cell, cell, KEEP if keep[k][l] else DROP, None)
        svg.text(x0 + (k * lanes + lanes / 2) * cell, y0 - 8, f'load k = {k}: lanes 0…{lanes - 1}', 11, color='#555')
    svg.text(x0 + cell * lanes * items + 14, y0 + 16, 'each load: consecutive', 12, anchor='start', italic=True)
    svg.text(x0 + cell * lanes * items + 14, y0 + 32, 'elements (coalesced)', 12, anchor='start', italic=True)
    y1 = y0 + 90
    rank = 0
    svg.text(x0 - 12, y1 + 15, 'staged', 13, anchor='end', weight='bold')
    positions = []
    for k in range(items):
        for l in range(lanes):
            if keep[k][l]:
                positions.append((k, l, rank))
                rank += 1
    for (k, l, r) in positions:
        svg.box(x0 + r * cell, y1, cell, cell, KEEP, None)
    for (k, l, r) in positions[::3]:
        xs = x0 + (k * lanes + l) * cell + cell / 2
        svg.arrow(xs, y0 + cell + 2, x0 + r * cell + cell / 2, y1 - 3, 'keep', 1.1)
    svg.text(x0 + cell * lanes * items + 14, y1 + 8, 'position = warp offset + kept before', 12, anchor='start', italic=True)
    svg.text(x0 + cell * lanes * items + 14, y1 + 24, 'this load + __popc(mask & below)', 12, anchor='start', italic=True)
    y2 = y1 + 110
    svg.text(x0 - 12, y2 + 15, 'out', 13, anchor='end', weight='bold')
    svg.box(x0 - 2, y2, cell * 4, cell, '#cfe0f5', None)
    svg.text(x0 + cell * 2, y2 + 15, 'earlier tiles', 11)
    for r in range(rank):
        svg.box(x0 + (4 + r) * cell - 2, y2, cell, cell, KEEP, None)
    svg.arrow(x0 + rank * cell / 2, y1 + cell + 3, x0 + (4 + rank / 2) * cell, y2 - 3, 'dark', 1.5)
    svg.text(x0 + (4 + rank / 2) * cell + 12, y1 + cell + 50,
             'copy out: thread j writes staged[j], staged[j + blockDim.x], … to out[offset + …]', 12, anchor='start', italic=True)
    notes = ['A warp owns 32 × SINGLE_PASS_ITEMS consecutive elements (8 lanes × 4 items drawn here; 32 lanes × 16 items in the solution).',
             'One pass over the input, one over the output: 4n + 4·kept bytes, the least any compaction moves.']
    for k, line in enumerate(notes):
        svg.text(x0 - 100, y2 + 80 + 20 * k, line, 13, anchor='start')
    svg.save(path)


if __name__ == '__main__':
    import sys
    out = sys.argv[1]
    map_scan_scatter(f'{out}/compaction-map-scan-scatter.svg')
    split(f'{out}/compaction-split.svg')
    warp_enqueue(f'{out}/compaction-enqueue.svg')
    lookback(f'{out}/compaction-lookback.svg')
    tile_layout(f'{out}/compaction-tile.svg')
