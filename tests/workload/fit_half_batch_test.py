#!/usr/bin/env python3
"""tools/workloads/fit_half_batch.py against closed forms and its refusals.

    python3 fit_half_batch_test.py SOURCE_DIR CEILING

A made-up workload (compute_bound.toml) whose every layer is compute-bound and that has nothing else to do per
iteration (no parameters, no bytes): its iteration takes (B + h) x FLOPs / (peak x e), so two
throughputs T1 at B1 and T2 at B2 admit exactly one half batch h, T2 / T1 = B2 (B1 + h) / (B1 (B2 + h)).
With h = 3, B1 = 2, T1 = 2 and B2 = 8: T2 = 2 x 4 x 5 / 11; the script must find 3 (to its 0.001).
The same rate at batch 8 gives 0; a lower one, none; measurements that accumulated gradients (which
costs nothing without parameters) 3 again. Then BERT-large SQuAD's fp32 half batch and
ResNet-50's K80 one (a device calibration) are what the script finds from the files' own figures, and
a borrowed calibration, a second measurement at the section's own batch, a rate no half batch
reaches and a missing binary are refused with exit 1.
"""

import os
import shutil
import subprocess
import sys
import tempfile

source, ceiling = sys.argv[1], sys.argv[2]
script = os.path.join(source, "tools", "workloads", "fit_half_batch.py")
failures = 0



def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail))
    failures += 0 if ok else 1


with tempfile.TemporaryDirectory() as tmp:
    os.mkdir(os.path.join(tmp, "workloads"))
    os.mkdir(os.path.join(tmp, "platforms"))
    shutil.copy(os.path.join(source, "platforms", "generic-single-switch.toml"), os.path.join(tmp, "platforms"))
    compute_bound = os.path.join(tmp, "workloads", "compute_bound.toml")
    shutil.copy(os.path.join(source, "tests", "workload", "compute_bound.toml"), compute_bound)
    t2 = 2 * 4 * 5 / 11
    out = run(compute_bound, "calibration", "--batch", "8", "--throughput", repr(t2), "--ceiling", ceiling)
    check("a compute-bound workload's half batch is the closed form's 3", out.returncode == 0 and
          out.stdout.startswith("half_batch = 3: "), out.stdout + out.stderr)
    check("the copies beside the file are gone", sorted(os.listdir(os.path.join(tmp, "workloads"))) == ["compute_bound.toml"],
          str(os.listdir(os.path.join(tmp, "workloads"))))
    # The same rate at batch 8 is time in proportion to the batch: no half batch (0). Slower per
    # sample at the larger batch: none fits.
    out = run(compute_bound, "calibration", "--batch", "8", "--throughput", "2", "--ceiling", ceiling)
    check("a rate in proportion to the batch is no half batch", out.returncode == 0 and
          out.stdout.startswith("half_batch = 0: "), out.stdout + out.stderr)
    out = run(compute_bound, "calibration", "--batch", "8", "--throughput", "1.5", "--ceiling", ceiling)
    check("a rate no half batch reaches is refused", out.returncode == 1 and "no half batch from 0 to" in out.stderr,
          out.stdout + out.stderr)
    # Measurements that accumulated gradients (`ceiling workload calibrate` then says "one update per
    # N steps"): without parameters the update costs nothing, so the closed form's 3 again.
    with open(compute_bound, encoding="utf-8") as f:
        text = f.read()
    with open(compute_bound, "w", encoding="utf-8") as f:
        f.write(text.replace("  batch = 2\n", "  batch = 2\naccumulation = 64\n"))
    out = run(compute_bound, "calibration", "--batch", "8", "--throughput", repr(t2), "--accumulation", "16",
              "--ceiling", ceiling)
    check("measurements with gradient accumulation give the closed form's 3 too", out.returncode == 0 and
          out.stdout.startswith("half_batch = 3: "), out.stdout + out.stderr)
    out = run(compute_bound, "calibration", "--batch", "8", "--throughput", repr(t2), "--accumulation", "0",
              "--ceiling", ceiling)
    check("an accumulation of 0 steps is refused", out.returncode == 1 and "--accumulation 0" in out.stderr,
          out.stdout + out.stderr)

# The bundled files' half batches, each what the script finds from the file's own figures: on copies
# of the workloads and the platforms they name (the script writes its scratch copies beside the file:
# never into the source tree, which other tests read at the same time).
with tempfile.TemporaryDirectory() as tmp:
    for folder in ("workloads", "platforms", os.path.join("validation", "platforms")):
        shutil.copytree(os.path.join(source, folder), os.path.join(tmp, folder))
    workloads = os.path.join(tmp, "workloads")
    out = run(os.path.join(workloads, "bert_large_squad.toml"), "calibration", "--batch", "4", "--throughput", "9.0",
              "--ceiling", ceiling)
    check("BERT-large SQuAD's fp32 half batch is the file's 0.974", out.returncode == 0 and
          out.stdout.startswith("half_batch = 0.974: "), out.stdout + out.stderr)
    # ResNet-50's second device calibration, the K80 (the first is the P100, after [calibration]).
    out = run(os.path.join(workloads, "resnet50_v1.toml"), "device_calibration[1]", "--batch", "32", "--throughput", "48.4",
              "--ceiling", ceiling)
    check("ResNet-50's K80 half batch is the file's 6.031", out.returncode == 0 and
          out.stdout.startswith("half_batch = 6.031: "), out.stdout + out.stderr)
    out = run(os.path.join(workloads, "resnet50_v1.toml"), "device_calibration[1]", "--batch", "64", "--throughput", "50",
              "--ceiling", ceiling)
    check("a second measurement at the section's own batch is refused", out.returncode == 1 and
          "is the section's own batch" in out.stderr, out.stdout + out.stderr)
    out = run(os.path.join(workloads, "vgg16.toml"), "calibration", "--batch", "32", "--throughput", "100",
              "--ceiling", ceiling)
    check("a borrowed calibration is refused", out.returncode == 1 and "borrows another workload's" in out.stderr,
          out.stdout + out.stderr)
    out = run(os.path.join(workloads, "vgg16.toml"), "calibration", "--batch", "32", "--throughput", "100",
              "--ceiling", os.path.join(tmp, "no-such-binary"))
    check("a missing binary is refused", out.returncode == 1 and "no ceiling binary there" in out.stderr,
          out.stdout + out.stderr)
    check("no scratch copy is left", not [f for f in os.listdir(workloads) if f.startswith(".fit_half_batch-")],
          str(os.listdir(workloads)))
sys.exit(1 if failures else 0)
