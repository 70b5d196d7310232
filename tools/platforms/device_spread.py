#!/usr/bin/env python3
"""How much GPUs of one model differ in speed: a one-way analysis of variance over per-GPU runs.

Reads a CSV of benchmark runs, one row per run, each naming its GPU, and prints the spread of the
time between GPUs (the coefficient of variation of a GPU's own mean, less what the runs of one
GPU spread: the random-effects estimate) and the run-to-run spread within a GPU, both relative
to the grand mean. platforms/README.md, "Device spread", derives `device_spread` with it from the
per-GPU runs published with Jain et al., "PAL" (SC24; github.com/hal-uw/blox-pal @da726ca,
aggregated_data/sim/*.csv: TACC Longhorn's V100s), e.g.

    tools/platforms/device_spread.py resnet-longhorn-agg.csv --below 200
    tools/platforms/device_spread.py bert-longhorn-agg.csv --where warmup=FALSE
    tools/platforms/device_spread.py sgemm-longhorn-agg.csv

A GPU with fewer than two runs counts in neither estimate.
"""
import argparse
import csv
import math
import sys
from collections import defaultdict


def spread(groups):
    """(GPUs, runs, between-GPU sd / grand mean, within-GPU sd / grand mean) of `groups`, a
    list of lists of run values, each list one GPU's (two runs or more)."""
    k = len(groups)
    n = sum(len(g) for g in groups)
    if k < 2 or n <= k:
        raise ValueError("need two GPUs or more, and some with two runs or more")
    grand = sum(sum(g) for g in groups) / n
    means = [sum(g) / len(g) for g in groups]
    msw = sum(sum((x - m) ** 2 for x in g) for g, m in zip(groups, means)) / (n - k)
    msb = sum(len(g) * (m - grand) ** 2 for g, m in zip(groups, means)) / (k - 1)
    n0 = (n - sum(len(g) ** 2 for g in groups) / n) / (k - 1)  # runs per GPU, unbalanced
    between = math.sqrt(max(0.0, (msb - msw) / n0))
    return k, n, between / grand, math.sqrt(msw) / grand


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", help="one row per run")
    parser.add_argument("--column", default="perf", help="the run's time (default: perf)")
    parser.add_argument("--gpu", default="uuid", help="the column naming the GPU (default: uuid)")
    parser.add_argument("--below", type=float, help="leave out runs whose time is at or above this")
    parser.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                        help="keep only the rows whose COLUMN holds VALUE (repeatable)")
    args = parser.parse_args()
    conditions = []
    for w in args.where:
        if "=" not in w:
            sys.exit(f"device_spread.py: --where {w}: expected COLUMN=VALUE")
        conditions.append(tuple(w.split("=", 1)))
    try:
        runs = read_runs(args, conditions)
    except OSError as e:
        sys.exit(f"device_spread.py: {args.csv}: cannot read: {e.strerror}")
    except (csv.Error, UnicodeDecodeError) as e:
        sys.exit(f"device_spread.py: {args.csv}: not a CSV file: {e}")
    groups = [g for g in runs.values() if len(g) >= 2]
    try:
        gpus, count, between, within = spread(groups)
    except ValueError as e:
        sys.exit(f"device_spread.py: {args.csv}: {e}")
    print(f"{gpus} GPUs, {count} runs: between GPUs {100 * between:.2f} %, run to run {100 * within:.2f} %")


def read_runs(args, conditions):
    """The runs' values of `args.column` by GPU, the rows kept by `conditions` and --below."""
    runs = defaultdict(list)
    with open(args.csv, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        for column in [args.column, args.gpu] + [c for c, _ in conditions]:
            if column not in header:
                sys.exit(f"device_spread.py: {args.csv}:1: no column {column!r} in the header")
        for row in reader:
            line = reader.line_num  # the row's last line in the file
            if None in row.values() or None in row:
                sys.exit(f"device_spread.py: {args.csv}:{line}: {len(header)} fields expected, "
                         f"{'fewer' if None in row.values() else 'more'} given")
            if any(row[c] != v for c, v in conditions):
                continue
            try:
                value = float(row[args.column])
            except ValueError:
                sys.exit(f"device_spread.py: {args.csv}:{line}: {args.column} = {row[args.column]!r}: expected a number")
            if args.below is None or value < args.below:
                runs[row[args.gpu]].append(value)
    return runs


if __name__ == "__main__":
    main()
