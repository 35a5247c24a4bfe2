#!/usr/bin/python3
"""Plots the output of `warpkit-warped-gates --json` in the style of the Warped Gates paper
(Abdel-Majeed, Wong, Annavaram, MICRO 2013):

  <prefix>_idle_periods.png  Fig. 3: idle-period length distributions of the INT and FP
                             clusters under two-level scheduling (ConvPG), GATES and Blackout,
                             split into the three regions (< idle-detect: wasted; up to
                             idle-detect + BET: gating loses energy; longer: gating saves).
  <prefix>_energy.png        Fig. 9: INT and FP static-energy savings per technique and mix.
  <prefix>_performance.png   Fig. 10 and Fig. 8b/8c: cycles relative to no gating, wakeups
                             relative to ConvPG, time in the compensated state.

Usage: warpkit-warped-gates --json > wg.json
       /usr/bin/python3 scripts/plot_warped_gates.py wg.json [--mix balanced] [--out wg]
Run it with Debian's /usr/bin/python3 (matplotlib, numpy).
"""

import argparse
import json
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("this script needs matplotlib and numpy from Debian: "
             "apt-get install -y python3-matplotlib python3-numpy, then run it with /usr/bin/python3")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# Region colours of the paper's Fig. 3: blue, red, green.
REGION_COLOURS = ("#3b6fb6", "#c8423b", "#3f9b4a")
FIG3_TECHNIQUES = (("ConvPG", "Two-level (ConvPG)"), ("GATES", "GATES"),
                   ("Naive Blackout", "GATES + Blackout"))
TYPES = (("int", "INT"), ("fp", "FP"))


def load(path):
    try:
        with (sys.stdin if path == "-" else open(path)) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"plot_warped_gates: cannot read {path}: {e}")
    if data.get("study") != "warped_gates" or not data.get("mixes"):
        sys.exit(f"plot_warped_gates: {path} is not warpkit-warped-gates --json output")
    return data


def technique(mix, name):
    for t in mix["techniques"]:
        if t["technique"] == name:
            return t
    sys.exit(f"plot_warped_gates: mix {mix['mix']} has no technique '{name}'")


def plot_idle_periods(data, mix_name, path):
    mixes = {m["mix"]: m for m in data["mixes"]}
    if mix_name not in mixes:
        sys.exit(f"plot_warped_gates: no mix '{mix_name}' (have: {', '.join(mixes)})")
    mix = mixes[mix_name]
    bet = data["sm"]["gating"]["break_even"]
    fig, axes = plt.subplots(len(TYPES), len(FIG3_TECHNIQUES), figsize=(13, 6.5), sharey="row")
    for row, (key, label) in enumerate(TYPES):
        for col, (name, title) in enumerate(FIG3_TECHNIQUES):
            ax = axes[row][col]
            t = technique(mix, name)
            ip = t[key]["idle_periods"]
            idle_detect = t[key]["final_idle_detect"]
            lower = np.array(ip["lengths"]["lower_bounds"])
            counts = np.array(ip["lengths"]["counts"], dtype=float)
            total = counts.sum()
            share = counts / total * 100 if total else counts
            colours = [REGION_COLOURS[0] if v < idle_detect else
                       REGION_COLOURS[1] if v <= idle_detect + bet else REGION_COLOURS[2]
                       for v in lower]
            ax.bar(lower[1:], share[1:], width=0.9, color=colours[1:])
            n = ip["below_idle_detect"] + ip["up_to_break_even"] + ip["beyond_break_even"]
            regions = [ip["below_idle_detect"], ip["up_to_break_even"], ip["beyond_break_even"]]
            for i, r in enumerate(regions):
                ax.text(0.97, 0.95 - 0.09 * i, f"{100 * r / n:.1f}%" if n else "-",
                        transform=ax.transAxes, ha="right", va="top",
                        color=REGION_COLOURS[i], fontsize=10, fontweight="bold")
            ax.axvline(idle_detect - 0.5, color="grey", lw=0.8, ls=":")
            ax.axvline(idle_detect + bet + 0.5, color="grey", lw=0.8, ls=":")
            ax.set_title(f"{title}: {label}", fontsize=10)
            ax.set_xlim(0, lower[-1] + 1)
            ax.set_xticks([1, idle_detect, idle_detect + bet, 32, 48, lower[-1]])
            ax.set_xticklabels(["1", str(idle_detect), str(idle_detect + bet), "32", "48",
                                f"{lower[-1]}+"])
            if row == len(TYPES) - 1:
                ax.set_xlabel("idle period length (cycles)")
            if col == 0:
                ax.set_ylabel("share of idle periods (%)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in REGION_COLOURS]
    fig.legend(handles, ["< idle-detect (not gated)", "idle-detect .. idle-detect + BET "
                         "(gating loses)", "> idle-detect + BET (gating saves)"],
               loc="lower center", ncol=3, frameon=False, fontsize=9)
    fig.suptitle(f"Idle-period lengths, mix {mix_name} (cf. paper 003 Fig. 3)", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def grouped_bars(ax, groups, series, values, ylabel, percent, reference=None):
    width = 0.8 / len(series)
    x = np.arange(len(groups))
    for i, name in enumerate(series):
        v = np.array([values[g][name] for g in groups], dtype=float)
        ax.bar(x + (i - (len(series) - 1) / 2) * width, v * (100 if percent else 1), width,
               label=name)
    if reference is not None:
        ax.axhline(reference, color="black", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(groups, fontsize=9)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", lw=0.4, alpha=0.6)


def collect(data, field):
    """{group: {technique: value}} over the mixes plus a 'mean' group."""
    out = {}
    for m in data["mixes"]:
        out[m["mix"]] = {t["technique"]: field(m, t) for t in m["techniques"]}
    names = list(next(iter(out.values())).keys())
    out["mean"] = {n: float(np.mean([out[m["mix"]][n] for m in data["mixes"]])) for n in names}
    return out


def plot_energy(data, path):
    gated = [t["technique"] for t in data["mixes"][0]["techniques"] if t["technique"] != "No gating"]
    groups = [m["mix"] for m in data["mixes"]] + ["mean"]
    fig, axes = plt.subplots(2, 1, figsize=(12, 7.5))
    for ax, (key, label) in zip(axes, TYPES):
        vals = collect(data, lambda m, t, k=key: t[k]["static_energy_savings"])
        grouped_bars(ax, groups, gated, vals, f"{label} static energy saved (%)", True, 0)
        ax.set_title(f"{label} units: static-energy savings vs never gating (cf. Fig. 9"
                     f"{'a' if key == 'int' else 'b'})", fontsize=10)
    axes[0].legend(ncol=len(gated), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.1),
                   frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_performance(data, path):
    gated = [t["technique"] for t in data["mixes"][0]["techniques"] if t["technique"] != "No gating"]
    groups = [m["mix"] for m in data["mixes"]] + ["mean"]
    fig, axes = plt.subplots(3, 1, figsize=(12, 10))
    cycles = collect(data, lambda m, t: t["relative_cycles"])
    grouped_bars(axes[0], groups, gated, cycles, "cycles / no gating", False, 1.0)
    lo = min(min(v.values()) for v in cycles.values())
    hi = max(max(v.values()) for v in cycles.values())
    axes[0].set_ylim(min(0.99, lo - 0.005), hi + 0.01)
    axes[0].set_title("Execution time relative to no gating (cf. Fig. 10)", fontsize=10)
    wake = collect(data, lambda m, t: 0.5 * (t["int"]["wakeups_vs_convpg"] +
                                             t["fp"]["wakeups_vs_convpg"]))
    grouped_bars(axes[1], groups, gated, wake, "wakeups / ConvPG", False, 1.0)
    axes[1].set_title("Wakeups relative to ConvPG, mean of INT and FP (cf. Fig. 8c)",
                      fontsize=10)
    comp = collect(data, lambda m, t: t["int"]["compensated_fraction"])
    grouped_bars(axes[2], groups, gated, comp, "INT cycles compensated (%)", True, 0)
    axes[2].set_title("Time the INT clusters spend in the compensated state (cf. Fig. 8b)",
                      fontsize=10)
    axes[0].legend(ncol=len(gated), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.12),
                   frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="output of warpkit-warped-gates --json ('-' for stdin)")
    ap.add_argument("--mix", default=None,
                    help="mix for the idle-period figure (default: balanced if present)")
    ap.add_argument("--out", default="warped_gates", help="output file prefix")
    args = ap.parse_args()
    data = load(args.json)
    names = [m["mix"] for m in data["mixes"]]
    mix = args.mix or ("balanced" if "balanced" in names else names[0])
    outputs = [f"{args.out}_idle_periods.png", f"{args.out}_energy.png",
               f"{args.out}_performance.png"]
    plot_idle_periods(data, mix, outputs[0])
    plot_energy(data, outputs[1])
    plot_performance(data, outputs[2])
    for o in outputs:
        print(o)


if __name__ == "__main__":
    main()
