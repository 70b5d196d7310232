// The table a sweep prints at its end: a line per curve with its ceiling, and the notes under it.
#include "tools/sweep/headlines.hpp"

#include "support/utf8.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>

namespace ceiling::tools {
namespace {

/// Appends printf's `format` of the values to `out`.
__attribute__((format(printf, 2, 3))) void append_formatted(std::string& out, const char* format,
                                                            ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (size > 0) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(size) + 1);
    std::vsnprintf(out.data() + at, static_cast<std::size_t>(size) + 1, format, again);
    out.resize(at + static_cast<std::size_t>(size));
  }
  va_end(again);
}

} // namespace

/// Per curve: its reference N, the efficiency and alpha_eff at the largest N, the measured and
/// fitted N at E = 0.5, the fitted ceiling (with the fit's shape) and the dominant part of
/// 1 - alpha_eff; a dash where one node count leaves nothing to compare.
std::string headlines(const io::ResultFile& r) {
  std::string out;
  // The name column as wide as the longest curve name (at least 52), so that the numbers line up.
  std::size_t width = 52;
  for (const auto& curve : r.curves)
    width = std::max(width, support::utf8_characters(curve.id));
  append_formatted(out, "\n%s %6s %9s %8s %8s %12s %10s %s\n",
                   support::padded("curve", width).c_str(), "N ref", "largest N", "E there",
                   "1-a_eff", "N at E=0.5", "ceiling", "dominant part of 1 - alpha_eff");
  // Per scaling mode, the least and most reference N (a weak and a strong curve never compare).
  std::map<std::string, std::pair<double, double>> references;
  // The starred curves by why they are not Amdahl-shaped: their names, each with the figure that
  // says so.
  std::map<analysis::CurveShape, std::string> starred;
  for (std::size_t c = 0; c < r.curves.size(); ++c) {
    const auto& a = r.analyses[c];
    if (a.points.empty()) {
      append_formatted(out, "%s (no finished point)\n",
                       support::padded(r.curves[c].id, width).c_str());
      continue;
    }
    auto& range =
        references
            .try_emplace(std::string(analysis::to_string(a.scaling)), a.n_reference, a.n_reference)
            .first->second;
    range = {std::min(range.first, a.n_reference), std::max(range.second, a.n_reference)};
    const auto& last = a.points.back();
    const bool compared = a.points.size() > 1;
    // Measured when the curve reaches E = 0.5; else the fit's, when the curve is Amdahl-shaped;
    // else only that it lies beyond the largest N.
    char n_half[32];
    if (!compared)
      std::snprintf(n_half, sizeof n_half, "-");
    else if (!std::isnan(a.n_half_efficiency_measured))
      std::snprintf(n_half, sizeof n_half, "%.4g m", a.n_half_efficiency_measured);
    else if (a.fit.amdahl_shaped && std::isinf(a.fit.n_half_efficiency)) // (alpha clamped to 1)
      std::snprintf(n_half, sizeof n_half, "never f");
    else if (a.fit.amdahl_shaped)
      std::snprintf(n_half, sizeof n_half, "%.4g f", a.fit.n_half_efficiency);
    else
      std::snprintf(n_half, sizeof n_half, "> %.0f", last.n);
    char ceiling[32];
    const bool fitted = compared && !std::isnan(a.fit.alpha);
    // (where 1 - alpha_eff falls with N, a fitted ceiling grows with the largest N)
    const bool in_sight = a.fit.shape != analysis::CurveShape::NonparallelFalls;
    const bool starred_here = a.fit.alpha > 0 && in_sight && !a.fit.amdahl_shaped; // (NaN: no fit)
    if (!fitted)
      std::snprintf(ceiling, sizeof ceiling, "%10s", "- ");
    else if (!in_sight)
      std::snprintf(ceiling, sizeof ceiling, "%10s", "none seen ");
    else if (std::isinf(a.fit.ceiling_speedup)) // (alpha clamped to 1: linear or superlinear)
      std::snprintf(ceiling, sizeof ceiling, "%9s%s", "unbounded", starred_here ? "*" : " ");
    else if (a.fit.alpha > 0)
      std::snprintf(ceiling, sizeof ceiling, "%9.4g%s", a.fit.ceiling_speedup,
                    starred_here ? "*" : " ");
    else // no speedup over the smallest N: no ceiling to speak of
      std::snprintf(ceiling, sizeof ceiling, "%10s", "none ");
    if (starred_here) {
      std::string& names = starred[a.fit.shape];
      names += (names.empty() ? "" : "; ") + r.curves[c].id;
      char figure[48] = "";
      if (a.fit.shape == analysis::CurveShape::PoorFit)
        std::snprintf(figure, sizeof figure, " (%.2g)", a.fit.residual);
      else if (a.fit.shape == analysis::CurveShape::CeilingFalls)
        std::snprintf(figure, sizeof figure, " (N^%.2f)", a.fit.alpha_eff_drift);
      names += figure;
    }
    char nonparallel[16];
    if (compared)
      std::snprintf(nonparallel, sizeof nonparallel, "%.2g", 1 - last.alpha_eff);
    else
      std::snprintf(nonparallel, sizeof nonparallel, "-");
    append_formatted(out, "%s %6.0f %9.0f %8.3f %8s %12s %s %s\n",
                     support::padded(r.curves[c].id, width).c_str(), a.n_reference, last.n,
                     last.efficiency, nonparallel, n_half, ceiling, a.dominant_term.c_str());
  }
  append_formatted(
      out,
      "N ref: the curve's smallest finished N, which its speedups, efficiencies and ceiling are "
      "over; N at E=0.5: m measured, f from the Amdahl fit (never: its efficiency never falls to "
      "0.5), > beyond "
      "the sweep; ceiling = 1/(1 - alpha) of the fit (unbounded: alpha clamped to 1, a linear or "
      "superlinear "
      "speedup; none: no speedup over N ref, alpha <= 0; -: one N; none seen: "
      "1 - alpha_eff falls with N, as at constant efficiency, weak scaling's, where it falls as "
      "1/N: "
      "no ceiling within the sweep, and a fitted one would grow with the largest N);\n"
      "dominant part: the largest of 1 - alpha_eff's parts at the largest N (communication, "
      "copy, synchronisation, compute: what each rank computes beyond perfect scaling, as a "
      "smaller batch per GPU running less efficiently in strong scaling)\n");
  // (in CurveShape's order, the order of fit_amdahl's tests)
  for (const auto& [shape, names] : starred) {
    char why[96] = "";
    switch (shape) {
    case analysis::CurveShape::TooFewNodeCounts:
      std::snprintf(why, sizeof why, "fewer than 3 node counts");
      break;
    case analysis::CurveShape::PoorFit:
      std::snprintf(why, sizeof why, "the Amdahl fit's residual is %.2g or more",
                    analysis::amdahl_residual_limit);
      break;
    case analysis::CurveShape::CeilingFalls:
      std::snprintf(why, sizeof why,
                    "1 - alpha_eff grows with N, as N^k over the upper half of the sweep");
      break;
    default: // (never starred: Amdahl-shaped, no speedup, or no ceiling in sight)
      std::snprintf(why, sizeof why, "%s", std::string(analysis::to_string(shape)).c_str());
    }
    append_formatted(out, "* not Amdahl-shaped, read its ceiling with care: %s: %s\n", why,
                     names.c_str());
  }
  for (const auto& [scaling, range] : references)
    if (range.first < range.second)
      append_formatted(out,
                       "note: the %s curves' N ref differ (%.0f to %.0f: points that failed or do "
                       "not fit in device "
                       "memory): speedups and ceilings over different N ref do not compare\n",
                       scaling.c_str(), range.first, range.second);
  return out;
}

} // namespace ceiling::tools
