#!/usr/bin/python3
"""Figures and a report from a ceiling result store (the HDF5 file `ceiling sweep` writes).

    /usr/bin/python3 tools/plot/ceiling_plot.py plot RESULTS.h5 [-o DIR]
    /usr/bin/python3 tools/plot/ceiling_plot.py report RESULTS.h5 [-o DIR]

`plot` writes each figure as DIR/NAME.png and DIR/NAME.svg; `report` writes the same figures
plus DIR/report.md and DIR/report.html (self-contained: the PNGs are embedded as data URIs).
DIR defaults to the results file's path without its .h5 extension plus "-plots" (plot) or
"-report" (report), beside the file. Every file written is printed as "wrote PATH", one per
line; what cannot be drawn (no finished point, a curve with one node count) is skipped with a
"skipped ..." or "note: ..." line. Exit status 0 on success; 2 with
"ceiling: error: PATH: what is wrong" on stderr for a bad results file or output directory;
1 for an internal error.

The script reads only the store (format "ceiling-results", format_version 4; schema in the
README, "Result store") and draws what the C++ analysis computed (sim/analysis): speedup,
efficiency, alpha_eff and its parts, the Amdahl fit. Formulas are Végh's
(../shared/data/hardware/piz-daint.md §1): Amdahl's speedup (A1) S = 1 / ((1 - a) + a / r)
with r = N / N_ref, the efficiency (A2) E = 1 / (r (1 - a) + a), the ceiling (D3) 1 / (1 - a).

Figures (NAME):
  speedup              speedup vs N, ideal line, Amdahl fit per curve (its ceiling in the legend)
  efficiency           efficiency vs N, fitted E, the E = 0.5 line
  nonparallel_fraction 1 - alpha_eff vs N (log y), the fit's 1 - alpha
  breakdown            iteration time split into compute, copy, communication, synchronisation
  breakdown_share      the same as shares of the iteration time (readable at large N)
  nonparallel_parts    the parts of 1 - alpha_eff per N (shares, with the total above each bar)
  efficiency_surface   Végh's E(N, 1 - alpha) as a filled contour, each curve's points on it
  throughput           weak: samples/s vs N; strong: time per global batch vs N (2+ curves)
  ceiling              the fitted ceiling per curve next to the best measured speedup (2+ curves),
                       with costs in the file also the performance per cost at the largest N
Weak and strong curves go in separate panels: their speedups measure different things. When a
scaling mode has more than 8 curves, the line figures, the surface and the ceilings get a panel
per workload (rows) and scaling mode (columns), colour = platform, marker and line = variant,
and one legend per figure. The per-curve bar figures (breakdown, breakdown_share,
nonparallel_parts) show all curves: beyond 12, one file per workload (a platform per row, a
scaling x variant per column): NAME.png for the first, NAME-2.png, NAME-3.png... for the next.

Costs are optional: a root attribute cost_unit (absent or "": none) and a curve attribute
cost_per_node (absent or NaN: none). With them the report gives, at the largest N, the
throughput per cost samples/s / (N x cost_per_node) (weak) and the cost x time to solution
N x cost_per_node x iteration time (strong).

The code is the package ceilingplot beside this file: store (reading and checking the file),
text (numbers as text), style, facets (panels for many curves), axes, lines, bars, surface,
ceilings, costs (the figures and cost figures), figures (the list above), output (writing the
files), markup and report (the report), cli (this command line).

Runs with Debian 12's /usr/bin/python3 and its python3-numpy, python3-h5py, python3-matplotlib
(Agg backend). The same results file gives byte-identical PNG and SVG files.
"""

import os
import signal
import sys


class Interrupted(BaseException):
    """SIGINT or SIGTERM, raised where the program is (an exception, not a kill), so that a file
    being written removes its temporary on the way out (output.write_atomically)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


# The signal taken, also where a library swallowed its exception on the way (C code that clears
# any error of a lookup it made, while the handler ran in Python code that lookup called): the
# run then ends as signalled all the same, once the work under way is done.
_received = None


def _ignore_signals():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _interrupt(signum, _frame):
    # One signal ends the run: a second, while the first unwinds, is ignored (it would cut the
    # removal of the temporary file short).
    global _received
    _ignore_signals()
    _received = signum
    raise Interrupted(signum)


# (before the heavy imports: numpy, h5py and matplotlib take half a second to load)
for _signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_signum, _interrupt)

# The package sits beside this file, wherever the script is called from (also through a link);
# no __pycache__ is left in the source tree.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
sys.dont_write_bytecode = True

if __name__ == "__main__":
    status = 1
    try:
        from ceilingplot.cli import main  # (checks numpy, h5py and matplotlib first)
        status = main()
        _ignore_signals()  # (done: a signal from here on comes after the work)
    except Interrupted:
        pass
    except SystemExit as e:  # (argparse's, or the package's when a module is missing)
        status = e.code
    if _received is not None:  # as the C++ outputs do: 128 + the signal, nothing partial left
        print("ceiling: interrupted: the files written before stay; an unfinished one is "
              "removed", file=sys.stderr)
        sys.exit(128 + _received)
    sys.exit(status)
