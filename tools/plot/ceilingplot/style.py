"""The look of the figures: matplotlib settings, term colours, a colour and marker per curve."""

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import colors as mcolors

from .text import mpl_text


DPI = 120


# The four parts of an iteration, and of 1 - alpha_eff, in stacking order, with their colours.
TERMS = ("compute", "copy", "communication", "synchronisation")


# ("compute imbalance": the compute part's name in result files written before 2026-12)
TERM_COLOURS = {"compute": "#4e79a7", "compute imbalance": "#4e79a7", "copy": "#f28e2b",
                "communication": "#59a14f", "synchronisation": "#e15759"}


BREAKDOWN = (("compute_s", "compute"), ("copy_s", "copy"),
             ("communication_s", "communication"), ("synchronisation_s", "synchronisation"))


NONPAR = (("nonpar_compute_imbalance", "compute"), ("nonpar_copy", "copy"),
          ("nonpar_communication", "communication"),
          ("nonpar_synchronisation", "synchronisation"))


def apply():
    matplotlib.rcParams.update({
        "svg.hashsalt": "ceiling",       # deterministic SVG ids
        "svg.fonttype": "path",
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "legend.fontsize": 8,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "grid.linewidth": 0.6,
        "figure.dpi": DPI,
        "savefig.dpi": DPI,
    })


def label_curves(curves):
    """Short labels (the parts of the id that vary), a colour and a marker per curve."""
    varying = [k for k in ("platform", "workload", "variant")
               if len({getattr(c, k) for c in curves}) > 1]
    # The weak and strong curves of one platform x workload x variant share colour and marker,
    # so that a machine looks the same in every panel.
    keys = list(dict.fromkeys((c.platform, c.workload, c.variant) for c in curves))
    palette = plt.get_cmap("tab10" if len(keys) <= 10 else "tab20").colors
    markers = "osD^vPX<>hp*"
    for c in curves:
        parts = [getattr(c, k) for k in varying] or [c.platform]
        c.label = mpl_text(" / ".join(parts))
        i = keys.index((c.platform, c.workload, c.variant))
        c.colour = mcolors.to_hex(palette[i % len(palette)])
        c.marker = markers[i % len(markers)]


def common_parts(curves):
    """What all curves share (workload, variant, platform), for legend titles; "" if nothing."""
    out = []
    for k in ("platform", "workload", "variant"):
        values = {getattr(c, k) for c in curves}
        if len(values) == 1 and len(curves) > 1 or (len(curves) == 1 and k != "platform"):
            out.append(f"{k} {mpl_text(values.pop())}")
    return ", ".join(out)
