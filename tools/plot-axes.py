#!/usr/bin/env python3
"""Draw the CSV of `cured bench axes --csv FILE` as a PNG.

    python3 tools/plot-axes.py bench/results/axes-h200-2026-12-03.csv [out.png]

Left: a heat map of each cell's share of the read ceiling (a row per cell and
axis, a column per shape, rows = 2^0 ... 2^26 of the float32 array). Right:
cured's speed as a multiple of cub::DeviceSegmentedReduce's for the axis-1
cells the bench compared (log scale; 1 = as fast). The 3-D and segment rows
are named in the title. Needs matplotlib; without it, says so and exits 1.
"""
import csv
import math
import sys


def read(path):
    cells, cub, extra = {}, {}, []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            ratio, us = float(r["ratio"]), float(r["cured_us"])
            if r["cell"].startswith("CUB "):
                cub[(r["cell"][4:], r["rows"], r["cols"])] = us
                continue
            if r["axis"] not in ("0", "1"):
                extra.append((r["cell"], ratio, us))
                continue
            if r["cell"] == "3-D middle axis":
                extra.append((r["cell"], ratio, us))
                continue
            cells.setdefault((r["cell"], r["axis"]), []).append((int(r["rows"]), int(r["cols"]), ratio, us))
    return cells, cub, extra


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    src = argv[1]
    dst = argv[2] if len(argv) > 2 else src.rsplit(".", 1)[0] + ".png"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot-axes.py: matplotlib is not installed (pip install matplotlib)\n")
        return 1
    cells, cub, extra = read(src)
    keys = sorted(cells, key=lambda k: (list(dict.fromkeys(c for c, _ in cells)).index(k[0]), -int(k[1])))
    shapes = sorted({(r[0]) for k in keys for r in cells[k]})
    grid = []
    for k in keys:
        by_rows = {r[0]: r[2] for r in cells[k]}
        grid.append([by_rows.get(s, float("nan")) for s in shapes])

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(17, 6.5), gridspec_kw={"width_ratios": [3, 2]})
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(["2^%d" % int(math.log2(s)) for s in shapes])
    ax.set_xlabel("rows of the 2-D array (256 MiB)")
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(["%s, axis %s" % k for k in keys])
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:
                ax.text(j, i, "%.2f" % v, ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, fraction=0.03, label="share of the read ceiling")
    ax.set_title("cured along axes: share of the read ceiling")

    for cell in dict.fromkeys(c for c, a in keys if a == "1"):
        pts = []
        for rows, cols, _, us in cells[(cell, "1")]:
            c_us = cub.get((cell, str(rows), str(cols)))
            if c_us and c_us > 0 and us > 0:
                pts.append((rows, c_us / us))
        if pts:
            pts.sort()
            bx.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=cell)
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.axhline(1.0, color="grey", linewidth=0.8)
    bx.set_xlabel("rows (axis 1: one segment per row)")
    bx.set_ylabel("cured speed / CUB DeviceSegmentedReduce speed")
    bx.set_title("against CUB, same run")
    if bx.lines:
        bx.legend(fontsize=8)
    notes = "; ".join("%s %.2f of the ceiling" % (c, r) for c, r, _ in extra)
    fig.suptitle("cured bench axes (%s)%s" % (src.rsplit("/", 1)[-1], ": " + notes if notes else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
