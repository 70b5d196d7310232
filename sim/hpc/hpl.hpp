// An HPL-like run: blocked right-looking LU with partial pivoting on a P x Q process grid, as
// HPL 2.x does it, step by step on every process, its messages timed on the machine.
#pragma once

#include "hpc/comm_times.hpp"
#include "hpc/node_kernels.hpp"

#include <algorithm>
#include <optional>
#include <functional>
#include <span>
#include <vector>
#include <string>
#include <string_view>

namespace ceiling::hpc {

/// HPL's panel broadcasts (HPL.dat BCAST 0 to 5; src/comm/HPL_1ring.c ... HPL_blonM.c).
enum class Broadcast { Ring, RingModified, TwoRing, TwoRingModified, Long, LongModified };
/// HPL's row swaps (HPL.dat SWAP 0 to 2; src/pgesv/HPL_pdlaswp00N.c, HPL_pdlaswp01N.c).
enum class Swap { BinaryExchange, SpreadRoll, Mixed };

std::string_view to_string(Broadcast b);
std::optional<Broadcast> broadcast_from_string(std::string_view text);
std::string broadcast_names_list(); ///< "1ring, 1ring-modified, ...", for messages
std::string_view to_string(Swap s);
std::optional<Swap> swap_from_string(std::string_view text);
std::string swap_names_list(); ///< "binary-exchange, spread-roll, mixed"

/// The memory an HPL run sizes its matrix to: the host's (NVIDIA's CUDA HPL for Fermi keeps
/// the matrix in pinned host memory and streams it through the GPU) or the GPU's.
enum class MatrixMemory { Host, Device };

/// What a workload file (workloads/hpl.toml) and the command line say of an HPL run.
struct HplSpec {
  /// The matrix fills this fraction of the nodes' `matrix_memory` (8 bytes per element) when
  /// `matrix_order` is 0: HPL runs size the matrix to most of the memory.
  double memory_fraction = 0.8;
  MatrixMemory matrix_memory = MatrixMemory::Host;
  long long matrix_order = 0;
  /// Block size NB: `block_size` when given (0: not given), else by node kind.
  int block_size = 0;
  int block_size_cpu_nodes = 256;
  int block_size_gpu_nodes = 768;
  /// Process rows P; 0: as square a grid as N allows (see plan_hpl).
  int grid_rows = 0;
  int lookahead = 1; ///< 0 or 1 (HPL.dat DEPTH)
  Broadcast broadcast = Broadcast::RingModified;
  Swap swap = Swap::Mixed;
  int swap_threshold = 64; ///< columns; Mixed swaps by binary exchange up to it
  int panel_min_block = 8; ///< NBMIN: the recursive panel factorisation stops at this width
  /// The share of GPU memory the trailing matrix may hold on GPU nodes; the rest of the
  /// matrix stays in host memory and streams over PCIe.
  double device_memory_fraction = 0.9;
  bool operator==(const HplSpec&) const = default;
};

/// One run, resolved for a machine: sizes, grid, node.
struct HplSetup {
  HplSpec spec;
  NodeKernels node;
  long long nodes = 0;  ///< allocated; nodes - grid.size() of them stay idle
  Grid2 grid;
  long long matrix_order = 0; ///< a multiple of block_size
  int block_size = 0;
  long long steps = 0;        ///< matrix_order / block_size
  /// GPU nodes: the share of a process's trailing matrix in device memory at the first step
  /// (1: all of it; the rest streams over PCIe each step).
  double resident_at_start = 1;
};

/// The smallest block size accepted, and the most steps x processes a run may simulate (about
/// four minutes on one core: 1.89e9 of them, the P100 machine at NB = 17, took 232 s).
inline constexpr int min_block_size = 16;
inline constexpr double max_process_steps = 2e9;

/// Nodes a default process grid may leave idle: 1 % of them, or one.
inline long long idle_allowed(long long nodes) { return std::max(1LL, nodes / 100); }

/// Resolves `spec` on `nodes` nodes of this kind; throws std::invalid_argument (what and why)
/// when it cannot run: no host memory for the default size, a grid that does not fit, a
/// matrix smaller than one block per process row and column.
/// Default grid: P <= Q, P x Q <= N, at most idle_allowed(N) nodes idle, then the squarest.
HplSetup plan_hpl(const HplSpec& spec, const NodeKernels& node, long long nodes);

/// Seconds per process, averaged over the grid's processes; they add up to the run's time.
struct HplBreakdown {
  double update_s = 0;    ///< trailing-matrix DGEMM and DTRSM at the devices' rates
  double panel_s = 0;     ///< panel factorisation: compute and pivot all-reduces
  double broadcast_s = 0; ///< waiting for the panel and forwarding it
  double swaps_s = 0;     ///< row swaps' messages
  double pcie_s = 0;      ///< host<->device copies and the update's PCIe-bound streaming
  double solve_s = 0;     ///< the back substitution
  double waiting_s = 0;   ///< idle: waiting for the slowest process of a row or column
};

struct HplResult {
  double seconds = 0;
  double flops = 0;  ///< HPL's convention: 2/3 N^3 + 3/2 N^2
  HplBreakdown breakdown;
  int patterns_timed = 0; ///< message patterns timed on the machine
  int sizes_asked = 0;    ///< distinct (pattern, size) pairs the run sends
};

/// Simulates every step on every process; message times come from `timer` at every distinct
/// size, or at a sample of them (`sampling`).
HplResult simulate_hpl(const HplSetup& setup, PatternTimer& timer, Sampling sampling);

/// One row's panel broadcast started by the root (distance 0) at `start_s`, processes by
/// their distance d from it: when each has the panel, how long each is busy sending and from
/// when. `hop_s` is one message of the whole panel; for the long broadcasts, `pieces_s(k)` one
/// of k of its pieces (a piece: 1/Q of the panel, 1/(Q-1) for long-modified). A ring forwarder
/// sends on receipt, or, when `ready_s` is given (no look-ahead), once it is also ready
/// (ready_s[d]). Exposed for tests.
struct BroadcastTimes {
  std::vector<double> receipt_s;
  std::vector<double> busy_s;
  std::vector<double> send_from_s;
};
BroadcastTimes broadcast_times(Broadcast b, int q, double hop_s, const std::function<double(int)>& pieces_s,
                               double start_s, std::span<const double> ready_s = {});

/// The root's part of the long broadcast's spread over `members` (HPL 2.2 HPL_blong.c, as
/// rocHPL src/comm/HPL_bcast_blong.cpp keeps it): a binomial tree over the largest power of two
/// I <= members - 1, the root sending members - I pieces, then I/2, I/4, ... 1, one message a
/// round, members - 1 pieces in ceil(log2 members) messages; the others forward beside it.
/// Seconds, with `pieces_s(k)` a message of k pieces.
double long_spread_s(int members, const std::function<double(int)>& pieces_s);

/// Time of one process's local update of `rows` x `columns` by an inner dimension of
/// `inner` (2 rows columns inner flops), with `resident` of its trailing matrix in device
/// memory (GPU nodes): `seconds` and the part of it PCIe costs (`pcie_s`). Exposed for tests.
struct UpdateTime {
  double seconds = 0;
  double pcie_s = 0;
};
UpdateTime update_time(const NodeKernels& node, double flops, double inner, double resident);

} // namespace ceiling::hpc
