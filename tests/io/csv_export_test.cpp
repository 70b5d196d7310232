// The CSV export: the three tables' exact header lines, RFC 4180 quoting, full-precision
// numbers, atomic files and a pinned message when a table cannot be written.
#include "io/csv_export.hpp"
#include "support/temporary_directory.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using namespace ceiling;
namespace fs = std::filesystem;
using testing::TemporaryDirectory;

namespace {

const double nan = std::numeric_limits<double>::quiet_NaN();

/// One weak-scaling curve on 1 and 2 nodes: the first point ran, the second failed with an
/// error holding a comma and quotes.
io::ResultFile sample_results() {
  io::ResultFile r;
  r.curves = {{.id = "ft / rn / hd / weak",
               .platform = "ft",
               .workload = "rn",
               .variant = "hd",
               .scaling = analysis::Scaling::Weak}};
  sweep::PointRecord ok{.spec = {.index = 0, .curve = 0, .nodes = 1, .seed = 7},
                        .result = {.ok = true,
                                   .ranks = 4,
                                   .batch_per_rank = 32,
                                   .iteration_time_s = 0.1,
                                   .samples_per_iteration = 128,
                                   .bytes_nic = 2.5e8}};
  sweep::PointRecord failed{.spec = {.index = 1, .curve = 0, .nodes = 2, .seed = 7},
                            .result = {.ok = false, .error = "boom, said \"x\""}};
  r.points = {ok, failed};
  r.analyses = {{.scaling = analysis::Scaling::Weak,
                 .n_reference = 1,
                 .points = {{.n = 1, .seeds = 2, .speedup = 1, .alpha_eff = nan}},
                 .fit = {.alpha = 0.5,
                         .ceiling_speedup = 2,
                         .n_half_efficiency = 3,
                         .n_doubling_below_10pct = 4.5,
                         .residual = 0.25,
                         .alpha_eff_drift = -0.25,
                         .amdahl_shaped = true,
                         .shape = analysis::CurveShape::Amdahl},
                 .n_half_efficiency_measured = nan,
                 .n_doubling_below_10pct_measured = nan,
                 .alpha_eff_at_largest_n = nan,
                 .dominant_term = "communication"}};
  return r;
}

/// The lines of a text file, without their line feeds.
std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

} // namespace

TEST_SUITE_BEGIN("csv");

TEST_CASE("the export writes points, curves and fits, each with its header line") {
  const TemporaryDirectory dir;
  const auto written = io::write_csv_tables(sample_results(), dir.path);
  CHECK(written == std::vector<fs::path>{dir.path / "points.csv", dir.path / "curves.csv",
                                         dir.path / "fits.csv"});
  // Renamed from NAME.tmp: nothing else is left in the folder.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 3);

  const auto points = lines_of(dir.path / "points.csv");
  REQUIRE(points.size() == 3);
  CHECK(points[0] == "index,curve,curve_id,nodes,seed,ranks,batch_per_rank,status,error,provenance,"
                     "iteration_time_s,warmup_time_s,iteration_time_min_s,iteration_time_max_s,"
                     "samples_per_iteration,flop_per_iteration,peak_flop_per_s,compute_s,copy_s,"
                     "communication_s,synchronisation_s,bytes_pcie,bytes_nic,bytes_fabric,"
                     "bytes_gpu_link,bytes_host_memory");
  // Expectation: %.17g prints 0.1 as the double nearest to it, 0.10000000000000001.
  CHECK(points[1] == "0,0,ft / rn / hd / weak,1,7,4,32,ok,,,0.10000000000000001,0,0,0,128,0,0,0,"
                     "0,0,0,0,250000000,0,0,0");
  // Expectation (RFC 4180): a field with a comma is quoted, and a quote in it is doubled; a
  // point that did not run has its 16 measurements empty (the store's zeros are no measurement).
  CHECK(points[2] ==
        "1,0,ft / rn / hd / weak,2,7,0,0,failed,\"boom, said \"\"x\"\"\",," + std::string(15, ','));

  const auto curves = lines_of(dir.path / "curves.csv");
  REQUIRE(curves.size() == 2);
  CHECK(curves[0] == "curve,curve_id,platform,workload,variant,scaling,n,seeds,iteration_time_s,"
                     "iteration_time_min_s,iteration_time_median_s,iteration_time_max_s,throughput_samples_per_s,speedup,"
                     "efficiency,alpha_eff,payload_flop_per_s,payload_efficiency,compute_s,copy_s,"
                     "communication_s,synchronisation_s,nonpar_communication,nonpar_copy,"
                     "nonpar_synchronisation,nonpar_compute_imbalance");
  CHECK(curves[1] == "0,ft / rn / hd / weak,ft,rn,hd,weak,1,2,0,0,0,0,0,1,0,nan,0,0,0,0,0,0,0,0,0,0");

  const auto fits = lines_of(dir.path / "fits.csv");
  REQUIRE(fits.size() == 2);
  CHECK(fits[0] == "curve,curve_id,platform,workload,variant,scaling,n_unit,n_reference,"
                   "amdahl_alpha,ceiling_speedup,n_half_efficiency_fit,n_doubling_below_10pct_fit,"
                   "fit_residual,alpha_eff_drift,amdahl_shaped,shape,n_half_efficiency_measured,"
                   "n_doubling_below_10pct_measured,alpha_eff_at_largest_n,dominant_term,"
                   "cost_per_node,cost_unit");
  // No costs in this experiment: NaN and an empty unit.
  CHECK(fits[1] ==
        "0,ft / rn / hd / weak,ft,rn,hd,weak,nodes,1,0.5,2,3,4.5,0.25,-0.25,1,amdahl,nan,nan,nan,"
        "communication,nan,");
}

TEST_CASE("a table that cannot be written throws StoreError naming it") {
  const TemporaryDirectory dir;
  const std::string table = dir.file("missing/points.csv");
  CHECK_THROWS_WITH_AS(
      io::write_csv_tables(sample_results(), dir.path / "missing"),
      (table + ": error: cannot create \"" + table + ".tmp\": no such file or directory").c_str(),
      io::StoreError);
}

TEST_SUITE_END();
