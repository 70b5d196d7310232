"""Numbers and file text as shown in figures and tables: digits, node counts, alpha."""

import math
import textwrap


def fmt(x, digits=3):
    """x to `digits` significant digits: 0.253, 1.79, 404, 12,300, 6.83e-5; NaN as "—"."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    if magnitude < -3 or magnitude >= 9:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{int(exponent)}"
    rounded = round(x, digits - 1 - magnitude)
    if magnitude >= digits - 1:
        return f"{int(rounded):,}"
    return f"{rounded:.{max(0, digits - 1 - magnitude)}f}".rstrip("0").rstrip(".")


def fmt_n(n):
    """A node count: exact with thousands separators when whole (1,024), else fmt()."""
    if n is None or not math.isfinite(n):
        return fmt(n)
    return f"{int(round(n)):,}" if abs(n - round(n)) < 1e-9 else fmt(n)


def fmt_alpha(a):
    """alpha_eff close to 1 with enough digits for 1 - alpha to keep 3: 0.99850."""
    if a is None or not math.isfinite(a):
        return fmt(a)
    d = 1 - a
    if d == 0:
        return "1"
    decimals = min(12, max(3, -math.floor(math.log10(abs(d))) + 2))
    return f"{a:.{decimals}f}"


def drift_text(c):
    """How 1 − α_eff goes with N over the upper half of the sweep: "1 − α_eff ∝ N^−0.89"."""
    return "1 − α_eff ∝ N^" + f"{c.alpha_eff_drift:.2f}".replace("-", "−")


def no_ceiling_in_sight(c):
    """The words that stand for a curve's fitted ceiling where its 1 − α_eff falls with N (shape
    "nonparallel_falls"; at constant efficiency, weak scaling's, it falls as 1/N): the speedup
    grows with no ceiling in sight, and the fitted one would grow with the largest N. None for
    another curve."""
    if c.shape != "nonparallel_falls":
        return None
    largest = int(c.data["n"].argmax())
    return (f"no ceiling in sight: {drift_text(c)}, E = {c.data['efficiency'][largest]:.2f} at "
            f"N = {fmt_n(c.data['n'][largest])}")


SHAPE_WORDS = {
    "amdahl": "yes",
    "too_few_node_counts": "no (fewer than 3 N)",
    "slowdown": "no (a slowdown, α < 0)",
    "nonparallel_falls": "no (1 − α_eff falls with N: no ceiling in sight)",
    "ceiling_falls": "no (1 − α_eff grows with N)",
    "poor_fit": "no (fit residual ≥ 5 %)",
}


def plain_tick(v, _pos=None):
    """Tick label without exponent notation for ratios and counts: 0.5, 2, 1,000."""
    if v <= 0 or not math.isfinite(v):
        return ""
    return fmt(v, 2) if v < 1 else f"{v:,.0f}" if v >= 1 and abs(v - round(v)) < 1e-9 \
        else fmt(v, 2)


def short_tick(v, _pos=None):
    """A tick label of a log axis over many decades, short enough for one a decade: 1,000, 10k,
    100k, 1M (plain_tick below 10,000)."""
    if v <= 0 or not math.isfinite(v) or v < 1e4:
        return plain_tick(v)
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= scale:
            return f"{v / scale:.3g}{suffix}"
    return plain_tick(v)


def mpl_text(text):
    """Text from the file as matplotlib shows it literally: a $ would start mathtext."""
    return str(text).replace("$", r"\$")


def wrap(text, width):
    """`text` in lines of at most `width` characters, broken at spaces only ("all-reduce" and
    "fat-tree" stay whole)."""
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def wrap_lines(text, width):
    """Each line of text wrapped to `width` characters (its line breaks kept)."""
    return "\n".join(wrap(line, width) for line in str(text).split("\n"))
