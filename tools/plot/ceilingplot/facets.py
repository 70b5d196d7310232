"""Many curves: panels per workload x scaling, colour by platform, marker and line by variant."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colors as mcolors
from matplotlib.lines import Line2D

from .axes import figure, figure_legend, legend_below, line_figure, scaling_title
from .style import common_parts
from .text import mpl_text, wrap

# Above this many curves in one scaling mode, a figure gets one panel per workload and scaling.
FACET_ABOVE = 8

# Per variant: marker, line style (never dotted: dotted is the ideal), filled marker.
VARIANT_LOOKS = (("o", "-", True), ("s", (0, (5, 2)), False), ("^", (0, (7, 2, 1.5, 2)), True),
                 ("D", (0, (2.5, 1.5)), False), ("v", "-", False), ("P", (0, (5, 2)), True),
                 ("X", (0, (7, 2, 1.5, 2)), False), ("h", (0, (2.5, 1.5)), True))


def unique(values):
    return list(dict.fromkeys(values))


def many(groups):
    """Whether (key, curves) groups call for facets: one has more than FACET_ABOVE curves."""
    return max((len(cs) for _, cs in groups), default=0) > FACET_ABOVE


class Looks:
    """Colour by platform (by variant when there is one platform), marker and line by variant
    (with one platform too, so that a curve under another still shows its markers), the same
    for a platform and variant in every panel and figure."""

    def __init__(self, curves):
        platforms = unique(c.platform for c in curves)
        variants = unique(c.variant for c in curves)
        self.colour_key = "platform" if len(platforms) > 1 or len(variants) == 1 else "variant"
        self.style_key = "variant" if len(variants) > 1 else None
        coloured = platforms if self.colour_key == "platform" else variants
        palette = plt.get_cmap("tab10" if len(coloured) <= 10 else "tab20").colors
        self.colours = {k: mcolors.to_hex(palette[i % len(palette)])
                        for i, k in enumerate(coloured)}
        self.styles = {k: VARIANT_LOOKS[i % len(VARIANT_LOOKS)] for i, k in enumerate(variants)}
        # Curves that coincide stay visible: the first colours are drawn wider, under the others.
        step = min(0.5, 1.5 / max(1, len(coloured) - 1))
        self.widen = {k: step * (len(coloured) - 1 - i) for i, k in enumerate(coloured)}

    def colour(self, c):
        return self.colours[getattr(c, self.colour_key)]

    def style(self, c):
        return self.styles[c.variant] if self.style_key else VARIANT_LOOKS[0]

    def line(self, c, ms=4.5):
        """plot() arguments for a curve's simulated points."""
        marker, ls, filled = self.style(c)
        colour = self.colour(c)
        widen = self.widen[getattr(c, self.colour_key)]
        return dict(color=colour, marker=marker, ms=ms + 1.2 * widen, lw=1.3 + widen, ls=ls,
                    mec=colour, mfc=colour if filled else "white", mew=1.0)

    def fit(self, c):
        """plot() arguments for a fitted or model line: a wide pale band in the curve's colour."""
        return dict(color=self.colour(c), lw=3.6, alpha=0.22, ls="-", solid_capstyle="butt")

    def short_label(self, c):
        """The curve within a panel of one workload and scaling."""
        keys = unique(k for k in (self.colour_key, self.style_key) if k)
        return mpl_text(" / ".join(getattr(c, k) for k in keys))

    def _style_handle(self, k, colour):
        marker, ls, filled = self.styles[k]
        return Line2D([], [], color=colour, marker=marker, ms=5, ls=ls, lw=1.4,
                      mfc=colour if filled else "white", mec=colour, label=mpl_text(k))

    def legend_entries(self, curves):
        """The length of the longest column of legend_columns."""
        return max(len(h) for _, h in self.legend_columns(curves))

    def legend_columns(self, curves):
        """Legend columns (title, handles) for the colours and the styles of these curves."""
        shown = unique(getattr(c, self.colour_key) for c in curves)
        if self.colour_key == self.style_key:  # one column: each variant's colour and marker
            return [("variant", [self._style_handle(k, self.colours[k]) for k in shown])]
        columns = [(self.colour_key, [Line2D([], [], color=self.colours[k], lw=2.6,
                                             label=mpl_text(k)) for k in shown])]
        if self.style_key:
            columns.append(("variant", [self._style_handle(k, "0.25")
                                        for k in unique(c.variant for c in curves)]))
        return columns


def fit_proxy(label):
    return Line2D([], [], color="0.3", lw=3.6, alpha=0.22, solid_capstyle="butt", label=label)


def legend_height(entries):
    """Inches of a columns_legend whose longest column has this many entries."""
    return 0.2 * (entries + 1) + 0.2


def columns_legend(fig, columns, height_extra=0.0, note=None):
    """One figure legend under the panels, a column per (title, handles) with the title on
    top in bold; shorter columns are padded with blank rows."""
    rows = max(len(h) for _, h in columns) + 1
    handles, labels, bold = [], [], []
    for title, hs in columns:
        blank = [Line2D([], [], ls="", marker="")] * (rows - 1 - len(hs))
        bold.append(len(labels))
        handles += [Line2D([], [], ls="", marker="")] + list(hs) + blank
        labels += [title] + [h.get_label() for h in hs] + [""] * len(blank)
    height = legend_height(max(len(h) for _, h in columns)) + height_extra
    figure_legend(fig, handles, ncol=len(columns), height_in=height, note=note,
                  labels=labels)
    legend = fig.legends[-1]
    for i in bold:
        legend.get_texts()[i].set_fontweight("bold")


class Cell:
    """One panel: its axes, scaling, workload (None in a panel per scaling) and curves."""

    def __init__(self, ax, scaling, workload, curves, row, col, nrows, group=None):
        self.ax, self.scaling, self.workload, self.curves = ax, scaling, workload, curves
        self.group = group or curves   # every curve of the scaling mode, for common N limits
        self.row, self.col, self.first_col, self.bottom = row, col, col == 0, row == nrows - 1

    def title(self, what, explanation=None):
        """The panel's title; the top row of a grid says what the scaling mode means."""
        if self.workload is None:
            return scaling_title(self.scaling, what)
        head = f"{what}: {mpl_text(self.workload)}, {self.scaling} scaling"
        if self.row:
            return head
        return head + "\n" + (explanation or scaling_title(self.scaling, "").split("\n", 1)[1])


class LineGrid:
    """The panels of a line figure against N: one per scaling mode with a legend of one line per
    curve under each (few curves), or one per workload and scaling mode with one legend for
    the figure (many curves: colour = platform, marker and line = variant)."""

    def __init__(self, out, panels, proxies, panel_h=3.5, lines_per_curve=1):
        self.out = out
        self.added_lines = 0   # (lines that wrapping long names added to the tallest legend)
        self.faceted = many(panels)
        self.looks = Looks(out.results.curves) if self.faceted else None
        if not self.faceted:  # (a curve's legend entry takes lines_per_curve lines)
            self.fig, axes = line_figure(out, panels, proxies, lines_per_curve)
            self.cells = [Cell(ax, s, None, cs, 0, i, 1)
                          for i, (ax, (s, cs)) in enumerate(zip(axes[0], panels))]
            return
        workloads = unique(c.workload for _, cs in panels for c in cs)
        entries = max(self.looks.legend_entries([c for _, cs in panels for c in cs]), proxies)
        self.fig, axes = figure(out.results, len(workloads), len(panels), 6.0, panel_h,
                                extra_h=legend_height(entries))
        self.cells = []
        for row, w in enumerate(workloads):
            for col, (s, cs) in enumerate(panels):
                mine = [c for c in cs if c.workload == w]
                if mine:
                    self.cells.append(Cell(axes[row][col], s, w, mine, row, col,
                                           len(workloads), cs))
                else:
                    axes[row][col].set_visible(False)

    def line(self, c):
        if self.faceted:
            return self.looks.line(c)
        return dict(marker=c.marker, ms=4.5, color=c.colour, lw=1.4)

    def note_coinciding(self, cell):
        """Says in the panel which of its curves lie on one another (the same iteration time at
        every N, within 1e-6: one line hides the others), by variant where colour is by platform:
        machines whose upper levels a sweep's N never reach give the same times."""
        by_variant = self.faceted and self.looks.colour_key != "variant" and self.looks.style_key
        groups = []  # lists of curves whose times agree with their first's
        for c in cell.curves:
            for g in groups:
                first = g[0]
                if ((not by_variant or first.variant == c.variant) and len(first.data["n"]) == len(c.data["n"])
                        and (first.data["n"] == c.data["n"]).all()
                        and np.allclose(first.data["iteration_time_s"], c.data["iteration_time_s"],
                                        rtol=1e-6, atol=0)):
                    g.append(c)
                    break
            else:
                groups.append([c])
        name = (lambda c: mpl_text(getattr(c, self.looks.colour_key))) if self.faceted else (lambda c: c.label)
        lines = [" = ".join(name(c) for c in g) + (f" ({mpl_text(g[0].variant)})" if by_variant else "")
                 for g in groups if len(g) > 1]
        if lines:
            cell.ax.text(0.98, 0.03, "on one another:\n" + "\n".join(wrap(line, 56) for line in lines),
                         transform=cell.ax.transAxes, ha="right", va="bottom", fontsize=7, color="0.25",
                         bbox=dict(facecolor="white", edgecolor="0.8", alpha=0.85, pad=2))

    def fit(self, c):
        if self.faceted:
            return self.looks.fit(c)
        return dict(ls="--", color=c.colour, lw=1.1, alpha=0.85)

    def labels(self, cell, ylabel, short, every_column=False):
        """Axis labels; in a grid the short y label, on the first column unless the columns
        show different quantities, and the x label on the bottom row."""
        if not self.faceted:
            cell.ax.set_ylabel(ylabel)
            return
        if not cell.bottom:
            cell.ax.set_xlabel("")
        if cell.first_col or every_column:
            cell.ax.set_ylabel(short)

    def legend(self, cell, handles, proxies):
        """The legend under a panel per scaling; nothing in a grid (see finish)."""
        if not self.faceted:
            added = legend_below(cell.ax, handles + proxies,
                                 title=common_parts(cell.curves) or None)
            self.added_lines = max(self.added_lines, added)

    def finish(self, proxies, name, note=None):
        if self.added_lines:  # long names wrapped in a legend: as much taller
            self.fig.set_figheight(self.fig.get_figheight() + 0.2 * self.added_lines)
        if self.faceted:
            curves = [c for cell in self.cells for c in cell.curves]
            columns_legend(self.fig, self.looks.legend_columns(curves) + [("lines", proxies)],
                           note=note)
        self.out.save(self.fig, name)
