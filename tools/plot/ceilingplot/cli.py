"""The command line: plot|report RESULTS.h5 [-o DIR], exit statuses and error messages."""

import argparse
import sys
from pathlib import Path

from .figures import draw_all
from .output import Output
from .report import remove_report, someones_report, write_report
from .store import BadFile, load
from .style import label_curves


def default_dir(results, suffix):
    p = Path(results)
    stem = p.name[:-len(p.suffix)] if p.suffix.lower() in (".h5", ".hdf5", ".hdf") else p.name
    return p.parent / f"{stem}-{suffix}"


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="ceiling_plot.py",
        description="Figures (PNG + SVG) and a report (Markdown + self-contained HTML) from a "
                    "ceiling result store (HDF5, format_version 4). DIR defaults to RESULTS "
                    "without its .h5 extension plus '-plots' (plot) or '-report' (report), "
                    "beside it. Prints each file written as 'wrote PATH' and what it left out "
                    "as 'skipped ...' or 'note: ...'; exit status 2 with 'ceiling: error: "
                    "PATH: ...' for a bad results file or output directory.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{plot,report}")
    for name, suffix, text in (
            ("plot", "plots", "write every figure as DIR/NAME.png and DIR/NAME.svg"),
            ("report", "report", "write the figures plus DIR/report.md and DIR/report.html")):
        p = sub.add_parser(name, help=text, description=text + ".")
        p.add_argument("results", metavar="RESULTS.h5", help="the file `ceiling sweep` wrote")
        p.add_argument("-o", "--output", metavar="DIR",
                       help=f"output directory, created if needed (default: RESULTS without "
                            f"its .h5 extension plus '-{suffix}', beside it: "
                            f"out/x.h5 -> out/x-{suffix})")
        p.set_defaults(suffix=suffix)
    return parser.parse_args(argv)


def main(argv=None):
    # Paths are printed as the bytes they are, UTF-8 or not (the operating system's names).
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="surrogateescape")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except Exception as e:  # a bug: said in one line, exit 1 (the documented internal error)
        print(f"ceiling: error: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


def run(args):
    try:
        results = load(args.results)
    except BadFile as e:
        print(f"ceiling: error: {args.results}: {e}", file=sys.stderr)
        return 2
    label_curves(results.curves)
    directory = Path(args.output) if args.output else default_dir(args.results, args.suffix)
    if directory.exists() and not directory.is_dir():
        print(f"ceiling: error: {directory}: is a file, not a folder: -o names the folder the "
              f"pictures go to", file=sys.stderr)
        return 2
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"ceiling: error: {directory}: cannot create the output directory: "
              f"{e.strerror or e}", file=sys.stderr)
        return 2
    if args.command == "report" and (theirs := someones_report(directory)):
        print(f"ceiling: error: {theirs}: exists and is not a report `ceiling report` wrote: -o names "
              f"another folder, or remove it first", file=sys.stderr)
        return 2
    out = Output(directory, results)
    try:
        ok = draw_all(out)
        if args.command == "report":
            write_report(out)
        else:
            remove_report(out)
    except OSError as e:  # the directory is not writable, the disk is full
        print(f"ceiling: error: {getattr(e, 'filename', None) or directory}: cannot write: "
              f"{e.strerror or e}", file=sys.stderr)
        return 2
    return 0 if ok else 1
