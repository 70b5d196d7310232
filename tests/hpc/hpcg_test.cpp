// The HPCG-like run against closed forms: halo sizes, flop count, kernels and messages.
#include "hpc/hpcg.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

using namespace ceiling::hpc;

namespace {

struct AlphaBeta : PatternTimer {
  double alpha = 0;
  double beta = 0;
  double seconds(std::span<const ceiling::collectives::Flow> flows) override {
    double bytes = 0;
    for (const auto& f : flows)
      bytes = std::max(bytes, f.bytes);
    return alpha + beta * bytes;
  }
};

NodeKernels cpu_node(double stream) {
  NodeKernels k;
  k.cpu_stream_bytes_per_s = stream;
  k.cpu_dgemm_flop_per_s = 1e11;
  k.peak_flop_per_s = 1e11;
  return k;
}

} // namespace

TEST_CASE("a process's halo is its faces, edges and corners towards the neighbours it has") {
  const Grid3 g{.x = 3, .y = 3, .z = 3};
  const int nx = 16, ny = 24, nz = 32;
  // Interior: 6 faces, 12 edges, 8 corners.
  CHECK(halo_elements(g, 1, 1, 1, nx, ny, nz) == 2.0 * (nx * ny + ny * nz + nx * nz) + 4.0 * (nx + ny + nz) + 8);
  // A corner of the grid: 3 faces, 3 edges, 1 corner.
  CHECK(halo_elements(g, 0, 0, 0, nx, ny, nz) == 1.0 * (nx * ny + ny * nz + nx * nz) + (nx + ny + nz) + 1);
  CHECK(halo_elements(Grid3{}, 0, 0, 0, nx, ny, nz) == 0);
}

TEST_CASE("HPCG on one process: kernels' bytes over the STREAM rate, HPCG's flop count, no messages") {
  HpcgSpec spec;
  spec.nx = spec.ny = spec.nz = 32;
  const double stream = 4e10;
  AlphaBeta timer;
  timer.alpha = 1; // any message would show
  const auto setup = plan_hpcg(spec, cpu_node(stream), 1);
  const auto r = simulate_hpcg(setup, timer, {});
  double bytes = 0;
  for (int l = 0; l < 4; ++l) {
    const double n = 32768.0 / (1 << (3 * l)), z = 27 * n;
    const double symgs = 2 * (12 * z + 16 * n);
    bytes += l < 3 ? 2 * symgs + (12 * z + 16 * n) + 6 * n : symgs;
  }
  bytes += 12 * 27 * 32768.0 + 16 * 32768.0 + 3 * 16 * 32768.0 + 3 * 24 * 32768.0;
  CHECK(r.bytes_per_process == doctest::Approx(bytes).epsilon(1e-15));
  CHECK(r.seconds_per_iteration == doctest::Approx(bytes / stream).epsilon(1e-15));
  // ReportResults.cpp: 3 dots and 3 WAXPBY (2 flops a row each), a SpMV (2 per nonzero),
  // SymGS twice (4 per nonzero) and a SpMV on each level but the coarsest, one SymGS there.
  auto nnz = [](double g) { return (3 * g - 2) * (3 * g - 2) * (3 * g - 2); };
  const double flops = 12 * 32768.0 + 2 * nnz(32) + 10 * (nnz(32) + nnz(16) + nnz(8)) + 4 * nnz(4);
  CHECK(r.flops_per_iteration == doctest::Approx(flops).epsilon(1e-15));
}

TEST_CASE("on a GPU node each dot product's sum crosses PCIe to the host and back, unless the NIC is GPU-direct") {
  // One process (no halo): 3 dot products an iteration, each 8 bytes device -> host and back,
  // each copy its call's cost plus its bytes over the link; none with a GPU-direct NIC.
  HpcgSpec spec;
  spec.nx = spec.ny = spec.nz = 16;
  NodeKernels node = cpu_node(1e10);
  node.gpu = true;
  node.gpus = 1;
  node.gpu_stream_bytes_per_s = 5e11;
  node.gpu_memory_bytes = 16e9;
  node.host_to_device_bytes_per_s = 12e9;
  node.device_to_host_bytes_per_s = 10e9;
  node.copy_s = 7e-6;
  AlphaBeta timer;
  const auto staged = simulate_hpcg(plan_hpcg(spec, node, 1), timer, {});
  CHECK(staged.breakdown.pcie_s == doctest::Approx(3 * ((7e-6 + 8 / 10e9) + (7e-6 + 8 / 12e9))).epsilon(1e-12));
  node.gpu_direct = true;
  CHECK(simulate_hpcg(plan_hpcg(spec, node, 1), timer, {}).breakdown.pcie_s == 0);
}

TEST_CASE("HPCG refuses a local grid that does not fit in memory") {
  HpcgSpec spec;
  spec.nx = spec.ny = spec.nz = 1024;
  auto node = cpu_node(1e10);
  node.host_memory_bytes = 64e9;
  CHECK_THROWS_WITH_AS(plan_hpcg(spec, node, 8), doctest::Contains("more than the host memory"), std::invalid_argument);
}

TEST_CASE("HPCG's messages: halo exchanges axis by axis and 3 recursive-doubling all-reduces per iteration") {
  HpcgSpec spec;
  spec.nx = spec.ny = spec.nz = 16;
  spec.levels = 1; // one level: its SymGS, the CG's SpMV
  auto node = cpu_node(1e300);
  node.message_overhead_s = 1e-6;
  AlphaBeta timer;
  timer.alpha = 1e-5;
  timer.beta = 1e-9;
  const auto setup = plan_hpcg(spec, node, 8); // 2 x 2 x 2: every process has 7 neighbours
  REQUIRE(setup.grid.size() == 8);
  const auto r = simulate_hpcg(setup, timer, {});
  const double face = 16.0 * 16 * 8;
  // One face pattern per axis (the faces of each carried in turn), 7 messages' overheads.
  const double halo = 3 * (1e-5 + 1e-9 * face) + 7 * 1e-6;
  CHECK(r.breakdown.halo_s == doctest::Approx(2 * halo).epsilon(1e-12));
  CHECK(r.breakdown.allreduce_s == doctest::Approx(3 * 3 * (1e-5 + 1e-9 * 8 + 1e-6)).epsilon(1e-12));
}

TEST_CASE("the HPCG grid uses every node, factored to the least surface as HPCG's ComputeOptimalShapeXYZ does") {
  HpcgSpec spec;
  auto grid = [&](long long n) {
    const auto g = plan_hpcg(spec, cpu_node(1e10), n).grid;
    return std::vector<int>{g.x, g.y, g.z};
  };
  CHECK(grid(64) == std::vector<int>{4, 4, 4});
  CHECK(grid(5320) == std::vector<int>{14, 19, 20}); // 2^3 x 5 x 7 x 19: surface 926
  CHECK(grid(5272) == std::vector<int>{2, 4, 659});  // 2^3 x 659: HPCG's skinny grid
  CHECK(grid(1) == std::vector<int>{1, 1, 1});
  CHECK(grid(4) == std::vector<int>{1, 2, 2});
  CHECK(grid(6) == std::vector<int>{1, 2, 3});        // two distinct primes: z = 1 in HPCG's order
  CHECK(grid(12) == std::vector<int>{2, 2, 3});       // one repeated: HPCG's 2 x 3 x 2
  CHECK(grid(7) == std::vector<int>{1, 1, 7});        // a prime
}
