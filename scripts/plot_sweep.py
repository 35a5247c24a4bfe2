#!/usr/bin/python3
"""Plots a statistic of a warpkit-sweep table over one or two parameters.

  plot_sweep.py TABLE.csv --x COL --stat COL [--stat COL]... [--series COL] [--where COL=V]...
                [--out FILE.png]                     lines: one per stat and series value
  plot_sweep.py TABLE.csv --heatmap --x COL --y COL --stat COL [--where COL=V]...
                [--out FILE.png]                     a heat map of one statistic

Only rows with status "ok" are drawn. Rows that share the plotted coordinates (several seeds,
say) are averaged. Numeric columns sort as numbers, others as text. Needs matplotlib: run it
with /usr/bin/python3.
"""
import argparse
import csv
import math
import sys
from collections import defaultdict


def fail(msg):
    print(f"plot_sweep.py: {msg}", file=sys.stderr)
    sys.exit(2)


def number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def sort_key(values):
    """Numbers in numeric order when every value is a number, else text order."""
    if all(number(v) is not None for v in values):
        return lambda v: number(v)
    return lambda v: v


def read_table(path, where, needed):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    if not rows:
        fail(f"'{path}' has no rows")
    columns = rows[0].keys()
    filters = []
    for w in where:
        if "=" not in w:
            fail(f"--where '{w}': expected COLUMN=VALUE")
        col, val = w.split("=", 1)
        filters.append((col, val))
    for col in needed + [c for c, _ in filters]:
        if col not in columns:
            fail(f"no column '{col}' in '{path}' (columns: {', '.join(columns)})")
    kept = [r for r in rows if r.get("status") == "ok" and all(r[c] == v for c, v in filters)]
    if not kept:
        fail(f"no ok rows in '{path}' match {' and '.join(where) or 'the table'}")
    return kept


def mean(values):
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else float("nan")


def title_of(args):
    return ", ".join(args.where) if args.where else None


def plot_lines(plt, rows, args):
    xs = sorted({r[args.x] for r in rows}, key=sort_key([r[args.x] for r in rows]))
    series = [None]
    if args.series:
        vals = [r[args.series] for r in rows]
        series = sorted(set(vals), key=sort_key(vals))
    numeric_x = all(number(x) is not None for x in xs)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for stat in args.stat:
        for s in series:
            acc = defaultdict(list)
            for r in rows:
                if s is None or r[args.series] == s:
                    acc[r[args.x]].append(number(r[stat]))
            pts = [(x, mean(acc[x])) for x in xs if x in acc]
            label = stat if s is None else (f"{args.series}={s}" if len(args.stat) == 1
                                            else f"{stat}, {args.series}={s}")
            px = [number(x) if numeric_x else xs.index(x) for x, _ in pts]
            ax.plot(px, [y for _, y in pts], marker="o", label=label)
    if not numeric_x:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=30, ha="right")
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.stat[0] if len(args.stat) == 1 else "value")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    if title_of(args):
        ax.set_title(title_of(args))
    return fig


def plot_heatmap(plt, rows, args):
    if len(args.stat) != 1:
        fail("--heatmap draws one --stat")
    stat = args.stat[0]
    xv = [r[args.x] for r in rows]
    yv = [r[args.y] for r in rows]
    xs = sorted(set(xv), key=sort_key(xv))
    ys = sorted(set(yv), key=sort_key(yv))
    acc = defaultdict(list)
    for r in rows:
        acc[(r[args.x], r[args.y])].append(number(r[stat]))
    grid = [[mean(acc[(x, y)]) if (x, y) in acc else float("nan") for x in xs] for y in ys]
    fig, ax = plt.subplots(figsize=(1.2 + 0.6 * len(xs), 1.2 + 0.45 * len(ys)))
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys)
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    finite = [v for row in grid for v in row if math.isfinite(v)]
    mid = (min(finite) + max(finite)) / 2 if finite else 0
    for j, row in enumerate(grid):
        for i, v in enumerate(row):
            if math.isfinite(v):
                ax.text(i, j, f"{v:.3g}", ha="center", va="center", fontsize=7,
                        color="black" if v > mid else "white")
    fig.colorbar(im, ax=ax, label=stat)
    if title_of(args):
        ax.set_title(title_of(args))
    return fig


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("table", help="the sweep's CSV table")
    p.add_argument("--x", required=True, help="parameter (column) on the x axis")
    p.add_argument("--y", help="parameter on the y axis (with --heatmap)")
    p.add_argument("--stat", action="append", required=True, help="statistic to plot")
    p.add_argument("--series", help="one line per value of this column")
    p.add_argument("--where", action="append", default=[], help="keep rows with COLUMN=VALUE")
    p.add_argument("--heatmap", action="store_true", help="heat map over --x and --y")
    p.add_argument("--out", default="sweep.png", help="output image (default sweep.png)")
    args = p.parse_args()
    if args.heatmap and not args.y:
        fail("--heatmap needs --y")
    if args.y and not args.heatmap:
        fail("--y is for --heatmap")
    needed = [args.x] + args.stat + ([args.y] if args.y else []) + (
        [args.series] if args.series else [])
    rows = read_table(args.table, args.where, needed)
    try:
        import matplotlib
    except ImportError:
        fail("needs matplotlib from Debian: apt-get install -y python3-matplotlib, then run it "
             "with /usr/bin/python3")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plot_heatmap(plt, rows, args) if args.heatmap else plot_lines(plt, rows, args)
    fig.tight_layout()
    try:
        fig.savefig(args.out, dpi=120)
    except OSError as e:
        fail(f"cannot write '{args.out}': {e.strerror}")
    print(f"plot_sweep.py: wrote {args.out} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
