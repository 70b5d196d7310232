#!/usr/bin/env python3
"""Generate the workload files of the AI Matrix CNN training benchmarks.

    python3 tools/workloads/generate_cnn.py [DATA_DIR] [--out DIR]

DATA_DIR is the AI Matrix reference data (digest.md, models.csv, layers/*.csv); it defaults to
../shared/data/aimatrix relative to the repository root. The files are written to
workloads/ (or --out) as <model>.toml. Standard library only; the output depends only on the
input files (no dates, no absolute paths), so a rerun on the same data is byte-identical.

What the generator does, per model (see tools/workloads/README.md):
  * one layer per row of the per-layer CSV, in CSV order, names made unique with a suffix;
  * a dependency DAG inferred from the naming conventions of the network (ResNet blocks,
    GoogLeNet inception modules, DenseNet dense layers), with zero-FLOP, zero-parameter join
    layers ("add", "concat") where tensors meet;
  * checks: layer params add up to models.csv `params` exactly, layer FLOPs to
    models.csv `gflops_per_sample_fwd` within 1 %, and every layer's input size equals the
    output size of what it is declared to depend on (which checks the inferred DAG);
  * ResNet-50 v1.5 is derived from the v1 table by moving the stride 2 of the first block of
    stages 3, 4 and 5 from the first 1x1 conv to the 3x3 conv (see resnet_v15()).
"""

import argparse
import csv
import math
import re
import sys
from decimal import Decimal
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = Path("..") / "shared" / "data" / "aimatrix"  # relative to the repository root
DATA_REF = "shared/data/aimatrix"  # how the data is named inside generated files

BYTES_PER_ELEM = 4  # fp32 activations
FLOP_TOLERANCE = 0.01

# --------------------------------------------------------------------------------------------
# Shared text
# --------------------------------------------------------------------------------------------

NVCNN_FRAMEWORK = "TensorFlow 1.10, nvcnn.py (AI Matrix macro_benchmark/CNN_Tensorflow)"
IMAGENET_224 = "ImageNet, 3x224x224, synthetic input"

OPTIMIZER_COMMENT = (
    "SGD with momentum, fp32: read weight, gradient, momentum; write weight, momentum = 5 x 4 B. "
    "nvcnn.py make_optimizer(): tf.train.MomentumOptimizer(lr, momentum=0.9, use_nesterov=True) "
    "(alibaba/ai-matrix at 5e5b923 and at HEAD f7e1d77; the digest does not state the "
    "optimizer). nvcnn adds L2 weight decay (1e-4) to the loss, which costs further passes over "
    "the weights that are not counted here."
)
OPTIMIZER_COMMENT_HISTORICAL = (
    "[estimated] SGD with momentum, fp32: read weight, gradient, momentum; write weight, "
    "momentum = 5 x 4 B, as nvcnn.py (tf.train.MomentumOptimizer, Nesterov) that AI Matrix's TF "
    "CNN tests use; no training run of this model is in the data."
)
BACKWARD_COMMENT = (
    "[estimated] standard assumption: backward (data + weight gradients) = 2 x forward FLOPs; "
    "digest §7 likewise takes training = 3 x forward."
)
CAL_SOURCE = (
    "[R-102] digest §3.4: AI Matrix v1.0.2 results (results_cnn_train.csv), TF 1.10, FP32, one "
    "V100 16 GB, batch 64, synthetic input, 500 batches, 'approximate accelerator' timing "
    "(sess.run only); models.csv v100_train_throughput. memory_efficiency: [I] P100 "
    "device-to-device copy 499 GB/s of 732 GB/s peak (shared/data/hardware/piz-daint.md §2.4); "
    "the V100 has no copy micro-benchmark in the data, so the P100 ratio is assumed"
)
P100_SOURCE = (
    "[R-102] digest §3.4: AI Matrix v1.0.2 results (results_cnn_train.csv), TF 1.10, FP32, one "
    "P100 16 GB, synthetic input, 'approximate accelerator' timing; models.csv "
    "p100_train_throughput (batch 64) and digest §3.4 (batch 16 / 32). The P100 is the SXM2 one: "
    "the run's system file gives 1328 MHz, 1480 MHz boost (alibaba/ai-matrix "
    "results/result_1_0_2/NVIDIA_P100_11202018/README.md, commit 339a36d), the SXM2's clocks "
    "(56 SMs x 64 fp64 flop x 1.48 GHz = 5.3 TFLOP/s, its datasheet peak)"
)

V100_PLATFORM = "../platforms/dgx1-v100.toml"
# AI Matrix's P100 is the SXM2 (P100_SOURCE): the DGX-1 (P100) of the validation cases has it.
P100_PLATFORM = "../validation/platforms/dgx1-p100.toml"
P100_DEVICE = "NVIDIA Tesla P100 SXM2 16 GB"
MEMORY_EFFICIENCY = "0.68"  # 499 / 732 = 0.682, see CAL_SOURCE
COMPUTE_EFFICIENCY_PLACEHOLDER = "0.5"

# --------------------------------------------------------------------------------------------
# The models
# --------------------------------------------------------------------------------------------
# net: how the DAG is inferred: "chain", "resnet", "googlenet", "densenet".
# calibration: "measured" (V100 figure of models.csv; the P100 SXM2 figures calibrate that device or
# validate it, see render) or a dict for borrow.

MODELS = [
    dict(
        file="googlenet.toml", name="googlenet", csv="googlenet_tf.csv", net="googlenet",
        title="GoogLeNet (Inception v1, nvcnn.py: no LRN, no auxiliary classifiers)",
        what="GoogLeNet as trained by AI Matrix (TF nvcnn.py)",
        framework=NVCNN_FRAMEWORK, dataset=IMAGENET_224, input_chw=(3, 224, 224),
        digest="§3.1, §3.2 (GoogLeNet, BVLC; nvcnn identical), §3.4",
        calibration="measured", half_batch=("16.1", "543.7 / 702.1 / 834.4"),
        p100_small_batches=("354.7", "449.2"),  # P100 SXM2 at batch 16 / 32, img/s ([R-102] digest §3.4)
    ),
    dict(
        file="resnet50_v1.toml", name="resnet50_v1", csv="resnet50_tf.csv", net="resnet",
        title="ResNet-50 v1",
        what="ResNet-50 v1 as trained by AI Matrix (TF nvcnn.py)",
        framework=NVCNN_FRAMEWORK, dataset=IMAGENET_224, input_chw=(3, 224, 224),
        digest="§3.1, §3.2 (ResNet-50 per stage), §3.4",
        calibration="measured", half_batch=("7.4", "262.6 / 311.3 / 338.6"),
        p100_small_batches=("179.0", "213.3"),  # P100 SXM2 at batch 16 / 32, img/s ([R-102] digest §3.4)
    ),
    dict(
        file="resnet50_v1.5.toml", name="resnet50_v1.5", csv="resnet50_tf.csv", net="resnet",
        transform="resnet_v15",
        title="ResNet-50 v1.5",
        what="ResNet-50 v1.5, derived from the AI Matrix TF nvcnn.py ResNet-50 v1 graph",
        framework=("TensorFlow 1.10, nvcnn.py ResNet-50 with the v1.5 stride placement "
                   "(derived from the AI Matrix macro_benchmark/CNN_Tensorflow graph)"),
        dataset=IMAGENET_224, input_chw=(3, 224, 224),
        digest="§3.2 (ResNet-50 v1.5: 4.089 G MACs vs 3.858 G for v1, per-stage MACs), §3.6",
        calibration=dict(
            borrow="resnet50_v1.toml",
            why=(
                "Borrowed from resnet50_v1.toml: same TF 1.10 nvcnn.py stack, same V100, same "
                "batch 64 and the same weights; v1.5 differs from v1 only in where three "
                "strides sit, so its per-FLOP efficiency is assumed to equal v1's [I]. The only "
                "v1.5 training figure in the data, 363.1 img/s FP32 on one V100 16 GB "
                "(models.csv v100_train_throughput, digest §2 and §3.6), is an [NV] NVIDIA "
                "DeepLearningExamples PyTorch number (at batch 112 [I], its validation entry "
                "below), not an AI Matrix measurement: "
                "another framework, other kernels and another batch than the other AI Matrix "
                "workloads, so fitting on it would make this model's compute efficiency "
                "incomparable with theirs. It is kept as a [[validation]] entry, reported and "
                "never fitted"
            ),
        ),
        extra_validation=[dict(
            platform=V100_PLATFORM, throughput_column="v100_train_throughput", batch=112,
            source=(
                "[NV] NVIDIA DeepLearningExamples PyTorch ResNet-50 v1.5, FP32, one V100 16 GB "
                "(DGX-1), copied into AI Matrix macro_benchmark/CNN_PyTorch/RN50v1.5/"
                "README.md (digest §2, §3.6; models.csv v100_train_throughput); batch 112 [I]: "
                "the data gives none for this figure (models.csv's batch_size 256 is AI Matrix's "
                "own scripts', and digest §3.6 ties bs256 to its TF AMP run), and "
                "DeepLearningExamples' PyTorch/Classification/ConvNets/configs.yml (resnet50, "
                "DGX1V, FP32) trains at 112 on this 16 GB GPU, where its README's table gives "
                "367 img/s on 1 GPU (pytorch-21.03), within 1.1 % of this figure; 256 samples "
                "would need 17.7 GB by this model's memory estimate, more than the GPU has; "
                "not an AI Matrix measurement: a different framework and batch than this "
                "workload's borrowed calibration, so only rough agreement is expected"
            ),
        )],
    ),
    dict(
        file="resnet152_v1.toml", name="resnet152_v1", csv="resnet152_tf.csv", net="resnet",
        title="ResNet-152 v1",
        what="ResNet-152 v1 as trained by AI Matrix (TF nvcnn.py)",
        framework=NVCNN_FRAMEWORK, dataset=IMAGENET_224, input_chw=(3, 224, 224),
        digest="§3.1, §3.2 (ResNet-152 per stage), §3.4",
        calibration="measured", half_batch=("8.25", "104.3 / 126.9 / 138.0"),
        p100_small_batches=("73.1", "86.8"),  # P100 SXM2 at batch 16 / 32, img/s ([R-102] digest §3.4)
    ),
    dict(
        file="densenet121.toml", name="densenet121_tf_nvcnn", csv="densenet121_nvcnn_tf.csv",
        net="densenet",
        title="DenseNet \"121\" (AI Matrix nvcnn.py variant: 3 dense blocks of 6/12/24, "
              "32-channel bottleneck)",
        what="the AI Matrix TF nvcnn.py DenseNet-121 variant (not the standard DenseNet-121)",
        framework=NVCNN_FRAMEWORK, dataset=IMAGENET_224, input_chw=(3, 224, 224),
        digest="§3.1 (note on the TF DenseNet), §3.2, §3.4",
        calibration="measured", half_batch=("13", "223.5 / 284.3 / 308.4"),
        p100_small_batches=("162.9", "188.4"),  # P100 SXM2 at batch 16 / 32, img/s ([R-102] digest §3.4)
    ),
    dict(
        file="synNet.toml", name="synNet", csv="synNet_tf.csv", net="chain",
        title="synNet (AI Matrix synthetic CNN, nvcnn.py inference_synthetic_net)",
        what="synNet, AI Matrix's synthetic CNN (TF nvcnn.py)",
        framework=NVCNN_FRAMEWORK,
        dataset="synthetic input, 3x224x224 (ImageNet shape, 1000 classes)",
        input_chw=(3, 224, 224),
        digest="§3.1, §3.2 (synNet groups), §3.4",
        calibration="measured", half_batch=("4.9", "88.7 / 101.3 / 107.8"),
        p100_small_batches=("63.8", "70.5"),  # P100 SXM2 at batch 16 / 32, img/s ([R-102] digest §3.4)
    ),
    dict(
        file="alexnet.toml", name="alexnet", csv="alexnet_caffe.csv", net="chain",
        title="AlexNet (BVLC Caffe, 2 groups)",
        what="AlexNet (BVLC Caffe definition), a historical AI Matrix CNN",
        framework=("Caffe prototxt, BVLC AlexNet (AI Matrix layer-based_benchmark/cnn/proto); "
                   "historical AI Matrix macro CNN test (TF 1.10 / Caffe->TensorRT 4) until "
                   "v1.0.1"),
        dataset="ImageNet, 3x227x227, synthetic input", input_chw=(3, 227, 227),
        digest="§1 (historical models), §3.2 (AlexNet, BVLC, 2 groups, 227x227), §3.5",
        historical=True,
        calibration=dict(
            borrow="resnet50_v1.toml",
            why=(
                "Borrowed from resnet50_v1.toml: the data holds no training measurement of "
                "AlexNet (models.csv v100_train_throughput is empty; AlexNet left the AI Matrix "
                "macro CNN set in v1.0.1, before the v1.0.2 training results, digest §1); the "
                "only V100 figures are inference (digest §3.5, [R-EARLY]: TF 1.10 9103 img/s, "
                "TRT4 7039 img/s at batch 64), which cannot be fitted as training. ResNet-50 v1 "
                "is the reference CNN measured on the same V100 with the same TF 1.10 FP32 "
                "stack and batch 64. Caution: nvcnn.py's TF 'alexnet' is the 'one weird trick' "
                "variant (64-192-384-256-256 channels, no groups, no LRN), not this BVLC table, "
                "and AlexNet's fc-heavy, low-intensity profile makes ResNet-50's efficiency a "
                "rough proxy [I]"
            ),
        ),
    ),
    dict(
        file="vgg16.toml", name="vgg16", csv="vgg16_caffe.csv", net="chain",
        title="VGG-16",
        what="VGG-16 (Caffe definition; nvcnn.py's vgg16 has the same layers), a historical "
             "AI Matrix CNN",
        framework=("Caffe prototxt, VGG-16 (AI Matrix layer-based_benchmark/cnn/proto); "
                   "historical AI Matrix macro CNN test (TF 1.10 nvcnn.py / Caffe->TensorRT 4) "
                   "until v1.0.1"),
        dataset=IMAGENET_224, input_chw=(3, 224, 224),
        digest="§1 (historical models), §3.2 (VGG-16), §3.5",
        historical=True,
        calibration=dict(
            borrow="resnet50_v1.toml",
            why=(
                "Borrowed from resnet50_v1.toml: the data holds no training measurement of "
                "VGG-16 (models.csv v100_train_throughput is empty; VGG-16 left the AI Matrix "
                "macro CNN set in v1.0.1, before the v1.0.2 training results, digest §1); the "
                "only V100 figures are inference (digest §3.5, [R-EARLY]: TF 1.10 685 img/s, "
                "TRT4 428 img/s at batch 64), which cannot be fitted as training. ResNet-50 v1 "
                "is the reference CNN measured on the same V100 with the same TF 1.10 FP32 "
                "stack and batch 64; VGG-16 is a plain stack of 3x3 convolutions like ResNet's "
                "bulk, so its efficiency is assumed to be similar [I]"
            ),
        ),
    ),
]

# --------------------------------------------------------------------------------------------
# Reading the data
# --------------------------------------------------------------------------------------------


def fail(msg):
    raise SystemExit("generate_cnn.py: error: " + msg)


def parse_shape(text):
    dims = tuple(int(d) for d in text.split("x"))
    if len(dims) not in (1, 3):
        fail("bad out_shape_CHW %r" % text)
    return dims


def elems(shape):
    return math.prod(shape)


def read_layers(path):
    """Rows of a per-layer CSV as dicts with parsed numbers."""
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            shape = parse_shape(r["out_shape_CHW"])
            row = dict(
                orig=r["layer"], kind=r["type"], shape=shape,
                params=int(r["params"]), macs=int(r["fwd_macs_per_sample"]),
                flop=int(r["fwd_flops_per_sample"]), in_elems=int(r["in_elems_per_sample"]),
                out_elems=elems(shape), note=None,
            )
            if r.get("out_elems_per_sample") not in (None, ""):
                out = int(r["out_elems_per_sample"])
                if out != row["out_elems"]:
                    fail("%s: %s: out_elems %d != product of out_shape_CHW %d"
                         % (path.name, row["orig"], out, row["out_elems"]))
                row["out_elems"] = out
            if row["flop"] != 2 * row["macs"]:
                fail("%s: %s: FLOPs != 2 x MACs" % (path.name, row["orig"]))
            rows.append(row)
    if not rows:
        fail("%s has no rows" % path)
    return rows


def read_models(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {r["name"]: r for r in csv.DictReader(f)}


# --------------------------------------------------------------------------------------------
# Caffe kinds: "Convolution" -> "convKxK/sS" (recomputed from params and shapes, checked)
# --------------------------------------------------------------------------------------------

CAFFE_KINDS = {"InnerProduct": "fc", "Pooling": "pool", "ReLU": "relu", "LRN": "lrn",
               "Dropout": "dropout", "Softmax": "softmax"}


def caffe_kinds(rows, input_chw, csv_name):
    prev = input_chw
    for row in rows:
        if row["kind"] == "Convolution":
            cin, hin = prev[0], prev[1]
            cout, hout, wout = row["shape"]
            found = None
            for groups in (1, 2):
                per_k2 = cout * (cin // groups)
                if cin % groups or (row["params"] - cout) % per_k2:
                    continue
                k = math.isqrt((row["params"] - cout) // per_k2)
                if k * k * per_k2 + cout != row["params"]:
                    continue
                if row["macs"] != cout * hout * wout * (cin // groups) * k * k:
                    continue
                for s in range(1, k + 1):
                    if any((hin + 2 * p - k) // s + 1 == hout for p in range(k // 2 + 1)):
                        found = (k, s, groups)
                        break
                if found:
                    break
            if not found:
                fail("%s: %s: cannot recover kernel and stride" % (csv_name, row["orig"]))
            k, s, groups = found
            row["kind"] = "conv%dx%d/s%d" % (k, k, s) + ("/g%d" % groups if groups > 1 else "")
        elif row["kind"] in CAFFE_KINDS:
            row["kind"] = CAFFE_KINDS[row["kind"]]
        else:
            fail("%s: %s: unknown Caffe layer type %r" % (csv_name, row["orig"], row["kind"]))
        prev = row["shape"]


# --------------------------------------------------------------------------------------------
# ResNet-50 v1.5 from the v1 table
# --------------------------------------------------------------------------------------------


def resnet_v15(rows):
    """ResNet v1 -> v1.5: in the first block of stages 3, 4 and 5 (the blocks whose `_a` conv is
    conv1x1/s2) the stride 2 moves from `_a` (1x1) to `_b` (3x3). Recomputed, per such block:
      _a: Cin = (params - 2 Cout) / Cout (1x1 conv, no bias, BN gamma and beta), unchanged
          params; it now runs at stride 1 on the block input, so its output is
          Cout x Hin x Win with Hin x Win = in_elems / Cin, and MACs = Cout x in_elems
          (4 x the v1 MACs);
      _b: params and output unchanged, so MACs unchanged; its input is the new _a output
          (in_elems = Cout_a x Hin x Win, 4 x v1).
    The shortcut (1x1/s2) and everything else are unchanged, params too."""
    out = [dict(r) for r in rows]
    by_name = {r["orig"]: i for i, r in enumerate(out)}
    changed = 0
    for i, r in enumerate(out):
        m = re.fullmatch(r"res(\d+)_(\d+)_a", r["orig"])
        if not m or r["kind"] != "conv1x1/s2":
            continue
        b = out[by_name["res%s_%s_b" % m.groups()]]
        if b["kind"] != "conv3x3/s1":
            fail("v1.5: %s is %s, expected conv3x3/s1" % (b["orig"], b["kind"]))
        cout = r["shape"][0]
        if (r["params"] - 2 * cout) % cout:
            fail("v1.5: %s params do not fit a 1x1 conv with BN" % r["orig"])
        cin = (r["params"] - 2 * cout) // cout
        if r["in_elems"] % cin:
            fail("v1.5: %s in_elems not a multiple of Cin" % r["orig"])
        hw = r["in_elems"] // cin
        side = math.isqrt(hw)
        if side * side != hw or side != 2 * r["shape"][1]:
            fail("v1.5: %s input is not square or not twice the output" % r["orig"])
        old_a, old_b = r["macs"], b["macs"]
        r["kind"] = "conv1x1/s1"
        r["shape"] = (cout, side, side)
        r["out_elems"] = elems(r["shape"])
        r["macs"] = cout * r["in_elems"]
        r["flop"] = 2 * r["macs"]
        r["note"] = ("v1.5: stride 2 moved to %s; stride 1 on the %dx%d input: MACs %d -> %d"
                     % (b["orig"], side, side, old_a, r["macs"]))
        b["kind"] = "conv3x3/s2"
        b["in_elems"] = r["out_elems"]
        b["note"] = ("v1.5: stride 2 (was on %s); input %dx%dx%d, output and MACs %d unchanged"
                     % (r["orig"], cout, side, side, old_b))
        changed += 1
    if changed != 3:
        fail("v1.5: expected 3 strided first blocks (stages 3, 4, 5), found %d" % changed)
    return out


# --------------------------------------------------------------------------------------------
# Names and DAG
# --------------------------------------------------------------------------------------------


def unique_names(rows):
    """Names that occur more than once in the CSV get _<k>, k = 0, 1, ... in CSV order."""
    counts = {}
    for r in rows:
        counts[r["orig"]] = counts.get(r["orig"], 0) + 1
    seen = {}
    for r in rows:
        if counts[r["orig"]] > 1:
            k = seen.get(r["orig"], 0)
            seen[r["orig"]] = k + 1
            r["name"] = "%s_%d" % (r["orig"], k)
        else:
            r["name"] = r["orig"]
    names = [r["name"] for r in rows]
    if len(set(names)) != len(names):
        fail("suffixed layer names are not unique")


# Digest §3.3's fused-forward estimate counts the activations of conv, fc, pool, eltwise and concat
# layers only (models.csv `act_bytes_fwd_per_sample_est`), as the TF tables' rows stand for a conv
# with the BN and activation after it. The Caffe tables list the activation-like layers apart:
# their relu, lrn, dropout and softmax rows keep their FLOPs and params but move no memory of their
# own, so that VGG-16 and AlexNet count memory as their lender ResNet-50 (a TF table) does, whose
# fitted efficiency they borrow. (DenseNet's TF table lists its pre-activation BN apart, reading
# the whole concatenated input before the conv: a kernel of its own, kept, and DenseNet is
# calibrated on its own measurement.)
FUSED_KINDS = {"relu", "lrn", "dropout", "softmax"}


def layer_from_row(row, deps):
    moved = 0 if row["kind"] in FUSED_KINDS else BYTES_PER_ELEM * (row["in_elems"] + row["out_elems"])
    return dict(name=row["name"], kind=row["kind"], flop=row["flop"],
                mem=moved, params=row["params"],
                deps=deps, shape=row["shape"], in_elems=row["in_elems"],
                out_elems=row["out_elems"], join=False, note=row["note"])


def join_layer(name, kind, deps, shape, layers_by_name):
    """A zero-FLOP, zero-parameter layer where tensors meet. Its memory traffic reads every
    input and writes the output: concat 2 x out (the inputs add up to the output), add 3 x out
    (two inputs of the output's size)."""
    out = elems(shape)
    ins = [layers_by_name[d]["out_elems"] for d in deps]
    if kind == "concat":
        if sum(ins) != out:
            fail("%s: inputs %r do not add up to the output %d" % (name, ins, out))
    elif kind == "add":
        if any(i != out for i in ins):
            fail("%s: inputs %r differ from the output %d" % (name, ins, out))
    return dict(name=name, kind=kind, flop=0, mem=BYTES_PER_ELEM * (sum(ins) + out), params=0,
                deps=list(deps), shape=shape, in_elems=sum(ins), out_elems=out, join=True,
                note=None)


class Graph:
    def __init__(self):
        self.layers = []
        self.by_name = {}

    def add(self, layer):
        if layer["name"] in self.by_name:
            fail("duplicate layer name %s" % layer["name"])
        for d in layer["deps"]:
            if d not in self.by_name:
                fail("%s depends on %s, which is not defined before it" % (layer["name"], d))
        self.layers.append(layer)
        self.by_name[layer["name"]] = layer
        return layer["name"]

    def last(self):
        return self.layers[-1]["name"] if self.layers else None


def build_chain(rows):
    g = Graph()
    for r in rows:
        g.add(layer_from_row(r, [g.last()] if g.layers else []))
    return g


def build_resnet(rows):
    """conv1, pool1, then bottleneck blocks res<S>_<B>_{sc,a,b,c}: `_sc` (projection shortcut,
    first block of a stage only) and `_a` both read the block input; b reads a, c reads b; the
    block output is the join <block>_add of c and the shortcut (`_sc`, or the block input itself
    when the block has no `_sc`: identity shortcut). The next block, or fc, reads the add."""
    pat = re.compile(r"res(\d+)_(\d+)_(sc|a|b|c)")
    parts = {}
    for i, r in enumerate(rows):
        m = pat.fullmatch(r["orig"])
        if m:
            key = "res%s_%s" % m.groups()[:2]
            if m.group(3) in parts.setdefault(key, {}):
                fail("%s appears twice" % r["orig"])
            parts[key][m.group(3)] = i
    for key, p in parts.items():
        if not {"a", "b", "c"} <= set(p) or not p["a"] < p["b"] < p["c"]:
            fail("%s: expected _a, _b, _c in order" % key)
        if "sc" in p and p["sc"] > p["c"]:
            fail("%s: shortcut after _c" % key)
    g = Graph()
    main = None  # producer of the tensor between blocks
    block, block_in, names = None, None, {}
    joins = 0
    for i, r in enumerate(rows):
        m = pat.fullmatch(r["orig"])
        if not m:
            main = g.add(layer_from_row(r, [main] if main else []))
            continue
        key, part = "res%s_%s" % m.groups()[:2], m.group(3)
        if key != block:
            block, block_in, names = key, main, {}
        deps = {"sc": [block_in], "a": [block_in], "b": [names.get("a")],
                "c": [names.get("b")]}[part]
        names[part] = g.add(layer_from_row(r, deps))
        if part == "c":
            shortcut = names.get("sc", block_in)
            main = g.add(join_layer(key + "_add", "add", [names["c"], shortcut],
                                    g.by_name[names["c"]]["shape"], g.by_name))
            joins += 1
    return g, joins


def build_googlenet(rows):
    """Stem and pools are a chain. An inception module <M>_{1x1,3x3r,3x3,5x5r,5x5,pool,poolproj}
    has four branches that all read the module input (the layer before the module): 1x1;
    3x3r -> 3x3; 5x5r -> 5x5; pool -> poolproj. A join <M>_concat of the branch ends (the module
    layers no other module layer reads) follows the module's last row; what comes next reads it."""
    pat = re.compile(r"(\d[a-z])_(1x1|3x3r|3x3|5x5r|5x5|pool|poolproj)")
    reads = {"1x1": None, "3x3r": None, "3x3": "3x3r", "5x5r": None, "5x5": "5x5r",
             "pool": None, "poolproj": "pool"}
    last_row = {}
    for i, r in enumerate(rows):
        m = pat.fullmatch(r["orig"])
        if m:
            last_row[m.group(1)] = i
    g = Graph()
    main, module, module_in, names = None, None, None, {}
    joins = 0
    for i, r in enumerate(rows):
        m = pat.fullmatch(r["orig"])
        if not m:
            if module is not None and i < last_row[module]:
                fail("%s interrupts inception module %s" % (r["orig"], module))
            main = g.add(layer_from_row(r, [main] if main else []))
            continue
        mod, part = m.groups()
        if mod != module:
            if module is not None and i <= last_row[module]:
                fail("module %s interleaved with %s" % (module, mod))
            module, module_in, names = mod, main, {}
        if part in names:
            fail("%s appears twice" % r["orig"])
        src = reads[part]
        if src is not None and src not in names:
            fail("%s before %s_%s" % (r["orig"], mod, src))
        names[part] = g.add(layer_from_row(r, [module_in] if src is None else [names[src]]))
        if i == last_row[mod]:
            consumed = {names[reads[p]] for p in names if reads[p] is not None}
            ends = [names[p] for p in names if names[p] not in consumed]
            shapes = [g.by_name[e]["shape"] for e in ends]
            if len({s[1:] for s in shapes}) != 1:
                fail("%s: branch outputs differ in H x W" % mod)
            shape = (sum(s[0] for s in shapes),) + shapes[0][1:]
            main = g.add(join_layer(mod + "_concat", "concat", ends, shape, g.by_name))
            joins += 1
    return g, joins


def build_densenet(rows):
    """nvcnn.py dense_block(): x -> bn -> 1x1 (b<B>_<L>_1x1) -> bn -> 3x3 (b<B>_<L>_3x3), then
    tf.concat([x, 3x3 output]). Everything is a chain except that concat: the join
    b<B>_<L>_concat reads the dense layer's input x (the layer before its first bn: pool1, a
    transition pool or the previous concat) and its 3x3 output; the next bn reads the concat.
    So each dense layer sees the concatenation of the block input and all previous outputs of
    its block, built incrementally as nvcnn does."""
    pat = re.compile(r"b(\d+)_(\d+)_(1x1|3x3)")
    g = Graph()
    layer_in, joins = {}, 0
    for i, r in enumerate(rows):
        m = pat.fullmatch(r["orig"])
        nxt = pat.fullmatch(rows[i + 1]["orig"]) if i + 1 < len(rows) else None
        if r["orig"] == "bn" and nxt and nxt.group(3) == "1x1":
            key = "b%s_%s" % nxt.groups()[:2]
            if key in layer_in:
                fail("dense layer %s twice" % key)
            layer_in[key] = g.last()
        name = g.add(layer_from_row(r, [g.last()] if g.layers else []))
        if m and m.group(3) == "1x1" and ("b%s_%s" % m.groups()[:2]) not in layer_in:
            fail("%s is not preceded by its bn" % r["orig"])
        if m and m.group(3) == "3x3":
            key = "b%s_%s" % m.groups()[:2]
            if key not in layer_in:
                fail("%s without its 1x1" % r["orig"])
            x = g.by_name[layer_in[key]]
            y = g.by_name[name]
            if x["shape"][1:] != y["shape"][1:]:
                fail("%s: H x W differ from its input" % key)
            shape = (x["shape"][0] + y["shape"][0],) + y["shape"][1:]
            g.add(join_layer(key + "_concat", "concat", [x["name"], name], shape, g.by_name))
            joins += 1
    if not layer_in:
        fail("no dense layers found")
    return g, joins


def check_shapes(g, input_elems, csv_name):
    """Every CSV layer reads what its dependency writes: in_elems == out_elems of the single
    dependency (the first layer reads the input image). The one exception is a fc layer after
    a global average pool the tables leave out (nvcnn spatial_avg): in_elems == channels.
    Returns the names of those fc layers."""
    after_gap = []
    for L in g.layers:
        if L["join"]:
            continue
        if not L["deps"]:
            if L["in_elems"] != input_elems:
                fail("%s: %s reads %d elements, the input has %d"
                     % (csv_name, L["name"], L["in_elems"], input_elems))
            continue
        if len(L["deps"]) != 1:
            fail("%s: %s has several dependencies" % (csv_name, L["name"]))
        d = g.by_name[L["deps"][0]]
        if L["in_elems"] == d["out_elems"]:
            continue
        if L["kind"] == "fc" and len(d["shape"]) == 3 and L["in_elems"] == d["shape"][0]:
            after_gap.append(L["name"])
            continue
        fail("%s: %s reads %d elements but its dependency %s writes %d (DAG inference wrong?)"
             % (csv_name, L["name"], L["in_elems"], d["name"], d["out_elems"]))
    return after_gap


# --------------------------------------------------------------------------------------------
# TOML output
# --------------------------------------------------------------------------------------------


def q(s):
    """TOML basic string."""
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04X" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def kv(key, value, comment=None, width=40, limit=110):
    """`key = value  # comment`; a comment that would make the line longer than `limit` goes,
    wrapped, on the lines above the key instead."""
    line = "%s = %s" % (key, value)
    if not comment:
        return line
    inline = line.ljust(width) + " # " + comment
    if len(inline) <= limit:
        return inline
    return "\n".join(wrap_comment(comment) + [line])


def wrap_comment(text, prefix="# ", width=100):
    words, lines, cur = text.split(), [], prefix.rstrip()
    for w in words:
        if len(cur) + 1 + len(w) > width and cur != prefix.rstrip():
            lines.append(cur)
            cur = prefix.rstrip()
        cur = cur + (" " if cur else "") + w
    lines.append(cur)
    return lines


def decimal_flop(gflop_text):
    v = Decimal(gflop_text) * 1000000000
    if v != v.to_integral_value():
        fail("gflops %s x 1e9 is not an integer" % gflop_text)
    return int(v)


def render(model, row, g, joins, after_gap, csv_name, compute_efficiency, p100_calibrated_elsewhere):
    ref_params = int(row["params"])
    ref_flop = decimal_flop(row["gflops_per_sample_fwd"])
    c, h, w = model["input_chw"]
    input_bytes = c * h * w * 4
    lines = []
    src_csv = "%s/layers/%s" % (DATA_REF, csv_name)
    lines.extend(wrap_comment("Workload: %s; one data-parallel training job, layer by layer, "
                              "per sample." % model["what"]))
    lines.append("# Generated by tools/workloads/generate_cnn.py from shared/data/aimatrix; "
                 "do not edit by hand.")
    lines.extend(wrap_comment(
        "Sources: %s (per-layer params, forward MACs/FLOPs and shapes, [DERIVED] from the "
        "repo's model definition, digest §7); %s/models.csv (row %s: totals and measured "
        "throughputs); %s/digest.md %s." % (src_csv, DATA_REF, model["name"], DATA_REF,
                                             model["digest"])))
    lines.extend(wrap_comment(
        "Markers: [R-102] AI Matrix v1.0.2 measured results, [NV] NVIDIA figures, [DERIVED] "
        "computed by the digest, [I] inferred (an assumption), [estimated] not sourced."))
    lines.append("")

    # [workload]
    lines.append("[workload]")
    lines.append(kv("name", q(model["name"]), "models.csv `name`"))
    lines.append(kv("title", q(model["title"])))
    lines.append(kv("domain", q(row["domain"]), "models.csv `domain`"))
    if model.get("historical"):
        fw_c = "digest §1, §3.5; models.csv benchmark_dir and framework"
    elif model["name"] == "resnet50_v1.5":
        fw_c = ("digest §1, §3.6: AI Matrix's own RN50 v1.5 benchmarks (macro_benchmark/"
                "CNN_PyTorch/RN50v1.5, CNN_Tensorflow/RN50v1.5, CNN_Mxnet) are NVIDIA "
                "DeepLearningExamples / MLPerf code; this workload keeps the TF nvcnn.py stack "
                "of the AI Matrix CNN tests, whose resnet50_v1 calibration it borrows")
    else:
        fw_c = "digest §3.1, §3.4 [R-102]; alibaba/ai-matrix macro_benchmark/CNN_Tensorflow/train.sh"
    lines.append(kv("framework", q(model["framework"]), fw_c))
    lines.append(kv("dataset", q(model["dataset"]),
                    "digest §3.1: synthetic input unless --data_dir is given; train.sh gives none"))
    lines.append(kv("sample", q("image")))
    if model.get("historical"):
        b_c = ("[estimated] AI Matrix CNN batch 64 (16/32/64 in the TF macro tests, digest §3.1, "
               "§3.5), as the borrowed resnet50_v1 calibration")
    elif model["name"] == "resnet50_v1.5":
        b_c = ("the batch of the borrowed resnet50_v1 calibration (AI Matrix TF CNN bs 64, "
               "digest §3.4); AI Matrix's own RN50 v1.5 scripts run 128-512 in fp16/AMP "
               "(digest §2), which this fp32 workload does not model")
    else:
        b_c = "digest §3.1, §3.4: AI Matrix trains at 16/32/64; 64 is the calibration batch"
    lines.append(kv("batch_per_worker", "64", b_c))
    lines.append(kv("precision", q("fp32"),
                    "digest §3.1: FP32 is the default, the scripts never set --fp16"))
    lines.append(kv("granularity", q("layer"), "per-layer table %s" % src_csv))
    lines.append(kv("input_bytes", str(input_bytes),
                    "%d x %d x %d x 4 B, one fp32 image (digest §3.2: %dx%d)" % (c, h, w, h, w)))
    lines.extend(wrap_comment(
        "input_bytes: the fp32 image is this file's convention [estimated]. In the measured AI "
        "Matrix runs nothing is copied: with synthetic input nvcnn.py generates the images on "
        "the GPU (tf.truncated_normal under tf.device(gpu)); with real data (--data_dir) it "
        "stages uint8 images, %d B per sample." % (c * h * w)))
    lines.append(kv("optimizer_bytes_per_parameter", q("20 B"), "see the comment below"))
    lines.append(kv("optimizer_state_bytes_per_parameter", q("4 B"), "the momentum, fp32"))
    lines.extend(wrap_comment(OPTIMIZER_COMMENT_HISTORICAL if model.get("historical")
                              else OPTIMIZER_COMMENT))
    lines.append(kv("backward_factor", "2.0", "see the comment below"))
    lines.extend(wrap_comment(BACKWARD_COMMENT))
    wsrc = "%s ([DERIVED], digest %s, §7)" % (src_csv, model["digest"])
    if model.get("transform") == "resnet_v15":
        wsrc += ("; ResNet-50 v1.5 layers derived from the v1 table by generate_cnn.py "
                 "(stride 2 moved from the first 1x1 to the 3x3 conv in the first block of "
                 "stages 3, 4, 5, those convs recomputed)")
    lines.append(kv("source", q(wsrc)))
    lines.append("")

    # [reference]
    lines.append("[reference]")
    lines.append(kv("params", str(ref_params), "models.csv `params`"))
    lines.append(kv("forward_flop", str(ref_flop),
                    "models.csv gflops_per_sample_fwd %s x 1e9" % row["gflops_per_sample_fwd"]))
    lines.append(kv("source", q("%s/models.csv" % DATA_REF)))
    lines.append("")

    # layers
    lines.append("[graph]")
    sum_params = sum(L["params"] for L in g.layers)
    sum_flop = sum(L["flop"] for L in g.layers)
    lines.append("# Layers: one per row of %s, in CSV order" % src_csv)
    lines.append("# (%d rows), plus %d join layers." % (len(g.layers) - joins, joins))
    lines.append("# forward_flop = fwd_flops_per_sample (2 x MACs); params = params (biases or BN gamma")
    lines.append("# and beta included); memory_bytes = 4 B x (in_elems + out_elems), out_elems = product of")
    lines.append("# out_shape_CHW (the fused-forward convention of digest §3.3: a row stands for its conv,")
    lines.append("# BN and activation in the TF tables; the Caffe tables' relu, lrn, dropout and softmax rows")
    lines.append("# run fused with the layer before and move no memory of their own).")
    lines.append("# Names repeated in the CSV get a suffix _0, _1, ... in CSV order. `after` is omitted when")
    lines.append("# the only dependency is the previous line.")
    if model["net"] == "resnet":
        lines.append("# DAG: <block>_sc and <block>_a read the block input; the join <block>_add (kind add,")
        lines.append("# estimated = true: not a CSV row, 0 FLOP taken for the element-wise add + ReLU,")
        lines.append("# memory 4 B x 3 x out_elems: two inputs, one output) joins _c and the shortcut (_sc, or")
        lines.append("# the block input for an identity shortcut); the next block reads it.")
    elif model["net"] == "googlenet":
        lines.append("# DAG: the branches 1x1, 3x3r -> 3x3, 5x5r -> 5x5 and pool -> poolproj of a module all")
        lines.append("# read the module input; the join <module>_concat (kind concat, estimated = true: not a")
        lines.append("# CSV row, 0 FLOP, memory 4 B x 2 x out_elems: reads the branches, writes the output)")
        lines.append("# joins the four branch ends; the next layer reads it.")
    elif model["net"] == "densenet":
        lines.append("# DAG (nvcnn.py dense_block): x -> bn -> 1x1 -> bn -> 3x3, then the join")
        lines.append("# b<B>_<L>_concat = tf.concat([x, 3x3 output]) (kind concat, estimated = true: not a CSV")
        lines.append("# row, 0 FLOP, memory 4 B x 2 x out_elems); the next bn reads it, so each dense layer")
        lines.append("# reads its block input and all previous outputs of its block.")
    else:
        lines.append("# DAG: a chain (each layer reads the previous one).")
    if after_gap:
        lines.append("# %s reads the global average pool of its dependency's output (nvcnn spatial_avg),"
                     % ", ".join(after_gap))
        lines.append("# which the table leaves out (negligible cost).")
    lines.append("# Sums: params %d (reference %d); forward_flop %d" % (sum_params, ref_params, sum_flop))
    lines.append("# (reference %d, %+.4f %%)." % (ref_flop, 100.0 * (sum_flop - ref_flop) / ref_flop))
    lines.append("layers = [")
    prev = None
    for L in g.layers:
        fields = ["name = %s" % q(L["name"]), "kind = %s" % q(L["kind"]),
                  "forward_flop = %d" % L["flop"], "memory_bytes = %d" % L["mem"],
                  "params = %d" % L["params"]]
        if L["deps"] != ([prev] if prev else []):
            fields.append("after = [%s]" % ", ".join(q(d) for d in L["deps"]))
        if L["join"]:
            fields.append("estimated = true")
        line = "  { %s }," % ", ".join(fields)
        if L["note"]:
            line += "  # " + L["note"]
        lines.append(line)
        prev = L["name"]
    lines.append("]")
    lines.append("")

    # [calibration]
    cal = model["calibration"]
    lines.append("[calibration]")
    if cal == "measured":
        lines.append(kv("platform", q(V100_PLATFORM), "one V100 16 GB per node"))
        lines.append(kv("measured_throughput", row["v100_train_throughput"],
                        "img/s, [R-102] digest §3.4, models.csv v100_train_throughput"))
        lines.append(kv("batch", "64", "digest §3.4"))
        lines.append(kv("memory_efficiency", MEMORY_EFFICIENCY,
                        "[I] 499 / 732 GB/s = 0.682, P100 copy (piz-daint.md §2.4)"))
        lines.append(kv("compute_efficiency", compute_efficiency,
                        "written by: ceiling workload calibrate"))
        if "half_batch" in model:
            h, measured = model["half_batch"]
            lines.append(kv("half_batch", h, "[C] least squares on the V100 throughputs at batch 16 / 32 / 64, "
                            "%s img/s ([R-102] digest §3.4)" % measured))
        lines.append(kv("source", q(CAL_SOURCE)))
    else:
        lines.append(kv("borrow", q(cal["borrow"]), "see source"))
        lines.append(kv("source", q(cal["why"])))
    lines.append("")

    # [[validation]]: measurements that are predicted, never fitted. AI Matrix's P100 at batch 64
    # calibrates the P100 SXM2 (a [[device_calibration]], below) unless the file already has a
    # calibration for that device from another source (`p100_calibrated_elsewhere`): then it is
    # predicted too. Its batch 16 and 32 figures are always predicted (from batch 64 and the
    # half batch fitted on the V100).
    vals = []
    p100 = cal == "measured" and row["p100_train_throughput"]
    if p100 and p100_calibrated_elsewhere:
        vals.append((P100_PLATFORM, row["p100_train_throughput"], 64, P100_SOURCE,
                     "img/s, models.csv p100_train_throughput"))
    if p100:
        for batch, thr in zip((16, 32), model.get("p100_small_batches", ())):
            vals.append((P100_PLATFORM, thr, batch, P100_SOURCE, "img/s, [R-102] digest §3.4"))
    for v in model.get("extra_validation", []):
        vals.append((v["platform"], row[v["throughput_column"]], v["batch"], v["source"],
                     "img/s, models.csv %s" % v["throughput_column"]))
    for platform, thr, batch, src, c_thr in vals:
        float(thr)
        lines.append("[[validation]]")
        lines.append(kv("platform", q(platform)))
        lines.append(kv("measured_throughput", thr, c_thr))
        lines.append(kv("batch", str(batch)))
        lines.append(kv("source", q(src)))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n", sum_params, sum_flop, ref_params, ref_flop


def p100_calibration(row, compute_efficiency):
    """AI Matrix's P100 (SXM2) measurement at batch 64 as a [[device_calibration]]; it comes last
    in the file, so that a later run with --keep-calibration can find and replace it."""
    lines = ["[[device_calibration]]",
             kv("device", q(P100_DEVICE)),
             kv("framework", q("tensorflow"), "AI Matrix v1.0.2 ran TensorFlow 1.10"),
             kv("platform", q(P100_PLATFORM)),
             kv("measured_throughput", row["p100_train_throughput"], "img/s, models.csv p100_train_throughput"),
             kv("batch", "64"),
             kv("source", q(P100_SOURCE)),
             kv("compute_efficiency", compute_efficiency, "fitted by `ceiling workload calibrate --write`")]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data_dir", nargs="?", default=None,
                    help="AI Matrix data directory (default: ../shared/data/aimatrix from the repo root)")
    ap.add_argument("--out", default=None, help="output directory (default: workloads/ in the repo)")
    ap.add_argument("--keep-calibration", action="store_true",
                    help="keep the compute_efficiency that `ceiling workload calibrate` wrote into "
                         "an existing output file instead of the placeholder %s, and its "
                         "[[device_calibration]] tables (written by hand from other sources), "
                         "appended as they are" % COMPUTE_EFFICIENCY_PLACEHOLDER)
    args = ap.parse_args()
    data = Path(args.data_dir) if args.data_dir else (REPO_ROOT / DEFAULT_DATA)
    out_dir = Path(args.out) if args.out else (REPO_ROOT / "workloads")
    if not (data / "models.csv").is_file():
        fail("no models.csv in %s" % data)
    models = read_models(data / "models.csv")

    summary = []
    for model in MODELS:
        if model["name"] not in models:
            fail("models.csv has no row %s" % model["name"])
        row = models[model["name"]]
        rows = read_layers(data / "layers" / model["csv"])
        c, h, w = model["input_chw"]
        if row["input"] != "%dx%dx%d" % (c, h, w):
            fail("%s: models.csv input %s != %dx%dx%d" % (model["name"], row["input"], c, h, w))
        if model["csv"].endswith("_caffe.csv"):
            caffe_kinds(rows, model["input_chw"], model["csv"])
        if model.get("transform") == "resnet_v15":
            rows = resnet_v15(rows)
        unique_names(rows)
        net = model["net"]
        if net == "chain":
            g, joins = build_chain(rows), 0
        elif net == "resnet":
            g, joins = build_resnet(rows)
        elif net == "googlenet":
            g, joins = build_googlenet(rows)
        elif net == "densenet":
            g, joins = build_densenet(rows)
        else:
            fail("unknown net %s" % net)
        after_gap = check_shapes(g, c * h * w, model["csv"])
        if model["calibration"] == "measured" and not row["v100_train_throughput"]:
            fail("%s: no V100 training throughput in models.csv" % model["name"])
        ce = COMPUTE_EFFICIENCY_PLACEHOLDER
        p100_ce = COMPUTE_EFFICIENCY_PLACEHOLDER
        target = out_dir / model["file"]
        device_calibrations = ""
        if args.keep_calibration and target.is_file():
            old = target.read_text(encoding="utf-8")
            m = re.search(r"^compute_efficiency\s*=\s*([0-9.eE+-]+)", old, re.M)
            if m:
                ce = m.group(1)
            # The generated P100 calibration (its source names AI Matrix's P100 results folder),
            # wherever it sits: taken off, its value kept. It runs from its header to the next
            # table's header or the comment lines just above it.
            lines = old.split("\n")
            for i, line in enumerate(lines):
                if line != "[[device_calibration]]" or i + 1 >= len(lines) or lines[i + 1] != "device = %s" % q(P100_DEVICE):
                    continue
                end = i + 1
                while end < len(lines) and not lines[end].startswith("["):
                    end += 1
                while end > i + 1 and (lines[end - 1].startswith("#") or not lines[end - 1].strip()):
                    end -= 1
                block = "\n".join(lines[i:end])
                if "NVIDIA_P100_11202018" in block:
                    m = re.search(r"^compute_efficiency\s*=\s*([0-9.eE+-]+)", block, re.M)
                    if m:
                        p100_ce = m.group(1)
                    old = "\n".join(lines[:i] + lines[end:]).rstrip("\n") + "\n"
                    break
            # The device calibrations written by hand come last in a file, with the comment
            # lines just above the first; they are kept whole.
            start = old.find("\n[[device_calibration]]")
            if start >= 0:
                lines_before = old[:start].split("\n")
                while lines_before and (lines_before[-1].startswith("#") or not lines_before[-1].strip()):
                    lines_before.pop()
                device_calibrations = "\n" + old[len("\n".join(lines_before)) + 1:].lstrip("\n")
        # A calibration of the P100 in the workload's own precision (no `precision` key) from
        # another source: AI Matrix's figure is then predicted instead.
        elsewhere = bool(re.search(r"^\[\[device_calibration\]\]\ndevice = %s\n(?:(?!\[)(?!precision =).*\n)*?compute_efficiency"
                                   % re.escape(q(P100_DEVICE)), device_calibrations, re.M))
        text, sp, sf, rp, rf = render(model, row, g, joins, after_gap, model["csv"], ce, elsewhere)
        text += device_calibrations
        if model["calibration"] == "measured" and row["p100_train_throughput"] and not elsewhere:
            text = text.rstrip("\n") + "\n\n" + p100_calibration(row, p100_ce)
        err = (sf - rf) / rf
        if sp != rp:
            fail("%s: layer params %d != reference %d" % (model["name"], sp, rp))
        if abs(err) > FLOP_TOLERANCE:
            fail("%s: layer FLOPs %d differ from reference %d by %.3f %%"
                 % (model["name"], sf, rf, 100 * err))
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / model["file"]).write_text(text, encoding="utf-8")
        n_multi = sum(1 for L in g.layers if len(L["deps"]) > 1)
        n_fanout = sum(1 for L in g.layers
                       if sum(1 for M in g.layers if L["name"] in M["deps"]) > 1)
        summary.append((model["file"], len(g.layers) - joins, joins, len(g.layers), n_multi,
                        n_fanout, sp, rp, sf, rf, err))
        print("%-20s params %11d = reference %11d; forward FLOP %12d vs reference %12d (%+.4f %%)"
              % (model["file"], sp, rp, sf, rf, 100 * err))
    print()
    print("%-20s %6s %6s %7s %8s %8s" % ("file", "rows", "joins", "layers", "fan-in", "fan-out"))
    for s in summary:
        print("%-20s %6d %6d %7d %8d %8d" % s[:6])
    return 0


if __name__ == "__main__":
    sys.exit(main())
