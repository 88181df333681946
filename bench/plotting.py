"""What the bench/*/plot.py scripts share: reading a recorded CSV, a
matplotlib figure without a display, and saving it. Debian's
python3-matplotlib (scripts/setup --tests installs it)."""
import csv
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on a build machine
import matplotlib.pyplot as plt  # noqa: E402


def args(usage, count):
    """sys.argv[1:], exactly `count` of them, or exit with `usage`."""
    if len(sys.argv) != count + 1:
        sys.exit("usage: " + usage)
    return sys.argv[1:]


def rows(*paths):
    """Every row of the CSV files, as dicts."""
    out = []
    for path in paths:
        with open(path, newline="") as f:
            out.extend(csv.DictReader(f))
    return out


def medians(records, key, value="value"):
    """The median of `value` per key(row), rounds folded together."""
    groups = defaultdict(list)
    for r in records:
        groups[key(r)].append(float(r[value]))
    return {k: statistics.median(v) for k, v in groups.items()}


def panels(count, width=5.5, height=4.2):
    fig, axes = plt.subplots(1, count, figsize=(width * count, height), squeeze=False)
    return fig, list(axes[0])


def finish_axes(ax, title, xlabel, ylabel, log2_x=False):
    """Titles, a y axis from zero, the legend and a light grid."""
    if log2_x:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def label_bars(ax, bars, fmt="{:.0f}"):
    for b in bars:
        ax.annotate(fmt.format(b.get_height()), (b.get_x() + b.get_width() / 2, b.get_height()),
                    ha="center", va="bottom", fontsize=7)


def save(fig, path, title=None):
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
