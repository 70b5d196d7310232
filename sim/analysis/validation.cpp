#include "analysis/validation.hpp"

#include <algorithm>
#include <cmath>

namespace ceiling::analysis {
namespace {

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/// The errors of the points after the reference, and the signed worst.
std::pair<std::vector<double>, double> errors(const CaseComparison& c) {
  std::vector<double> abs_errors;
  double worst = 0;
  for (std::size_t i = 1; i < c.points.size(); ++i) {
    abs_errors.push_back(std::abs(c.points[i].error_points));
    if (std::abs(c.points[i].error_points) > std::abs(worst))
      worst = c.points[i].error_points;
  }
  return {abs_errors, worst};
}

} // namespace

bool validate_sets_option(std::string_view name, bool servers_given) {
  constexpr std::string_view set[] = {"platform", "workload", "nodes", "software", "batch",  "global-batch",
                                      "iterations", "json",   "seeds", "trace",    "timing", "help"};
  return std::find(std::begin(set), std::end(set), name) != std::end(set) || (servers_given && name == "servers");
}

CaseComparison compare(const ValidationCase& c, const std::vector<double>& predicted) {
  CaseComparison out{.id = c.id};
  if (c.measured.empty() || predicted.size() != c.measured.size())
    return out;
  const auto& ref = c.measured.front();
  const double n0 = static_cast<double>(ref.workers);
  for (std::size_t i = 0; i < c.measured.size(); ++i) {
    const auto& m = c.measured[i];
    const double n = static_cast<double>(m.workers);
    PointComparison p{.workers = m.workers, .measured_throughput = m.throughput_samples_per_s,
                      .predicted_throughput = predicted[i]};
    p.predicted_efficiency = (predicted[i] / n) / (predicted.front() / n0);
    // The efficiency the source reports, where it does (the data's rule: it stands as given, even
    // beside a throughput), else from the throughputs.
    if (m.reported_efficiency)
      p.measured_efficiency = *m.reported_efficiency;
    else if (m.throughput_samples_per_s && ref.throughput_samples_per_s)
      p.measured_efficiency = (*m.throughput_samples_per_s / n) / (*ref.throughput_samples_per_s / n0);
    else
      p.measured_efficiency = std::nan("");
    p.error_points = 100 * (p.predicted_efficiency - p.measured_efficiency);
    out.points.push_back(p);
  }
  const auto [abs_errors, worst] = errors(out);
  out.median_abs_error_points = median(abs_errors);
  out.worst_error_points = worst;
  return out;
}

Summary summarize(const std::vector<CaseComparison>& cases) {
  std::vector<double> all;
  double worst = 0;
  for (const auto& c : cases) {
    const auto [abs_errors, case_worst] = errors(c);
    all.insert(all.end(), abs_errors.begin(), abs_errors.end());
    if (std::abs(case_worst) > std::abs(worst))
      worst = case_worst;
  }
  return {static_cast<int>(all.size()), median(all), worst};
}

} // namespace ceiling::analysis
