"""Optional costs: throughput per cost and cost x time to solution at the largest N."""

import math

from .text import fmt, fmt_n

FORMULAS = (
    "Costs: each platform's price of a node, cost_per_node, is in {unit}. At the largest N "
    "simulated, weak scaling gives the throughput per cost = samples/s / (N × cost_per_node) "
    "(samples/s per {unit}: higher is better) and strong scaling the cost × time to solution "
    "= N × cost_per_node × t, with t the time of one iteration over the fixed global batch "
    "({unit}·s: lower is better). The ceiling figure shows both as performance per cost, "
    "higher is better: samples/s / (N × cost_per_node) for weak scaling and "
    "1 / (N × cost_per_node × t), global batches/s per {unit}, for strong scaling.")


def unit(results):
    """The cost unit, "" when the file has no costs."""
    return results.attrs.get("cost_unit", "")


def has_costs(results):
    """Whether the report and the ceiling figure show costs: a unit and a price for a curve."""
    return bool(unit(results)) and any(math.isfinite(c.cost_per_node) for c in results.curves)


def _largest(c):
    """(N, throughput, iteration time) at the largest N, or None without a cost or a point."""
    if not c.rows or not math.isfinite(c.cost_per_node):
        return None
    d = c.data
    return float(d["n"][-1]), float(d["throughput_samples_per_s"][-1]), \
        float(d["iteration_time_s"][-1])


def throughput_per_cost(c):
    """Weak scaling: samples/s / (N x cost_per_node) at the largest N; NaN without a cost."""
    at = _largest(c)
    if at is None:
        return math.nan
    n, throughput, _ = at
    machine = n * c.cost_per_node
    return throughput / machine if machine > 0 else math.inf


def cost_time(c):
    """Strong scaling: N x cost_per_node x iteration time at the largest N; NaN without."""
    at = _largest(c)
    if at is None:
        return math.nan
    n, _, time = at
    return n * c.cost_per_node * time


def performance_per_cost(c):
    """Higher is better in both modes: throughput per cost (weak) or 1 / (cost x time)."""
    if c.scaling == "weak":
        return throughput_per_cost(c)
    v = cost_time(c)
    return 1.0 / v if v > 0 else (math.inf if v == 0 else math.nan)


def performance_unit(scaling, cost_unit):
    if scaling == "weak":
        return f"samples/s per {cost_unit}"
    return f"global batches/s per {cost_unit}"


def key_numbers(c, cost_unit):
    """Rows (quantity, value) for a curve's key-number table."""
    cost = f"{fmt(c.cost_per_node)} {cost_unit}" if math.isfinite(c.cost_per_node) else "—"
    largest = f" (N = {fmt_n(c.data['n'][-1])})" if c.rows else ""
    rows = [("cost per node", cost)]
    if c.scaling == "weak":
        v = throughput_per_cost(c)
        rows.append((f"throughput per cost at the largest N{largest}: samples/s / (N × cost "
                     "per node)", "—" if math.isnan(v) else f"{fmt(v)} samples/s per "
                     f"{cost_unit}"))
    else:
        v = cost_time(c)
        rows.append((f"cost × time to solution at the largest N{largest}: N × cost per node "
                     "× time per iteration", "—" if math.isnan(v) else f"{fmt(v)} "
                     f"{cost_unit}·s"))
    return rows


def summary_text(c, cost_unit):
    """The summary table's cell: the curve's cost figure at the largest N."""
    if c.scaling == "weak":
        v = throughput_per_cost(c)
        return "—" if math.isnan(v) else f"{fmt(v)} samples/s per {cost_unit}"
    v = cost_time(c)
    return "—" if math.isnan(v) else f"{fmt(v)} {cost_unit}·s (cost × time)"
