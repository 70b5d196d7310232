"""The comparison of curves: Amdahl ceilings next to the best simulated speedups, and costs."""

import math

import numpy as np
import matplotlib.pyplot as plt
from matplotlib import ticker
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import costs
from .axes import figure_legend, question, scaling_panels
from .facets import Looks, columns_legend, legend_height, many, unique
from .text import drift_text, fmt, fmt_n, mpl_text, no_ceiling_in_sight, short_tick, wrap

LEGEND = (Patch(color="0.5", label="ceiling of the Amdahl fit"),
          Patch(facecolor="0.5", hatch="//", edgecolor="white",
                label="hatched: not Amdahl-shaped (fewer than 3 N, fit residual ≥ 5 %, or 1 − α_eff growing with N), indicative"),
          Line2D([], [], color="black", marker="D", ls="", ms=5,
                 label="largest simulated speedup"))


def _best(c):
    s = c.data["speedup"][np.isfinite(c.data["speedup"]) & (c.data["speedup"] > 0)]
    return float(s.max()) if s.size else math.nan


def _width_in(fig, text, size=8):
    """The width of a line of text in inches (it does not depend on the layout)."""
    renderer = fig.canvas.get_renderer()
    width, _, _ = renderer.get_text_width_height_descent(text, FontProperties(size=size),
                                                         ismath=False)
    return width / fig.dpi


def _clear(width, start, marker, lo, hi, axis_in):
    """Whether text `width` inches wide written from `start` on a log axis from lo to hi
    (axis_in inches wide) stays clear of a diamond marker at `marker`."""
    per_in = math.log10(hi / lo) / max(axis_in, 1.0)   # decades per inch
    end = start * 10 ** ((width + 0.06) * per_in)
    return not start / 10 ** (0.06 * per_in) < marker < end


def _largest_n(c):
    return float(c.data["n"].max())


def _ceiling_text(c, suffix, mixed_references, mixed_largest):
    """The label after a ceiling's bar."""
    text = f"{fmt(c.ceiling)}×" + ("" if c.amdahl_shaped or not suffix else " (not Amdahl-shaped)")
    if mixed_references:  # a ceiling is over its own curve's smallest N
        text += f" over N = {fmt_n(c.n_reference)}"
    if mixed_largest:  # (an interrupted sweep: the fits span different N, which the bars hide)
        text += f", fit to N = {fmt_n(_largest_n(c))}"
    return text


def _no_bar_texts(c):
    """What a row without a bar says, longest first: the first that fits is written."""
    sight = no_ceiling_in_sight(c)
    if sight:
        return [sight, f"none in sight: {drift_text(c)}", "none in sight"]
    if not math.isfinite(c.alpha):
        return ["no fit"]
    return ["no ceiling: no speedup over the smallest N (α ≤ 0)", "no speedup (α ≤ 0)"]


def _drawn(c):
    """Whether a curve's ceiling is drawn as a bar: a speedup over the reference (α > 0) and a
    ceiling in sight."""
    return c.alpha > 0 and not no_ceiling_in_sight(c)


def _ceiling_panel(ax, group, colour, label, suffix, panel_w):
    y = np.arange(len(group))[::-1]
    labels = [wrap(label(c), 34) for c in group]
    mixed_references = len({c.n_reference for c in group}) > 1
    mixed_largest = len({_largest_n(c) for c in group}) > 1
    fig = ax.figure
    # The axis is about the panel less its tick labels.
    axis_in = panel_w - 0.45 - max(_width_in(fig, t) for t in "\n".join(labels).split("\n"))
    # (alpha <= 0, a ceiling of 1 or less: no speedup at all, no bar)
    finite = [c.ceiling for c in group if math.isfinite(c.ceiling) and _drawn(c)]
    best = [_best(c) for c in group]
    shown = finite + [b for b in best if math.isfinite(b)]
    hi = max(shown + [1.0]) * 3
    lo = min(shown + [1.0]) / 1.5
    right = hi * (1.8 if any(math.isfinite(c.ceiling) and _drawn(c) for c in group) else 1)
    # Room on the right for each ceiling's label, written from just after its bar: its end at
    # log10 a + k (log10 right - log10 lo) must stay left of log10 right, k its width over the
    # axis's (the decades per inch grow with the right end, hence the division).
    # A label that the marker would cover starts after it (after_marker, below): 0.1 inch on.
    for c, b in zip(group, best):
        if math.isfinite(c.ceiling) and _drawn(c):
            k = (_width_in(fig, _ceiling_text(c, suffix, mixed_references, mixed_largest)) + 0.15) / max(axis_in, 1.0)
            start = math.log10(c.ceiling * 1.08)
            if math.isfinite(b) and b >= c.ceiling * 1.08:
                start, k = math.log10(b), k + 0.1 / max(axis_in, 1.0)
            if k < 0.9:
                right = max(right, 10 ** ((start - k * math.log10(lo)) / (1 - k)))
    # A row without a bar writes the longest of its texts that fits: from the left, clear of its
    # marker, or else after the marker, with room made as above for at most half the axis (a
    # panel of a grid is narrow: there the shorter texts).
    no_bar = {}
    for i, (c, b) in enumerate(zip(group, best)):
        if _drawn(c):
            continue
        texts = _no_bar_texts(c)
        no_bar[i] = (texts[-1], True)
        for text in texts:
            width = _width_in(fig, text)
            if not math.isfinite(b) or _clear(width, lo * 1.15, b, lo, right, axis_in):
                no_bar[i] = (text, False)
                break
            k = (width + 0.25) / max(axis_in, 1.0)
            if k < 0.5:
                right = max(right, 10 ** ((math.log10(b) - k * math.log10(lo)) / (1 - k)))
                no_bar[i] = (text, True)
                break

    def after_marker(b):  # where text starts just right of the largest-speedup marker
        return b * 10 ** (0.1 * math.log10(right / lo) / max(axis_in, 1.0))

    for i, (yi, c, b) in enumerate(zip(y, group, best)):
        if not _drawn(c):  # no speedup over the reference, or no ceiling in sight: no bar
            text, after = no_bar[i]
            if math.isfinite(b):
                ax.plot(b, yi, marker="D", color="black", ms=5, zorder=3)
                # (room made for a later row widened the axis: a text from the left may now
                # reach the marker, and then a shorter one or the room after it serves)
                if not after and not _clear(_width_in(fig, text), lo * 1.15, b, lo, right, axis_in):
                    text = next((t for t in _no_bar_texts(c)
                                 if _clear(_width_in(fig, t), lo * 1.15, b, lo, right, axis_in)), text)
                    after = not _clear(_width_in(fig, text), lo * 1.15, b, lo, right, axis_in)
            ax.text(after_marker(b) if after else lo * 1.15, yi, text, va="center", ha="left", fontsize=8)
            continue
        value = c.ceiling if math.isfinite(c.ceiling) else hi
        ax.barh(yi, value - lo, left=lo, height=0.62, color=colour(c), alpha=0.85,
                hatch=None if c.amdahl_shaped else "//", edgecolor="white", lw=0)
        if math.isfinite(b):
            ax.plot(b, yi, marker="D", color="black", ms=5, zorder=3)
        if math.isfinite(c.ceiling):
            text = _ceiling_text(c, suffix, mixed_references, mixed_largest)
            # After the bar, or after the marker where the marker would cover the text.
            at = value * 1.08
            if math.isfinite(b) and not _clear(_width_in(fig, text), at, b, lo, right,
                                                axis_in):
                at = after_marker(b)
            ax.text(at, yi, text, va="center", ha="left", fontsize=8)
        else:  # the bar runs off the axis; say why inside it, clear of the marker
            ax.text(lo * 1.15, yi, "∞: no ceiling (α = 1, linear)", va="center",
                    ha="left", fontsize=8, color="white", fontweight="bold")
    ax.set_xscale("log")
    ax.set_xlim(lo, right)
    ax.set_ylim(-0.6, len(group) - 0.4)  # (the rows where bars would be, bars or none)
    # (short labels, 10k, 1M, and at most about two an inch, so that none runs into the next;
    # decades counted from 1, the reference speedup, so that it is labelled where it is in view)
    decades = math.ceil(math.log10(right)) - math.floor(math.log10(lo))
    stride = max(1, math.ceil(decades / max(2, int(2 * axis_in))))
    ax.xaxis.set_major_locator(ticker.FixedLocator(
        [10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(right)) + 1) if k % stride == 0]))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(short_tick))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())  # (under a decade, matplotlib labels 2x10^0 ...)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("speedup over each curve's smallest N (ratio, log scale)" if mixed_references
                  else f"speedup over N = {fmt_n(group[0].n_reference)} (ratio, log scale)")


def _cost_panel(ax, group, colour, scaling, cost_unit, ylim):
    """Performance per cost at the largest N, one bar per curve (the rows of the ceilings)."""
    y = np.arange(len(group))[::-1]
    values = [costs.performance_per_cost(c) for c in group]
    finite = [v for v in values if math.isfinite(v) and v > 0]
    top = max(finite) if finite else 1.0
    for yi, c, v in zip(y, group, values):
        if math.isfinite(v):
            ax.barh(yi, v, height=0.62, color=colour(c), alpha=0.85, lw=0)
            ax.text(v + top * 0.02, yi, fmt(v), va="center", ha="left", fontsize=8)
        else:
            ax.text(top * 0.02, yi, "no cost" if math.isnan(v) else "∞ (free)", va="center",
                    ha="left", fontsize=8, color="0.35")
    ax.set_xlim(0, top * 1.3)
    ax.xaxis.set_major_locator(ticker.MaxNLocator(4))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: fmt(v, 2)))
    ax.set_ylim(*ylim)
    ax.set_yticks(y)
    ax.set_yticklabels([])
    ax.grid(axis="y", visible=False)
    what = ("samples/s / (N × cost per node)" if scaling == "weak"
            else "1 / (N × cost per node × time per global batch)")
    ax.set_xlabel(f"{what}\n({mpl_text(costs.performance_unit(scaling, cost_unit))}, "
                  "higher is better)")


def fig_ceiling(out, curves):
    cs = [c for c in curves if c.rows >= 2 and not math.isnan(c.ceiling)]
    panels = scaling_panels(cs, 2)
    if len(cs) < 2 or not panels:
        return out.note("skipped ceiling: fewer than two curves with an Amdahl fit "
                        "(nothing to compare)")
    cost_unit = costs.unit(out.results) if costs.has_costs(out.results) else ""
    faceted = many(panels)
    if faceted:  # a row per workload, a column (or two, with costs) per scaling mode
        looks = Looks(out.results.curves)
        colour, label = looks.colour, looks.short_label
        rows = [(w, [(s, [c for c in group if c.workload == w]) for s, group in panels])
                for w in unique(c.workload for c in cs)]
        bar_h, panel_w = 0.3, 6.0
    else:  # a row per scaling mode
        colour, label = (lambda c: c.colour), (lambda c: c.label)
        rows = [(None, [(s, group)]) for s, group in panels]
        bar_h, panel_w = 0.42, 9.0
    cells = max(len(r) for _, r in rows)
    ratios = [3, 2] * cells if cost_unit else [1] * cells
    width = panel_w * cells + (panel_w * 2 / 3 * cells if cost_unit else 0)
    # A row tall enough for its label's lines too (8 pt: about 0.13 inch a line), long names
    # wrapping to three.
    label_lines = max(wrap(label(c), 34).count("\n") + 1 for c in cs)
    bar_h = max(bar_h, 0.13 * label_lines + 0.04)
    heights = [max(1.6, bar_h * max(len(g) for _, g in r) + 1.1) for _, r in rows]
    extra = 1.6 if not faceted else 1.0 + legend_height(max(
        len(unique(getattr(c, looks.colour_key) for c in cs)), len(LEGEND)))
    fig, axes = plt.subplots(len(rows), len(ratios), figsize=(width, sum(heights) + extra),
                             squeeze=False, layout="constrained",
                             gridspec_kw={"height_ratios": heights, "width_ratios": ratios})
    fig.suptitle(wrap(question(out.results), int(width * 10)), fontsize=11,
                 fontweight="bold")
    per = 2 if cost_unit else 1
    for i, (workload, row) in enumerate(rows):
        for j, (scaling, group) in enumerate(row):
            ax = axes[i][j * per]
            if not group:
                for k in range(per):
                    axes[i][j * per + k].set_visible(False)
                continue
            _ceiling_panel(ax, group, colour, label, not faceted, panel_w)
            where = f"{mpl_text(workload)}, " if workload else ""
            # (a panel whose curves all have their 1 − α_eff falling with N has no bar to title)
            what = ("no Amdahl ceiling in sight (1 − α_eff falls with N)" if all(no_ceiling_in_sight(c) for c in group)
                    else "Amdahl ceiling 1 / (1 − α)" + ("" if workload else " of the fit"))
            ax.set_title(f"{where}{scaling} scaling: {what}", fontsize=9)
            if cost_unit:
                cost_ax = axes[i][j * per + 1]
                _cost_panel(cost_ax, group, colour, scaling, cost_unit, ax.get_ylim())
                cost_ax.set_title("performance per cost at the largest N", fontsize=9)
    if faceted:
        shown = unique(getattr(c, looks.colour_key) for c in cs)
        columns_legend(fig, [(looks.colour_key, [Patch(color=looks.colours[k], alpha=0.85,
                                                       label=mpl_text(k)) for k in shown]),
                             ("bars", list(LEGEND))])
    else:
        figure_legend(fig, list(LEGEND), ncol=2, height_in=0.5)
    out.save(fig, "ceiling")
