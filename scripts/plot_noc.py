#!/usr/bin/python3
"""Draws warpkit-noc load sweeps: average packet latency against offered load (top) and
accepted against offered throughput (bottom), one line per run, with each run's saturation
marked the way BookSim reports it: the first offered rate whose latency passed the threshold
(status other than "ok"), drawn as a dashed vertical line and labelled with the last stable
rate's accepted throughput.

  scripts/plot_noc.py RUN [RUN...] [--label TEXT]... [--title TEXT] [--out FILE.png]

A RUN is what warpkit-noc writes with --json FILE (the title and each line's label then come
from its params: topology, size, traffic, routing) or with --csv FILE (give --label and
--title, or the lines are called by their file names). Run with /usr/bin/python3 (Debian's
matplotlib).
"""
import argparse
import csv
import json
import math
import sys
from pathlib import Path


def fail(msg):
    print(f"plot_noc.py: {msg}", file=sys.stderr)
    sys.exit(2)


def number(text, what, path):
    try:
        v = float(text)
    except (TypeError, ValueError):
        fail(f"'{path}': {what} {text!r} is not a number")
    return v


def points_of_json(doc, path):
    """The rate points of a warpkit-noc --json document."""
    points = doc.get("points") if isinstance(doc, dict) else None
    if doc.get("tool") != "warpkit-noc" or not isinstance(points, list) or not points:
        fail(f"'{path}' holds no rate points (is it warpkit-noc --json output?)")
    return points


def describe(params):
    """A short description of a NoC from its params ("mesh 8x8, uniform, xy")."""
    if not isinstance(params, dict):
        return None
    topo = params.get("topology", "noc")
    k, n = params.get("k"), params.get("n")
    size = f" {'x'.join([str(k)] * int(n))}" if k is not None and n is not None else ""
    parts = [f"{topo}{size}"]
    for key in ("traffic", "routing"):
        if params.get(key) is not None and not (key == "routing" and topo != "mesh"):
            parts.append(str(params[key]))
    if params.get("packet_size") not in (None, 1):
        parts.append(f"{params['packet_size']}-flit packets")
    return ", ".join(parts)


def read_run(path):
    """(label, title, rows) of one run; rows are dicts rate/latency/accepted/status."""
    text = None
    try:
        text = Path(path).read_text()
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    rows = []
    label = title = None
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as e:
            fail(f"'{path}' is not JSON: {e}")
        for p in points_of_json(doc, path):
            if not isinstance(p, dict):
                fail(f"'{path}': a rate point is not an object")
            rows.append({"rate": number(p.get("offered_flits_per_node_cycle"), "offered rate",
                                        path),
                         "latency": number(p.get("packet_latency_cycles"), "packet latency",
                                           path),
                         "accepted": number(p.get("accepted_flits_per_node_cycle"),
                                            "accepted rate", path),
                         "status": str(p.get("status", "ok"))})
        label = describe(doc.get("params"))
        title = label
    else:
        reader = csv.DictReader(text.splitlines())
        need = {"rate", "avg_packet_latency", "accepted_rate", "status"}
        if not reader.fieldnames or not need <= set(reader.fieldnames):
            fail(f"'{path}' is not a warpkit-noc table (needs the columns "
                 f"{', '.join(sorted(need))})")
        for r in reader:
            rows.append({"rate": number(r["rate"], "rate", path),
                         "latency": number(r["avg_packet_latency"], "avg_packet_latency", path),
                         "accepted": number(r["accepted_rate"], "accepted_rate", path),
                         "status": r["status"]})
    if not rows:
        fail(f"'{path}' has no rate points")
    rows.sort(key=lambda r: r["rate"])
    return label, title, rows


def saturation(rows):
    """(first unstable offered rate, accepted throughput of the last stable point) or None."""
    last_ok = None
    for r in rows:
        if r["status"] != "ok":
            return r["rate"], (last_ok["accepted"] if last_ok else None)
        last_ok = r
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="warpkit-noc --json or --csv files")
    ap.add_argument("--label", action="append", default=[],
                    help="a run's label in the legend (one per RUN, in order)")
    ap.add_argument("--title", help="the plot's title (default: from the runs' params)")
    ap.add_argument("--out", default="noc_latency.png", help="output PNG")
    a = ap.parse_args()
    if a.label and len(a.label) != len(a.runs):
        fail(f"{len(a.label)} --label for {len(a.runs)} runs: give one per run or none")
    try:
        import matplotlib
    except ImportError:
        fail("needs matplotlib from Debian: apt-get install -y python3-matplotlib, then run "
             "it with /usr/bin/python3")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [read_run(p) for p in a.runs]
    fig, (lat_ax, thr_ax) = plt.subplots(2, 1, figsize=(9, 7.5), sharex=True,
                                         gridspec_kw={"height_ratios": [3, 2]})
    top = 0.0
    for i, ((label, _, rows), path) in enumerate(zip(runs, a.runs)):
        name = a.label[i] if a.label else (label or Path(path).stem)
        ok = [r for r in rows if r["status"] == "ok"]
        line, = lat_ax.plot([r["rate"] for r in ok], [r["latency"] for r in ok], marker="o",
                            label=name)
        colour = line.get_color()
        unstable = [r for r in rows if r["status"] != "ok"]
        if unstable:
            # Past saturation the averages only say "more than the threshold": hollow marks.
            lat_ax.plot([r["rate"] for r in unstable], [r["latency"] for r in unstable], "o",
                        mfc="none", color=colour)
        top = max([top] + [r["latency"] for r in ok])
        thr_ax.plot([r["rate"] for r in rows], [r["accepted"] for r in rows], marker="o",
                    color=colour, label=name)
        sat = saturation(rows)
        if sat:
            rate, accepted = sat
            for ax in (lat_ax, thr_ax):
                ax.axvline(rate, ls="--", lw=1, color=colour)
            text = f"saturated at {rate:g}"
            if accepted is not None:
                text += f"\n(accepted {accepted:.3g})"
            lat_ax.annotate(text, (rate, 0.97 - 0.1 * i), xycoords=("data", "axes fraction"),
                            ha="right", va="top", fontsize=8, color=colour,
                            xytext=(-4, 0), textcoords="offset points")
    rates = [r["rate"] for _, _, rows in runs for r in rows]
    lo, hi = min(rates), max(rates)
    thr_ax.plot([lo, hi], [lo, hi], ls=":", color="grey", lw=1, label="accepted = offered")
    if top > 0 and math.isfinite(top):
        lat_ax.set_ylim(0, top * 1.6)
    lat_ax.set_ylabel("average packet latency (cycles)")
    thr_ax.set_ylabel("accepted (flits/node/cycle)")
    thr_ax.set_xlabel("offered load (flits/node/cycle)")
    for ax in (lat_ax, thr_ax):
        ax.grid(True, alpha=0.3)
    lat_ax.legend(fontsize=8, loc="upper left")
    titles = {t for _, t, _ in runs if t}
    title = a.title or ("NoC latency against load: " + titles.pop() if len(titles) == 1
                        else "NoC latency against load")
    lat_ax.set_title(title)
    fig.tight_layout()
    try:
        fig.savefig(a.out, dpi=110)
    except OSError as e:
        fail(f"cannot write '{a.out}': {e.strerror}")
    print("wrote " + a.out)


if __name__ == "__main__":
    main()
