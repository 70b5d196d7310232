// NCCL's rules: its tree threshold, protocol thresholds and tuning model, each at the documented
// thresholds and closed forms of the NCCL source they come from.
#include "collectives/nccl.hpp"
#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace ceiling::collectives;
using ceiling::testing::relative;

TEST_CASE("NCCL 2.4 takes the tree up to its threshold, the ring above") {
  // Expectation: src/init.cc ncclTreeThreshold. 16 nodes of one GPU, no NVLink: ring 5000 B/us,
  // tree 2/3 of it; ring latency 6 x 15 = 90 us, tree 15 log2 16 = 60 us; threshold
  // 5000 x 3333.3 / 1666.7 x 30 = 300,000 bytes in exact arithmetic, 299,999 in NCCL's float
  // truncated to whole bytes (3333.3333 and 1666.6667 in float: 9,999,999.x bytes/us x 30).
  const SelectionContext daint{.ranks = 16, .ranks_per_node = 1};
  CHECK(nccl_tree_threshold_bytes(daint) == 299999);
  CHECK(select_allreduce(Library::Nccl, daint, 299999).algorithm == Algorithm::PipelinedDoubleTree);
  CHECK(select_allreduce(Library::Nccl, daint, 300000).algorithm == Algorithm::Ring);
  // One node, or a ring no slower than the tree in latency (2 nodes: 6 us against 15 us): never.
  CHECK(nccl_tree_threshold_bytes({.ranks = 8, .ranks_per_node = 8, .nvlink = true}) == 0);
  CHECK(nccl_tree_threshold_bytes({.ranks = 2, .ranks_per_node = 1}) == 0);
  // 16 nodes of 8 NVLink GPUs, 4 channels counted (2 rings copied), 128 ranks: ring 20,000 B/us,
  // tree 15,000; latencies 6 x 127 = 762 us and 15 x 4 + 4 x 7 = 88 us:
  // 20,000 x 15,000 / 5,000 x 674 = 40.44 MB.
  const SelectionContext dgx{.ranks = 128, .ranks_per_node = 8, .nvlink = true, .channels = 4};
  CHECK(nccl_tree_threshold_bytes(dgx) == 40440000);
  // NCCL's log2 rounds down: 7 nodes count log2 = 2, tree latency 30 us against the ring's 36:
  // 5000 x 3333.3 / 1666.7 x 6 = 60,000 bytes, 59,999 in NCCL's float (an exact log2, 2.81, made
  // it 42.1 us: never).
  CHECK(nccl_tree_threshold_bytes({.ranks = 7, .ranks_per_node = 1}) == 59999);
}

TEST_CASE("NCCL 2.4 runs LL up to channels x threads x chunks x the per-thread threshold, Simple above") {
  // Expectation: src/enqueue.cc getKernelInfo. A large message uses 256 threads and every
  // channel; a ring loop holds one chunk per rank. 16 P100 nodes (compute capability 6.0,
  // 32 bytes per thread, doubled across nodes), 2 channels: 2 x 256 x 16 x 64 = 524,288 bytes.
  const SelectionContext daint{.ranks = 16, .ranks_per_node = 1, .channels = 2, .compute_capability = 60};
  CHECK(select_protocol(Library::Nccl, daint, Algorithm::Ring, 524288) == Protocol::LL);
  CHECK(select_protocol(Library::Nccl, daint, Algorithm::Ring, 524292) == Protocol::Simple);
  // A tree loop holds one chunk, at 4 times the per-thread threshold: 2 x 256 x 1 x 256.
  CHECK(select_protocol(Library::Nccl, daint, Algorithm::PipelinedDoubleTree, 131072) == Protocol::LL);
  CHECK(select_protocol(Library::Nccl, daint, Algorithm::PipelinedDoubleTree, 131076) == Protocol::Simple);
  // One Volta node: 64 bytes per thread, not doubled: 2 x 256 x 8 x 64 = 262,144 bytes.
  const SelectionContext volta{.ranks = 8, .ranks_per_node = 8, .channels = 2, .compute_capability = 70};
  CHECK(select_protocol(Library::Nccl, volta, Algorithm::Ring, 262144) == Protocol::LL);
  CHECK(select_protocol(Library::Nccl, volta, Algorithm::Ring, 262148) == Protocol::Simple);
  // Kepler: at most 128 threads (src/include/rings.h): 2 x 128 x 16 x 64 = 262,144 bytes.
  const SelectionContext kepler{.ranks = 16, .ranks_per_node = 1, .channels = 2, .compute_capability = 37};
  CHECK(select_protocol(Library::Nccl, kepler, Algorithm::Ring, 262144) == Protocol::LL);
  CHECK(select_protocol(Library::Nccl, kepler, Algorithm::Ring, 262148) == Protocol::Simple);
  // The selection carries it; MPI libraries and other algorithms have none.
  CHECK(select_allreduce(Library::Nccl, daint, 8).protocol == Protocol::LL);
  CHECK_FALSE(select_allreduce(Library::Mpich, daint, 8).protocol.has_value());
  CHECK_FALSE(select_protocol(Library::Nccl, daint, Algorithm::HalvingDoubling, 8).has_value());
}

TEST_CASE("NCCL 2.7's estimate is its latency plus the bytes over its algorithm bandwidth") {
  // Expectation: src/graph/tuning.cc. 16 nodes of one P100 (PCIe), 12.5 GB/s NICs, 1 MiB.
  // Ring Simple: latency 8.4 + 30 network steps x 9.6 = 296.4 us, times 1.9 (the plateau:
  // 1 MiB >= 16 / 16 x 65,536 bytes); bandwidth 12.5 x 16 / 30 GB/s.
  const SelectionContext daint{.ranks = 16, .ranks_per_node = 1, .channels = 2, .compute_capability = 60,
                               .intra_bytes_per_s = 11e9, .inter_bytes_per_s = 12.5e9};
  const double mib = 1 << 20;
  CHECK(nccl27_time_s(daint, Algorithm::Ring, Protocol::Simple, mib) ==
        relative((296.4 * 1.9 + mib / (1000 * 12.5 * 16 / 30)) * 1e-6, 1e-12));
  // Tree LL: 4.4 + 2 x log2 16 x 5.0 = 44.4 us; bandwidth 12.5 x 0.9 / 3.8 x 0.5, corrected by
  // 0.5 at 1 MiB (log2(2^20 / 64) = 14).
  CHECK(nccl27_time_s(daint, Algorithm::PipelinedDoubleTree, Protocol::LL, mib) ==
        relative((44.4 + mib / (1000 * 12.5 * 0.9 / 3.8 * 0.5 * 0.5)) * 1e-6, 1e-12));
  // LL128 only on Volta or Ampere whose path inside the node is NVLink or none (typeIntra <=
  // PATH_NVL): not on Pascal, not on Volta joined through PCIe, but on lone Volta GPUs.
  CHECK(nccl27_time_s(daint, Algorithm::Ring, Protocol::LL128, mib) == std::numeric_limits<double>::infinity());
  auto volta = daint;
  volta.compute_capability = 70;
  CHECK(std::isfinite(nccl27_time_s(volta, Algorithm::Ring, Protocol::LL128, mib)));
  volta.ranks_per_node = 2;
  CHECK(nccl27_time_s(volta, Algorithm::Ring, Protocol::LL128, mib) == std::numeric_limits<double>::infinity());
  // The choice is the fastest estimate: 8 bytes go by the tree's LL (44.4 us against the ring
  // LL's 3.6 + 30 x 2.7 = 84.6 us); 100 MB by the ring's Simple.
  const auto small = select_allreduce(Library::Nccl27, daint, 8);
  CHECK(small.algorithm == Algorithm::PipelinedDoubleTree);
  CHECK(small.protocol == Protocol::LL);
  const auto large = select_allreduce(Library::Nccl27, daint, 100e6);
  CHECK(large.algorithm == Algorithm::Ring);
  CHECK(large.protocol == Protocol::Simple);
  // With the ring fixed, the ring's fastest protocol.
  CHECK(select_protocol(Library::Nccl27, daint, Algorithm::Ring, 8) == Protocol::LL);
  // 16 DGX-1V nodes (NVLink, Volta): LL128 carries the large messages.
  const SelectionContext dgx{.ranks = 128, .ranks_per_node = 8, .nvlink = true, .channels = 4,
                             .compute_capability = 70, .intra_bytes_per_s = 150e9, .inter_bytes_per_s = 50e9};
  CHECK(select_allreduce(Library::Nccl27, dgx, 100e6).protocol == Protocol::LL128);
}

TEST_CASE("NCCL 2.7's ring pays its plateau from N / 16 x 64 KiB across nodes, and the choice turns where the estimates cross") {
  // Expectation: src/graph/tuning.cc ncclTopoGetAlgoTime (2.7.8). 16 nodes of one P100, 12.5 GB/s
  // NICs: the ring's Simple latency 296.4 us, times 1.9 from 16 / 16 x 65,536 bytes on.
  const SelectionContext daint{.ranks = 16, .ranks_per_node = 1, .channels = 2, .compute_capability = 60,
                               .intra_bytes_per_s = 11e9, .inter_bytes_per_s = 12.5e9};
  const double ring_gb_per_s = 12.5 * 16 / 30;
  CHECK(nccl27_time_s(daint, Algorithm::Ring, Protocol::Simple, 65535) ==
        relative((296.4 + 65535 / (1000 * ring_gb_per_s)) * 1e-6, 1e-12));
  CHECK(nccl27_time_s(daint, Algorithm::Ring, Protocol::Simple, 65536) ==
        relative((296.4 * 1.9 + 65536 / (1000 * ring_gb_per_s)) * 1e-6, 1e-12));
  // On one node (8 GPUs on PCIe, 11 GB/s): no plateau, 8.4 + 14 x 5.7 us at any size.
  const SelectionContext node{.ranks = 8, .ranks_per_node = 8, .channels = 2, .compute_capability = 60,
                              .intra_bytes_per_s = 11e9, .inter_bytes_per_s = 12.5e9};
  CHECK(nccl27_time_s(node, Algorithm::Ring, Protocol::Simple, 1 << 20) ==
        relative((8.4 + 14 * 5.7 + (1 << 20) / (1000 * 11 * 8 / 14.0)) * 1e-6, 1e-12));
  // Where the estimates cross, on the 16 nodes. From 65,536 to 131,071 bytes the tree's LL is
  // corrected by 0.6: 44.4 us + b / (12.5 x 0.9 / 3.8 x 0.5 x 0.6) against the ring's LL, 84.6 us +
  // b / (12.5 / 4 x 16 / 30), equal at b = 40.2 x 3375 / 1.775 = 76,436.6 bytes. The ring's LL
  // then meets its Simple (past the plateau: 563.16 us + b / 6.667) at b = 478.56 / 0.00045 =
  // 1,063,466.7 bytes.
  CHECK(select_allreduce(Library::Nccl27, daint, 76436).algorithm == Algorithm::PipelinedDoubleTree);
  CHECK(select_allreduce(Library::Nccl27, daint, 76436).protocol == Protocol::LL);
  CHECK(select_allreduce(Library::Nccl27, daint, 76437).algorithm == Algorithm::Ring);
  CHECK(select_allreduce(Library::Nccl27, daint, 76437).protocol == Protocol::LL);
  CHECK(select_allreduce(Library::Nccl27, daint, 1063466).protocol == Protocol::LL);
  CHECK(select_allreduce(Library::Nccl27, daint, 1063467).algorithm == Algorithm::Ring);
  CHECK(select_allreduce(Library::Nccl27, daint, 1063467).protocol == Protocol::Simple);
}

TEST_CASE("a protocol's costs: LL sends twice the bytes, LL128 128 for 120, the tree's Simple steps take the ring's latency") {
  // Expectation: src/include/devcomm.h line formats; tuning.cc hwLat (2.7.8; 2.5.6 for NCCL 2.4).
  const auto ll = protocol_costs(Library::Nccl27, Algorithm::Ring, Protocol::LL, false);
  CHECK(ll.wire_bytes_per_byte == 2);
  CHECK(ll.net_step_s == relative(2.7e-6, 1e-12));
  CHECK(ll.base_s == relative(3.6e-6, 1e-12));
  CHECK(protocol_costs(Library::Nccl27, Algorithm::Ring, Protocol::LL128, false).wire_bytes_per_byte ==
        relative(128.0 / 120.0, 1e-12));
  const auto tree = protocol_costs(Library::Nccl27, Algorithm::PipelinedDoubleTree, Protocol::Simple, true);
  CHECK(tree.wire_bytes_per_byte == 1);
  CHECK(tree.net_step_s == relative(9.6e-6, 1e-12));
  CHECK(tree.nvlink_step_s == relative(3.4e-6, 1e-12));
  CHECK(tree.base_s == 0);
  CHECK(protocol_costs(Library::Nccl, Algorithm::Ring, Protocol::Simple, true).net_step_s == relative(6.6e-6, 1e-12));
  // NCCL 2.7's LL steps inside a node take 1.8 times longer when the collective spans nodes.
  CHECK(protocol_costs(Library::Nccl27, Algorithm::Ring, Protocol::LL, true).nvlink_step_s == relative(1.8 * 0.47e-6, 1e-12));
  CHECK(protocol_costs(Library::Nccl27, Algorithm::Ring, Protocol::LL, true).net_step_s == relative(2.7e-6, 1e-12));
}

TEST_CASE("NCCL 2.7 on two nodes: the ring at the network's speed, the tree at up to twice it") {
  // Expectation: src/graph/search.cc: a multi-node graph's intra speed is the network's for the
  // ring and at most twice it for the tree; tuning.cc takes it on up to 2 nodes. 2 nodes of 8
  // NVLink V100s, 150 GB/s inside, 12.5 GB/s NICs, 1 GiB (past the tree correction table).
  // Ring Simple: 12.5 x 16 / 30 GB/s; tree Simple: min(25 x 0.9, 110) x 0.5 GB/s.
  const SelectionContext two{.ranks = 16, .ranks_per_node = 8, .nvlink = true, .channels = 4,
                             .compute_capability = 60, .intra_bytes_per_s = 150e9, .inter_bytes_per_s = 12.5e9};
  const double gib = 1 << 30;
  const double ring_lat_us = (8.4 + 28 * 3.4 + 2 * 9.6) * 1.9;
  CHECK(nccl27_time_s(two, Algorithm::Ring, Protocol::Simple, gib) ==
        relative((ring_lat_us + gib / (1000 * 12.5 * 16 / 30)) * 1e-6, 1e-12));
  const double tree_lat_us = 2 * (7 * 28 + 1 * 50);
  CHECK(nccl27_time_s(two, Algorithm::PipelinedDoubleTree, Protocol::Simple, gib) ==
        relative((tree_lat_us + gib / (1000 * 25 * 0.9 * 0.5)) * 1e-6, 1e-12));
  // A size past 2^63 bytes keeps the estimate defined (no correction beyond the table).
  CHECK(nccl27_time_s(two, Algorithm::PipelinedDoubleTree, Protocol::Simple, 1e20) > 0);
}

TEST_CASE("NCCL halves a Simple tree's chunk by its own depth estimate: 2.4 ranks per node + log2 nodes, 2.7 one less") {
  // Expectation: 2.4.8 src/init.cc setupChannel (nranks / nMasters + log2(nMasters), truncated)
  // and 2.7.8 src/graph/connect.cc (nRanks / nNodes - 1 + log2i(nNodes)). 16 nodes of 4 ranks
  // (NVLink, 4 channels): 4 + 4 = 8, and 7.
  const SelectionContext dgx{.ranks = 64, .ranks_per_node = 4, .nvlink = true, .channels = 4};
  const TreeChunks nccl24 = nccl_tree_chunks(Library::Nccl, Protocol::Simple, dgx, 524288);
  CHECK(nccl24.rule == TreeChunks::Rule::HalvedByDepth);
  CHECK(nccl24.step_bytes == 524288);
  CHECK(nccl24.depth == 8);
  CHECK(nccl_tree_chunks(Library::Nccl27, Protocol::Simple, dgx, 524288).depth == 7);
  // 6 nodes: log2 truncated to 2 (4 + 2; 2.7: 3 + 2).
  const SelectionContext six{.ranks = 24, .ranks_per_node = 4, .nvlink = true, .channels = 4};
  CHECK(nccl_tree_chunks(Library::Nccl, Protocol::Simple, six, 524288).depth == 6);
  CHECK(nccl_tree_chunks(Library::Nccl27, Protocol::Simple, six, 524288).depth == 5);
  // One node of 8: its chain, 8 (2.4) and 7 (2.7) deep, whatever the tree threshold (a tree runs
  // there only where NCCL_TREE_THRESHOLD forces it, and 2.4 then sets the depth too).
  const SelectionContext one_node{.ranks = 8, .ranks_per_node = 8, .nvlink = true, .channels = 2};
  REQUIRE(nccl_tree_threshold_bytes(one_node) == 0);
  CHECK(nccl_tree_chunks(Library::Nccl, Protocol::Simple, one_node, 524288).depth == 8);
  CHECK(nccl_tree_chunks(Library::Nccl27, Protocol::Simple, one_node, 524288).depth == 7);
}

TEST_CASE("NCCL's LL trees move one step of the LL buffer a chunk: 16 KiB of data in 2.4, 32 KiB in 2.7") {
  // Expectation: 2.4.8 NCCL_LL_SLICE_LINES = 8 lines x 256 threads of 8 data bytes; 2.7.8 the
  // LL buffer (8 lines x 512 threads x 8 steps) over 8 steps; whatever the share.
  const SelectionContext daint{.ranks = 16, .ranks_per_node = 1, .compute_capability = 60};
  for (const double share : {1000.0, 1e5, 1e8}) {
    CHECK(nccl_tree_chunks(Library::Nccl, Protocol::LL, daint, 524288).chunk_bytes(share, 4) == 16384);
    CHECK(nccl_tree_chunks(Library::Nccl27, Protocol::LL, daint, 524288).chunk_bytes(share, 4) == 32768);
  }
}

TEST_CASE("NCCL 2.7's LL128 tree halves its step by 1 + log2 nodes + ppn / 10, and carries 120 bytes in 128") {
  // Expectation: 2.7.8 src/enqueue.cc computeColl. Step: 120 x 640 x 8 = 614,400 bytes of lines.
  // 8 nodes of 8: s = 1 + 3 + 0.8 = 4.8; halved while the share holds fewer than 4.8 x 64 / 8 =
  // 38.4 chunks (and it is above 128 KiB), then 9.6 (above 32 KiB). 8 MiB: 13 whole steps < 38.4,
  // 307,200: 27 < 38.4, 153,600: 54, neither; of which 15/16 is data: 144,000 bytes.
  const SelectionContext dgx{.ranks = 64, .ranks_per_node = 8, .nvlink = true, .channels = 8, .compute_capability = 80};
  const TreeChunks ll128 = nccl_tree_chunks(Library::Nccl27, Protocol::LL128, dgx, 524288);
  CHECK(ll128.rule == TreeChunks::Rule::LL128);
  CHECK(ll128.step_bytes == 614400);
  CHECK(ll128.ll128_chunks[0] == relative(38.4, 1e-6)); // in float, as computeColl computes them
  CHECK(ll128.ll128_chunks[1] == relative(9.6, 1e-6));
  CHECK(ll128.chunk_bytes(8388608, 5) == 144000);
  // A large share keeps the step: 100 MB holds 162 steps: 614,400 x 15 / 16 = 576,000.
  CHECK(ll128.chunk_bytes(1e8, 5) == 576000);
  // A small one: 100 kB holds none: to 76,800 (the first floor), then 38,400 and 19,200 (2 < 9.6,
  // but not above 32,768): 18,000 bytes of data.
  CHECK(ll128.chunk_bytes(1e5, 5) == 18000);
}
