#!/usr/bin/env python3
"""The layers of InceptionV3 at any input size, as validation/workloads/inception_v3*.toml list them.

    python3 tools/workloads/generate_inception_v3.py --size 224 --classes 1000   # prints the layers
    python3 tools/workloads/generate_inception_v3.py --check                     # checks both files

InceptionV3's 94 convolutions, as tf_cnn_benchmarks builds them (tensorflow/benchmarks@9165a70
scripts/tf_cnn_benchmarks/inception_model.py, Inceptionv3Model) and as Keras does
(keras/applications/inception_v3.py, InceptionV3): the same convolutions, each without a bias and
with a batch norm of one trainable beta per channel (no gamma). They differ in the head only:
tf_cnn_benchmarks pools 8x8 and classifies 1001 classes, Keras pools globally and classifies 1000
(by default), and its second inception_v3_e block pools with an average where tf_cnn_benchmarks
takes the max (the same sizes: nothing here changes).

Per layer (the conventions of validation/workloads/inception_v3.toml, [graph]):
  forward_flop = 2 x MACs of every convolution and of the fc, MACs = Hout x Wout x kh x kw x cin x cout;
  params       = kh x kw x cin x cout + cout per convolution (kernel and beta); the fc's weights and biases;
  tensors      = each convolution's kernel then its beta, in the order the code creates them;
  memory_bytes = 4 B x (inputs + outputs) of every convolution and pooling of the layer, plus a
                 module's concat (2 x its output).
Sizes follow the code's padding: VALID where it says so, SAME otherwise.

--check generates the layers at 299 x 299 with 1001 classes and at 224 x 224 with 1000, and compares
them with the `layers = [...]` lines of validation/workloads/inception_v3.toml and
inception_v3_224.toml (the first written by hand before this script existed: the script
reproduces it). Standard library only; the output depends on the arguments alone.
"""

import argparse
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BYTES = 4  # fp32 activations


def out_size(size, k, stride, valid):
    """The output side of a k x k window at `stride` over `size`: VALID or SAME padding."""
    return (size - k) // stride + 1 if valid else -(-size // stride)


class Layer:
    """One layer of the file: its convolutions and pools, each adding to its sums."""

    def __init__(self):
        self.flop = 0
        self.memory = 0
        self.params = 0
        self.tensors = []

    def conv(self, shape, cout, kh, kw, stride=1, valid=False):
        """A convolution on `shape` = (h, w, c); returns its output shape."""
        h, w, cin = shape
        oh = out_size(h, kh, stride, valid)
        ow = out_size(w, kw, stride, valid)
        kernel = kh * kw * cin * cout
        self.flop += 2 * oh * ow * kernel
        self.memory += BYTES * (h * w * cin + oh * ow * cout)
        self.params += kernel + cout
        self.tensors += [kernel, cout]
        return (oh, ow, cout)

    def pool(self, shape, k, stride, valid):
        """A k x k pooling on `shape`; returns its output shape."""
        h, w, c = shape
        oh = out_size(h, k, stride, valid)
        ow = out_size(w, k, stride, valid)
        self.memory += BYTES * (h * w * c + oh * ow * c)
        return (oh, ow, c)

    def concat(self, shapes):
        """The concatenation of branch outputs of one size: reads them, writes the block output."""
        h, w, _ = shapes[0]
        out = (h, w, sum(s[2] for s in shapes))
        self.memory += BYTES * 2 * h * w * out[2]
        return out


def fmt(shape):
    return "x".join(str(v) for v in shape) if isinstance(shape, tuple) else str(shape)


def line(name, kind, layer, tensors=True):
    text = (f'  {{ name = "{name}", kind = "{kind}", forward_flop = {layer.flop}, memory_bytes = {layer.memory}, '
            f"params = {layer.params}")
    if tensors:
        text += ", tensors = [" + ", ".join(str(t) for t in layer.tensors) + "]"
    return text + " },"


def inception_v3(size, classes, keras):
    """The (comment, line) pairs of the layers, from the image to the classifier."""
    out = []
    x = (size, size, 3)

    def stem_conv(name, cout, k, stride, valid):
        nonlocal x
        layer = Layer()
        y = layer.conv(x, cout, k, k, stride, valid)
        pad = "VALID" if valid else "SAME"
        window = f"{k}x{k}" if k == 1 else f"{k}x{k}/{stride}"
        out.append((f"{name}: conv {cout}, {window} {pad}: {fmt(x)} -> {fmt(y)}", line(name, f"conv{k}x{k}/s{stride}", layer)))
        x = y

    def stem_pool(name):
        nonlocal x
        layer = Layer()
        y = layer.pool(x, 3, 2, True)
        out.append((f"{name}: max pool 3x3/2 VALID: {fmt(x)} -> {fmt(y)}", line(name, "pool", layer, tensors=False)))
        x = y

    def block(name, text, build):
        nonlocal x
        layer = Layer()
        y = build(layer, x)
        out.append((f"{name}: {text}: {fmt(x)} -> {fmt(y)}", line(name, "block", layer)))
        x = y

    def module_a(n):  # inception_v3_a / Keras mixed 0-2
        def build(l, x):
            b1 = l.conv(x, 64, 1, 1)
            b2 = l.conv(l.conv(x, 48, 1, 1), 64, 5, 5)
            b3 = l.conv(l.conv(l.conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
            b4 = l.conv(l.pool(x, 3, 1, False), n, 1, 1)
            return l.concat([b1, b2, b3, b4])
        return build

    def module_b(l, x):  # inception_v3_b / mixed 3
        b1 = l.conv(x, 384, 3, 3, 2, True)
        b2 = l.conv(l.conv(l.conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, 2, True)
        b3 = l.pool(x, 3, 2, True)
        return l.concat([b1, b2, b3])

    def module_c(n):  # inception_v3_c / mixed 4-7
        def build(l, x):
            b1 = l.conv(x, 192, 1, 1)
            b2 = l.conv(l.conv(l.conv(x, n, 1, 1), n, 1, 7), 192, 7, 1)
            b3 = l.conv(x, n, 1, 1)
            for cout, kh, kw in ((n, 7, 1), (n, 1, 7), (n, 7, 1), (192, 1, 7)):
                b3 = l.conv(b3, cout, kh, kw)
            b4 = l.conv(l.pool(x, 3, 1, False), 192, 1, 1)
            return l.concat([b1, b2, b3, b4])
        return build

    def module_d(l, x):  # inception_v3_d / mixed 8
        b1 = l.conv(l.conv(x, 192, 1, 1), 320, 3, 3, 2, True)
        b2 = l.conv(l.conv(l.conv(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
        b2 = l.conv(b2, 192, 3, 3, 2, True)
        b3 = l.pool(x, 3, 2, True)
        return l.concat([b1, b2, b3])

    def module_e(l, x):  # inception_v3_e / mixed 9-10: the 1x3 and 3x1 share their input
        b1 = l.conv(x, 320, 1, 1)
        s = l.conv(x, 384, 1, 1)
        b2 = [l.conv(s, 384, 1, 3), l.conv(s, 384, 3, 1)]
        s = l.conv(l.conv(x, 448, 1, 1), 384, 3, 3)
        b3 = [l.conv(s, 384, 1, 3), l.conv(s, 384, 3, 1)]
        b4 = l.conv(l.pool(x, 3, 1, False), 192, 1, 1)
        return l.concat([b1, *b2, *b3, b4])

    stem_conv("conv0", 32, 3, 2, True)
    stem_conv("conv1", 32, 3, 1, True)
    stem_conv("conv2", 64, 3, 1, False)
    stem_pool("pool0")
    stem_conv("conv3", 80, 1, 1, True)
    stem_conv("conv4", 192, 3, 1, True)
    stem_pool("pool1")
    block("mixed_5b", "inception_v3_a(n=32): 1x1 64 | 1x1 48, 5x5 64 | 1x1 64, 3x3 96, 3x3 96 | avg 3x3/1, 1x1 32", module_a(32))
    block("mixed_5c", "inception_v3_a(n=64)", module_a(64))
    block("mixed_5d", "inception_v3_a(n=64)", module_a(64))
    block("mixed_6a", "inception_v3_b: 3x3/2 VALID 384 | 1x1 64, 3x3 96, 3x3/2 VALID 96 | max 3x3/2", module_b)
    block("mixed_6b", "inception_v3_c(n=128): 1x1 192 | 1x1 n, 1x7 n, 7x1 192 | 1x1 n, 7x1 n, 1x7 n, 7x1 n, 1x7 192 | "
          "avg 3x3/1, 1x1 192", module_c(128))
    block("mixed_6c", "inception_v3_c(n=160)", module_c(160))
    block("mixed_6d", "inception_v3_c(n=160)", module_c(160))
    block("mixed_6e", "inception_v3_c(n=192)", module_c(192))
    block("mixed_7a", "inception_v3_d: 1x1 192, 3x3/2 VALID 320 | 1x1 192, 1x7 192, 7x1 192, 3x3/2 VALID 192 | max 3x3/2",
          module_d)
    block("mixed_7b", "inception_v3_e(avg): 1x1 320 | 1x1 384 -> (1x3 384, 3x1 384) | 1x1 448, 3x3 384 -> "
          "(1x3 384, 3x1 384) | avg 3x3/1, 1x1 192", module_e)
    block("mixed_7c", "inception_v3_e(avg): as mixed_7b" if keras else "inception_v3_e(max): as mixed_7b with a max pool",
          module_e)
    # The head: a pool over the whole map (tf_cnn_benchmarks' apool(8, 8) is one only at 299 x 299),
    # then the classifier.
    h, w, c = x
    layer = Layer()
    layer.memory = BYTES * (h * w * c + c)
    pool_text = "global average pool (GlobalAveragePooling2D)" if keras else f"avg pool {h}x{w} VALID"
    out.append((f"pool2: {pool_text}: {fmt(x)} -> {c}" + ("" if keras else " (cnn.reshape)"),
                line("pool2", "pool", layer, tensors=False)))
    layer = Layer()
    layer.flop = 2 * c * classes
    layer.memory = BYTES * (c + classes)
    layer.params = c * classes + classes
    layer.tensors = [c * classes, classes]
    head = (f"Dense({classes}), weights + biases, softmax" if keras
            else f"affine {c} -> {classes} (nclass = {classes}), weights + biases, linear")
    out.append((f"fc: {head}", line("fc", "fc", layer)))
    return out


def layer_lines(path):
    """The `{ name = ... }` lines of the `layers = [...]` array of a workload file."""
    text = path.read_text()
    body = re.search(r"^layers = \[\n(.*?)^\]", text, re.S | re.M)
    if not body:
        sys.exit(f"generate_inception_v3: {path}: no `layers = [` ... `]` array")
    return [l for l in body.group(1).splitlines() if l.lstrip().startswith("{")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=299, help="the image side in pixels (default 299; at least 75)")
    parser.add_argument("--classes", type=int, default=1001, help="the classifier's classes (default 1001)")
    parser.add_argument("--keras", action="store_true", help="Keras's head and comments (global pool, Dense)")
    parser.add_argument("--check", action="store_true", help="compare with the two bundled files")
    args = parser.parse_args()
    if args.check:
        failed = False
        for name, size, classes, keras in (("inception_v3.toml", 299, 1001, False),
                                           ("inception_v3_224.toml", 224, 1000, True)):
            path = REPO_ROOT / "validation" / "workloads" / name
            want = [l for _, l in inception_v3(size, classes, keras)]
            have = layer_lines(path)
            if want != have:
                failed = True
                print(f"generate_inception_v3: {path}: its layers differ from the generated ones at {size} x {size}, "
                      f"{classes} classes:", file=sys.stderr)
                for w, h in zip(want, have):
                    if w != h:
                        print(f"  generated: {w}\n  file:      {h}", file=sys.stderr)
                if len(want) != len(have):
                    print(f"  {len(want)} layers generated, {len(have)} in the file", file=sys.stderr)
            else:
                print(f"{name}: {len(have)} layers as generated at {size} x {size}, {classes} classes")
        sys.exit(1 if failed else 0)
    if args.size < 75:
        sys.exit("generate_inception_v3: --size: at least 75 pixels (the network's smallest input)")
    layers = inception_v3(args.size, args.classes, args.keras)
    print("layers = [")
    for comment, text in layers:
        print(f"  # {comment}")
        print(text)
    print("]")
    flop = sum(int(re.search(r"forward_flop = (\d+)", t).group(1)) for _, t in layers)
    params = sum(int(re.search(r"params = (\d+)", t).group(1)) for _, t in layers)
    print(f"# sums: params {params}, forward_flop {flop}", file=sys.stderr)


if __name__ == "__main__":
    main()
