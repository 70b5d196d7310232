// The HPL-like run against closed forms: kernels on one process, messages in alpha-beta form.
#include "hpc/hpl.hpp"
#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace ceiling::hpc;

namespace {

/// Every pattern takes alpha + beta x its largest message: nothing is shared.
struct AlphaBeta : PatternTimer {
  double alpha = 0;
  double beta = 0;
  int calls = 0;
  double seconds(std::span<const ceiling::collectives::Flow> flows) override {
    ++calls;
    double bytes = 0;
    for (const auto& f : flows)
      bytes = std::max(bytes, f.bytes);
    return alpha + beta * bytes;
  }
};

NodeKernels cpu_node(double dgemm, double stream) {
  NodeKernels k;
  k.cpu_dgemm_flop_per_s = dgemm;
  k.cpu_stream_bytes_per_s = stream;
  k.cpu_cores = 8;
  k.peak_flop_per_s = dgemm;
  k.base_clock_peak_flop_per_s = dgemm;
  k.host_memory_bytes = 1e12;
  return k;
}

HplSetup setup_of(HplSpec spec, const NodeKernels& node, long long nodes) { return plan_hpl(spec, node, nodes); }

} // namespace

TEST_CASE("HPL on one process takes the sum of its kernels' times, with or without look-ahead") {
  const double dgemm = 1e11, stream = 2e10;
  const int nb = 64;
  const long long blocks = 12;
  for (int lookahead : {0, 1}) {
    HplSpec spec;
    spec.matrix_order = nb * blocks;
    spec.block_size = nb;
    spec.panel_min_block = nb; // one pass over the panel
    spec.lookahead = lookahead;
    AlphaBeta timer;
    const auto r = simulate_hpl(setup_of(spec, cpu_node(dgemm, stream), 1), timer, {});
    double expected = 0;
    for (long long k = 0; k < blocks; ++k) {
      const double m = static_cast<double>(blocks - k) * nb;   // panel rows
      const double n = static_cast<double>(blocks - k - 1) * nb; // trailing rows and columns
      expected += std::max(m * nb * nb / dgemm, 16 * m * nb / stream); // panel: flops or one pass
      expected += (2 * n * n * nb + nb * nb * n) / dgemm;              // DGEMM + DTRSM
    }
    const double order = static_cast<double>(nb * blocks);
    expected += order * order * 8 / stream; // back substitution reads the matrix once
    CHECK(r.seconds == doctest::Approx(expected).epsilon(1e-12));
    CHECK(r.flops == doctest::Approx(2.0 / 3 * order * order * order + 1.5 * order * order).epsilon(1e-15));
    CHECK(timer.calls == 0); // one process sends nothing
    const auto& b = r.breakdown;
    CHECK(b.update_s + b.panel_s + b.solve_s + b.waiting_s == doctest::Approx(r.seconds).epsilon(1e-12));
    CHECK(std::fabs(b.waiting_s) < 1e-9 * r.seconds);
  }
}

TEST_CASE("HPL's pivots, row swaps and back substitution on a P x 1 grid take their alpha-beta forms") {
  const int nb = 32, p = 4;
  const long long blocks = 16;
  const double alpha = 2e-6, beta = 1e-10, overhead = 5e-7;
  for (Swap swap : {Swap::BinaryExchange, Swap::SpreadRoll, Swap::Mixed}) {
    HplSpec spec;
    spec.matrix_order = nb * blocks;
    spec.block_size = nb;
    spec.grid_rows = p;
    spec.swap = swap;
    spec.swap_threshold = 4 * nb;
    auto node = cpu_node(1e300, 1e300); // compute takes no time
    node.message_overhead_s = overhead;
    AlphaBeta timer;
    timer.alpha = alpha;
    timer.beta = beta;
    const auto r = simulate_hpl(setup_of(spec, node, p), timer, {});
    auto message = [&](double bytes) { return alpha + beta * bytes + overhead; };
    double expected = 0;
    for (long long k = 0; k < blocks; ++k) {
      expected += nb * 2 * message((2.0 * nb + 4) * 8); // log2(4) = 2 rounds per pivot column
      const double columns = static_cast<double>(blocks - k - 1) * nb;
      if (columns > 0) {
        const double bytes = nb * columns * 8;
        const bool binary = swap == Swap::BinaryExchange || (swap == Swap::Mixed && columns <= spec.swap_threshold);
        expected += binary ? 2 * message(bytes) : 2.0 * (p - 1) * message(bytes / p);
      }
    }
    expected += static_cast<double>(blocks) * message(nb * 8.0); // one column message per block
    CHECK(r.seconds == doctest::Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("the panel broadcast reaches each process of the row in its variant's alpha-beta form") {
  const double h = 3.0, piece = 0.5;
  const int q = 6;
  const auto pieces_s = [&](int k) { return k * piece; };
  auto receipts = [&](Broadcast b) { return broadcast_times(b, q, h, pieces_s, 10.0).receipt_s; };
  auto busy = [&](Broadcast b) { return broadcast_times(b, q, h, pieces_s, 10.0).busy_s; };
  // 1ring: 0 -> 1 -> 2 -> ...; each but the last forwards once.
  CHECK(receipts(Broadcast::Ring) == std::vector<double>{10, 13, 16, 19, 22, 25});
  CHECK(busy(Broadcast::Ring) == std::vector<double>{h, h, h, h, h, 0});
  // 1ring-modified: 0 -> 1, 0 -> 2, 2 -> 3 ...: the next root (1) does not forward.
  CHECK(receipts(Broadcast::RingModified) == std::vector<double>{10, 13, 16, 19, 22, 25});
  CHECK(busy(Broadcast::RingModified) == std::vector<double>{2 * h, 0, h, h, h, 0});
  // 2ring (HPL_2ring.c, the second ring's head roo2 = (q + 1) / 2 = 3): 0 -> 1 and 0 -> 3,
  // then 1 -> 2 and 3 -> 4 -> 5.
  CHECK(receipts(Broadcast::TwoRing) == std::vector<double>{10, 13, 16, 16, 19, 22});
  // 2ring-modified (HPL_2rinM.c): 0 -> 1, 0 -> 2, 0 -> 3, then 3 -> 4 -> 5 (2's next is roo2).
  CHECK(receipts(Broadcast::TwoRingModified) == std::vector<double>{10, 13, 16, 19, 22, 25});
  CHECK(busy(Broadcast::TwoRingModified) == std::vector<double>{3 * h, 0, 0, h, h, 0});
  // On 4 processes roo2 = 2: the root skips its send to 2 as the first ring's head, sends to it
  // as roo2, and 2 -> 3; on 5 (roo2 = 3) the rings are 1 -> 2 and 3 -> 4.
  CHECK(broadcast_times(Broadcast::TwoRingModified, 4, h, pieces_s, 10.0).receipt_s == std::vector<double>{10, 13, 16, 19});
  CHECK(broadcast_times(Broadcast::TwoRing, 5, h, pieces_s, 10.0).receipt_s == std::vector<double>{10, 13, 16, 16, 19});
  // long: spread in q pieces then rolled: 2 (q - 1) pieces; every member rolls q - 1 of them.
  CHECK(receipts(Broadcast::Long) == std::vector<double>{10, 15, 15, 15, 15, 15});
  CHECK(busy(Broadcast::Long)[3] == doctest::Approx(5 * piece));
  // Its spread is a binomial tree (HPL_blong.c): the root sends q - 4 = 2 pieces, then 2, then
  // 1, three messages for q - 1 pieces, each paying its latency a once; the roll q - 1 messages
  // of one. A test case of its own:
  const double a = 0.25;
  const auto alpha_beta = [&](int k) { return a + k * piece; };
  CHECK(broadcast_times(Broadcast::Long, q, h, alpha_beta, 10.0).receipt_s[4] ==
        doctest::Approx(10 + (3 * a + 5 * piece) + 5 * (a + piece)));
  CHECK(broadcast_times(Broadcast::Long, q, h, alpha_beta, 10.0).busy_s[0] ==
        doctest::Approx((3 * a + 5 * piece) + 5 * (a + piece)));
  // long-modified: 0 -> 1 whole, then long among the other q - 1.
  CHECK(receipts(Broadcast::LongModified) == std::vector<double>{10, 13, 17, 17, 17, 17});
  // Without look-ahead a forwarder sends once it is ready as well.
  const std::vector<double> ready{0, 20, 0, 0, 0, 0};
  CHECK(broadcast_times(Broadcast::Ring, q, h, pieces_s, 10.0, ready).receipt_s ==
        std::vector<double>{10, 13, 23, 26, 29, 32});
}

TEST_CASE("the long broadcast spreads its pieces down a binomial tree: ceil(log2 Q) messages from the root") {
  // Expectation: with Q = 76 (Piz Daint's P100 grid), I = 64: the root sends 12 pieces, then 32,
  // 16, 8, 4, 2, 1, seven messages for 75 pieces (a linear spread sent 75).
  std::vector<int> sizes;
  const double spread = long_spread_s(76, [&](int k) {
    sizes.push_back(k);
    return 1.0 + k;
  });
  CHECK(sizes == std::vector<int>{12, 32, 16, 8, 4, 2, 1});
  CHECK(spread == 7 + 75);
  CHECK(long_spread_s(1, [](int) { return 1.0; }) == 0);
  CHECK(long_spread_s(2, [](int k) { return 1.0 + k; }) == 2); // one message of one piece
}

TEST_CASE("a GPU node's update streamed over PCIe runs at the CPU's rate plus the GPU's, capped by the link") {
  NodeKernels node = cpu_node(2e11, 5e10);
  node.gpu = true;
  node.gpu_dgemm_flop_per_s = 4e12;
  node.host_to_device_bytes_per_s = 1.2e10;
  node.device_to_host_bytes_per_s = 1.3e10;
  const double flops = 1e15, nb = 768;
  // Nothing resident: C streams in and out (8 + 8 bytes per 2 nb flops over the slower side).
  const double link_rate = nb * 1.2e10 / 4;
  const auto streamed = update_time(node, flops, nb, 0.0);
  CHECK(streamed.seconds == doctest::Approx(flops / (2e11 + std::min(4e12, link_rate))).epsilon(1e-12));
  CHECK(streamed.pcie_s == doctest::Approx(streamed.seconds - flops / (2e11 + 4e12)).epsilon(1e-12));
  // All resident: the GPU alone, no PCIe.
  const auto resident = update_time(node, flops, nb, 1.0);
  CHECK(resident.seconds == doctest::Approx(flops / 4e12).epsilon(1e-15));
  CHECK(resident.pcie_s == 0);
}

TEST_CASE("the PCIe traffic of a GPU node's steps is the bytes the model says cross") {
  const int nb = 64;
  const long long blocks = 10;
  NodeKernels node = cpu_node(1e300, 1e300);
  node.gpu = true;
  node.gpu_dgemm_flop_per_s = 1e300;
  node.gpu_memory_bytes = 1e12; // the whole matrix resident
  node.host_to_device_bytes_per_s = 1e10;
  node.device_to_host_bytes_per_s = 2e10;
  node.copy_s = 1e-5;
  HplSpec spec;
  spec.matrix_order = nb * blocks;
  spec.block_size = nb;
  spec.lookahead = 0;
  AlphaBeta timer;
  const auto r = simulate_hpl(setup_of(spec, node, 1), timer, {});
  double expected = 0;
  for (long long k = 0; k < blocks; ++k) {
    const double m = static_cast<double>(blocks - k) * nb, n = m - nb;
    expected += node.to_host_s(m * nb * 8);                                 // panel to the host, factored there
    expected += node.to_host_s(nb * n * 8) + node.to_device_s(nb * n * 8); // rows swapped through host memory
    expected += node.to_device_s(n * nb * 8);                               // the factored panel L back
  }
  CHECK(r.breakdown.pcie_s == doctest::Approx(expected).epsilon(1e-12));
  CHECK(r.seconds == doctest::Approx(expected).epsilon(1e-9));
}

TEST_CASE("the default HPL grid is the squarest with at most 1 % of the nodes, or one, idle") {
  const auto node = cpu_node(1e11, 1e10);
  HplSpec spec;
  auto grid = [&](long long n) {
    const auto s = plan_hpl(spec, node, n);
    return std::pair{s.grid.rows, s.grid.columns};
  };
  CHECK(grid(64) == std::pair{8, 8});
  CHECK(grid(5272) == std::pair{72, 73}); // 5,256 processes, 16 idle (5,272 = 8 x 659)
  CHECK(grid(13) == std::pair{3, 4});     // a prime: one node may stay idle
  CHECK(grid(97) == std::pair{8, 12});
  CHECK(grid(1) == std::pair{1, 1});
}

TEST_CASE("HPL refuses what cannot run, saying why and, where one key is the cause, which") {
  const auto node = cpu_node(1e11, 1e10);
  const auto key_of = [](auto plan) {
    try {
      plan();
    } catch (const KeyRefusal& e) {
      return (e.file == KeyRefusal::File::Platform ? "platform " : "workload ") + e.key;
    }
    return std::string("none");
  };
  HplSpec spec;
  spec.matrix_order = 768;
  spec.block_size = 256;
  CHECK_THROWS_WITH_AS(plan_hpl(spec, node, 64), doctest::Contains("fewer than the 8 process rows"), std::invalid_argument);
  CHECK(key_of([&] { plan_hpl(spec, node, 64); }) == "workload hpl.matrix_order");
  spec.matrix_order = 1000; // HPL's last block may be partial; the model runs whole ones
  CHECK_THROWS_WITH_AS(plan_hpl(spec, node, 4), doctest::Contains("not a multiple of the block size 256"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(plan_hpl(spec, node, 4), doctest::Contains("give 768 or 1024"), std::invalid_argument);
  auto no_memory = node;
  no_memory.host_memory_bytes = 0;
  CHECK(key_of([&] { plan_hpl(HplSpec{}, no_memory, 4); }) == "platform node.cpu.host_memory");
  HplSpec huge;
  huge.matrix_order = 100'000'000;
  CHECK_THROWS_WITH_AS(plan_hpl(huge, node, 4), doctest::Contains("more than the node's host memory"), std::invalid_argument);
  CHECK(key_of([&] { plan_hpl(huge, node, 4); }) == "workload hpl.matrix_order");
  HplSpec device;
  device.matrix_memory = MatrixMemory::Device;
  CHECK_THROWS_WITH_AS(plan_hpl(device, node, 4), doctest::Contains("needs GPU nodes"), std::invalid_argument);
  CHECK(key_of([&] { plan_hpl(device, node, 4); }) == "workload hpl.matrix_memory");
  HplSpec rows;
  rows.grid_rows = 5;
  CHECK(key_of([&] { plan_hpl(rows, node, 4); }) == "workload hpl.grid_rows");
}

namespace {
/// A pattern time that is not affine in bytes (a protocol switch, sharing that changes with
/// size): interpolating between sampled sizes is then not exact.
struct Curved : AlphaBeta {
  double seconds(std::span<const ceiling::collectives::Flow> flows) override {
    const double t = AlphaBeta::seconds(flows);
    double bytes = 0;
    for (const auto& f : flows)
      bytes = std::max(bytes, f.bytes);
    return t + 2e-8 * std::sqrt(bytes);
  }
};
} // namespace

TEST_CASE("timing a sample of message sizes stays within 1 % of timing every size") {
  HplSpec spec;
  spec.matrix_order = 64 * 200;
  spec.block_size = 64;
  auto node = cpu_node(5e10, 2e10);
  Curved every_timer, sampled_timer;
  every_timer.alpha = sampled_timer.alpha = 2e-6;
  every_timer.beta = sampled_timer.beta = 1e-9;
  const auto setup = plan_hpl(spec, node, 16);
  const auto every = simulate_hpl(setup, every_timer, {.every = true, .samples = 0});
  const auto sampled = simulate_hpl(setup, sampled_timer, {.every = false, .samples = 6});
  CHECK(sampled.seconds != every.seconds); // the interpolation is not exact here
  CHECK(sampled.seconds == ceiling::testing::relative(every.seconds, 0.01));
  CHECK(sampled_timer.calls < every_timer.calls);
  CHECK(sampled.patterns_timed == sampled_timer.calls);
}

TEST_CASE("a 1 x 3 grid with instant compute: each step waits for the next root to have the panel and to be free") {
  // P = 1: no pivots, no swaps. Each step the root sends the panel on; the next step's root
  // (distance 1) factors at once when it has the panel and is not forwarding. 1ring: it
  // forwards first, so steps are 2 hops apart; 1ring-modified: it does not, 1 hop. The last
  // step's panel reaches distance 2 two hops after it starts; the back substitution sends one
  // row message per block.
  const int nb = 32;
  const long long blocks = 12;
  const double hop = 3e-6;
  for (int lookahead : {0, 1}) {
    for (Broadcast b : {Broadcast::Ring, Broadcast::RingModified}) {
      HplSpec spec;
      spec.matrix_order = nb * blocks;
      spec.block_size = nb;
      spec.grid_rows = 1;
      spec.lookahead = lookahead;
      spec.broadcast = b;
      AlphaBeta timer;
      timer.alpha = hop; // beta = 0: every message one hop
      const auto r = simulate_hpl(setup_of(spec, cpu_node(1e300, 1e300), 3), timer, {});
      const double step = b == Broadcast::Ring ? 2 * hop : hop;
      CAPTURE(lookahead);
      CAPTURE(std::string(to_string(b)));
      CHECK(r.seconds == doctest::Approx((blocks - 1) * step + 2 * hop + blocks * hop).epsilon(1e-9));
    }
  }
}
