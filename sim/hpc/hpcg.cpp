// The HPCG-like run: one CG iteration of the reference code (hpcg-benchmark/hpcg 114602d,
// HPCG 3.1), every process alike.
//
// Per iteration (src/CG.cpp L100-127): one multigrid V-cycle, one SpMV, three dot products
// (each an MPI_Allreduce of one double, src/ComputeDotProduct_ref.cpp), three WAXPBY. The
// V-cycle (src/ComputeMG_ref.cpp, src/MGData.hpp, src/main.cpp): on each of the levels but
// the coarsest one SymGS before and one after, one SpMV for the residual, restriction by
// injection and prolongation; one SymGS on the coarsest; each level halves the grid in every
// dimension (src/GenerateCoarseProblem.cpp). A SpMV and a SymGS exchange halos once each
// (src/ComputeSPMV_ref.cpp, src/ComputeSYMGS_ref.cpp): 11 exchanges per iteration on 4 levels.
//
// Bytes from the CSR format HPCG uses (8-byte values, 4-byte column indices, 27 entries a
// row), per level of n rows and z nonzeros: SpMV reads 12 z + 8 n and writes 8 n; SymGS sweeps
// forward and back, 2 (12 z + 16 n); a dot product reads 16 n, WAXPBY reads 16 n and writes
// 8 n; restriction and prolongation move 24 bytes per coarse row. Time is bytes over the
// measured STREAM rate (the CPU's on CPU nodes, the GPU's on GPU nodes, where NVIDIA's HPCG
// runs the kernels; halos and dot products then cross PCIe through host memory unless the NIC
// is GPU-direct). Flops are HPCG's count (src/ReportResults.cpp L81-97) on the global grid.
// Approximations, stated: every local row counts 27 nonzeros (boundary rows have fewer); the
// kernels, exchanges and all-reduces do not overlap (the reference code overlaps nothing);
// kernel launch costs are not counted. The fabric carries a halo exchange axis by axis (the
// faces along x, then y, then z, each a pattern timed on the machine), as the three-phase
// exchange of many stencil codes does, while the reference sends its 26 messages at once: when
// the NIC is the bottleneck that adds two latencies; the edge and corner messages (1.9 % of the
// halo's bytes at 104^3: 12 x 104 + 8 of 6 x 104^2 + 12 x 104 + 8 points) are left out of the fabric's timing, their per-message software
// overhead counted and their bytes copied over PCIe on GPU nodes. Timing all 26 messages at once
// re-shares the fabric at each of their many finish times (minutes on thousands of nodes) and
// gave halo times within 10 % of these on 256 to 2,240 Piz Daint nodes.
#include "hpc/hpcg.hpp"

#include "units/parse.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ceiling::hpc {
namespace {

/// Memory per local row: 27 nonzeros of 8 + 4 bytes, about 10 vectors of 8 bytes, and the
/// coarser levels (1/8 as many rows each: 8/7 of the finest in all) [I: estimated from the
/// reference code's data structures, src/SparseMatrix.hpp, src/CGData.hpp, src/MGData.hpp].
constexpr double bytes_per_row = (27 * 12 + 10 * 8) * 8.0 / 7;

/// (3 G - 2) neighbours along a line of G points, so the 27-point stencil on G^3 points has
/// the product of the three.
double stencil_nonzeros(double gx, double gy, double gz) { return (3 * gx - 2) * (3 * gy - 2) * (3 * gz - 2); }

/// Calls visit(neighbour rank, elements sent to it) for each of the up to 26 neighbours of
/// the process at (i, j, k): a face, an edge or a corner of its nx x ny x nz points.
template <class Visit> void for_each_neighbour(const Grid3& g, int i, int j, int k, int nx, int ny, int nz, Visit visit) {
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int a = i + di, b = j + dj, c = k + dk;
        if ((di == 0 && dj == 0 && dk == 0) || a < 0 || b < 0 || c < 0 || a >= g.x || b >= g.y || c >= g.z)
          continue;
        visit(g.rank(a, b, c), (di == 0 ? nx : 1.0) * (dj == 0 ? ny : 1.0) * (dk == 0 ? nz : 1.0));
      }
}

/// One dimension's part of a level's halo exchange as the fabric carries it: every process
/// sends a face to its neighbour on either side along `axis` (0, 1, 2: x, y, z).
Pattern halo_pattern(const Grid3& g, int nx, int ny, int nz, int level, int axis) {
  Pattern p{.name = "halo level " + std::to_string(level) + " axis " + "xyz"[axis], .flows = {}};
  const double x = nx, y = ny, z = nz;
  const double face = axis == 0 ? y * z : (axis == 1 ? x * z : x * y);
  const int extent[3] = {g.x, g.y, g.z};
  for (int k = 0; k < g.z; ++k)
    for (int j = 0; j < g.y; ++j)
      for (int i = 0; i < g.x; ++i)
        for (int step : {-1, 1}) {
          int at[3] = {i, j, k};
          at[axis] += step;
          if (at[axis] >= 0 && at[axis] < extent[axis])
            p.flows.push_back({.src = g.rank(i, j, k), .dst = g.rank(at[0], at[1], at[2]), .bytes = face});
        }
  return p;
}

} // namespace

double halo_elements(const Grid3& g, int i, int j, int k, int nx, int ny, int nz) {
  double total = 0;
  for_each_neighbour(g, i, j, k, nx, ny, nz, [&](int, double elements) { total += elements; });
  return total;
}

HpcgSetup plan_hpcg(const HpcgSpec& spec, const NodeKernels& node, long long nodes) {
  if (nodes < 1)
    throw std::invalid_argument("HPCG needs at least one node");
  if (spec.levels < 1)
    throw std::invalid_argument("HPCG needs at least one multigrid level");
  const int halvings = 1 << (spec.levels - 1);
  for (int side : {spec.nx, spec.ny, spec.nz})
    if (side < 16 || side % halvings != 0)
      throw std::invalid_argument("local grid side " + std::to_string(side) + ": HPCG needs at least 16 points a side, " +
                                  "divisible by 2^(levels - 1) = " + std::to_string(halvings));
  HpcgSetup s{.spec = spec, .node = node, .nodes = nodes, .grid = {}};
  // Every node runs a process, on the grid of least surface x y + y z + z x with x y z = N: the
  // factors HPCG 3.1's ComputeOptimalShapeXYZ picks (src/ComputeOptimalShapeXYZ.cpp: its cases of
  // one, two and three prime factors are the least-surface ones; beyond, it searches for the
  // least surface), here with the sides ascending and the first of equal surfaces taken.
  double least_surface = 0;
  for (long long x = 1; x * x * x <= nodes; ++x)
    for (long long y = x; x * y * y <= nodes; ++y) {
      if (nodes % (x * y) != 0)
        continue;
      const long long z = nodes / (x * y);
      const double surface = static_cast<double>(x * y + y * z + z * x);
      if (least_surface == 0 || surface < least_surface) {
        least_surface = surface;
        s.grid = {.x = static_cast<int>(x), .y = static_cast<int>(y), .z = static_cast<int>(z)};
      }
    }
  // Memory: the finest level's CSR rows (27 x 12 bytes), its vectors and the coarser levels'.
  const double rows = static_cast<double>(spec.nx) * spec.ny * spec.nz;
  const double memory = node.gpu ? node.gpu_memory_bytes : node.host_memory_bytes;
  if (memory > 0 && rows * bytes_per_row > memory)
    throw KeyRefusal(KeyRefusal::File::Workload,
                     spec.nz > std::max(spec.nx, spec.ny) ? "hpcg.nz" : spec.ny > spec.nx ? "hpcg.ny" : "hpcg.nx",
                     "a local grid of " + std::to_string(spec.nx) + " x " + std::to_string(spec.ny) + " x " +
                                std::to_string(spec.nz) + " needs about " +
                                units::to_string(units::DataSize::from_bytes(rows * bytes_per_row)) + " per process, more than the " +
                                (node.gpu ? "GPU" : "host") + " memory (" +
                                units::to_string(units::DataSize::from_bytes(memory)) + ")");
  return s;
}

HpcgResult simulate_hpcg(const HpcgSetup& setup, PatternTimer& timer, Sampling sampling) {
  const HpcgSpec& spec = setup.spec;
  const NodeKernels& node = setup.node;
  const Grid3& g = setup.grid;
  CommTimes comm(timer);
  std::vector<std::array<int, 3>> halo; // per level, per axis
  for (int l = 0; l < spec.levels; ++l) {
    std::array<int, 3> ids{};
    for (int axis = 0; axis < 3; ++axis)
      ids[static_cast<std::size_t>(axis)] = comm.add(halo_pattern(g, spec.nx >> l, spec.ny >> l, spec.nz >> l, l, axis));
    halo.push_back(ids);
  }
  std::vector<int> exchange;
  for (long long d = 1; d < g.size(); d *= 2)
    exchange.push_back(comm.add(rank_exchange(g.size(), d)));

  const bool on_gpu = node.gpu;
  const bool through_host = on_gpu && !node.gpu_direct;
  const double stream = on_gpu ? node.gpu_stream_bytes_per_s : node.cpu_stream_bytes_per_s;
  // The busiest process: the most neighbours (an interior one when the grid has one).
  const int ci = g.x / 2, cj = g.y / 2, ck = g.z / 2;
  int neighbours = 0;
  for_each_neighbour(g, ci, cj, ck, 1, 1, 1, [&](int, double) { ++neighbours; });

  HpcgResult r;
  auto pass = [&] {
    HpcgBreakdown b;
    double bytes = 0;
    auto exchange_halo = [&](int level) {
      const int nx = spec.nx >> level, ny = spec.ny >> level, nz = spec.nz >> level;
      const double halo_bytes = 8 * halo_elements(g, ci, cj, ck, nx, ny, nz);
      if (halo_bytes <= 0)
        return;
      for (int id : halo[static_cast<std::size_t>(level)])
        b.halo_s += comm.seconds(id, 8);
      b.halo_s += neighbours * node.message_overhead_s;
      if (through_host)
        b.pcie_s += node.to_host_s(halo_bytes) + node.to_device_s(halo_bytes);
    };
    for (int l = 0; l < spec.levels; ++l) {
      const double n = static_cast<double>(spec.nx >> l) * (spec.ny >> l) * (spec.nz >> l);
      const double z = 27 * n;
      const double symgs = 2 * (12 * z + 16 * n);
      const double spmv = 12 * z + 16 * n;
      if (l + 1 < spec.levels) {
        bytes += 2 * symgs + spmv + 2 * 24 * n / 8; // pre and post SymGS, residual SpMV, restriction + prolongation
        for (int e = 0; e < 3; ++e)
          exchange_halo(l);
      } else {
        bytes += symgs;
        exchange_halo(l);
      }
    }
    const double n0 = static_cast<double>(spec.nx) * spec.ny * spec.nz;
    bytes += 12 * 27 * n0 + 16 * n0; // the CG's SpMV
    exchange_halo(0);
    bytes += 3 * 16 * n0 + 3 * 24 * n0; // three dot products, three WAXPBY
    b.compute_s = bytes / stream;
    double one_allreduce = 0;
    for (int id : exchange)
      one_allreduce += comm.seconds(id, 8) + node.message_overhead_s;
    b.allreduce_s = 3 * one_allreduce;
    if (through_host) // each dot product's 8-byte sum to the host for the all-reduce, and back
      b.pcie_s += 3 * (node.to_host_s(8) + node.to_device_s(8));
    r.breakdown = b;
    r.bytes_per_process = bytes;
    r.seconds_per_iteration = b.compute_s + b.halo_s + b.allreduce_s + b.pcie_s;
  };
  pass();
  comm.resolve(sampling);
  pass();
  r.patterns_timed = comm.timed();

  // HPCG's flop count on the global grid (ReportResults.cpp L81-97), one iteration.
  const double gx = static_cast<double>(g.x) * spec.nx, gy = static_cast<double>(g.y) * spec.ny,
               gz = static_cast<double>(g.z) * spec.nz;
  const double rows = gx * gy * gz;
  double flops = 6 * rows + 6 * rows + 2 * stencil_nonzeros(gx, gy, gz);
  for (int l = 0; l < spec.levels; ++l) {
    const double f = std::ldexp(1.0, -l);
    const double nnz = stencil_nonzeros(gx * f, gy * f, gz * f);
    flops += (l + 1 < spec.levels) ? (4 + 2 + 4) * nnz : 4 * nnz;
  }
  r.flops_per_iteration = flops;
  return r;
}

} // namespace ceiling::hpc
