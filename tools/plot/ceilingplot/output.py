"""Where the files go: printing what is written, saving a figure as PNG and SVG."""

import hashlib
import io
import os
import re
import sys
from pathlib import Path

import matplotlib.pyplot as plt


def say(text):
    """One line on stdout; a reader that went away (`| head`) does not stop the work."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w", errors="surrogateescape")


def output_target(path):
    """The file an output named PATH replaces, as the C++ writers find it (sim/io/atomic_output.cpp):
    the file a symbolic link names (the link stays), followed by hand so that a link to a file
    not there yet names where to write it; refuses a loop, a folder, and a file that is not a
    regular one (a device, a FIFO or a socket, which the rename would replace)."""
    target = Path(path)
    for _ in range(40):
        if not target.is_symlink():
            break
        link = Path(os.readlink(target))
        target = link if link.is_absolute() else target.parent / link
    else:
        raise OSError(0, "too many levels of symbolic links: expected a file's path", str(path))
    if target.exists() and not target.is_file():
        raise OSError(0, "is not a regular file (a folder, a device, a FIFO or a socket): expected a file's path",
                      str(path))
    return target


def write_atomically(path, data):
    """Writes `data` (bytes or text) to PATH.tmp, flushes it to disk and renames it over PATH
    (output_target(): the file a link names): an interruption leaves the old file or the new one,
    never a part of one. PATH.tmp is a new file: where a file has that name already (left by a
    write that was killed, or someone's own), PATH.tmp.1, .2, ... is taken instead, as the
    program's own outputs do (sim/io/atomic_output.cpp)."""
    path = output_target(path)
    for n in range(100):
        temporary = path.with_name(path.name + ".tmp" + (f".{n}" if n else ""))
        try:
            f = open(temporary, "xb")
            break
        except FileExistsError:
            if n == 99:
                raise
    try:
        with f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


CLIP = re.compile(r'<clipPath id="(p[0-9a-f]{10})">(.*?)</clipPath>', re.S)


def stable_clip_ids(svg):
    """Names each SVG clip path after what the file says of it. matplotlib names it after the
    unrounded clip box, whose last bits the layout solver varies from run to run: the same
    figure would otherwise get other ids."""
    names, seen = {}, {}
    for old, body in CLIP.findall(svg):
        k = seen.get(body, 0)
        seen[body] = k + 1
        names[old] = "p" + hashlib.sha256(f"{body}#{k}".encode()).hexdigest()[:10]
    return re.sub(r"\bp[0-9a-f]{10}\b", lambda m: names.get(m.group(0), m.group(0)), svg)


def freeze_layout(fig):
    """Lays the figure out once, rounds every axes' place to a millionth of the figure and turns
    the layout engine off: its solver varies the last bits of the places from run to run, which
    an SVG writes out (and names its clip paths after), so the same figure would get other bytes."""
    fig.draw_without_rendering()
    if fig.get_layout_engine() is None:
        return
    places = [(ax, ax.get_position()) for ax in fig.axes]
    fig.set_layout_engine("none")
    for ax, p in places:
        ax.set_position([round(v, 6) for v in (p.x0, p.y0, p.width, p.height)])


class Output:
    """Where figures go, and the record of what was written and what was left out."""

    def __init__(self, directory, results):
        self.dir = Path(directory)
        self.results = results
        self.figures = []   # (name, png path, what the file shows of the figure or None)
        self.notes = []     # what was skipped, as printed
        self.written = set()  # every file written, as it is

    def note(self, text):
        self.notes.append(text)
        say(text)

    def save(self, fig, name, part=None):
        """Writes NAME.png and NAME.svg; a figure split over several files (one per workload)
        saves its first part as NAME and the K-th as NAME-K, `part` saying what each shows."""
        k = sum(1 for n, _, _ in self.figures if n == name) + 1
        stem = name if k == 1 else f"{name}-{k}"
        freeze_layout(fig)
        for ext in ("png", "svg"):
            path = self.dir / f"{stem}.{ext}"
            # No date in the files: the same results give the same bytes. The canvas takes in
            # whatever the layout leaves outside the figure (a legend of long curve labels under a
            # single panel is wider than the panel).
            if ext == "png":
                png = io.BytesIO()
                fig.savefig(png, format=ext, bbox_inches="tight")
                write_atomically(path, png.getvalue())
            else:
                svg = io.StringIO()
                fig.savefig(svg, format=ext, metadata={"Date": None}, bbox_inches="tight")
                write_atomically(path, stable_clip_ids(svg.getvalue()))
            self.written.add(path)
            say(f"wrote {path}")
        plt.close(fig)
        self.figures.append((name, self.dir / f"{stem}.png", part))
