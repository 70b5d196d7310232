"""Figure and axis helpers shared by the figures: titled figures, legends, log2 N axes."""

import math
import os
from pathlib import Path

import numpy as np
import matplotlib.pyplot as plt
from matplotlib import ticker

from .text import fmt, fmt_n, mpl_text, plain_tick, wrap, wrap_lines


def question(results):
    a = results.attrs
    return mpl_text(a["question"] or a["title"] or a["experiment_path"] or
                    Path(os.fsencode(results.path).decode("utf-8", "replace")).name)


def figure(results, nrows, ncols, panel_w, panel_h, extra_h=0.0, subtitle=None):
    """A constrained-layout figure of nrows x ncols panels titled with the question (and a
    subtitle line: what part of the curves it shows)."""
    width = panel_w * ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, panel_h * nrows + extra_h),
                             squeeze=False, layout="constrained")
    title = wrap(question(results), max(40, int(width * 10)))
    fig.suptitle(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11,
                 fontweight="bold")
    return fig, axes


def figure_legend(fig, handles, title=None, ncol=4, height_in=0.55, note=None, labels=None):
    """A legend under all panels, in a band the layout keeps free (matplotlib 3.6 has no
    loc="outside ..."), and an optional note under it."""
    height = height_in + (0.25 if note else 0)
    frac = height / fig.get_figheight()
    fig.get_layout_engine().set(rect=(0, frac, 1, 1 - frac))
    above_note = 0.25 / fig.get_figheight() if note else 0.0
    fig.legend(handles=handles, labels=labels, loc="lower center",
               bbox_to_anchor=(0.5, above_note), ncol=ncol, frameon=False, title=title,
               title_fontsize=8)
    if note:
        fig.text(0.5, 0.04 / fig.get_figheight(), note, ha="center", va="bottom", fontsize=8,
                 color="0.3")


def line_figure(out, panels, proxies, lines_per_curve=1):
    """One panel per scaling mode, tall enough for a legend of `lines_per_curve` lines per curve."""
    entries = max(len(cs) for _, cs in panels) * lines_per_curve + proxies + 1
    return figure(out.results, 1, len(panels), 6.0, 4.6 + 0.2 * entries)


def scaling_panels(curves, minimum_rows):
    """(scaling, curves) per scaling mode that has curves with at least minimum_rows rows."""
    out = []
    for scaling in ("weak", "strong"):
        cs = [c for c in curves if c.scaling == scaling and c.rows >= minimum_rows]
        if cs:
            out.append((scaling, cs))
    return out


def n_axis(ax, lo, hi, label, swept=()):
    """A log2 axis from lo to hi with power-of-two ticks labelled as integers (1,024); where the
    node counts `swept` are not all powers of two (3, 6, 12, ...), ticks at the counts swept."""
    lo, hi = float(lo), float(hi)
    ax.set_xscale("log", base=2)
    ax.set_xlim(lo / 2 ** 0.35, hi * 2 ** 0.35)
    counts = sorted({float(n) for n in swept if lo <= n <= hi})
    if counts and any(n != 2.0 ** round(math.log2(n)) for n in counts):
        # At most 11, counted down from the largest, and the smallest where the steps leave it out.
        step = max(1, math.ceil(len(counts) / 11))
        ticks = counts[::-1][::step][::-1]
        if ticks[0] != counts[0] and step > 1:
            ticks.insert(0, counts[0])
        ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.set_xlabel(label)
        return
    k0, k1 = math.floor(math.log2(lo)), math.floor(math.log2(hi))
    step = max(1, math.ceil((k1 - k0 + 1) / 11))
    # Counted down from the largest power of two within the axis, so that the largest N swept
    # has its label where it is one (4,096), and the one below it otherwise (4,096 for 5,272).
    ticks = sorted(2.0 ** k for k in range(k1, k0 - 1, -step))
    # The smallest N swept too where it is a power of two and the steps left it out (a curve's
    # reference, N = 1): its label is short, and fits a step of two or more from the next.
    if lo == 2.0 ** k0 and ticks[0] != lo:
        ticks.insert(0, lo)
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel(label)


def n_label(curves, relative=False):
    units = {c.n_unit for c in curves}
    unit = mpl_text(units.pop()) if len(units) == 1 else "processing units"
    if relative:
        return f"N / N_ref ({unit} over each curve's smallest N, log scale)"
    return f"N ({unit}, log scale)"


# The least span of a log y axis, as a ratio of its ends: values within a few per cent of each
# other (one node count, or a flat 1 - alpha_eff) do not fill the panel as if they were far apart.
LEAST_LOG_SPAN = 1.5


def log_y_plain(ax):
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
    lo, hi = ax.get_ylim()
    if 0 < lo < hi < lo * LEAST_LOG_SPAN:
        middle = (lo * hi) ** 0.5
        lo, hi = middle / LEAST_LOG_SPAN ** 0.5, middle * LEAST_LOG_SPAN ** 0.5
        ax.set_ylim(lo, hi)
    if hi / lo < 3:  # a narrow range: evenly spaced ticks, with the digits that tell them apart
        ticks = [v for v in ticker.MaxNLocator(5).tick_values(lo, hi) if lo <= v <= hi]
        if len(ticks) >= 2:
            # (the fewest significant digits, 2 or more, that write every tick exactly: a step of
            # 0.0025 needs 0.0425, not 0.042)
            digits = next((d for d in range(2, 9)
                           if all(abs(float(f"{v:.{d}g}") - v) <= 1e-9 * abs(v) for v in ticks)), 9)
            ax.yaxis.set_major_locator(ticker.FixedLocator(ticks))
            ax.yaxis.set_major_formatter(ticker.FuncFormatter(
                lambda v, _pos: fmt(v, digits) if v > 0 else ""))
            ax.yaxis.set_minor_locator(ticker.NullLocator())
    elif hi / lo < 30:  # under 1.5 decades: label 2 and 5 too, or the axis has one label
        ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


# Characters of legend text (8 pt) an inch of a column holds, with room to spare.
LEGEND_CHARS_PER_IN = 15


def legend_below(ax, handles, title=None, ncol=1, width_in=6.0):
    """A legend under the axes whose labels (and title) are wrapped to columns `width_in`
    inches wide together, so that long names make the legend taller, never the figure wider
    (which would squeeze the axes). Returns the lines the wrapping added to a column, for the
    caller to make the figure that much taller (about 0.2 inch a line)."""
    chars = max(20, int((width_in / ncol - 0.6) * LEGEND_CHARS_PER_IN))
    added = []  # per entry
    for h in handles:
        text = h.get_label()
        wrapped = wrap_lines(text, chars)
        added.append(wrapped.count("\n") - text.count("\n"))
        h.set_label(wrapped)
    # matplotlib fills the columns in order, the first n mod ncol of them one entry longer
    # (np.array_split): the tallest column's added lines, then the title's, which spans them all.
    tallest, start = 0, 0
    for column in range(ncol):
        size = len(handles) // ncol + (1 if column < len(handles) % ncol else 0)
        tallest = max(tallest, sum(added[start:start + size]))
        start += size
    if title:
        wrapped = wrap_lines(title, max(20, int((width_in - 0.6) * LEGEND_CHARS_PER_IN)))
        tallest += wrapped.count("\n") - title.count("\n")
        title = wrapped
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol,
              frameon=False, title=title, title_fontsize=8, alignment="left")
    return tallest


def scaling_title(scaling, what):
    if scaling == "weak":
        return f"{what}, weak scaling\n(work per node fixed: speedup = throughput ratio)"
    return f"{what}, strong scaling\n(global batch fixed: speedup = time-to-solution ratio)"


def grid(n):
    ncols = 1 if n == 1 else 2 if n <= 4 else 3 if n <= 9 else 4
    return math.ceil(n / ncols), ncols


def category_axis(ax, ns, unit):
    x = np.arange(len(ns))
    ax.set_xticks(x)
    many = len(ns) > 10
    ax.set_xticklabels([fmt_n(n) for n in ns], rotation=90 if many else 0,
                       fontsize=7 if many else 8)
    pad = max(0, 4 - len(ns)) / 2  # a lone bar stays bar-sized
    ax.set_xlim(-0.6 - pad, len(ns) - 0.4 + pad)
    ax.set_xlabel(f"N ({mpl_text(unit)})")
    ax.grid(axis="x", visible=False)
    return x
