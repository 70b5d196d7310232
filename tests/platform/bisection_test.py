#!/usr/bin/env python3
"""A permutation across the bisection reaches the closed-form bisection bandwidth; an all-to-all
and a halving-doubling all-reduce land within the range the bisection allows.

`ceiling platform bench` times a bisection exchange (every node of one half sends SIZE spread
evenly over the other half, both ways, routed as the platform routes) against N/2 x SIZE /
bisection bandwidth (platform/topology.cpp). Each routing that spreads over the cut's links
must come within 5 % of it; SimGrid's static dragonfly routing, one minimal path per pair
(platforms/README.md, "Routing"), must not: that gap is why the dragonfly routes adaptively.
The all-to-all (every node to every other) is bounded below by its cut traffic over the
bisection and by each node's NIC; on a dragonfly its traffic inside a half also crosses global
links, so it is held within 10 % above the bound.
Halving-doubling (Rabenseifner, step by step) is bounded below by the sum over its steps of the
largest exchange over the NIC or the step's bytes across the cut over the bisection bandwidth.
Where one path per pair is enough (fat-tree, torus) it comes within 5 % of that. On a dragonfly
MPICH's order (partners at distance 1 first, the largest exchanges inside a chassis or group)
leaves the steps across the cut small; adaptive routing is held within 15 % of the bound (1.058
and 1.011 at 10 MB when measured: UGAL chooses per flow, not per packet, and a step that pairs
groups takes some non-minimal paths), and static minimal routing, one global link per pair of
groups, must fall outside its 1.5x.
usage: bisection_test.py CEILING ROOT
"""
import json
import subprocess
import sys

ceiling, root = sys.argv[1], sys.argv[2]

# (pattern, platform, nodes, routing, lowest and highest simulated / closed form)
cases = [("bisection exchange", *c) for c in [
    ("generic-fat-tree", 64, "static-minimal", 1.0, 1.05),
    ("generic-fat-tree", 64, "adaptive", 1.0, 1.05),
    ("generic-fat-tree", 64, "ecmp", 1.0, 1.05),
    ("generic-torus", 64, "static-minimal", 1.0, 1.05),
    ("generic-dragonfly", 64, "static-minimal", 1.0, 1.05),
    ("generic-dragonfly", 64, "adaptive", 1.0, 1.05),
    ("generic-dragonfly", 17, "adaptive", 1.0, 1.05),  # (the odd node sits out, and out of the cut)
    ("piz-daint-xc50-p100", 256, "adaptive", 1.0, 1.05),
    ("piz-daint-xc50-p100", 256, "static-minimal", 1.5, 10.0),
]] + [("all-to-all", *c) for c in [
    ("generic-fat-tree", 64, "ecmp", 1.0, 1.05),
    ("generic-torus", 64, "static-minimal", 1.0, 1.05),
    ("generic-dragonfly", 64, "adaptive", 1.0, 1.10),
    ("piz-daint-xc50-p100", 256, "adaptive", 1.0, 1.10),
    ("piz-daint-xc50-p100", 256, "static-minimal", 1.5, 10.0),
]] + [("halving-doubling all-reduce", *c) for c in [
    ("generic-fat-tree", 64, "static-minimal", 1.0, 1.05),
    ("generic-torus", 64, "static-minimal", 1.0, 1.05),
    ("generic-dragonfly", 64, "adaptive", 1.0, 1.15),
    ("piz-daint-xc50-p100", 256, "adaptive", 1.0, 1.15),
    ("piz-daint-xc50-p100", 256, "static-minimal", 1.5, 10.0),
]]

# Where the fabric binds, not the NICs: a torus whose links carry a tenth of its NICs (its nodes
# send on their own 6 torus links; an exchange's one flow on one link at a time). Dimension-order
# routing does not spread over the cut, so each pattern lands above its bound, but within 1.6x
# (measured: 1.50, 1.50 and 1.33; the bounds of the NIC alone gave 11.8x for halving-doubling).
slow_links = ["node.nic.bandwidth=100 GB/s", "interconnect.link_bandwidth=10 GB/s"]
cases += [(pattern, "generic-torus", 64, "static-minimal", 1.0, 1.6, slow_links)
          for pattern in ("bisection exchange", "all-to-all", "halving-doubling all-reduce")]

failures = 0
print(f"{'pattern':28} {'platform':22} {'nodes':>5} {'routing':15} {'simulated / bound':>18}")
for pattern, platform, nodes, routing, low, high, *more in cases:
    sets = [f"interconnect.routing={routing}", *(more[0] if more else [])]
    out = subprocess.run([ceiling, "platform", "bench", f"{root}/platforms/{platform}.toml", "--nodes", str(nodes),
                          "--size", "10 MB", *[a for s in sets for a in ("--set", s)], "--json"],
                         check=True, capture_output=True, text=True).stdout
    rows = {b["name"].split(" over ")[0]: b for b in json.loads(out)["benchmarks"]}
    row = rows[pattern]
    ratio = row["simulated_s"] / row["closed_form_s"]
    ok = low * (1 - 1e-9) <= ratio <= high
    failures += not ok
    print(f"{pattern:28} {platform:22} {nodes:5} {routing:15} {ratio:18.4f}{' (slow links)' if more else ''}"
          f"{'' if ok else f'   FAIL: outside [{low}, {high}]'}")
sys.exit(1 if failures else 0)
