"""The list of figures (name, drawing function, heading, caption) and drawing them all."""

import re
import sys

import matplotlib.pyplot as plt

from . import style
from .bars import fig_breakdown, fig_breakdown_share, fig_nonparallel_parts
from .ceilings import fig_ceiling
from .output import say
from .lines import fig_efficiency, fig_nonparallel_fraction, fig_speedup, fig_throughput
from .surface import fig_efficiency_surface
from .text import fmt_n


FIGURES = (
    ("speedup", fig_speedup, "Speedup",
     "Speedup over each curve's smallest N, with the ideal line and the least-squares "
     "Amdahl fit S = 1 / ((1 − α) + α / r), r = N / N_ref, each point weighed by its relative "
     "error (dashed, or a wide pale band in a "
     "grid of panels); the legend, or the ceiling figure for a grid, gives the fit's ceiling "
     "1 / (1 − α)."),
    ("efficiency", fig_efficiency, "Efficiency",
     "Efficiency E = S / r; dashed (a wide pale band in a grid): the fitted "
     "E = 1 / (r (1 − α) + α). On the fitted curve, below E = 0.5 doubling N gains less than a "
     "third more speed (4 / (4 − α) at E = 0.5); a measured doubling gains 2 E(2N) / E(N)."),
    ("nonparallel_fraction", fig_nonparallel_fraction, "Non-parallelisable fraction",
     "1 − α_eff(N) from the simulated speedup (Végh B1, the Karp–Flatt serial fraction), over "
     "the curve's N ref (per block of N ref nodes, r = N / N ref); a "
     "curve that follows Amdahl's law is flat, at the fit's 1 − α (dashed, or a wide pale "
     "band in a grid)."),
    ("breakdown", fig_breakdown, "Iteration-time breakdown",
     "Seconds per iteration in compute, copies, communication and synchronisation, averaged "
     "over ranks and seeds; the number on each bar is the iteration time."),
    ("breakdown_share", fig_breakdown_share, "Iteration-time shares",
     "The same breakdown as shares of the iteration time, readable where strong scaling has "
     "made the iterations short."),
    ("nonparallel_parts", fig_nonparallel_parts, "Parts of 1 − α_eff",
     "Each part's share of 1 − α_eff (the parts add up to it): how much communication, "
     "copies, waiting and compute grow beyond perfect scaling (compute: in strong scaling, "
     "smaller batches per GPU running less efficiently; the optimizer step every rank "
     "repeats); the value of "
     "1 − α_eff is written above each bar."),
    ("efficiency_surface", fig_efficiency_surface, "Végh's efficiency surface",
     "E(r, 1 − α) = 1 / (r (1 − α) + α), r = N / N_ref in units of the smallest N (N itself "
     "where every curve starts at 1), and each curve's simulated (r, 1 − α_eff). Along "
     "the E = 0.5 contour r = (2 − α) / (1 − α): more units than that give at most twice the "
     "payload."),
    ("throughput", fig_throughput, "Throughput and time to solution",
     "Weak scaling: samples per second; strong scaling: time per global batch; dotted: "
     "perfect scaling from the smallest N (in a grid, from the panel's best point there)."),
    ("ceiling", fig_ceiling, "Ceilings",
     "The fitted ceiling 1 / (1 − α) per curve and the largest speedup simulated; with costs "
     "in the file, the performance per cost at the largest N beside them."),
)


def draw_all(out):
    """Draws every figure; returns False when one failed with an internal error."""
    style.apply()
    curves = out.results.curves
    if not curves:
        out.note("note: the file has no curves")
    for c in curves:
        if not c.rows:
            out.note(f"note: curve '{c.id}' has no finished point: left out of every figure")
        elif c.rows == 1:
            out.note(f"note: curve '{c.id}' has one node count (N = {fmt_n(c.data['n'][0])}): "
                     "only the breakdown figures show it" +
                     (", and throughput where curves are compared"
                      if sum(1 for x in curves if x.rows) > 1 else ""))
    ok = True
    failed = set()
    for name, draw, _, _ in FIGURES:
        try:
            draw(out, curves)
        except OSError:  # the output cannot be written: the caller says why and stops
            plt.close("all")
            raise
        except Exception as e:  # a bug, not bad input: say which figure and carry on
            plt.close("all")
            print(f"ceiling: error: internal error while drawing {name}: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
            ok = False
            failed.add(name)
    remove_stale(out, failed)
    return ok


def remove_stale(out, failed=()):
    """Removes the figures of these names that an earlier run left in the folder and this store
    does not have (skipped here, or a part NAME-K beyond this store's): the folder shows one
    store's figures, never a mix. A figure whose drawing failed keeps its earlier files."""
    files = sorted(p for p in out.dir.iterdir() if p.suffix in (".png", ".svg") and p.is_file())
    for name, *_ in FIGURES:
        if name in failed:
            continue
        own = re.compile(re.escape(name) + r"(-[0-9]+)?")
        for path in files:
            if own.fullmatch(path.stem) and path not in out.written:
                path.unlink()
                say(f"removed {path}: a figure of an earlier run, which this store does not have")
