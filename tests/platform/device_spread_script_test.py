#!/usr/bin/env python3
"""tools/platforms/device_spread.py: the analysis of variance behind `device_spread` against
its closed form, and its refusals.

Two GPUs of two runs each, 10 / 12 and 20 / 22: the mean square within GPUs is 4 / 2 = 2, between
them 2 x 5^2 + 2 x 5^2 = 100, with 2 runs per GPU; the between-GPU variance is (100 - 2) / 2 = 49,
so over the grand mean 16 the spread between GPUs is 7 / 16 = 43.75 % and from run to run
sqrt(2) / 16 = 8.84 %. A third GPU of one run counts in neither; a run at or above --below, or
outside --where, is left out.
usage: device_spread_script_test.py ROOT
"""
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
script = os.path.join(root, "tools", "platforms", "device_spread.py")
failures = 0


def run(text, *options):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, script, f.name, *options], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


def expect(result, code, text):
    global failures
    out = result.stdout + result.stderr
    if result.returncode != code or text not in out:
        failures += 1
        print(f"FAIL: wanted exit {code} and {text!r}, got exit {result.returncode}: {out.strip()}")


rows = "uuid,perf,warmup\na,10,FALSE\na,12,FALSE\nb,20,FALSE\nb,22,FALSE\nc,99,FALSE\n"
expect(run(rows), 0, "2 GPUs, 4 runs: between GPUs 43.75 %, run to run 8.84 %")
expect(run(rows + "a,500,FALSE\n", "--below", "100"), 0, "2 GPUs, 4 runs: between GPUs 43.75 %, run to run 8.84 %")
expect(run(rows + "a,500,TRUE\n", "--where", "warmup=FALSE"), 0, "2 GPUs, 4 runs: between GPUs 43.75 %, run to run 8.84 %")
expect(run(rows, "--column", "time"), 1, ".csv:1: no column 'time' in the header")
expect(run("uuid,perf\n", "--column", "time"), 1, ".csv:1: no column 'time' in the header")
expect(run(rows + "b\n"), 1, ".csv:7: 3 fields expected, fewer given")
expect(run(rows + "b,1,FALSE,x\n"), 1, ".csv:7: 3 fields expected, more given")
expect(run(rows.replace("\na,12,", "\n\na,12,") + "a,fast,FALSE\n"), 1, ".csv:8: perf = 'fast': expected a number")
expect(run(rows + "a,fast,FALSE\n"), 1, ".csv:7: perf = 'fast': expected a number")
expect(run("uuid,perf\na,1\na,2\n"), 1, "need two GPUs or more")
missing = subprocess.run([sys.executable, script, "/nonexistent/runs.csv"], capture_output=True, text=True)
expect(missing, 1, "/nonexistent/runs.csv: cannot read: No such file or directory")
with tempfile.NamedTemporaryFile("wb", suffix=".csv", delete=False) as f:
    f.write(b"uuid,perf\n\xff\xfe,1\n")
binary = subprocess.run([sys.executable, script, f.name], capture_output=True, text=True)
os.unlink(f.name)
expect(binary, 1, "not a CSV file")
print(f"{'FAILED' if failures else 'passed'}: device_spread.py")
sys.exit(1 if failures else 0)
