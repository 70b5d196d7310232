// What a result file's curves are: the analysis of its finished points, one curve at a time.
#include "io/result_store.hpp"

namespace ceiling::io {

std::vector<analysis::CurveAnalysis> curve_analyses(const std::vector<sweep::CurveSpec>& curves,
                                                    const std::vector<sweep::PointRecord>& points) {
  std::vector<std::vector<analysis::CurvePoint>> per_curve(curves.size());
  for (const sweep::PointRecord& p : points) {
    if (!p.result.ok)
      continue;
    const sweep::PointResult& x = p.result;
    per_curve[static_cast<std::size_t>(p.spec.curve)].push_back(
        {.n = static_cast<double>(p.spec.nodes),
         .iteration_time_s = x.iteration_time_s,
         .samples_per_iteration = x.samples_per_iteration,
         .flop_per_iteration = x.flop_per_iteration,
         .peak_flop_per_s = x.peak_flop_per_s,
         .compute_s = x.compute_s,
         .copy_s = x.copy_s,
         .communication_s = x.communication_s,
         .synchronisation_s = x.synchronisation_s});
  }
  std::vector<analysis::CurveAnalysis> analyses;
  for (std::size_t c = 0; c < curves.size(); ++c)
    analyses.push_back(analysis::analyse(per_curve[c], curves[c].scaling));
  return analyses;
}

void analyse_curves(ResultFile& results) {
  results.analyses = curve_analyses(results.curves, results.points);
}

} // namespace ceiling::io
