// The HPL-like run: every step of the factorisation on every process of the grid.
//
// The model follows HPL 2.3 (github icl-utk-edu/hpl 9edeab5: src/pgesv/HPL_pdgesv0.c without
// look-ahead, HPL_pdgesvK2.c with it), one process per node, the matrix block-cyclic on a
// row-major grid:
// - panel factorisation of block column k on process column k mod Q: m x NB x NB flops at
//   the CPU's DGEMM rate, or the passes of HPL's recursive factorisation over the panel
//   (log2(NB / NBMIN) + 1, each reading and writing it) at its STREAM rate, whichever is
//   slower; and NB pivot searches, each a binary exchange of 2 NB + 4 doubles within the
//   process column (src/pfact/HPL_pdmxswp.c). The column's processes end together;
// - the panel (m x NB doubles and its pivots) broadcast along each process row by the
//   chosen variant; a forwarding process is busy sending; without look-ahead it forwards only
//   once it has finished its previous update;
// - the row swaps within each process column (NB rows of its trailing columns): binary
//   exchange (log2 P rounds of the whole block) or spread-roll (2 (P - 1) messages of 1/P of
//   it: HPL_pdlaswp01N.c's header puts its volume at 2 to 3 times the block; HPL spreads along
//   a tree, log2 P latencies where this counts P - 1), mixed choosing
//   binary exchange up to `swap_threshold` columns (src/pgesv/HPL_pdupdateTT.c);
// - the update: DTRSM of U on the pivot row's processes, DGEMM of every trailing block.
//   With look-ahead the next panel's columns are updated first, the next panel factored and
//   sent, then the rest of the update is done;
// - the back substitution at the end (HPL_pdtrsv): one small message along a row and a column
//   per block, and one pass over the local matrix.
// GPU nodes (NVIDIA's CUDA-accelerated HPL: M. Fatica, GPGPU-2 2009; the hpl-2.0_FERMI v1.5
// README and its DGEMM/DTRSM interception library): the update runs on the GPU. That code keeps
// the matrix in pinned host memory and streams column chunks of C through the GPU (C in, DGEMM,
// C out, four CUDA streams), the CPU's BLAS taking the columns that make both finish together
// (its auto-split). Here the trailing matrix is kept in device memory as far as it fits
// (device_memory_fraction of it: none of it streams once the shrinking matrix fits, as later
// versions keep it resident), the rest streams as the Fermi code does (8 bytes in, 8 out per
// element of C, concurrently), the CPU taking its balanced share;
// the panel is factored on the CPU (copied out of device memory when it lives there); every
// process copies the broadcast panel and U to the device, and swaps rows of its resident part
// through host memory.
// Approximations, stated: a message pattern is timed alone on the machine (every process of
// the grid sending its message of the step at once), at the step's largest message; the CPU
// that factors a panel is not slowed by its share of the update; Nmat is rounded down to a
// multiple of NB.
#include "hpc/hpl.hpp"

#include "support/enum_names.hpp"
#include "units/parse.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace ceiling::hpc {
namespace {

constexpr support::EnumNames<Broadcast, 6> broadcast_names{{{{Broadcast::Ring, "1ring"},
                                                             {Broadcast::RingModified, "1ring-modified"},
                                                             {Broadcast::TwoRing, "2ring"},
                                                             {Broadcast::TwoRingModified, "2ring-modified"},
                                                             {Broadcast::Long, "long"},
                                                             {Broadcast::LongModified, "long-modified"}}}};
constexpr support::EnumNames<Swap, 3> swap_names{
    {{{Swap::BinaryExchange, "binary-exchange"}, {Swap::SpreadRoll, "spread-roll"}, {Swap::Mixed, "mixed"}}}};

/// Blocks b < n with b mod p == i.
long long count_below(long long n, long long i, long long p) { return n > i ? (n - i - 1) / p + 1 : 0; }

/// Local blocks of process coordinate `i` among blocks [k, total) distributed cyclically over `p`.
long long local_blocks(long long total, long long k, long long i, long long p) {
  return count_below(total, i, p) - count_below(k, i, p);
}

/// One message of the whole panel.
struct Send {
  int from;
  int to;
};

/// The sends of one row's ring broadcasts, by distance from the root (0), in causal order
/// (www/algorithm.html, "Panel broadcast").
std::vector<Send> ring_sends(Broadcast b, int q) {
  std::vector<Send> sends;
  auto chain = [&](int first, int last) {
    for (int d = first; d < last; ++d)
      sends.push_back({d, d + 1});
  };
  switch (b) {
  case Broadcast::Ring:
    chain(0, q - 1);
    break;
  case Broadcast::RingModified: // 0 -> 1, 0 -> 2, 2 -> 3, ...
    sends.push_back({0, 1});
    if (q > 2) {
      sends.push_back({0, 2});
      chain(2, q - 1);
    }
    break;
  case Broadcast::TwoRing: { // 0 -> 1 and 0 -> a, then the rings 1 .. a - 1 and a .. q - 1
    // HPL_2ring.c: roo2 = root + (size + 1) / 2; a process forwards unless next is roo2 or root.
    const int a = (q + 1) / 2;
    sends.push_back({0, 1});
    if (q > 2)
      sends.push_back({0, a});
    chain(1, a - 1);
    chain(a, q - 1);
    break;
  }
  case Broadcast::TwoRingModified: { // 0 -> 1, 0 -> 2 (unless 2 is a), 0 -> a, then the rings 2 .. a - 1 and a .. q - 1
    // HPL_2rinM.c: the root sends to its right neighbour, then to the one after it unless that
    // is roo2 = root + (size + 1) / 2, then to roo2; the first neighbour forwards nothing.
    const int a = (q + 1) / 2;
    sends.push_back({0, 1});
    if (q > 2) {
      if (a != 2)
        sends.push_back({0, 2});
      sends.push_back({0, a});
    }
    chain(2, a - 1);
    chain(a, q - 1);
    break;
  }
  case Broadcast::Long:
  case Broadcast::LongModified:
    break;
  }
  return sends;
}

class HplRun {
public:
  HplRun(const HplSetup& s, CommTimes& comm) : s_(s), comm_(comm) {
    const Grid2 g = s.grid;
    row_hop_ = comm.add(row_shift(g, 1));
    column_hop_ = comm.add(column_shift(g, 1));
    for (int d = 1; d < g.rows; d *= 2)
      column_exchange_.push_back(comm.add(column_exchange(g, d)));
  }

  HplResult run() {
    const Grid2 g = s_.grid;
    const auto cells = static_cast<std::size_t>(g.size());
    free_.assign(cells, 0.0);
    recv_.assign(cells, 0.0);
    spent_.assign(cells, HplBreakdown{});
    early_.assign(static_cast<std::size_t>(g.rows), 0.0);
    rest_.assign(static_cast<std::size_t>(g.rows), 0.0);
    for (long long k = 0; k < s_.steps; ++k)
      step(k);
    double end = 0;
    for (double t : free_)
      end = std::max(end, t);
    const double solve = solve_seconds();
    HplResult r;
    r.seconds = end + solve;
    const auto n = static_cast<double>(s_.matrix_order);
    r.flops = 2.0 / 3.0 * n * n * n + 1.5 * n * n;
    HplBreakdown& b = r.breakdown;
    for (const HplBreakdown& p : spent_) {
      b.update_s += p.update_s;
      b.panel_s += p.panel_s;
      b.broadcast_s += p.broadcast_s;
      b.swaps_s += p.swaps_s;
      b.pcie_s += p.pcie_s;
    }
    const auto count = static_cast<double>(cells);
    for (double* x : {&b.update_s, &b.panel_s, &b.broadcast_s, &b.swaps_s, &b.pcie_s})
      *x /= count;
    b.solve_s = solve;
    // (the rest; at least 0: rounding leaves a -1e-17 where nothing waits, printed "-0.0000")
    b.waiting_s = std::max(0.0, r.seconds - (b.update_s + b.panel_s + b.broadcast_s + b.swaps_s + b.pcie_s + b.solve_s));
    return r;
  }

private:
  std::size_t at(int i, int j) const { return static_cast<std::size_t>(s_.grid.rank(i, j)); }
  double nb() const { return s_.block_size; }
  double rows_of(long long k, int i) const {
    return static_cast<double>(local_blocks(s_.steps, k, i, s_.grid.rows)) * nb();
  }
  double columns_of(long long k, int j) const {
    return static_cast<double>(local_blocks(s_.steps, k, j, s_.grid.columns)) * nb();
  }
  /// A message of the pattern (0 when the grid has none: one process row or column).
  double message(int pattern, double bytes) {
    return comm_.has_flows(pattern) ? comm_.seconds(pattern, bytes) + s_.node.message_overhead_s : 0;
  }

  /// Share of a process's trailing matrix (rows x columns) held in device memory.
  double resident(double rows, double columns) const {
    if (!s_.node.gpu)
      return 1;
    const double bytes = rows * columns * 8;
    return bytes <= 0 ? 1 : std::min(1.0, s_.spec.device_memory_fraction * s_.node.gpu_memory_bytes / bytes);
  }

  double panel_seconds(double m) const {
    const double passes = std::ceil(std::log2(std::max(1.0, nb() / s_.spec.panel_min_block))) + 1;
    return std::max(m * nb() * nb() / s_.node.cpu_dgemm_flop_per_s, 16 * m * nb() * passes / s_.node.cpu_stream_bytes_per_s);
  }

  double swap_seconds(double columns) {
    const int p = s_.grid.rows;
    if (p < 2 || columns <= 0)
      return 0;
    const double bytes = nb() * columns * 8;
    const bool binary = s_.spec.swap == Swap::BinaryExchange ||
                        (s_.spec.swap == Swap::Mixed && columns <= s_.spec.swap_threshold);
    if (binary) {
      double t = 0;
      for (int id : column_exchange_)
        t += message(id, bytes);
      return t;
    }
    return 2.0 * (p - 1) * message(column_hop_, bytes / p);
  }

  void step(long long k) {
    const Grid2 g = s_.grid;
    const int c = static_cast<int>(k % g.columns);
    const int r = static_cast<int>(k % g.rows);
    const bool gpu = s_.node.gpu;

    // Panel factorisation on column c; its processes end together (pivot all-reduces).
    double column_start = 0;
    double panel_s = 0;
    double copy_s = 0; // a panel in device memory goes to the host to be factored
    double max_rows = 0;
    for (int i = 0; i < g.rows; ++i) {
      const double start = (k > 0 && s_.spec.lookahead > 0) ? early_[static_cast<std::size_t>(i)] : free_[at(i, c)];
      column_start = std::max(column_start, start);
      const double m = rows_of(k, i);
      max_rows = std::max(max_rows, m);
      panel_s = std::max(panel_s, panel_seconds(m));
      if (gpu && resident(m, columns_of(k, c)) >= 1)
        copy_s = std::max(copy_s, s_.node.to_host_s(m * nb() * 8));
    }
    double pivots = 0;
    for (int id : column_exchange_)
      pivots += message(id, (2 * nb() + 4) * 8);
    const double panel_end = column_start + copy_s + panel_s + nb() * pivots;
    for (int i = 0; i < g.rows; ++i) {
      spent_[at(i, c)].panel_s += panel_end - column_start - copy_s;
      spent_[at(i, c)].pcie_s += copy_s;
      free_[at(i, c)] = panel_end + ((k > 0 && s_.spec.lookahead > 0) ? rest_[static_cast<std::size_t>(i)] : 0.0);
    }

    // Broadcast along every row.
    const double panel_bytes = max_rows * nb() * 8 + nb() * 8;
    broadcast(c, panel_end, panel_bytes);

    // Swaps within every column, then the update.
    const long long next = k + 1;
    const int next_column = static_cast<int>(next % g.columns);
    for (int j = 0; j < g.columns; ++j) {
      const double columns = columns_of(next, j);
      double start = 0;
      for (int i = 0; i < g.rows; ++i)
        start = std::max(start, std::max(free_[at(i, j)], recv_[at(i, j)]));
      for (int i = 0; i < g.rows; ++i) {
        const double f = free_[at(i, j)];
        spent_[at(i, j)].broadcast_s += std::max(0.0, std::min(start, recv_[at(i, j)]) - f);
      }
      const double swap_s = swap_seconds(columns);
      const double swap_end = start + swap_s;
      for (int i = 0; i < g.rows; ++i) {
        const double rows = rows_of(next, i);
        const double rho = resident(rows, columns);
        const double u_bytes = nb() * columns * 8;
        double copies = 0;
        if (gpu) // resident rows swapped through host memory; L and U to the device
          copies = s_.node.to_host_s(rho * u_bytes) + s_.node.to_device_s(rho * u_bytes) +
                   s_.node.to_device_s(rows * nb() * 8) + s_.node.to_device_s((1 - rho) * u_bytes);
        const double trsm = (i == r) ? nb() * nb() * columns : 0;
        HplBreakdown& spent = spent_[at(i, j)];
        spent.swaps_s += swap_s;
        spent.pcie_s += copies;
        const double ready = swap_end + copies;
        if (s_.spec.lookahead > 0 && next < s_.steps && j == next_column) {
          // The next panel's columns first, the rest after the next panel is sent.
          const double first_cols = std::min(nb(), columns);
          const auto first = update_time(s_.node, 2 * rows * first_cols * nb() + trsm * first_cols / std::max(columns, 1.0), nb(), rho);
          const auto later = update_time(s_.node, 2 * rows * (columns - first_cols) * nb() + trsm * (1 - first_cols / std::max(columns, 1.0)), nb(), rho);
          early_[static_cast<std::size_t>(i)] = ready + first.seconds;
          rest_[static_cast<std::size_t>(i)] = later.seconds;
          free_[at(i, j)] = ready + first.seconds + later.seconds;
          spent.update_s += first.seconds - first.pcie_s + later.seconds - later.pcie_s;
          spent.pcie_s += first.pcie_s + later.pcie_s;
        } else {
          const auto u = update_time(s_.node, 2 * rows * columns * nb() + trsm, nb(), rho);
          free_[at(i, j)] = ready + u.seconds;
          spent.update_s += u.seconds - u.pcie_s;
          spent.pcie_s += u.pcie_s;
        }
      }
    }
  }

  /// Receipt times recv_ of step k's panel on every process, and the senders' busy time.
  void broadcast(int c, double panel_end, double bytes) {
    const Grid2 g = s_.grid;
    const int q = g.columns;
    for (int i = 0; i < g.rows; ++i)
      recv_[at(i, c)] = panel_end;
    if (q < 2)
      return;
    const bool lookahead = s_.spec.lookahead > 0;
    const auto column = [&](int d) { return (c + d) % q; };
    const bool long_variant = s_.spec.broadcast == Broadcast::Long || s_.spec.broadcast == Broadcast::LongModified;
    const int pieces = s_.spec.broadcast == Broadcast::LongModified ? q - 1 : q;
    const double hop_s = message(row_hop_, bytes);
    const auto pieces_s = [&](int k) { return long_variant ? message(row_hop_, k * bytes / pieces) : 0.0; };
    std::vector<double> ready(static_cast<std::size_t>(q));
    for (int i = 0; i < g.rows; ++i) {
      if (!lookahead) // forwarders send once they are done with their update
        for (int d = 1; d < q; ++d)
          ready[static_cast<std::size_t>(d)] = free_[at(i, column(d))];
      const auto times = broadcast_times(s_.spec.broadcast, q, hop_s, pieces_s, panel_end,
                                         lookahead ? std::span<const double>() : std::span<const double>(ready));
      for (int d = 0; d < q; ++d) {
        const std::size_t p = at(i, column(d));
        if (d > 0)
          recv_[p] = times.receipt_s[static_cast<std::size_t>(d)];
        const double busy = times.busy_s[static_cast<std::size_t>(d)];
        if (busy > 0)
          occupy(p, times.send_from_s[static_cast<std::size_t>(d)], busy);
      }
    }
  }

  /// Process `p` is busy `seconds` sending from `from_s` on (or once it is done with what it
  /// was doing, when later): an idle process waited for the panel until then.
  void occupy(std::size_t p, double from_s, double seconds) {
    spent_[p].broadcast_s += seconds + std::max(0.0, from_s - free_[p]);
    free_[p] = std::max(free_[p], from_s) + seconds;
  }

  double solve_seconds() {
    const double n = static_cast<double>(s_.matrix_order);
    const double local_bytes = n * n * 8 / static_cast<double>(s_.grid.size());
    const double stream = s_.node.cpu_stream_bytes_per_s;
    return static_cast<double>(s_.steps) * (message(row_hop_, nb() * 8) + message(column_hop_, nb() * 8)) +
           local_bytes / stream;
  }

  const HplSetup& s_;
  CommTimes& comm_;
  int row_hop_ = 0;
  int column_hop_ = 0;
  std::vector<int> column_exchange_;
  std::vector<double> free_;  ///< per process: when it has done all it knows of
  std::vector<double> recv_;  ///< per process: when the current step's panel arrived
  std::vector<HplBreakdown> spent_;
  std::vector<double> early_; ///< per row of the next panel's column: when it can factor it
  std::vector<double> rest_;  ///< ... and the update it still owes after that
};

} // namespace

std::string_view to_string(Broadcast b) { return broadcast_names.name(b); }
std::optional<Broadcast> broadcast_from_string(std::string_view text) { return broadcast_names.parse(text); }
std::string broadcast_names_list() { return broadcast_names.list(); }
std::string_view to_string(Swap s) { return swap_names.name(s); }
std::optional<Swap> swap_from_string(std::string_view text) { return swap_names.parse(text); }
std::string swap_names_list() { return swap_names.list(); }

double long_spread_s(int members, const std::function<double(int)>& pieces_s) {
  if (members < 2)
    return 0;
  const int top = static_cast<int>(std::bit_floor(static_cast<unsigned>(members - 1)));
  double seconds = pieces_s(members - top);
  for (int pieces = top / 2; pieces >= 1; pieces /= 2)
    seconds += pieces_s(pieces);
  return seconds;
}

BroadcastTimes broadcast_times(Broadcast b, int q, double hop_s, const std::function<double(int)>& pieces_s,
                               double start_s, std::span<const double> ready_s) {
  const auto n = static_cast<std::size_t>(q);
  BroadcastTimes t{.receipt_s = std::vector<double>(n, start_s), .busy_s = std::vector<double>(n, 0.0),
                   .send_from_s = std::vector<double>(n, start_s)};
  if (q < 2)
    return t;
  if (b == Broadcast::Long || b == Broadcast::LongModified) {
    // The panel in pieces: spread from the root down a binomial tree (long_spread_s), then
    // rolled around the members' ring, each member exchanging a piece with a neighbour per roll
    // step (HPL_blong.c, HPL_blonM.c).
    const bool modified = b == Broadcast::LongModified;
    const int members = modified ? q - 1 : q;
    const double first_s = modified ? hop_s : 0;
    const double spread_s = long_spread_s(members, pieces_s);
    const double roll_s = (members - 1) * pieces_s(1);
    // The roll is a ring of pairwise exchanges: it starts once the spread is done and, without
    // look-ahead, once every member is ready too.
    double roll_start = start_s + first_s + spread_s;
    for (int d = modified ? 2 : 1; d < q && !ready_s.empty(); ++d)
      roll_start = std::max(roll_start, ready_s[static_cast<std::size_t>(d)]);
    const double done = roll_start + roll_s;
    for (int d = 1; d < q; ++d) {
      const auto i = static_cast<std::size_t>(d);
      if (modified && d == 1) {
        t.receipt_s[i] = start_s + hop_s;
        continue;
      }
      t.receipt_s[i] = done;
      t.busy_s[i] = roll_s;
      t.send_from_s[i] = done - roll_s;
    }
    t.busy_s[0] = first_s + spread_s + roll_s;
    return t;
  }
  std::vector<double> cursor(n, start_s);
  std::vector<bool> started(n, false);
  started[0] = true;
  for (const Send& send : ring_sends(b, q)) {
    const auto from = static_cast<std::size_t>(send.from);
    if (!started[from]) {
      cursor[from] = ready_s.empty() ? t.receipt_s[from] : std::max(t.receipt_s[from], ready_s[from]);
      t.send_from_s[from] = cursor[from];
      started[from] = true;
    }
    cursor[from] += hop_s;
    t.busy_s[from] += hop_s;
    t.receipt_s[static_cast<std::size_t>(send.to)] = cursor[from];
  }
  return t;
}

UpdateTime update_time(const NodeKernels& node, double flops, double inner, double resident) {
  if (flops <= 0)
    return {};
  if (!node.gpu)
    return {.seconds = flops / node.cpu_dgemm_flop_per_s, .pcie_s = 0};
  const double gpu_s = 1 / node.gpu_dgemm_flop_per_s;
  const double cpu_s = 1 / node.cpu_dgemm_flop_per_s;
  const double streamed = (1 - resident) * flops;
  // GPU seconds per flop of a streamed block: compute, or 8 bytes of C in and 8 out per 2 x
  // inner flops over the slower PCIe direction, whichever is slower.
  const double link = std::min(node.host_to_device_bytes_per_s, node.device_to_host_bytes_per_s);
  auto balanced = [&](double per_flop) {
    const double g = std::clamp((streamed * cpu_s - resident * flops * gpu_s) / (per_flop + cpu_s), 0.0, streamed);
    return std::max(resident * flops * gpu_s + g * per_flop, (streamed - g) * cpu_s);
  };
  const double t = balanced(std::max(gpu_s, 4 / (inner * link)));
  return {.seconds = t, .pcie_s = t - balanced(gpu_s)};
}

HplSetup plan_hpl(const HplSpec& spec, const NodeKernels& node, long long nodes) {
  if (nodes < 1)
    throw std::invalid_argument("HPL needs at least one node");
  HplSetup s{.spec = spec, .node = node, .nodes = nodes};
  if (spec.grid_rows > 0) {
    if (spec.grid_rows > nodes)
      throw KeyRefusal(KeyRefusal::File::Workload, "hpl.grid_rows",
                       "grid_rows " + std::to_string(spec.grid_rows) + " exceeds the " + std::to_string(nodes) + " nodes");
    s.grid = {.rows = spec.grid_rows, .columns = static_cast<int>(nodes / spec.grid_rows)};
  } else {
    for (long long p = 1; p * p <= nodes; ++p) {
      const long long q = nodes / p;
      if (nodes - p * q <= idle_allowed(nodes))
        s.grid = {.rows = static_cast<int>(p), .columns = static_cast<int>(q)};
    }
  }
  s.block_size = spec.block_size > 0 ? spec.block_size : (node.gpu ? spec.block_size_gpu_nodes : spec.block_size_cpu_nodes);
  // The key that gave the block size: the workload's block_size, else its node kind's.
  const std::string block_key = spec.block_size > 0 ? "hpl.block_size"
                                : node.gpu          ? "hpl.block_size_gpu_nodes"
                                                    : "hpl.block_size_cpu_nodes";
  const std::string block_name = block_key.substr(4); // (without "hpl.")
  if (s.block_size < min_block_size)
    throw KeyRefusal(KeyRefusal::File::Workload, block_key,
                     "block size " + std::to_string(s.block_size) + " is below " + std::to_string(min_block_size) +
                         ": HPL's TUNING advises 32 to 256, and the run simulates N / NB steps on every process");
  const double processes = static_cast<double>(s.grid.size());
  long long order = spec.matrix_order;
  const bool on_device = spec.matrix_memory == MatrixMemory::Device;
  if (on_device && !node.gpu)
    throw KeyRefusal(KeyRefusal::File::Workload, "hpl.matrix_memory",
                     "matrix_memory = \"device\" needs GPU nodes; this platform's nodes have no GPU");
  if (order == 0) {
    const double memory = on_device ? node.gpu_memory_bytes : node.host_memory_bytes;
    if (memory <= 0)
      throw KeyRefusal(KeyRefusal::File::Platform, on_device ? "node.gpu.memory" : "node.cpu.host_memory",
                       "missing key: HPL sizes its matrix to memory_fraction of it; give it, or the workload's "
                       "matrix_order");
    order = static_cast<long long>(std::floor(std::sqrt(spec.memory_fraction * memory * processes / 8)));
  } else if (node.host_memory_bytes > 0) {
    const double local = static_cast<double>(order) * static_cast<double>(order) * 8 / processes;
    if (local > node.host_memory_bytes)
      throw KeyRefusal(KeyRefusal::File::Workload, "hpl.matrix_order",
                       "matrix_order " + std::to_string(order) + " needs " +
                           units::to_string(units::DataSize::from_bytes(local)) +
                           " per process, more than the node's host memory (" +
                           units::to_string(units::DataSize::from_bytes(node.host_memory_bytes)) + ")");
  }
  if (spec.matrix_order > 0 && order % s.block_size != 0) {
    const long long below = order / s.block_size * s.block_size;
    throw KeyRefusal(KeyRefusal::File::Workload, "hpl.matrix_order",
                     "matrix_order " + std::to_string(order) + " is not a multiple of the block size " +
                         std::to_string(s.block_size) + ": the model runs whole blocks; give " +
                         (below > 0 ? std::to_string(below) + " or " : std::string()) +
                         std::to_string(below + s.block_size));
  }
  s.matrix_order = order / s.block_size * s.block_size;
  s.steps = s.matrix_order / s.block_size;
  const long long widest = std::max(s.grid.rows, s.grid.columns);
  if (s.steps < widest) {
    // At the key to change: the order where given; else the memory share the matrix fills, or
    // the block size where even all of the memory would not give enough blocks.
    const std::string why = "matrix order " + std::to_string(order) + " gives " + std::to_string(s.steps) +
                            " blocks of " + std::to_string(s.block_size) + ", fewer than the " + std::to_string(widest) +
                            " process rows or columns of the " + std::to_string(s.grid.rows) + " x " +
                            std::to_string(s.grid.columns) + " grid: ";
    if (spec.matrix_order > 0)
      throw KeyRefusal(KeyRefusal::File::Workload, "hpl.matrix_order",
                       why + "give a larger matrix_order or a smaller " + block_name);
    const double memory = on_device ? node.gpu_memory_bytes : node.host_memory_bytes;
    const double all_of_it =
        std::floor(std::sqrt(memory * processes / 8)); // the order all of it holds
    if (all_of_it / min_block_size < static_cast<double>(widest))
      throw KeyRefusal(
          KeyRefusal::File::Platform, on_device ? "node.gpu.memory" : "node.cpu.host_memory",
          why + "even all of " +
              (on_device && node.gpus > 1
                   ? std::to_string(node.gpus) + " x " +
                         units::to_string(units::DataSize::from_bytes(memory / node.gpus)) +
                         " (its GPUs)"
                   : units::to_string(units::DataSize::from_bytes(memory))) +
              " a node, in blocks of the smallest size (" + std::to_string(min_block_size) +
              "), would not give enough blocks: the grid needs more memory");
    if (all_of_it / s.block_size < static_cast<double>(widest))
      throw KeyRefusal(KeyRefusal::File::Workload, block_key,
                       why + "give a smaller " + block_name + " (all of the memory would not give enough blocks)");
    throw KeyRefusal(KeyRefusal::File::Workload, "hpl.memory_fraction",
                     why + "give a larger memory_fraction or a smaller " + block_name);
  }
  const double process_steps = static_cast<double>(s.steps) * processes;
  if (process_steps > max_process_steps)
    throw KeyRefusal(KeyRefusal::File::Workload, block_key,
                     std::to_string(s.steps) + " steps on " + std::to_string(s.grid.size()) +
                         " processes are more than the " + units::number_text(max_process_steps) +
                         " process-steps simulated in reasonable time: give a larger " + block_name +
                         " or a smaller matrix");
  if (node.gpu) {
    const double local = static_cast<double>(s.matrix_order) * static_cast<double>(s.matrix_order) * 8 / processes;
    s.resident_at_start = std::min(1.0, spec.device_memory_fraction * node.gpu_memory_bytes / local);
  }
  return s;
}

HplResult simulate_hpl(const HplSetup& setup, PatternTimer& timer, Sampling sampling) {
  CommTimes comm(timer);
  HplRun run(setup, comm);
  run.run();          // records the message sizes
  comm.resolve(sampling);
  HplResult result = run.run();
  result.patterns_timed = comm.timed();
  result.sizes_asked = comm.distinct_sizes();
  return result;
}

} // namespace ceiling::hpc
