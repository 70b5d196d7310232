#!/usr/bin/env python3
"""The half batch at which a workload's calibration reproduces a second single-device throughput.

    python3 tools/workloads/fit_half_batch.py FILE SECTION --batch B --throughput T [--accumulation A] [--ceiling PATH]

SECTION is `calibration` or `device_calibration[K]` (K from 0, in the file's order). The section
holds one measurement (its `batch` and `measured_throughput`); B and T are a second one of the
same device, in the same precision and framework, at another batch (A: its steps per optimizer update,
1 unless given, as the section's own `accumulation` is 1 unless it says). The model prices a batch's
compute-bound terms as (batch + half_batch) x FLOPs / (peak x compute_efficiency)
(workloads/README.md, `half_batch`), so each measurement alone fits a compute efficiency for any
half batch; the half batch at which both fit the same efficiency reproduces both. It is found by
bisection on what `ceiling workload calibrate` fits (without --write) on copies of FILE written
beside it (so that its relative paths hold; named .fit_half_batch-*.toml, removed after, an
interrupted run's too): the section at the candidate half batch, then the same with B and T for
its measurement. The script prints the half batch (to within 0.001) and both fits; write the half batch
into the section by hand, then run `ceiling workload calibrate --write`.

The section must be written as a table of its own (its header on a line of its own, its keys one
per line); a borrowed [calibration] has no measurement of its own and is refused, and so is a
second measurement at the section's own batch. Standard library only; the answer depends on the
files and the arguments alone. Exits 1 with a message where the two measurements admit no half
batch (the larger batch slower per sample than the smaller, or faster than any half batch the
model can still fit makes it; the same rate per sample is a half batch of 0) or where a fit fails.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

SECTION = re.compile(r"^(calibration|device_calibration\[(\d+)\])$")
# A table's header on a line of its own, a comment after it allowed: [name] or [[name]].
HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-]+)\s*(\]\]?)\s*(#.*)?$")


def fail(message):
    sys.exit(f"fit_half_batch: {message}")


def section_lines(lines, section):
    """The [first, last) line indices of SECTION's body (after its header)."""
    match = SECTION.match(section)
    if not match:
        fail(f"section {section!r}: expected calibration or device_calibration[K]")
    name, array = ("calibration", False) if match.group(2) is None else ("device_calibration", True)
    wanted = 0 if match.group(2) is None else int(match.group(2))
    seen = -1
    for i, line in enumerate(lines):
        header = HEADER.match(line)
        if header and header.group(2) == name and (header.group(1) == "[[") == array:
            seen += 1
            if seen == wanted:
                end = next((j for j in range(i + 1, len(lines)) if HEADER.match(lines[j])), len(lines))
                return i + 1, end
    fail(f"no {section} in the file (as a table whose header is a line of its own)")


def key_pattern(key):
    return re.compile(rf"^(\s*){re.escape(key)}\s*=\s*[^#]*?(\s*#.*)?$")


def with_keys(lines, section, values):
    """The file's lines with SECTION's keys set to VALUES (a key the section lacks added under its header)."""
    first, last = section_lines(lines, section)
    out = list(lines)
    for key, value in values.items():
        pattern = key_pattern(key)
        for i in range(first, last):
            found = pattern.match(out[i])
            if found:
                out[i] = f"{found.group(1)}{key} = {value}{found.group(2) or ''}"
                break
        else:
            out.insert(first, f"{key} = {value}")
            last += 1
    return out


def fitted_efficiency(ceiling, path, lines, index, batch):
    """What `ceiling workload calibrate` fits (its INDEX-th fit printed, which must be of a measurement at
    BATCH) on LINES, or None and why not."""
    directory = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", prefix=".fit_half_batch-", suffix=".toml", dir=directory,
                                     delete=False) as f:
        f.write("\n".join(lines) + "\n")
        copy = f.name
    try:
        run = subprocess.run([ceiling, "workload", "calibrate", copy], capture_output=True, text=True)
    finally:
        os.unlink(copy)
    if run.returncode != 0:
        return None, run.stderr.strip()
    fits = re.findall(r"compute_efficiency = ([0-9.eE+-]+) .* at batch (\d+)(?:, one update per \d+ steps)?\)",
                      run.stdout)
    if index >= len(fits) or int(fits[index][1]) != batch:
        fail(f"ceiling workload calibrate printed no fit at batch {batch} where the section's was expected "
             f"(its output:\n{run.stdout})")
    return float(fits[index][0]), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("section")
    parser.add_argument("--batch", type=int, required=True, help="the second measurement's batch")
    parser.add_argument("--throughput", type=float, required=True, help="its samples per second")
    parser.add_argument("--accumulation", type=int, default=1,
                        help="its steps per optimizer update (gradient accumulation; default: %(default)s, an update "
                             "every step), whatever the section's own `accumulation`")
    parser.add_argument("--ceiling", default="build/tools/ceiling", help="the ceiling binary (default: %(default)s)")
    args = parser.parse_args()
    if not (os.path.isfile(args.ceiling) and os.access(args.ceiling, os.X_OK)):
        fail(f"{args.ceiling}: no ceiling binary there (build first, or give --ceiling PATH)")
    if args.batch < 1 or not args.throughput > 0:
        fail(f"--batch {args.batch} --throughput {args.throughput:g}: expected a batch of 1 or more and a positive rate")
    if not 1 <= args.accumulation <= 1_000_000:
        fail(f"--accumulation {args.accumulation}: expected 1 to 1000000 steps per optimizer update")
    try:
        with open(args.file, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{args.file}: {e.strerror}")
    first, last = section_lines(lines, args.section)  # (its errors first)
    # calibrate prints [calibration]'s fit first unless borrowed, then each device calibration's.
    borrowed = any(key_pattern("borrow").match(line) for line in lines[slice(*section_lines(lines, "calibration"))])
    match = SECTION.match(args.section)
    if match.group(2) is None and borrowed:
        fail("[calibration] borrows another workload's: it has no measurement of its own to fit (fit the lender's)")
    index = 0 if match.group(2) is None else int(match.group(2)) + (0 if borrowed else 1)
    own_batch = None
    for line in lines[first:last]:
        found = re.match(r"^\s*batch\s*=\s*(\d+)\s*(#.*)?$", line)
        if found:
            own_batch = int(found.group(1))
    if own_batch is None:
        fail(f"{args.section} gives no `batch = N` line of its own")
    if own_batch == args.batch:
        fail(f"--batch {args.batch} is the section's own batch: a second measurement at another batch is needed")
    # An interrupted run still removes its copies (fitted_efficiency's finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))

    def gap(half_batch):
        """Both fits at HALF_BATCH and their difference, or None and which fit failed, and why."""
        first_lines = with_keys(lines, args.section, {"half_batch": repr(half_batch)})
        first, why = fitted_efficiency(args.ceiling, args.file, first_lines, index, own_batch)
        if first is None:
            return None, f"the section's own measurement at half_batch {half_batch:g}: {why}"
        second_lines = with_keys(lines, args.section, {"half_batch": repr(half_batch), "batch": str(args.batch),
                                                        "measured_throughput": repr(args.throughput),
                                                        "accumulation": str(args.accumulation)})
        second, why = fitted_efficiency(args.ceiling, args.file, second_lines, index, args.batch)
        if second is None:
            return None, f"batch {args.batch} at {args.throughput:g} samples/s at half_batch {half_batch:g}: {why}"
        return (first - second, first, second), ""

    # The two measurements' efficiencies move apart steadily with the half batch (the one at the
    # smaller batch rises faster): a root from 0 up to the largest half batch at which both still
    # fit (halved from 10^6 until they do), found by its sign change, else none.
    low, high = 0.0, 1e6
    at_low, why = gap(low)
    if at_low is None:
        fail(f"cannot fit {why}")
    at_high, why = gap(high)
    while at_high is None and high > 1e-3:
        high *= 0.5
        at_high, why = gap(high)
    if at_high is None:
        fail(f"cannot fit {why}")
    g_low, g_high = at_low[0], at_high[0]
    if (g_low > 0) == (g_high > 0):
        fail(f"no half batch from 0 to {high:g} fits both measurements (their fitted efficiencies differ by "
             f"{g_low:.6g} at 0 and {g_high:.6g} at {high:g})")
    while high - low > 5e-4:
        mid = 0.5 * (low + high)
        at_mid, why = gap(mid)
        if at_mid is None:
            fail(f"cannot fit {why}")
        if (at_mid[0] > 0) == (g_low > 0):
            low = mid
        else:
            high = mid
    half_batch = round(0.5 * (low + high), 3)
    at, why = gap(half_batch)
    if at is None:
        fail(f"cannot fit {why}")
    print(f"half_batch = {half_batch:g}: compute_efficiency {at[1]:.6g} from the section's measurement, "
          f"{at[2]:.6g} from batch {args.batch} at {args.throughput:g} samples/s")


if __name__ == "__main__":
    main()
