#!/usr/bin/env python3
"""The pictures' rules for unusual result stores (tools/plot/ceilingplot), each against what it
must give exactly:
- a legend under a panel wraps a long name to its column (6 inches less 0.6 for the handle, at
  15 characters an inch: 81 characters) and says how many lines that added, so that the figure
  grows taller, not wider;
- with one platform and several variants, every variant has a colour and a marker and line of
  its own (a curve drawn over another still shows its markers), in one legend column;
- the efficiency surface labels only the lines E = 0.1, 0.5, 0.9 in view: with r up to 8 and
  1 - alpha up to 1, E = 0.1 needs 1 - alpha = 9 / (r - 1) >= 9 / 7 > 1, out of view;
- a ceiling bar says up to which N its fit goes where the curves' largest N differ (an
  interrupted sweep);
- the ceiling figure compares ceilings: it is skipped where only one curve has a fit;
- a curve whose 1 - alpha_eff falls with N gets no bar but the words "no
  ceiling in sight", its efficiency at the largest N and the drift, and its fitted ceiling, which
  would grow with the largest N, does not stretch the axis; in a grid's narrow panel a shorter
  text, inside the axes; the report's summary says "none in sight" for its fitted ceiling and N,
  unstarred, and stars no slowdown;
- a folder plotted into again loses the figures this store does not have, and keeps those written
  now, those of a figure whose drawing failed, and every file not named as a figure;
- a signal whose exception a library swallowed still ends the run with 128 + the signal.
usage: ceilingplot_test.py ROOT
"""
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

sys.path.insert(0, os.path.join(sys.argv[1], "tools", "plot"))
from ceilingplot import axes, ceilings, facets, figures, report, surface, text  # noqa: E402
from ceilingplot.store import BadFile, Curve, load  # noqa: E402
import h5py  # noqa: E402

failures = 0


def check(what, ok, detail=""):
    global failures
    if not ok:
        failures += 1
        print(f"FAIL: {what} {detail}")


def curve(variant, n, ceiling=100.0, platform="P100", scaling="weak"):
    n = np.array(n, dtype=float)
    return Curve(index=0, id=f"{platform}/{variant}/{scaling}", platform=platform,
                 workload="ResNet-50", variant=variant, scaling=scaling, n_unit="nodes",
                 n_reference=float(n[0]), alpha=1 - 1 / ceiling if math.isfinite(ceiling)
                 else math.nan, ceiling=ceiling, n_half_fit=math.nan,
                 n_doubling_fit=math.nan, residual=0.0, amdahl_shaped=True,
                 n_half_measured=math.nan, n_doubling_measured=math.nan,
                 alpha_eff_at_largest_n=math.nan, dominant_term="communication",
                 data={"n": n, "speedup": n / n[0] * 0.9})


# A long name wraps; the lines added are counted; a short one stays as it is.
fig, ax = plt.subplots()
long_name = " ".join(["word"] * 30)       # 149 characters: 81, then 67
handles = [Line2D([], [], label=long_name), Line2D([], [], label="short")]
added = axes.legend_below(ax, handles, width_in=6.0)
lines = handles[0].get_label().split("\n")
check("a long legend label wraps to 81 characters", max(map(len, lines)) <= 81 and len(lines) == 2,
      repr(lines))
check("the lines the wrapping added are returned", added == 1, f"got {added}")
check("a short label stays as it is", handles[1].get_label() == "short")
check("nothing added where every label fits",
      axes.legend_below(ax, [Line2D([], [], label="short")]) == 0)
# Two columns (9 inches: 3.9 each, 58 characters): entries 0, 1 in the first, 2 in the second
# (matplotlib gives the first columns the extra entry); 0 and 1 wrap once each: 2 lines added.
long2 = " ".join(["word"] * 20)  # 99 characters: two lines of 58 at most
two = [Line2D([], [], label=long2), Line2D([], [], label=long2), Line2D([], [], label="short")]
check("two columns: the tallest column's added lines",
      axes.legend_below(ax, two, ncol=2, width_in=9.0) == 2)
plt.close(fig)

# One platform, three variants: a colour and a marker each, in one legend column.
cs = [curve(v, [1, 2, 4]) for v in ("ring", "tree", "halving")]
looks = facets.Looks(cs)
markers = {looks.line(c)["marker"] for c in cs}
colours = {looks.line(c)["color"] for c in cs}
check("each variant of one platform has its own marker", len(markers) == 3, str(markers))
check("each variant of one platform has its own colour", len(colours) == 3, str(colours))
columns = looks.legend_columns(cs)
check("one legend column, of the variants",
      [title for title, _ in columns] == ["variant"] and len(columns[0][1]) == 3, str(columns))
check("the legend shows each variant's marker and colour",
      [(h.get_marker(), h.get_color()) for h in columns[0][1]] ==
      [(looks.line(c)["marker"], looks.line(c)["color"]) for c in cs])
check("a curve's short label names its variant once", looks.short_label(cs[1]) == "tree")
two_platforms = facets.Looks(cs + [curve("ring", [1, 2], platform="V100")])
check("with two platforms: colour by platform, a column for the variants",
      [t for t, _ in two_platforms.legend_columns(cs)] == ["platform", "variant"])


def surface_labels(x_hi, y_lo):
    fig, ax = plt.subplots()
    surface._surface(ax, x_hi, y_lo, 1.0)
    surface._axes(ax, x_hi, y_lo, 1.0)
    labels = [(t.get_text(), t.get_position()[0]) for t in ax.texts]
    plt.close(fig)
    return labels


labels = surface_labels(8.0, 1e-3)
check("r up to 8: E = 0.5 and 0.9 labelled once each, E = 0.1 (out of view) not",
      sorted(t for t, _ in labels) == ["E = 0.5", "E = 0.9"], str(labels))
check("r up to 8: every label inside the axes", all(1 < x < 8 for _, x in labels), str(labels))
labels = surface_labels(16384.0, 1e-6)
check("r up to 16,384: the three lines labelled",
      sorted(t for t, _ in labels) == ["E = 0.1", "E = 0.5", "E = 0.9"], str(labels))

# Ceilings of fits over different largest N say so; over the same N they do not.
cut, whole = curve("ideal", [1, 2, 4, 8], 1250.0), curve("horovod", [1, 2, 4, 8, 16], 1780.0)
check("a ceiling names its fit's largest N where they differ",
      ceilings._ceiling_text(cut, True, False, True) == "1,250×, fit to N = 8",
      ceilings._ceiling_text(cut, True, False, True))
check("and not where they are the same", ceilings._ceiling_text(whole, True, False, False) == "1,780×")


# A weak curve at E = 0.9 from 2 to 4,096 nodes: 1 - alpha_eff ∝ N^-0.97, shape nonparallel_falls.
held = curve("ring", [1, 2, 4, 4096], 26800.0)
held.shape, held.alpha_eff_drift, held.amdahl_shaped = "nonparallel_falls", -0.97, False
held.data["speedup"] = np.array([1, 1.8, 3.6, 3686.4])
held.data["efficiency"] = np.array([1, 0.9, 0.9, 0.9])
check("no ceiling in sight: the drift and the efficiency at the largest N",
      text.no_ceiling_in_sight(held) == "no ceiling in sight: 1 − α_eff ∝ N^−0.97, E = 0.90 at N = 4,096",
      text.no_ceiling_in_sight(held))
check("an Amdahl-shaped curve has a ceiling in sight", text.no_ceiling_in_sight(whole) is None)
fig, ax = plt.subplots(figsize=(8, 3))
amdahl = curve("tree", [1, 2, 4, 4096], 20.0)
ceilings._ceiling_panel(ax, [held, amdahl], lambda c: "C0", lambda c: c.variant, True, 8.0)
bars = [p for p in ax.patches if p.get_width() > 0]
check("a bar for the curve with a ceiling in sight, none for the other", len(bars) == 1, str(len(bars)))
check("the row says why it has no bar",
      any(t.get_text().startswith("no ceiling in sight: 1 − α_eff ∝ N^−0.97") for t in ax.texts),
      str([t.get_text() for t in ax.texts]))
check("the fitted ceiling of the curve whose 1 - alpha_eff falls does not stretch the axis",
      ax.get_xlim()[1] < 26800.0, str(ax.get_xlim()))
plt.close(fig)
# A grid's panel, 3.8 inches: the full text would not fit beside the marker, a shorter one does.
fig, ax = plt.subplots(figsize=(3.8, 2))
ceilings._ceiling_panel(ax, [held, amdahl], lambda c: "C0", lambda c: c.variant, True, 3.8)
fig.canvas.draw()
box = ax.get_window_extent()
said = [t for t in ax.texts if "in sight" in t.get_text()]
check("a narrow panel writes a shorter text for the row without a bar",
      [t.get_text() for t in said] == ["none in sight: 1 − α_eff ∝ N^−0.97"], str([t.get_text() for t in said]))
check("and it stays inside the axes",
      all(box.x0 - 1 <= t.get_window_extent().x0 and t.get_window_extent().x1 <= box.x1 + 1 for t in said),
      str([(t.get_window_extent().x0, t.get_window_extent().x1, box.x0, box.x1) for t in said]))
plt.close(fig)
row = report._summary_row(held)
check("the report's summary: none in sight for the ceiling and the fitted N, unstarred",
      row[3] == "none in sight" and row[4] == "none in sight / —", str(row[3:5]))
keys = dict(report._key_numbers(held))
check("the report's key numbers: no fitted N, and why",
      keys["N at E = 0.5 (fit)"] == "— (no ceiling in sight: 1 − α_eff falls with N)"
      and keys[report.AMDAHL_SHAPED] == "no (1 − α_eff falls with N: no ceiling in sight)", str(keys))
slow = curve("slow", [1, 2, 4, 8], 0.6667)
slow.alpha, slow.shape, slow.amdahl_shaped = -0.5, "slowdown", False
slow.data["efficiency"] = slow.data["alpha_eff"] = np.array([1, 0.4, 0.18, 0.09])
check("the report stars no slowdown, as the sweep's table does not", report._summary_row(slow)[3] == "none (α ≤ 0)",
      report._summary_row(slow)[3])
poor = curve("poor", [1, 2, 4, 8], 20.0)
poor.shape, poor.amdahl_shaped, poor.residual = "poor_fit", False, 0.15
poor.data["efficiency"] = poor.data["alpha_eff"] = np.array([1, 0.9, 0.8, 0.7])
check("and stars a poor fit's ceiling", report._summary_row(poor)[3] == "20×*", report._summary_row(poor)[3])


# The store's version: 4 only (3 lacked the curves' shapes; 5 would be a later build's).
with tempfile.TemporaryDirectory() as folder:
    for version in (3, 5):
        path = Path(folder) / f"v{version}.h5"
        with h5py.File(path, "w") as f:
            f.attrs.create("format", np.bytes_(b"ceiling-results"), dtype=h5py.string_dtype("utf-8", 16))
            f.attrs.create("format_version", np.int64(version))
        try:
            load(path)
            said = "read"
        except BadFile as e:
            said = str(e)
        check(f"format_version {version} is refused, saying which this script reads",
              f"format_version {version} is not supported (this script reads 4; rerun the sweep with this build)"
              in said, said)


class Out:
    def __init__(self):
        self.notes = []

    def note(self, text):
        self.notes.append(text)


out = Out()
ceilings.fig_ceiling(out, [curve("ideal", [1, 2, 4]), curve("horovod", [1, 2, 4], math.nan)])
check("the ceiling figure is skipped where one curve has a fit",
      out.notes and out.notes[0].startswith("skipped ceiling"), str(out.notes))

# An earlier run's figures in the folder: speedup (this store has none), ceiling (its drawing
# failed now), efficiency (written now), and a file of the user's.
with tempfile.TemporaryDirectory() as folder:
    folder = Path(folder)
    names = ["speedup.png", "speedup.svg", "speedup-2.png", "ceiling.png", "ceiling-2.svg",
             "efficiency.png", "notes.txt", "speedup-old.png"]
    for name in names:
        (folder / name).write_text("x")
    again = Out()
    again.dir, again.written, again.figures = folder, {folder / "efficiency.png"}, []
    figures.remove_stale(again, failed={"ceiling"})
    left = sorted(p.name for p in folder.iterdir())
    check("stale figures removed, the others kept", left ==
          ["ceiling-2.svg", "ceiling.png", "efficiency.png", "notes.txt", "speedup-old.png"], str(left))

# A signal whose exception a library swallowed on its way up (C code that clears any error of a
# lookup, while the handler ran in the Python code it called) still ends the run as signalled:
# 128 + the signal and the line, once the work under way is done. The script runs a stand-in
# package whose main() signals itself inside such a catch-all and returns 0.
with tempfile.TemporaryDirectory() as folder:
    folder = Path(folder)
    (folder / "ceilingplot").mkdir()
    (folder / "ceiling_plot.py").write_text(
        (Path(sys.argv[1]) / "tools" / "plot" / "ceiling_plot.py").read_text())
    (folder / "ceilingplot" / "__init__.py").write_text("")
    (folder / "ceilingplot" / "cli.py").write_text(
        "import os, signal\n"
        "def main():\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        for _ in range(10 ** 6):\n"
        "            pass\n"
        "    except BaseException:\n"
        "        pass\n"
        "    print('finished')\n"
        "    return 0\n")
    ran = subprocess.run([sys.executable, str(folder / "ceiling_plot.py")], capture_output=True,
                         text=True, timeout=60)
    check("a signal whose exception was swallowed ends the run with 128 + 15 and says so",
          ran.returncode == 143 and "finished" in ran.stdout
          and "ceiling: interrupted: the files written before stay" in ran.stderr,
          f"exit {ran.returncode}, stdout {ran.stdout!r}, stderr {ran.stderr!r}")

print(f"{failures} failure(s)" if failures else "all passed")
sys.exit(1 if failures else 0)
