#!/usr/bin/python3
"""Draws warpkit-power output as PNG: the Fig. 12-style breakdown of dynamic power (from
`warpkit-power report --json`) and the power trace (from `--trace`, optionally overlaid with
the RLC-filtered total from `--rlc-trace`).

    scripts/plot_power.py --json report.json --breakdown breakdown.png
    scripts/plot_power.py --trace trace.csv [--rlc rlc.csv] [--json report.json | --title T]
                          --trace-png trace.png

The paper's figures stand beside ours where it reports them; the groups it gives no figure for
are marked "not reported", not drawn as zero.

Run with /usr/bin/python3 (Debian's matplotlib and numpy).
"""
import argparse
import csv
import json
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("this script needs matplotlib and numpy from Debian: "
             "apt-get install -y python3-matplotlib python3-numpy, then run it with /usr/bin/python3")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PAPER = {"execution_units": 20.1, "register_file": 13.0, "pipeline": 11.4, "mem_ctrl": 4.8,
         "dram": 17.8}
GROUPS = ["execution_units", "register_file", "pipeline", "front_end", "l2", "noc", "mem_ctrl",
          "dram", "other", "idle_sm"]
STACK = [("execution units", ["int_alu", "fp", "sfu"]),
         ("register file", ["rf_banks", "operand_collectors", "rf_crossbar"]),
         ("pipeline", ["pipeline"]),
         ("front end", ["front_end", "icache", "scheduler"]),
         ("other SM", ["shared_memory", "shared_crossbar", "l1d", "const_cache", "tex_cache",
                       "coalescer"]),
         ("L2 + NoC", ["l2", "noc"]),
         ("MC + DRAM", ["mem_ctrl", "dram"]),
         ("idle SMs", ["idle_sm"]),
         ("leakage", ["leakage"])]


def fail(msg):
    print("plot_power.py: " + msg, file=sys.stderr)
    sys.exit(2)


def paper_bar(ax, xs, values, width, label):
    """The paper's bars; where the paper reports no figure (None), an outlined empty slot
    marked "not reported" instead of a bar of zero height."""
    shown = [(x, v) for x, v in zip(xs, values) if v is not None]
    ax.bar([x for x, _ in shown], [v for _, v in shown], width=width, label=label)
    for x, v in zip(xs, values):
        if v is None:
            ax.text(x, 0.5, "not reported", rotation=90, ha="center", va="bottom", fontsize=7,
                    color="dimgrey")


def report_title(json_path):
    """"<kernels> on <preset>" from a warpkit-power report --json file."""
    try:
        with open(json_path) as f:
            report = json.load(f)
        names = [k["kernel"] for k in report["kernels"]]
        return "%s on %s" % (", ".join(names), report["preset"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail("cannot read report '%s': %s" % (json_path, e))


def breakdown(json_path, out, with_idle):
    try:
        with open(json_path) as f:
            report = json.load(f)
        kernels = report["kernels"]
    except (OSError, ValueError, KeyError) as e:
        fail("cannot read report '%s': %s" % (json_path, e))
    if not kernels:
        fail("no kernels in '%s'" % json_path)
    key = "share" if with_idle else "share_without_idle"
    avg = report.get("figure12_average", {})
    shares = [100 * avg.get(g, {}).get(key, 0.0) for g in GROUPS]
    names = [k["kernel"] for k in kernels]
    fig, (pie_ax, bar_ax) = plt.subplots(1, 2, figsize=(13, 5.5),
                                         gridspec_kw={"width_ratios": [1, 1.3]})
    labels = [g.replace("_", " ") if s >= 0.5 else "" for g, s in zip(GROUPS, shares)]
    pie_ax.pie([max(s, 0) for s in shares], labels=labels, autopct=lambda p: "%.1f%%" % p
               if p >= 2 else "", startangle=90, counterclock=False)
    pie_ax.set_title("dynamic power, average of %d kernel(s)%s" %
                     (len(kernels), "" if with_idle else ", idle SMs left out"))
    x = range(len(GROUPS))
    bar_ax.bar([i - 0.2 for i in x], shares, width=0.4, label="warpkit (%s)" % report["preset"])
    paper_bar(bar_ax, [i + 0.2 for i in x], [PAPER.get(g) for g in GROUPS], 0.4,
              "paper 001, Fig. 12 (GTX480)")
    bar_ax.set_xticks(list(x))
    bar_ax.set_xticklabels([g.replace("_", "\n") for g in GROUPS], fontsize=8)
    bar_ax.set_ylabel("share of dynamic power (%)")
    bar_ax.legend()
    bar_ax.set_title("kernels: " + ", ".join(names), fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote " + out)


def read_csv(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail("cannot read '%s': %s" % (path, e))
    if not rows:
        fail("no rows in '%s'" % path)
    return rows


def trace(trace_path, rlc_path, out, title):
    rows = read_csv(trace_path)
    try:
        t = [float(r["time_us"]) for r in rows]
        layers = [[sum(float(r[c]) for c in cols) for r in rows] for _, cols in STACK]
        total = [float(r["total"]) for r in rows]
    except (KeyError, ValueError) as e:
        fail("'%s' is not a warpkit-power trace: %s" % (trace_path, e))
    fig, ax = plt.subplots(figsize=(11, 5))
    ax.stackplot(t, layers, labels=[n for n, _ in STACK], step="post", alpha=0.85)
    ax.step(t, total, where="post", color="black", linewidth=1, label="total")
    if rlc_path:
        rr = read_csv(rlc_path)
        ax.plot([float(r["time_us"]) for r in rr], [float(r["filtered"]) for r in rr],
                color="red", linewidth=1.5, label="total after RLC filter")
    ax.set_xlabel("time (us)")
    ax.set_ylabel("power (W)")
    ax.set_title("power trace: %s" % title if title else "power trace")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote " + out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="report from warpkit-power report --json")
    ap.add_argument("--breakdown", default="power_breakdown.png", help="output PNG")
    ap.add_argument("--with-idle", action="store_true", help="keep idle SMs in the pie")
    ap.add_argument("--trace", help="trace from warpkit-power report --trace")
    ap.add_argument("--rlc", help="filtered total from warpkit-power report --rlc-trace")
    ap.add_argument("--trace-png", default="power_trace.png", help="output PNG")
    ap.add_argument("--title", help="the trace plot's title (default: the kernel and preset "
                                    "of --json's report)")
    a = ap.parse_args()
    if not a.json and not a.trace:
        fail("give --json and/or --trace")
    if a.json:
        breakdown(a.json, a.breakdown, a.with_idle)
    if a.trace:
        title = a.title or (report_title(a.json) if a.json else None)
        trace(a.trace, a.rlc, a.trace_png, title)


if __name__ == "__main__":
    main()
