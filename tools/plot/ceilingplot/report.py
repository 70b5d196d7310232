"""The report: key numbers and per-N tables of every curve, the figures, failed points."""

import html
import math
import os
import re
from pathlib import Path

from . import costs
from .figures import FIGURES
from .markup import CSS, Code, Doc
from .output import say, write_atomically
from .text import SHAPE_WORDS, fmt, fmt_alpha, fmt_n, no_ceiling_in_sight


# Key numbers that the summary table reads back.
CEILING = "ceiling speedup 1 / (1 − α) (fit)"
AMDAHL_SHAPED = "Amdahl-shaped (3 or more N, residual < 5 %, 1 − α_eff flat in N, α ≥ 0)"


def _measured(v, c):
    if math.isfinite(v):
        return fmt_n(v)
    if c.rows < 2:  # (the reference alone: nothing was there to reach)
        return "— (one node count: nothing measured)" if c.rows else "—"
    return f"not reached (largest N {fmt_n(c.data['n'].max())})"


def _fitted(v, short=False):
    if math.isnan(v):
        return "—" if short else "— (no fit: fewer than 2 node counts)"
    return "∞ (α clamped to 1: linear or superlinear)" if math.isinf(v) else fmt_n(v)


def _key_numbers(c):
    alpha = c.alpha_eff_at_largest_n
    alpha_text = fmt_alpha(alpha)
    if math.isfinite(alpha):
        alpha_text += f" (1 − α_eff = {fmt(1 - alpha)})"
    largest = f" ({fmt_n(c.data['n'].max())})" if c.rows else ""
    ceiling = no_ceiling_in_sight(c) or (_fitted(c.ceiling) if math.isnan(c.ceiling) else (
        "∞ (α clamped to 1: linear or superlinear)" if math.isinf(c.ceiling) else
        "— (no speedup over the reference N: α ≤ 0)" if c.alpha <= 0 else f"{fmt(c.ceiling)}×"))
    # (where no ceiling is in sight the fit's N grow with the largest N, as its ceiling would)
    unfitted = "— (no ceiling in sight: 1 − α_eff falls with N)" if no_ceiling_in_sight(c) else None
    shaped = "—" if math.isnan(c.residual) else SHAPE_WORDS.get(c.shape, "yes" if c.amdahl_shaped else "no")
    return [
        ("scaling", c.scaling),
        ("reference N (speedups are against it)", fmt_n(c.n_reference)),
        (CEILING, ceiling),
        ("fitted α (Amdahl)", fmt_alpha(c.alpha)),
        ("N at E = 0.5 (fit)", unfitted or _fitted(c.n_half_fit)),
        ("N at E = 0.5 (simulated)", _measured(c.n_half_measured, c)),
        ("N beyond which doubling gains < 10 % (fit)", unfitted or _fitted(c.n_doubling_fit)),
        ("N beyond which doubling gains < 10 % (simulated)", _measured(c.n_doubling_measured,
                                                                      c)),
        (f"α_eff at the largest N{largest}", alpha_text),
        ("dominant part of 1 − α_eff at the largest N", c.dominant_term),
        ("fit residual (RMS of relative speedup error)",
         "—" if math.isnan(c.residual) else f"{fmt(c.residual * 100)} %"),
        (AMDAHL_SHAPED, shaped),
    ]


def _per_n_rows(c):
    d = c.data
    rows = []
    for i in range(c.rows):
        ref = d["n"][i] == c.n_reference
        one_minus = "— (reference)" if ref else fmt(1 - d["alpha_eff"][i])
        time = fmt(d["iteration_time_s"][i])
        if d["seeds"][i] > 1 and d["iteration_time_max_s"][i] > d["iteration_time_min_s"][i]:
            time += (f" ({fmt(d['iteration_time_min_s'][i])}–{fmt(d['iteration_time_median_s'][i])}–"
                     f"{fmt(d['iteration_time_max_s'][i])})")
        rows.append([fmt_n(d["n"][i]), str(int(d["seeds"][i])), time,
                     fmt(d["throughput_samples_per_s"][i]), fmt(d["speedup"][i]),
                     fmt(d["efficiency"][i]), one_minus,
                     fmt(d["compute_s"][i]), fmt(d["copy_s"][i]),
                     fmt(d["communication_s"][i]), fmt(d["synchronisation_s"][i])])
    return rows


PER_N_HEADERS = ["N", "seeds", "time per iteration (s), mean (min–median–max over seeds, where several)", "throughput (samples/s)",
                 "speedup", "efficiency", "1 − α_eff", "compute (s)", "copy (s)",
                 "communication (s)", "synchronisation (s)"]


HOW_TO_READ = (
    "Each curve is one platform × workload × variant in weak scaling (the "
    "work per node is fixed, so the speedup is the throughput over the smallest N's) or "
    "strong scaling (the global batch is fixed, so the speedup is the time to solution of "
    "one batch against the smallest N's). From the speedup S at r = N / N_ref the simulated "
    "parallelisable fraction is α_eff = r / (r − 1) · (S − 1) / S; 1 − α_eff is the part of "
    "the work that does not parallelise: communication, copies between host and device "
    "memory, waiting for the slowest rank, compute beyond perfect scaling (a smaller batch "
    "per GPU runs less efficiently; every rank repeats the optimizer step). Fitted to the curve, "
    "Amdahl's law with one α then bounds the speedup by the ceiling 1 / (1 − α), however many "
    "nodes are added, and the efficiency E = 1 / (r (1 − α) + α) falls as N grows: at "
    "r = (2 − α) / (1 − α), N = N_ref (2 − α) / (1 − α), it is one "
    "half, and beyond that doubling N adds little. A curve whose fit residual is small and "
    "whose 1 − α_eff holds with N (Amdahl-shaped) has the speedup of Amdahl's law within a "
    "few per cent over the N simulated, and its ceiling extrapolates the fitted 1 − α; "
    "otherwise the speedup leaves Amdahl's shape and the fitted ceiling is only indicative. "
    "In weak scaling the work grows with N: at constant efficiency 1 − α_eff falls as 1/N, "
    "there is no ceiling within the sweep and the fitted one grows with the largest N "
    "simulated; read the efficiency at the largest N instead. The model and the figure of merit are János "
    "Végh's: \"How deep the machine learning can be\" (2020).")


def _summary_row(c):
    key = dict(_key_numbers(c))
    ceiling = key[CEILING]
    measured = _fmt_or_dash(c.n_half_measured)
    # The fit's numbers extrapolate where the curve is not Amdahl-shaped (as the sweep's
    # headline stars them).
    star = "*" if c.starred else ""
    n_half_fit = _fitted(c.n_half_fit, short=True)
    if no_ceiling_in_sight(c):
        ceiling = n_half_fit = "none in sight"
    elif ceiling.startswith("— (no speedup"):
        ceiling = "none (α ≤ 0)"
    return [Code(c.id), c.scaling, fmt_n(c.n_reference) if c.rows else "—",
            "—" if ceiling.startswith("—") else ceiling + star,
            f"{n_half_fit}{star} / {measured}",
            # (three decimals, as the sweep prints it, and which N that is)
            f"{c.data['efficiency'][c.data['n'].argmax()]:.3f} at N = {fmt_n(c.data['n'].max())}"
            if c.rows >= 2 else "—",
            next(v for k, v in key.items() if k.startswith("α_eff at the largest N")),
            c.dominant_term,
            key[AMDAHL_SHAPED].split(" (")[0]]


def _fmt_or_dash(v):
    return fmt_n(v) if math.isfinite(v) else "—"


REPORT_NAMES = ("report.md", "report.html")


def someones_report(directory):
    """A file of a report's name in `directory` that no `ceiling report` wrote (it has no line of
    the tool's version, and is not empty): someone's, which neither `plot` nor `report` replaces."""
    for name in REPORT_NAMES:
        path = Path(directory) / name
        if path.is_file() and path.stat().st_size > 0 and b"ceiling version" not in path.read_bytes():
            return path
    return None


def remove_report(out):
    """`plot` into a folder that holds a report of another store (or of an earlier state of this
    one): the report speaks of figures this run replaced, so it goes, a line saying so. This
    store's own report, the one `ceiling report` would write now, stays, and so does a file of that
    name that no `ceiling report` wrote (one without the line of its version)."""
    texts = None
    for name in REPORT_NAMES:
        path = out.dir / name
        if not path.is_file() or path == someones_report(out.dir):
            continue
        texts = texts or dict(zip(REPORT_NAMES, render_report(out)))
        if path.read_bytes() != texts[name].encode("utf-8"):
            path.unlink()
            say(f"removed {path}: a report of an earlier run, whose figures this run replaced "
                f"(`ceiling report` writes one)")


def write_report(out):
    md, html_text = render_report(out)
    for name, text in (("report.md", md), ("report.html", html_text)):
        path = out.dir / name
        write_atomically(path, text)
        say(f"wrote {path}")


def render_report(out):
    """The report's Markdown and HTML texts."""
    r = out.results
    a = r.attrs
    doc = Doc()
    # (a path is shown as far as it is UTF-8: the report is UTF-8 text)
    shown_path = os.fsencode(r.path).decode("utf-8", "replace")
    title = a["title"] or a["experiment_path"] or Path(shown_path).name
    doc.heading(1, title)
    if a["question"]:
        doc.para(a["question"])
    # The store keeps each command that wrote it, a line each: the first, then each --resume.
    commands = a["command_line"].split("\n")
    doc.items([
        ("experiment", Code(a["experiment_path"])),
        ("result file", Code(shown_path)),
        ("sweep command line", Code(commands[0])),
        *[("then", Code(line)) for line in commands[1:]],
        ("ceiling version", a["tool_version"]),
        ("SimGrid version", a["simgrid_version"]),
        ("points finished", f"{a['points_done']:,} of {a['points_total']:,} "
                            f"({int((r.points['status'] == 'failed').sum()):,} failed, "
                            f"{int((r.points['status'] == 'does-not-fit').sum()):,} do not fit in device memory)"),
        ("input digest", Code(a["digest"])),
    ])
    doc.heading(2, "How to read this")
    doc.para(HOW_TO_READ)
    cost_unit = costs.unit(r) if costs.has_costs(r) else ""
    if cost_unit:
        doc.para(costs.FORMULAS.format(unit=cost_unit))

    doc.heading(2, "Summary")
    if r.curves:
        units = {c.n_unit for c in r.curves}
        n_ref = f"N ref ({units.pop()})" if len(units) == 1 else "N ref"
        headers = ["curve", "scaling", n_ref, "ceiling (fit)", "N at E = 0.5 (fit / simulated)",
                   "E at largest N", "α_eff at largest N", "dominant part", "Amdahl-shaped"]
        rows = [_summary_row(c) for c in r.curves]
        if cost_unit:
            headers.append("cost figure at largest N")
            rows = [row + [costs.summary_text(c, cost_unit)] for row, c in zip(rows, r.curves)]
        doc.table(headers, rows)
        doc.para("N ref: the curve's smallest finished N, which its speedup, efficiency, α_eff and ceiling "
                 "are over (α_eff per block of N ref nodes, r = N / N ref). A dash: no fit (fewer than two "
                 "finished node counts) or, for a simulated N, not reached within the node counts simulated "
                 "(or nothing measured: one node count); none (α ≤ 0): the fit has no speedup over N ref, "
                 "and so no ceiling; none in sight: 1 − α_eff falls with N, as at constant efficiency "
                 "(weak scaling's, where it falls as 1/N), so no ceiling lies within the sweep, and a fitted "
                 "one would grow with the largest N, as would the fitted N at E = 0.5. "
                 "*: the curve is not Amdahl-shaped, and the fit's numbers extrapolate a shape the curve "
                 "does not have: read the simulated N at E = 0.5 and the efficiency at the largest N.")
        for scaling in sorted({c.scaling for c in r.curves}):
            references = sorted({c.n_reference for c in r.curves if c.rows and c.scaling == scaling})
            if len(references) > 1:
                doc.para(f"Note: the {scaling} curves' N ref differ (" + ", ".join(fmt_n(n) for n in references) +
                         "; a point that failed or does not fit in device memory moves a curve's N ref up): "
                         "speedups, efficiencies and ceilings over different N ref do not compare directly.")
    else:
        doc.para("The file has no curves.")

    doc.heading(2, "Figures")
    for name, _, heading, caption in FIGURES:
        files = [(png, part) for n, png, part in out.figures if n == name]
        if len(files) == 1:
            doc.heading(3, heading)
            doc.figure(files[0][0], heading, caption)
        elif files:  # one file per workload: the caption once, then each part
            doc.heading(3, heading)
            doc.para(caption)
            for png, part in files:
                doc.figure(png, f"{heading}, {part}", f"{heading}, {part} ({png.name}).")
    skipped = [n for n in out.notes if n.startswith("skipped")]
    if skipped:
        doc.para("Not drawn: " + "; ".join(s[len("skipped "):] for s in skipped) + ".")

    doc.heading(2, "Curves")
    for c in r.curves:
        doc.heading(3, c.id)
        doc.table(["quantity", "value"], _key_numbers(c) +
                  (costs.key_numbers(c, cost_unit) if cost_unit else []))
        if c.rows:
            doc.table(PER_N_HEADERS, _per_n_rows(c), right=set(range(len(PER_N_HEADERS))))
        else:
            doc.para("No finished point.")
        # What the curve's points stand on (calibration, routing, allocation, load), once each;
        # the domains a point spans (they change with N) and the seed of a random allocation
        # (the table's seed column has it) are left out.
        p = r.points
        said = sorted({re.sub(r" \(seed \d+\)|, \d+ of \d+ [a-z ]+(?=;|$)", "", p["provenance"][i])
                       for i in range(len(p["status"]))
                       if p["status"][i] == "ok" and int(p["curve"][i]) == c.index and p["provenance"][i]})
        # ... but the span at the largest N, where the fabric's upper levels are or are not used.
        largest = [i for i in range(len(p["status"]))
                   if p["status"][i] == "ok" and int(p["curve"][i]) == c.index and p["provenance"][i]]
        spans = ""
        if largest:
            top = max(largest, key=lambda i: float(p["nodes"][i]))
            span = re.search(r", (\d+ of \d+ [a-z ]+)(?=;|$)", p["provenance"][top])
            if span:
                spans = f" At the largest N ({fmt_n(float(p['nodes'][top]))}) the nodes span {span.group(1)}."
        if said:
            doc.para("What the points stand on: " + "; or ".join(said) + "." + spans)

    doc.heading(2, "Failed points, and points that do not fit in device memory")
    p = r.points
    failed = [i for i in range(len(p["status"])) if p["status"][i] != "ok"]
    if failed:
        doc.table(["point", "curve", "N", "seed", "status", "error", "command"],
                  [[str(int(p["index"][i])), Code(r.curves[int(p["curve"][i])].id),
                    fmt_n(float(p["nodes"][i])), str(int(p["seed"][i])), p["status"][i],
                    p["error"][i] or "-", Code(p["command"][i])]
                   for i in failed])
    else:
        doc.para("None.")

    if r.inputs:
        doc.heading(2, "Inputs")
        doc.table(["kind", "path"], [[k, Code(path)] for k, path in r.inputs])

    md = "\n".join(doc.md).rstrip() + "\n"
    html_text = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n" +
                 "\n".join(doc.html) + "\n</body>\n</html>\n")
    return md, html_text
