#!/usr/bin/env python3
"""The half batch at which a workload's calibration reproduces a second single-device throughput.

    python3 tools/workloads/fit_half_batch.py FILE SECTION --batch B --throughput T [--ceiling PATH]

SECTION is `calibration` or `device_calibration[K]` (K from 0, in the file's order). The section
holds one measurement (its `batch` and `measured_throughput`); B and T are a second one of the
same device, in the same precision and framework, at another batch. The model prices a batch's
compute-bound terms as (batch + half_batch) x FLOPs / (peak x compute_efficiency)
(workloads/README.md, `half_batch`), so each measurement alone fits a compute efficiency for any
half batch; the half batch at which both fit the same efficiency reproduces both. It is found by
bisection on what `ceiling workload calibrate` fits (without --write) on copies of FILE written
beside it (so that its relative paths hold) and removed after: the section at the candidate half
batch, then the same with B and T for its measurement. The script prints the half batch and both
fits; write the half batch into the section by hand, then run `ceiling workload calibrate --write`.

Standard library only; the answer depends on the files and the arguments alone. Exits 1 with a
message where the two measurements admit no half batch (the larger batch no faster per sample
than the smaller, or not enough faster at any half batch the model can still fit).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

SECTION = re.compile(r"^(calibration|device_calibration\[(\d+)\])$")


def section_lines(lines, section):
    """The [first, last) line indices of SECTION's body (after its header)."""
    match = SECTION.match(section)
    if not match:
        sys.exit(f"fit_half_batch: section {section!r}: expected calibration or device_calibration[K]")
    header = "[calibration]" if match.group(2) is None else "[[device_calibration]]"
    wanted = 0 if match.group(2) is None else int(match.group(2))
    seen = -1
    for i, line in enumerate(lines):
        if line.strip() == header:
            seen += 1
            if seen == wanted:
                end = next((j for j in range(i + 1, len(lines)) if lines[j].lstrip().startswith("[")), len(lines))
                return i + 1, end
    sys.exit(f"fit_half_batch: no {section} in the file (as a section header line of its own)")


def with_keys(lines, section, values):
    """The file's lines with SECTION's keys set to VALUES (a key the section lacks added under its header)."""
    first, last = section_lines(lines, section)
    out = list(lines)
    for key, value in values.items():
        pattern = re.compile(rf"^{key}\s*=\s*[^#]*?(\s*#.*)?$")
        for i in range(first, last):
            found = pattern.match(out[i])
            if found:
                out[i] = f"{key} = {value}{found.group(1) or ''}"
                break
        else:
            out.insert(first, f"{key} = {value}")
            last += 1
    return out


def fitted_efficiency(ceiling, path, lines, section, index):
    """What `ceiling workload calibrate` fits for SECTION (its INDEX-th line of output) on LINES."""
    directory = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", suffix=".toml", dir=directory, delete=False) as f:
        f.write("\n".join(lines) + "\n")
        copy = f.name
    try:
        run = subprocess.run([ceiling, "workload", "calibrate", copy], capture_output=True, text=True)
    finally:
        os.unlink(copy)
    if run.returncode != 0:
        return None, run.stderr.strip()
    fits = re.findall(r"compute_efficiency = ([0-9.eE+-]+)", run.stdout)
    if index >= len(fits):
        sys.exit(f"fit_half_batch: calibrate printed {len(fits)} fits, none for {section}")
    return float(fits[index]), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("section")
    parser.add_argument("--batch", type=int, required=True, help="the second measurement's batch")
    parser.add_argument("--throughput", type=float, required=True, help="its samples per second")
    parser.add_argument("--ceiling", default="build/tools/ceiling", help="the ceiling binary (default: %(default)s)")
    args = parser.parse_args()
    with open(args.file, encoding="utf-8") as f:
        lines = f.read().split("\n")
    section_lines(lines, args.section)  # (its errors first)
    # calibrate prints [calibration]'s fit first unless borrowed, then each device calibration's.
    match = SECTION.match(args.section)
    borrowed = any(re.match(r"^borrow\s*=", line) for line in lines[slice(*section_lines(lines, "calibration"))])
    index = 0 if match.group(2) is None else int(match.group(2)) + (0 if borrowed else 1)

    def gap(half_batch):
        """Both fits at HALF_BATCH and their difference; None where either cannot be fitted."""
        first, why = fitted_efficiency(args.ceiling, args.file,
                                       with_keys(lines, args.section, {"half_batch": repr(half_batch)}), args.section, index)
        second_lines = with_keys(lines, args.section, {"half_batch": repr(half_batch), "batch": str(args.batch),
                                                        "measured_throughput": repr(args.throughput)})
        second, why_second = fitted_efficiency(args.ceiling, args.file, second_lines, args.section, index)
        if first is None or second is None:
            return None, why or why_second
        return (first - second, first, second), ""

    # The first measurement's efficiency minus the second's grows with the half batch where the
    # larger batch is the faster per sample: a root from 0 up to the largest half batch at which
    # both still fit (halved from 10^6 until they do), else none.
    low, high = 0.0, 1e6
    at_low, why = gap(low)
    if at_low is None:
        sys.exit(f"fit_half_batch: even without a half batch, ceiling workload calibrate fails:\n{why}")
    while gap(high)[0] is None and high > 1e-3:
        high *= 0.5
    g_low, g_high = at_low[0], gap(high)[0][0]
    if (g_low > 0) == (g_high > 0):
        sys.exit(f"fit_half_batch: no half batch from 0 to {high:g} fits both measurements (their fitted efficiencies "
                 f"differ by {g_low:.6g} at 0 and {g_high:.6g} at {high:g})")
    while high - low > 1e-4 * max(1.0, high):
        mid = 0.5 * (low + high)
        if (gap(mid)[0][0] > 0) == (g_low > 0):
            low = mid
        else:
            high = mid
    half_batch = round(0.5 * (low + high), 3)
    _, first, second = gap(half_batch)[0]
    print(f"half_batch = {half_batch:g}: compute_efficiency {first:.6g} from the section's measurement, "
          f"{second:.6g} from batch {args.batch} at {args.throughput:g} samples/s")


if __name__ == "__main__":
    main()
