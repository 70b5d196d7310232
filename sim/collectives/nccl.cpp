// NCCL's selection rules and protocol costs, each from the NCCL source file it names.
#include "collectives/nccl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace ceiling::collectives {
namespace {

bool nccl_tree(Algorithm a) { return a == Algorithm::PipelinedTree || a == Algorithm::PipelinedDoubleTree; }

int nodes_of(const SelectionContext& c) {
  const int per_node = std::max(1, c.ranks_per_node);
  return (c.ranks + per_node - 1) / per_node;
}

/// NCCL 2.4.8 src/enqueue.cc getKernelInfo: LL while the message is at most
/// channels x threads x chunks per loop x the per-thread threshold. Threads double from 64 (up to
/// 256, 128 on Kepler: src/include/rings.h getDefaultThreads) while each would move more than
/// 8 bytes per chunk (NCCL_LL_CHANNEL_THRESHOLD), channels grow as the bytes need them up to the
/// communicator's; the per-thread threshold is 32 bytes up to compute capability 6.x, 64 from
/// Volta (src/include/enqueue.h), doubled across nodes (src/init.cc ncclThreadThreshold) and
/// 4 times for trees. A ring loop holds one chunk per rank, a tree loop one.
Protocol nccl24_protocol(const SelectionContext& c, Algorithm algorithm, double bytes) {
  const bool tree = nccl_tree(algorithm);
  const double chunks_per_loop = tree ? 1 : c.ranks;
  const double max_threads = c.compute_capability / 10 == 3 ? 128 : 256;
  constexpr double per_thread_ll_bytes = 8;
  double threads = 64;
  while (std::ceil(bytes / (threads * chunks_per_loop)) > per_thread_ll_bytes && threads * 2 <= max_threads)
    threads *= 2;
  const double channels = std::clamp(std::ceil(bytes / (threads * chunks_per_loop * per_thread_ll_bytes)), 1.0,
                                     static_cast<double>(std::max(1, c.channels)));
  double per_thread = c.compute_capability / 10 <= 6 ? 32 : 64;
  if (nodes_of(c) >= 2)
    per_thread *= 2;
  if (tree)
    per_thread *= 4;
  return bytes <= channels * threads * chunks_per_loop * per_thread ? Protocol::LL : Protocol::Simple;
}

/// NCCL 2.4.8 src/enqueue.cc getPatternInfo: the tree (up and down, pipelined) for all-reduces
/// up to the tree threshold, the ring above; then its protocol.
Selection nccl24(const SelectionContext& c, double bytes) {
  if (bytes <= nccl_tree_threshold_bytes(c))
    return {Algorithm::PipelinedDoubleTree, "up to NCCL 2.4's tree threshold: double binary tree, pipelined",
            nccl24_protocol(c, Algorithm::PipelinedDoubleTree, bytes)};
  return {Algorithm::Ring, "over NCCL 2.4's tree threshold: ring", nccl24_protocol(c, Algorithm::Ring, bytes)};
}

// NCCL 2.7.8 src/graph/tuning.cc: latencies in microseconds, bandwidths in GB/s (bytes per ns);
// rows Tree, Ring; columns LL, LL128, Simple.
constexpr double nccl27_base_us[2][3] = {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}};
constexpr double nccl27_hw_us[3][2][3] = {
    {{.52, 1.2, 28}, {.47, 1.9, 3.4}}, // NVLink
    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}}, // PCI
    {{5.0, 8.5, 50}, {2.7, 4.0, 9.6}}, // network
};
constexpr double nccl27_ll128_all_reduce_gb_per_s_per_channel = 16.7; // ll128MaxBwPerCh[AllReduce]
// treeCorrectionFactor: powers of two from 64 B.
constexpr double nccl27_tree_correction[3][22] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9},
};
// NCCL 2.5.6 src/graph/tuning.cc, the first NCCL with per-protocol latencies (2.4 has none):
// the same layout, for the replay's costs of NCCL 2.4's LL and Simple.
constexpr double nccl25_base_us[2][3] = {{4.4, 4.4, 0}, {3.6, 3.6, 8.4}};
constexpr double nccl25_hw_us[3][2][3] = {
    {{.5, 1.9, 28}, {.4, 2.5, 5.7}},
    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
    {{5.0, 7.5, 50}, {.9, 2.5, 6.6}},
};

/// NCCL's log2i (src/include/utils.h): the floor of log2, 0 for 0.
int log2i(long long n) {
  int l = 0;
  while (n >>= 1)
    ++l;
  return l;
}

/// NCCL 2.7.8's fastest protocol for `algorithm` by its estimate, and that estimate in seconds
/// (the first of equal times, in NCCL's order LL, LL128, Simple).
std::pair<Protocol, double> nccl27_fastest(const SelectionContext& c, Algorithm algorithm, double bytes) {
  std::pair<Protocol, double> best{Protocol::Simple, std::numeric_limits<double>::infinity()};
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple})
    if (const double t = nccl27_time_s(c, algorithm, p, bytes); t < best.second)
      best = {p, t};
  return best;
}

/// NCCL 2.7.8's choice: every (algorithm, protocol) it enables, the fastest by its estimate
/// (src/enqueue.cc getAlgoInfo: trees first, the first of equal times).
Selection nccl27(const SelectionContext& c, double bytes) {
  const auto tree = nccl27_fastest(c, Algorithm::PipelinedDoubleTree, bytes);
  const auto ring = nccl27_fastest(c, Algorithm::Ring, bytes);
  if (ring.second < tree.second)
    return {Algorithm::Ring, "NCCL 2.7's tuning model: ring, its fastest estimate", ring.first};
  return {Algorithm::PipelinedDoubleTree, "NCCL 2.7's tuning model: double binary tree, pipelined, its fastest estimate",
          tree.first};
}

} // namespace

Selection select_nccl(Library library, const SelectionContext& c, double bytes) {
  return library == Library::Nccl27 ? nccl27(c, bytes) : nccl24(c, bytes);
}

TreeChunks nccl_tree_chunks(Library library, Protocol protocol, const SelectionContext& c, double simple_step_bytes) {
  const bool nccl27 = library == Library::Nccl27;
  switch (protocol) {
  case Protocol::LL:
    // The LL tree kernels' chunk, one step of lines of 8 data bytes (and 8 of flags): 2.4.8
    // NCCL_LL_SLICE_LINES = 8 lines x 256 threads (src/include/devcomm.h); 2.7.8 the LL buffer
    // (DEFAULT_LL_BUFFSIZE: 8 lines x 512 threads x NCCL_STEPS, src/init.cc) over NCCL_STEPS.
    return {.rule = TreeChunks::Rule::Step, .step_bytes = (nccl27 ? 512.0 : 256.0) * 8 * 8};
  case Protocol::LL128: {
    // DEFAULT_LL128_BUFFSIZE over NCCL_STEPS (2.7.8 src/init.cc): 120 elements x 640 threads of
    // 8 bytes; halved by computeColl's counts: float ppn = nRanks / (float)nNodes; float
    // nstepsLL128 = 1 + log2i(nNodes) + 0.1 * ppn; nstepsLL128 * 64 / ppn and * 16 / ppn.
    const int nodes = nodes_of(c);
    const float ppn = static_cast<float>(c.ranks) / static_cast<float>(nodes);
    const auto steps = static_cast<float>(1 + log2i(nodes) + 0.1 * ppn);
    return {.rule = TreeChunks::Rule::LL128, .step_bytes = 120.0 * 640 * 8, .ll128_chunks = {steps * 64 / ppn, steps * 16 / ppn}};
  }
  case Protocol::Simple: break;
  }
  // The depth NCCL's halving counts, its estimate "consistent across nodes": 2.7.8 nRanks / nNodes
  // - 1 + log2i(nNodes) (src/graph/connect.cc connectTrees); 2.4.8 nranks / nMasters +
  // log2(nMasters), truncated, one master per node (src/init.cc setupChannel, which sets it
  // wherever a tree can run: its threshold positive, computed or forced by NCCL_TREE_THRESHOLD).
  const int nodes = nodes_of(c);
  const int depth = c.ranks / nodes + (nccl27 ? -1 : 0) + log2i(nodes);
  return {.rule = TreeChunks::Rule::HalvedByDepth, .step_bytes = simple_step_bytes, .depth = depth};
}

double nccl_tree_threshold_bytes(const SelectionContext& c) {
  // ncclTreeThreshold, src/init.cc 354-377 (v2.4.8-1): bandwidths in MB/s = bytes/us, latencies in
  // us, all in float as NCCL computes them, the threshold truncated to whole bytes (its ssize_t):
  // 16 nodes of one GPU give 299,999 bytes, not 300,000.
  const int nodes = nodes_of(c);
  if (nodes < 2)
    return 0;
  const float ring_bw = c.nvlink ? static_cast<float>(5000 * c.channels) : 5000.0f;
  float tree_bw = c.nvlink ? ring_bw * 3 / 4 : ring_bw * 2 / 3;
  if (c.nvlink && nodes == 2)
    tree_bw *= 2;
  const float ring_lat = 6.0f * static_cast<float>(c.ranks - 1);
  // (log2 is NCCL's own there, which rounds down: 7 nodes count 2)
  const float tree_lat = 15.0f * static_cast<float>(log2i(nodes)) + 4.0f * static_cast<float>(c.ranks / nodes - 1);
  if (ring_lat <= tree_lat)
    return 0;
  if (tree_bw > ring_bw)
    return std::numeric_limits<double>::infinity();
  const float threshold = ring_bw * tree_bw / (ring_bw - tree_bw) * (ring_lat - tree_lat);
  return static_cast<double>(static_cast<long long>(threshold));
}

std::optional<Protocol> select_protocol(Library library, const SelectionContext& c, Algorithm algorithm,
                                        double bytes) {
  if (algorithm != Algorithm::Ring && !nccl_tree(algorithm))
    return std::nullopt;
  if (library == Library::Nccl)
    return nccl24_protocol(c, algorithm, bytes);
  if (library != Library::Nccl27)
    return std::nullopt;
  return nccl27_fastest(c, algorithm, bytes).first;
}

double nccl27_time_s(const SelectionContext& c, Algorithm algorithm, Protocol protocol, double bytes) {
  const bool tree = nccl_tree(algorithm);
  const int a = tree ? 0 : 1;
  const int p = static_cast<int>(protocol);
  const int ranks = c.ranks;
  const int nodes = nodes_of(c);
  const double ppn = static_cast<double>(ranks) / nodes;
  // LL128 only on Volta or Ampere GPUs whose path inside the node is NVLink or nothing (tuning.cc:
  // typeIntra <= PATH_NVL, a lone GPU's PATH_LOC included; the NIC assumed near the GPU).
  if (protocol == Protocol::LL128 &&
      !((c.nvlink || c.ranks_per_node == 1) && (c.compute_capability == 70 || c.compute_capability == 80)))
    return std::numeric_limits<double>::infinity();
  const bool ampere = c.compute_capability == 80;
  // The bus bandwidth in GB/s: the graph's channels x their speed, here the platform's. Its intra
  // speed on one node; on two, the graph's intra speed, which NCCL's search (src/graph/search.cc
  // ncclTopoCompute) sets to the network's for a ring and to at most twice it for a tree; beyond,
  // the network's.
  const double intra_gb_per_s = c.intra_bytes_per_s / 1e9;
  const double inter_gb_per_s = c.inter_bytes_per_s / 1e9;
  double bus_gb_per_s = nodes == 1   ? intra_gb_per_s
                        : nodes == 2 ? std::min(intra_gb_per_s, tree ? 2 * inter_gb_per_s : inter_gb_per_s)
                                     : inter_gb_per_s;
  const double ll128_cap_gb_per_s = nccl27_ll128_all_reduce_gb_per_s_per_channel * std::max(1, c.channels);
  if (ampere)
    bus_gb_per_s = std::min(bus_gb_per_s, 235.0);
  if (!tree && protocol == Protocol::LL)
    bus_gb_per_s *= 1.0 / 4.0;
  if (!tree && protocol == Protocol::LL128)
    bus_gb_per_s = std::min(bus_gb_per_s * (ppn < 2 ? 0.7 : 0.92), ll128_cap_gb_per_s);
  if (tree) {
    const double max_tree_gb_per_s = nodes > 2 ? (ampere && protocol == Protocol::LL128 ? 105.0 : 80.0)
                                               : (ampere && protocol == Protocol::LL128 ? 130.0 : 110.0);
    bus_gb_per_s = std::min(bus_gb_per_s * .9, max_tree_gb_per_s);
    if (protocol == Protocol::LL)
      bus_gb_per_s *= 1.0 / 3.8;
    if (protocol == Protocol::LL128)
      bus_gb_per_s = std::min(bus_gb_per_s * (nodes == 1 ? 7.0 / 9.0 : 0.915), ll128_cap_gb_per_s * 7.0 / 9.0);
  }
  const int steps = 2 * (ranks - 1);
  const int inter_steps = 2 * (nodes - 1);
  double algorithm_gb_per_s = bus_gb_per_s * (tree ? .5 : static_cast<double>(ranks) / steps);
  double intra_us = nccl27_hw_us[c.nvlink ? 0 : 1][a][p];
  const double inter_us = nccl27_hw_us[2][a][p];
  if (nodes > 1 && protocol == Protocol::LL)
    intra_us *= 1.8;
  double lat_us = nccl27_base_us[a][p] +
                  (tree ? 2 * ((ranks / nodes - 1) * intra_us + log2i(nodes) * inter_us)
                        : (steps - inter_steps) * intra_us + inter_steps * inter_us);
  if (!(algorithm_gb_per_s > 0))
    return std::numeric_limits<double>::infinity();
  // ncclTopoGetAlgoTime: the trees' correction for medium sizes (sizes past the table need none:
  // clamped to keep the cast defined), the ring's plateau.
  const int log_size = log2i(static_cast<long long>(std::min(bytes, 0x1p62)) >> 6);
  if (tree && log_size < 22)
    algorithm_gb_per_s *= nccl27_tree_correction[p][log_size];
  if (!tree && protocol == Protocol::Simple && nodes > 1 && bytes >= ranks / 16.0 * 65536)
    lat_us *= 1.9;
  return (lat_us + bytes / (1000 * algorithm_gb_per_s)) * 1e-6;
}

ProtocolCosts protocol_costs(Library library, Algorithm algorithm, Protocol protocol, bool across_nodes) {
  const int a = nccl_tree(algorithm) ? 0 : 1;
  const int p = static_cast<int>(protocol);
  const auto& base = library == Library::Nccl27 ? nccl27_base_us : nccl25_base_us;
  const auto& hw = library == Library::Nccl27 ? nccl27_hw_us : nccl25_hw_us;
  // The tree's Simple entries are the latency of a 256 KiB chunk, its transfer included
  // (tuning.cc's own comment), which the replay times itself: its steps take the ring's.
  const int step_row = a == 0 && protocol == Protocol::Simple ? 1 : a;
  ProtocolCosts costs;
  costs.wire_bytes_per_byte = protocol == Protocol::LL ? 2.0 : protocol == Protocol::LL128 ? 128.0 / 120.0 : 1.0;
  // NCCL 2.7 takes LL's steps inside a node as 1.8 times longer when the collective spans nodes.
  const double intra_factor = library == Library::Nccl27 && protocol == Protocol::LL && across_nodes ? 1.8 : 1.0;
  costs.nvlink_step_s = hw[0][step_row][p] * intra_factor * 1e-6;
  costs.pci_step_s = hw[1][step_row][p] * intra_factor * 1e-6;
  costs.net_step_s = hw[2][step_row][p] * 1e-6;
  costs.base_s = base[a][p] * 1e-6;
  return costs;
}

} // namespace ceiling::collectives
