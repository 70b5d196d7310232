// An HPCG-like run: conjugate-gradient iterations of the HPCG reference on a 3-D process grid,
// memory-bandwidth-bound kernels, halo exchanges and 8-byte all-reduces timed on the machine.
#pragma once

#include "hpc/comm_times.hpp"
#include "hpc/node_kernels.hpp"

namespace ceiling::hpc {

/// What a workload file (workloads/hpcg.toml) says of an HPCG run.
struct HpcgSpec {
  int nx = 104; ///< local grid per process (HPCG's bin/hpcg.dat default: 104 104 104)
  int ny = 104;
  int nz = 104;
  int levels = 4; ///< multigrid levels including the finest (src/main.cpp)
  bool operator==(const HpcgSpec&) const = default;
};

/// A 3-D process grid, ranks x fastest as HPCG numbers them (rank = x + X (y + Y z)).
struct Grid3 {
  int x = 1;
  int y = 1;
  int z = 1;
  long long size() const { return static_cast<long long>(x) * y * z; }
  int rank(int i, int j, int k) const { return i + x * (j + y * k); }
};

struct HpcgSetup {
  HpcgSpec spec;
  NodeKernels node;
  long long nodes = 0;
  Grid3 grid;
};

/// Resolves `spec` on `nodes` nodes; throws std::invalid_argument when it cannot run (a local
/// grid that the levels cannot halve, one below 16 points a side, as HPCG's init.cpp raises,
/// one that does not fit in the memory it runs from). The grid: every node, x y z = N of least
/// surface x y + y z + z x, as HPCG 3.1's ComputeOptimalShapeXYZ factors the processes (a prime
/// N runs on 1 x 1 x N), the sides ascending.
HpcgSetup plan_hpcg(const HpcgSpec& spec, const NodeKernels& node, long long nodes);

/// Seconds of one CG iteration, by what it waits for.
struct HpcgBreakdown {
  double compute_s = 0;   ///< SpMV, SymGS, dot products, WAXPBY, restriction: bytes / STREAM rate
  double halo_s = 0;      ///< halo exchanges, 11 per iteration: the faces on the fabric, axis by axis,
                          ///< and the software overhead of the messages to all up to 26 neighbours
  double allreduce_s = 0; ///< three 8-byte all-reduces (recursive doubling)
  double pcie_s = 0;      ///< GPU nodes whose NIC is not GPU-direct: halos and dot products through host memory
};

struct HpcgResult {
  double seconds_per_iteration = 0;
  double flops_per_iteration = 0; ///< HPCG's own count (src/ReportResults.cpp), the whole grid
  double bytes_per_process = 0;   ///< memory traffic of one iteration on one process
  HpcgBreakdown breakdown;
  int patterns_timed = 0;
};

HpcgResult simulate_hpcg(const HpcgSetup& setup, PatternTimer& timer, Sampling sampling);

/// Elements one process sends per halo exchange on an nx x ny x nz local grid at grid
/// position (i, j, k) of `grid`: a face to each face neighbour, an edge to each edge
/// neighbour, one point to each corner neighbour (a 27-point stencil). Exposed for tests.
double halo_elements(const Grid3& grid, int i, int j, int k, int nx, int ny, int nz);

} // namespace ceiling::hpc
