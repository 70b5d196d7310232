"""Bar grids, one panel per curve: the iteration-time breakdown and the parts of 1 - alpha_eff."""

import numpy as np
from matplotlib import ticker
from matplotlib.patches import Patch

from .axes import category_axis, figure, figure_legend, grid
from .facets import unique
from .style import BREAKDOWN, NONPAR, TERM_COLOURS, TERMS
from .text import fmt, mpl_text, wrap


MAX_PANELS = 12  # panels (one per curve) in one figure; beyond, a figure per workload
PAGE = 24        # at most this many panels in a figure of one workload


def _groups(curves):
    """(part, curves) per figure: all curves in one, or a figure per workload (and pages of
    at most PAGE curves); part says which curves a figure shows, None for all."""
    if len(curves) <= MAX_PANELS:
        return [(None, curves)]
    workloads = unique(c.workload for c in curves)
    out = []
    for w in workloads:
        mine = [c for c in curves if c.workload == w]
        # Too many for one figure: a figure per scaling mode, then pages.
        split = [[c for c in mine if c.scaling == s] for s in ("weak", "strong")] \
            if len(mine) > PAGE else [mine]
        for cs in (cs for cs in split if cs):
            pages = [cs[i:i + PAGE] for i in range(0, len(cs), PAGE)]
            for j, page in enumerate(pages):
                part = [f"workload {mpl_text(w)}"] if len(workloads) > 1 else []
                if len(split) > 1:
                    part.append(f"{page[0].scaling} scaling")
                if len(pages) > 1:
                    part.append(f"part {j + 1} of {len(pages)}")
                out.append((", ".join(part), page))
    return out


def _arrange(cs, structured):
    """(rows, columns, [((row, column), curve)], grid): a platform per row and a scaling x
    variant per column when that fills the grid well (grid True), else the curves in reading
    order."""
    rows = unique(c.platform for c in cs)
    cols = [k for s in ("weak", "strong") for k in unique((c.scaling, c.variant) for c in cs)
            if k[0] == s]
    keys = {(c.platform, c.scaling, c.variant) for c in cs}
    if (structured and len(rows) > 1 and len(cols) <= 6 and len(keys) == len(cs) and
            len(rows) * len(cols) <= 1.5 * len(cs)):
        return len(rows), len(cols), [((rows.index(c.platform),
                                        cols.index((c.scaling, c.variant))), c)
                                      for c in cs], True
    nrows, ncols = grid(len(cs))
    return nrows, ncols, [((i // ncols, i % ncols), c) for i, c in enumerate(cs)], False


def _pages(out, curves, extra_h):
    """(figure, [(axes, curve)], part, tidy) for each file of a figure of one panel per curve;
    tidy() after drawing leaves the axis labels of a regular grid on its outer panels only."""
    varying = [k for k in ("platform", "variant")
               if len({getattr(c, k) for c in out.results.curves}) > 1] or ["platform"]
    for part, cs in _groups(curves):
        nrows, ncols, cells, regular = _arrange(cs, part is not None)
        width = 6.5 if ncols == 1 else 5.2 if ncols < 4 else 4.6
        fig, axes = figure(out.results, nrows, ncols, width, 3.7, extra_h, subtitle=part)
        used = {rc for rc, _ in cells}
        for r in range(nrows):
            for col in range(ncols):
                if (r, col) not in used:
                    axes[r][col].set_visible(False)
        pairs = []
        for (r, col), c in cells:
            axes[r][col].set_title(_panel_title(c) if part is None else wrap(
                mpl_text(" / ".join(getattr(c, k) for k in varying)) +
                f" — {c.scaling} scaling", 52), fontsize=9)
            pairs.append((axes[r][col], c))

        def tidy(cells=cells, axes=axes, last=nrows - 1, regular=regular, used=used):
            for (r, col), _ in cells:
                if regular and col:
                    axes[r][col].set_ylabel("")
                if regular and r != last and (r + 1, col) in used:
                    axes[r][col].set_xlabel("")
        yield fig, pairs, part, tidy


def _panel_title(c):
    return wrap(f"{c.label} — {c.scaling} scaling", 52)


def _breakdown(out, curves, share):
    name = "breakdown_share" if share else "breakdown"
    cs = [c for c in curves if c.rows]
    if not cs:
        return out.note(f"skipped {name}: no finished point")
    for fig, pairs, part, tidy in _pages(out, cs, 0.6):
        for ax, c in pairs:
            _breakdown_panel(ax, c, share)
        # One scale per scaling mode on a page, so that equal bars are equal times side by side.
        for scaling in {c.scaling for _, c in pairs}:
            axs = [ax for ax, c in pairs if c.scaling == scaling]
            top = max(ax.get_ylim()[1] for ax in axs)
            for ax in axs:
                ax.set_ylim(0, top)
        tidy()
        handles = [Patch(color=TERM_COLOURS[t], label=t) for t in TERMS]
        what = "shares of the iteration time" if share else "iteration time"
        figure_legend(fig, handles, f"{what}, averaged over ranks and seeds (the number on "
                      "each bar is the iteration time in s)")
        out.save(fig, name, part)


def _breakdown_panel(ax, c, share):
    x = category_axis(ax, c.data["n"], c.n_unit)
    times = c.data["iteration_time_s"]
    scale = np.where(times > 0, 100 / np.where(times > 0, times, 1), 0) if share else 1
    bottom = np.zeros(c.rows)
    for key, term in BREAKDOWN:
        v = np.nan_to_num(c.data[key]) * scale
        ax.bar(x, v, 0.72, bottom=bottom, color=TERM_COLOURS[term], label=term,
               edgecolor="white", linewidth=0.4)
        bottom += v
    top = bottom.max() if bottom.size else 1.0
    # The total on each bar: strong-scaling bars shrink as 1/N and would be unreadable.
    rotate = c.rows > 6
    for xi, b, t in zip(x, bottom, times):
        ax.text(xi, b + 0.015 * top, fmt(t), ha="center", va="bottom", fontsize=6.5,
                rotation=90 if rotate else 0)
    ax.set_ylim(0, top * (1.22 if rotate else 1.1) if top > 0 else 1)
    if share:
        ax.yaxis.set_major_locator(ticker.FixedLocator(range(0, 101, 20)))
        ax.set_ylabel("share of the iteration time (%)")
    else:
        ax.set_ylabel("time per iteration (s)")


def fig_breakdown(out, curves):
    _breakdown(out, curves, share=False)


def fig_breakdown_share(out, curves):
    _breakdown(out, curves, share=True)


def fig_nonparallel_parts(out, curves):
    cs = [c for c in curves if c.rows >= 2]
    if not cs:
        return out.note("skipped nonparallel_parts: no curve has a point beyond its "
                        "reference N")
    for fig, pairs, part, tidy in _pages(out, cs, 0.7):
        for ax, c in pairs:
            _parts_panel(ax, c)
        tidy()
        handles = [Patch(color=TERM_COLOURS[t], label=t) for _, t in NONPAR]
        figure_legend(fig, handles, "parts of 1 − α_eff, the non-parallelisable fraction "
                      "(its value above each bar; hatched: a negative part)")
        out.save(fig, "nonparallel_parts", part)


def _parts_panel(ax, c):
    mask = c.beyond_reference()
    ns = c.data["n"][mask]
    totals = 1 - c.data["alpha_eff"][mask]
    x = category_axis(ax, ns, c.n_unit)
    usable = np.isfinite(totals) & (np.abs(totals) > 1e-12)
    up = np.zeros(len(ns))
    down = np.zeros(len(ns))
    for key, term in NONPAR:
        # Shares of |1 - alpha_eff|: each part keeps its own sign where the total is negative
        # (a superlinear point), rather than every sign turning over.
        share = np.where(usable, c.data[key][mask] / np.where(usable, np.abs(totals), 1) * 100, 0)
        share = np.nan_to_num(share)
        pos, neg = np.clip(share, 0, None), np.clip(share, None, 0)
        ax.bar(x, pos, 0.72, bottom=up, color=TERM_COLOURS[term], edgecolor="white",
               linewidth=0.4)
        ax.bar(x, neg, 0.72, bottom=down, color=TERM_COLOURS[term], edgecolor="white",
               linewidth=0.4, hatch="//" if neg.any() else None)
        up += pos
        down += neg
    top = max(100.0, up.max() if up.size else 100.0)
    for xi, t, ok in zip(x, totals, usable):
        ax.text(xi, top * 1.02, fmt(t) if ok else "n/a", ha="center", va="bottom",
                fontsize=6.5, rotation=90 if len(ns) > 5 else 0)
    ax.set_ylim(min(0.0, down.min() * 1.1 if down.size else 0.0),
                top * (1.3 if len(ns) > 5 else 1.12))
    ax.yaxis.set_major_locator(ticker.FixedLocator(
        [v for v in range(-400, int(top) + 1, 20 if top <= 200 else 50)]))
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_ylabel("share of 1 − α_eff (%)")
