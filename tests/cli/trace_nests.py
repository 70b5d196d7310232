#!/usr/bin/env python3
"""Checks a Chrome trace written by `ceiling run --trace`: on every track (process, thread) the
slices nest (none starts inside another and ends after it, beyond 1 ns: start and duration are
rounded apart), and every thread is named. Prints
"nests: N slices on M tracks" and exits 0, or names the first two slices that cross, exit 1; a
trace without a slice is refused too (exit 1: every run traced has computed something)."""
import json
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
named = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
tracks = {}
for e in events:
    if e["ph"] == "X":
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
for track, slices in tracks.items():
    if track not in named:
        sys.exit(f"track {track} has no thread_name")
    slices.sort(key=lambda s: (s[0], -s[1]))
    open_slices = []
    for start, end, name in slices:
        while open_slices and open_slices[-1][1] <= start + 1e-3:
            open_slices.pop()
        if open_slices and end > open_slices[-1][1] + 1e-3:
            sys.exit(f"track {track}: {open_slices[-1][2]} and {name} cross")
        open_slices.append((start, end, name))
if not tracks:
    sys.exit("an empty trace: no slice on any track")
print(f"nests: {sum(len(s) for s in tracks.values())} slices on {len(tracks)} tracks")
