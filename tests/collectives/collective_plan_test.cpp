// Collective plans: volumes, step counts and the aggregated form of each algorithm.
#include "collectives/collective_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

using namespace ceiling::collectives;

namespace {

/// The algorithms whose aggregated plan is their exact steps with equal patterns merged (the
/// pipelined trees' aggregated form is a pipeline in steady state instead).
constexpr Algorithm all[] = {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::RecursiveDoubling, Algorithm::BinaryTree,
                             Algorithm::DoubleBinaryTree, Algorithm::Hierarchical,
                             Algorithm::HierarchicalHalvingDoubling, Algorithm::HierarchicalRecursiveDoubling,
                             Algorithm::ParameterServer};

/// The bytes of `plan` by rank at one end of its flows: what each sends (`end` = &Flow::src) or
/// receives (&Flow::dst).
std::map<int, double> bytes_per_rank(const std::vector<Phase>& plan, int Flow::*end = &Flow::src) {
  std::map<int, double> bytes;
  for (const auto& p : plan)
    for (const auto& f : p.flows)
      bytes[f.*end] += f.bytes;
  return bytes;
}

/// `by_rank` (bytes_per_rank()'s and the like), required to hold every one of `n` ranks: a loop over
/// it then checks them all.
std::map<int, double> each_of(std::map<int, double> by_rank, int n) {
  REQUIRE(by_rank.size() == static_cast<std::size_t>(n));
  REQUIRE(by_rank.begin()->first == 0);
  REQUIRE(by_rank.rbegin()->first == n - 1);
  return by_rank;
}

int step_count(const std::vector<Phase>& plan) {
  int steps = 0;
  for (const auto& p : plan)
    steps += p.steps;
  return steps;
}

} // namespace

TEST_CASE("ring and halving-doubling send 2(N-1)/N of the buffer per rank") {
  for (int n : {2, 3, 8, 13, 64}) {
    CAPTURE(n);
    // Expectation: bandwidth-optimal all-reduce, each rank sends 2(N-1)/N B (Thakur et al. 2005).
    for (const auto& [rank, bytes] : each_of(bytes_per_rank(allreduce_steps(Algorithm::Ring, {n, 1}, 1e6)), n))
      CHECK(bytes == doctest::Approx(2.0 * (n - 1) / n * 1e6).epsilon(1e-12));
    CHECK(step_count(allreduce_steps(Algorithm::Ring, {n, 1}, 1e6)) == 2 * (n - 1));
    if ((n & (n - 1)) == 0) {
      for (const auto& [rank, bytes] : each_of(bytes_per_rank(allreduce_steps(Algorithm::HalvingDoubling, {n, 1}, 1e6)), n))
        CHECK(bytes == doctest::Approx(2.0 * (n - 1) / n * 1e6).epsilon(1e-12));
      CHECK(step_count(allreduce_steps(Algorithm::HalvingDoubling, {n, 1}, 1e6)) == 2 * std::log2(n));
    }
  }
}

TEST_CASE("halving-doubling and recursive doubling fold the ranks beyond a power of two in and out as MPICH does") {
  // Expectation (MPICH 3.2 allreduce.c): N = 6 = 4 + 2: the even ranks of the first 2 x 2 send
  // their whole buffer to rank + 1, which reduces it; the odd ones send the result back after.
  for (Algorithm a : {Algorithm::HalvingDoubling, Algorithm::RecursiveDoubling}) {
    CAPTURE(to_string(a));
    const auto plan = allreduce_steps(a, {6, 1}, 1e6);
    // 2 log2(4) = 4 steps of halving-doubling, log2(4) = 2 of recursive doubling, between.
    REQUIRE(plan.size() == (a == Algorithm::HalvingDoubling ? 6u : 4u));
    CHECK(plan.front().flows == std::vector<Flow>{{0, 1, 1e6, 1e6}, {2, 3, 1e6, 1e6}});
    CHECK(plan.back().flows == std::vector<Flow>{{1, 0, 1e6, 0}, {3, 2, 1e6, 0}});
  }
}

TEST_CASE("recursive doubling exchanges and reduces the whole buffer log2 N times") {
  for (int n : {2, 8, 64}) {
    CAPTURE(n);
    const auto plan = allreduce_steps(Algorithm::RecursiveDoubling, {n, 1}, 1e6);
    CHECK(step_count(plan) == std::log2(n));
    int distance = 1;
    for (const auto& p : plan) {
      REQUIRE(p.flows.size() == static_cast<std::size_t>(n));
      for (const auto& f : p.flows)
        CHECK(f == Flow{f.src, f.src ^ distance, 1e6, 1e6});
      distance *= 2;
    }
  }
}

TEST_CASE("the ring and halving-doubling reduce (N-1)/N of the buffer on every rank, recursive doubling log2 N buffers, a binary tree (N-1) in all") {
  // Expectation: summing N buffers takes (N-1) B of additions in all; the ring and Rabenseifner
  // spread them evenly, each rank reducing (N-1)/N B; recursive doubling reduces B log2 N per
  // rank (every rank computes the whole sum).
  for (int n : {2, 4, 6, 13, 64}) {
    CAPTURE(n);
    const auto reduced = [](const std::vector<Phase>& plan) {
      std::map<int, double> by_rank;
      for (const auto& p : plan)
        for (const auto& f : p.flows)
          by_rank[f.dst] += f.reduce_bytes;
      return by_rank;
    };
    for (const auto& [rank, bytes] : each_of(reduced(allreduce_phases(Algorithm::Ring, {n, 1}, 1e6)), n))
      CHECK(bytes == doctest::Approx((n - 1.0) / n * 1e6).epsilon(1e-12));
    if ((n & (n - 1)) == 0) {
      for (const auto& [rank, bytes] : each_of(reduced(allreduce_steps(Algorithm::HalvingDoubling, {n, 1}, 1e6)), n))
        CHECK(bytes == doctest::Approx((n - 1.0) / n * 1e6).epsilon(1e-12));
      for (const auto& [rank, bytes] : each_of(reduced(allreduce_steps(Algorithm::RecursiveDoubling, {n, 1}, 1e6)), n))
        CHECK(bytes == doctest::Approx(std::log2(n) * 1e6).epsilon(1e-12));
    }
    double tree = 0;
    for (const auto& [rank, bytes] : reduced(allreduce_steps(Algorithm::BinaryTree, {n, 1}, 1e6)))
      tree += bytes;
    CHECK(tree == doctest::Approx((n - 1) * 1e6).epsilon(1e-12));
  }
}

TEST_CASE("a binary tree reduces then broadcasts, one flow into a rank per step") {
  for (int n : {2, 7, 8, 64}) {
    CAPTURE(n);
    const auto plan = allreduce_steps(Algorithm::BinaryTree, {n, 1}, 1e6);
    int into_root = 0;
    for (const auto& p : plan) {
      std::map<int, int> inbound;
      for (const auto& f : p.flows) {
        CHECK(++inbound[f.dst] == 1);
        into_root += f.dst == 0 ? 1 : 0;
      }
    }
    CHECK(into_root == std::min(n - 1, 2)); // the root's children report once each
  }
}

TEST_CASE("the double binary tree carries half the buffer in each tree") {
  const auto plan = allreduce_steps(Algorithm::DoubleBinaryTree, {8, 1}, 1e6);
  double total = 0;
  for (const auto& p : plan)
    for (const auto& f : p.flows) {
      CHECK(f.bytes == 0.5e6);
      total += f.bytes;
    }
  // Expectation: each tree moves B/2 over each of its N-1 edges twice (reduce, broadcast).
  CHECK(total == 2 * 2 * 7 * 0.5e6);
  // Two trees, not one twice: their edges (either direction) are more than one tree's N - 1.
  std::set<std::pair<int, int>> edges;
  for (const auto& p : plan)
    for (const auto& f : p.flows)
      edges.insert(std::minmax(f.src, f.dst));
  CHECK(edges.size() > 7);
}

TEST_CASE("hierarchical all-reduce runs its ring among node leaders only") {
  const auto plan = allreduce_phases(Algorithm::Hierarchical, {16, 4}, 1e6);
  // Expectation: 3 intra-node gathers, one aggregated ring of 4 leaders, 3 broadcasts.
  REQUIRE(plan.size() == 7);
  CHECK(plan[3].steps == 6);
  // Expectation: the ring 0 -> 4 -> 8 -> 12 -> 0, one flow per leader.
  REQUIRE(plan[3].flows.size() == 4);
  for (const auto& f : plan[3].flows) {
    CHECK(f.src % 4 == 0);
    CHECK(f.dst == (f.src + 4) % 16);
    CHECK(f.bytes == doctest::Approx(2.0 * 3 / 4 * 1e6));
  }
  CHECK(allreduce_phases(Algorithm::Hierarchical, {8, 1}, 1e6) == allreduce_phases(Algorithm::Ring, {8, 1}, 1e6));
}

TEST_CASE("a parameter server with k servers moves B/k to and from each server") {
  const auto plan = allreduce_steps(Algorithm::ParameterServer, {8, 1}, 1e6, 2);
  REQUIRE(plan.size() == 2);
  // Expectation: servers are ranks 0 and 1; every other rank pushes each its half, 0.5 MB (7 in
  // to each server), then pulls it back: the mirror, 7 out of each server.
  for (int step = 0; step < 2; ++step) {
    CAPTURE(step);
    CHECK(plan[static_cast<std::size_t>(step)].flows.size() == 2 * 7);
    std::map<int, int> per_server;
    for (const auto& f : plan[static_cast<std::size_t>(step)].flows) {
      CHECK(f.bytes == 0.5e6);
      const int server = step == 0 ? f.dst : f.src, worker = step == 0 ? f.src : f.dst;
      CHECK(server < 2);
      CHECK(worker != server);
      ++per_server[server];
    }
    CHECK(per_server == std::map<int, int>{{0, 7}, {1, 7}});
  }
}

TEST_CASE("the rings, aggregated as they are built, are their exact steps with equal patterns merged") {
  // The other algorithms of `all` (not the pipelined trees, whose aggregated form is a steady
  // state) have merge_equal_patterns() of their exact steps for aggregated plans by construction
  // (collective_plan.cpp, allreduce()); the rings build theirs directly.
  for (Algorithm a : {Algorithm::Ring, Algorithm::Hierarchical})
    for (int n : {1, 2, 5, 8, 16, 64}) {
      CAPTURE(to_string(a));
      CAPTURE(n);
      const Group g{n, n % 4 == 0 ? 4 : 1, 2};
      const auto merged = merge_equal_patterns(allreduce_steps(a, g, 1e6, 2));
      const auto direct = allreduce_phases(a, g, 1e6, 2);
      REQUIRE(merged.size() == direct.size());
      for (std::size_t p = 0; p < merged.size(); ++p) {
        CHECK(merged[p].steps == direct[p].steps);
        REQUIRE(merged[p].flows.size() == direct[p].flows.size());
        for (std::size_t f = 0; f < merged[p].flows.size(); ++f) {
          CHECK(merged[p].flows[f].src == direct[p].flows[f].src);
          CHECK(merged[p].flows[f].bytes == doctest::Approx(direct[p].flows[f].bytes).epsilon(1e-12));
          CHECK(merged[p].flows[f].reduce_bytes == doctest::Approx(direct[p].flows[f].reduce_bytes).epsilon(1e-12));
        }
      }
    }
  CHECK(merge_equal_patterns(allgather_steps({9, 1}, 1e3)) == allgather_phases({9, 1}, 1e3));
}

TEST_CASE("merging equal patterns sums the bytes and steps of consecutive phases with the same pairs") {
  // The ring on 4 ranks: 6 steps (3 reducing, 3 copying) of rank i to rank i + 1, 250 kB each:
  // one phase of 6 steps, 1.5 MB a flow, of which 750 kB reduced.
  const auto merged = merge_equal_patterns(allreduce_steps(Algorithm::Ring, {4, 1}, 1e6, 1));
  REQUIRE(merged.size() == 1);
  CHECK(merged[0].steps == 6);
  REQUIRE(merged[0].flows.size() == 4);
  for (const auto& f : merged[0].flows) {
    CHECK(f.dst == (f.src + 1) % 4);
    CHECK(f.bytes == doctest::Approx(1.5e6).epsilon(1e-12));
    CHECK(f.reduce_bytes == doctest::Approx(0.75e6).epsilon(1e-12));
  }
  // Recursive doubling on 4 ranks: partners at distance 1, then 2: two patterns, not merged.
  const auto doubling = allreduce_steps(Algorithm::RecursiveDoubling, {4, 1}, 1e6, 1);
  CHECK(merge_equal_patterns(doubling) == doubling);
}

TEST_CASE("recursive doubling and Bruck gather every rank's block in log2 N steps") {
  // Recursive doubling on 8 ranks, 1 kB each: steps at distance 1, 2, 4 swapping 1, 2, 4 kB with
  // rank ^ distance. Bruck on 6 ranks: steps at distance 1, 2, 4 sending min(d, 6 - d) = 1, 2, 2
  // blocks to rank - d; each rank receives the 5 blocks it lacks. Nothing is reduced.
  const auto doubling = allgather_phases({.ranks = 8}, 1e3, Gather::RecursiveDoubling);
  REQUIRE(doubling.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    const int distance = 1 << k;
    REQUIRE(doubling[k].flows.size() == 8);
    for (const auto& f : doubling[k].flows) {
      CHECK(f.dst == (f.src ^ distance));
      CHECK(f.bytes == distance * 1e3);
      CHECK(f.reduce_bytes == 0);
    }
  }
  const auto bruck = allgather_steps({.ranks = 6}, 1e3, Gather::Bruck);
  REQUIRE(bruck.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    const int distance = 1 << k;
    for (const auto& f : bruck[k].flows) {
      CHECK(f.dst == (f.src - distance + 6) % 6);
      CHECK(f.bytes == std::min(distance, 6 - distance) * 1e3);
    }
  }
  const auto received = bytes_per_rank(bruck, &Flow::dst);
  CHECK(received.size() == 6);
  for (const auto& [rank, bytes] : received)
    CHECK(bytes == 5e3);
  CHECK(to_string(Gather::Bruck) == "bruck");
}

TEST_CASE("NCCL's rings side by side leave each node at a different rank, each with its share of the buffer") {
  // Expectation: 2 nodes of 4 ranks, 3 rings: ring j visits local ranks j, j+1, ... of each
  // node, so it crosses from node 0 to node 1 at rank 4 + j and back at rank j; every flow
  // carries 2(N-1)/N of B/3 aggregated; the exact plan has 2(N-1) steps of 3 N flows.
  const Group g{8, 4, 3};
  const auto phases = allreduce_phases(Algorithm::Ring, g, 3e6);
  REQUIRE(phases.size() == 1);
  CHECK(phases[0].steps == 14);
  REQUIRE(phases[0].flows.size() == 24);
  std::vector<std::pair<int, int>> crossings;
  for (const auto& f : phases[0].flows) {
    CHECK(f.bytes == doctest::Approx(2.0 * 7 / 8 * 1e6).epsilon(1e-12));
    if (f.src / 4 != f.dst / 4)
      crossings.emplace_back(f.src, f.dst);
  }
  CHECK(crossings == std::vector<std::pair<int, int>>{{3, 4}, {7, 0}, {0, 5}, {4, 1}, {1, 6}, {5, 2}});
  const auto steps = allreduce_steps(Algorithm::Ring, g, 3e6);
  CHECK(steps.size() == 14);
  CHECK(steps[0].flows.size() == 24);
  // More rings than ranks per node are the same rings: as many as ranks per node; one rank per
  // node: one ring.
  CHECK(allreduce_phases(Algorithm::Ring, {8, 4, 9}, 1e6)[0].flows.size() == 32);
  CHECK(allreduce_phases(Algorithm::Ring, {8, 1, 4}, 1e6)[0].flows.size() == 8);
}

TEST_CASE("the alpha-beta time of a ring is 2(N-1)/N B/bw + 2(N-1) alpha") {
  for (int n : {2, 3, 8, 64, 1024}) {
    CAPTURE(n);
    const double expected = 2.0 * (n - 1) / n * 100e6 / 12.5e9 + 2.0 * (n - 1) * 1.5e-6;
    CHECK(alpha_beta_seconds(allreduce_phases(Algorithm::Ring, {n, 1}, 100e6), 1.5e-6, 12.5e9) ==
          doctest::Approx(expected).epsilon(1e-12));
  }
  CHECK(allreduce_phases(Algorithm::Ring, {1, 1}, 100e6).empty());
}

TEST_CASE("algorithm names read back") {
  for (Algorithm a : all)
    CHECK(algorithm_from_string(to_string(a)) == a);
  for (Algorithm a : {Algorithm::PipelinedTree, Algorithm::PipelinedDoubleTree})
    CHECK(algorithm_from_string(to_string(a)) == a);
  CHECK_FALSE(algorithm_from_string("butterfly").has_value());
}

TEST_CASE("an aggregated ring is one phase of 2(N-1) steps, each rank sending 2(N-1)/N B to the next") {
  for (int n : {2, 3, 8, 64}) {
    CAPTURE(n);
    // Expectation: reduce-scatter and all-gather both send rank i -> i+1 at every step, so all
    // 2(N-1) steps merge into one phase of N flows of (N-1)/N B each way, twice.
    const auto plan = allreduce_phases(Algorithm::Ring, {n, 1}, 1e6);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].steps == 2 * (n - 1));
    REQUIRE(plan[0].flows.size() == static_cast<std::size_t>(n));
    for (const auto& f : plan[0].flows) {
      CHECK(f.dst == (f.src + 1) % n);
      CHECK(f.bytes == doctest::Approx(2.0 * (n - 1) / n * 1e6).epsilon(1e-12));
    }
  }
}

TEST_CASE("halving-doubling merges only its middle, where halving turns into doubling") {
  for (int n : {2, 4, 8, 64}) {
    CAPTURE(n);
    // Expectation: log2 N halving steps with partners r xor 2^k, then the doubling steps in
    // reverse order: only the last halving and the first doubling step share their partners,
    // so 2 log2 N - 1 phases, the middle one of 2 steps.
    const int k = static_cast<int>(std::log2(n));
    const auto plan = allreduce_phases(Algorithm::HalvingDoubling, {n, 1}, 1e6);
    REQUIRE(plan.size() == static_cast<std::size_t>(2 * k - 1));
    for (int p = 0; p < 2 * k - 1; ++p) {
      CAPTURE(p);
      CHECK(plan[static_cast<std::size_t>(p)].steps == (p == k - 1 ? 2 : 1));
      for (const auto& f : plan[static_cast<std::size_t>(p)].flows)
        CHECK(std::popcount(static_cast<unsigned>(f.src ^ f.dst)) == 1);
    }
  }
}

TEST_CASE("a pipelined tree sends every chunk up a chain and tree, then back down, as NCCL's primitives wait") {
  // 8 nodes of 2 ranks: the chain inside each node adds one level to the binary tree of the 8
  // node masters (depth 3): D = 4. 4 MB per tree in 512 KiB chunks: 8 chunks (the last smaller),
  // no halving (4 MB / 512 KiB >= 4 x 8 is false: halved to 128 KiB, 31 chunks, see NCCL's rule).
  const Group g{16, 2};
  for (bool two : {false, true}) {
    CAPTURE(two);
    const Algorithm a = two ? Algorithm::PipelinedDoubleTree : Algorithm::PipelinedTree;
    const double per_tree = two ? 4e6 : 8e6;
    const auto exact = allreduce_steps(a, g, 8e6);
    const auto aggregated = allreduce_phases(a, g, 8e6);
    REQUIRE(aggregated.size() == 2);
    const int chunks = aggregated[0].chunks;
    // Expectation: NCCL 2.4 halves 512 KiB while fewer than 8 chunks per level (D = 4): to
    // 128 KiB, below which the first rule stops; per_tree / 128 KiB chunks, rounded up.
    CHECK(chunks == static_cast<int>(std::ceil(per_tree / 131072)));
    // Aggregated: up, then down, each K + D - 1 rounds, an edge's first chunk in round D - d up
    // (d the depth of its lower end) and d - 1 down.
    CHECK(aggregated[0].steps == chunks + 4 - 1);
    CHECK(aggregated[1].steps == chunks + 4 - 1);
    for (std::size_t i = 0; i < aggregated[0].flows.size(); ++i) {
      const Flow& up = aggregated[0].flows[i];
      const Flow& down = aggregated[1].flows[i];
      CHECK((up.src == down.dst && up.dst == down.src));
      if (i >= 15) // the second tree's
        continue;
      if (up.src == 15 && up.dst == 14) // depth 4
        CHECK((aggregated[0].first_round[i] == 0 && aggregated[1].first_round[i] == 3));
      if (up.src == 14 && up.dst == 12) // node 7's master, depth 3 in NCCL's tree (7 -> 6 -> 4 -> 0)
        CHECK((aggregated[0].first_round[i] == 1 && aggregated[1].first_round[i] == 2));
    }
    // The exact plan is one dataflow phase: a flow per chunk per edge. Expectation: with every
    // chunk one unit of time and nothing shared, it takes 2 (K + D - 1) units: chunk K - 1
    // leaves the deepest rank at K - 1 and reaches the root at K + D - 1, and the root's first
    // chunk down then takes D units to the deepest, its last K - 1 more. Every flow waits only
    // for flows that can run before it (the longest chain, in an order where each flow comes
    // after what it waits for, to arrive or to have sent: Kahn's).
    REQUIRE(exact.size() == 1);
    REQUIRE(exact[0].after.size() == exact[0].flows.size());
    REQUIRE(exact[0].after_sent.size() == exact[0].flows.size());
    std::vector<std::vector<int>> after = exact[0].after;
    for (std::size_t i = 0; i < after.size(); ++i)
      after[i].insert(after[i].end(), exact[0].after_sent[i].begin(), exact[0].after_sent[i].end());
    CHECK(exact[0].flows.size() == static_cast<std::size_t>((two ? 2 : 1) * 2 * 15 * chunks));
    std::vector<int> waiting(after.size()), longest(after.size(), 1);
    std::vector<std::vector<int>> next(after.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      waiting[i] = static_cast<int>(after[i].size());
      for (int w : after[i])
        next[static_cast<std::size_t>(w)].push_back(static_cast<int>(i));
    }
    std::vector<int> ready;
    for (std::size_t i = 0; i < after.size(); ++i)
      if (waiting[i] == 0)
        ready.push_back(static_cast<int>(i));
    std::size_t ran = 0;
    int chain = 0;
    while (!ready.empty()) {
      const int i = ready.back();
      ready.pop_back();
      ++ran;
      chain = std::max(chain, longest[static_cast<std::size_t>(i)]);
      for (int n : next[static_cast<std::size_t>(i)]) {
        longest[static_cast<std::size_t>(n)] = std::max(longest[static_cast<std::size_t>(n)], longest[static_cast<std::size_t>(i)] + 1);
        if (--waiting[static_cast<std::size_t>(n)] == 0)
          ready.push_back(n);
      }
    }
    CHECK(ran == after.size());
    CHECK(chain == 2 * (chunks + 4 - 1));
    // Every rank but a root sends its share up once and receives it down once, per tree.
    std::map<std::pair<int, int>, double> edge_bytes;
    for (const auto& p : exact)
      for (const auto& f : p.flows)
        edge_bytes[{f.src, f.dst}] += f.bytes;
    std::map<std::pair<int, int>, double> aggregated_bytes;
    for (const auto& p : aggregated)
      for (const auto& f : p.flows)
        aggregated_bytes[{f.src, f.dst}] += f.bytes;
    CHECK(edge_bytes.size() == aggregated_bytes.size());
    for (const auto& [edge, bytes] : edge_bytes)
      CHECK(bytes == doctest::Approx(aggregated_bytes[edge]).epsilon(1e-12));
    const std::size_t trees = two ? 2 : 1;
    // 15 non-root ranks per tree, up and down
    CHECK(aggregated[0].flows.size() + aggregated[1].flows.size() == trees * 2 * 15);
    // A leaf's first chunk up waits for nothing (the chain's last rank of node 7, depth 4, sends
    // at once), its node's master's (depth 3) for that chunk.
    // (node 7's master, rank 14, sends up NCCL's tree to node 6's, rank 12.)
    int deepest_first = 0, master_first = 0;
    for (std::size_t i = 0; i < exact[0].flows.size() / static_cast<std::size_t>(chunks); ++i) { // chunk 0
      const Flow& f = exact[0].flows[i];
      if (f.src == 15 && f.dst == 14)
        deepest_first += after[i].empty();
      if (f.src == 14 && f.dst == 12 && exact[0].stream[i] == 0) // the first tree's way up
        master_first += !after[i].empty();
    }
    CHECK(deepest_first == (two ? 2 : 1)); // both trees run the chain of node 7
    CHECK(master_first == 1);
    // What chunk 8 waits for, the first to find a FIFO full (8 chunks), in NCCL's tree of the
    // node masters (node 0 the root, its one child node 4; node 4's children nodes 2 and 6, theirs
    // 1, 3 and 5, 7): rank 0 the root, its children 1 (its chain) and 8; rank 8 the parent of 9,
    // 4 and 12; rank 12 of 13, 10 and 14:
    const std::size_t per_chunk = exact[0].flows.size() / static_cast<std::size_t>(chunks);
    const auto id = [&](int src, int dst, int j) { // the first tree's flow of chunk j on src -> dst
      for (std::size_t i = per_chunk * static_cast<std::size_t>(j); i < per_chunk * static_cast<std::size_t>(j + 1); ++i)
        if (exact[0].flows[i].src == src && exact[0].flows[i].dst == dst)
          return static_cast<int>(i);
      return -1;
    };
    const auto waits = [&](int flow) {
      const auto& w = after[static_cast<std::size_t>(flow)];
      return std::set<int>(w.begin(), w.end());
    };
    // 15 -> 14 (a leaf, no children): chunk 7 sent, and 14 has sent chunk 0 on up.
    CHECK(waits(id(15, 14, 8)) == std::set<int>{id(15, 14, 7), id(14, 12, 0)});
    // 8 -> 0: 8's children's chunk 8 (9, and 4 and 12, the masters of nodes 2 and 6), chunk 7,
    // and the root has reduced chunk 0 (from 1 and 8).
    CHECK(waits(id(8, 0, 8)) ==
          std::set<int>{id(9, 8, 8), id(4, 8, 8), id(12, 8, 8), id(8, 0, 7), id(1, 0, 0), id(8, 0, 0)});
    // 0 -> 8 down: chunk 0 once the root has every chunk (the last from each child); chunk 8,
    // sent to the root's children 1 and 8 at once, after chunk 7 to each, once each has sent
    // chunk 0 on to its own (8 to 9, 4 and 12; 1 has none).
    CHECK(waits(id(0, 8, 0)) == std::set<int>{id(1, 0, chunks - 1), id(8, 0, chunks - 1)});
    CHECK(waits(id(0, 8, 8)) == std::set<int>{id(0, 1, 7), id(0, 8, 7), id(8, 9, 0), id(8, 4, 0), id(8, 12, 0)});
    // Of these, a sender's own earlier sends are waited for until their bytes are out, the rest
    // until they arrive: the root's reduction of chunk 0 needs 2's own chunk 0 there.
    const auto sent_waits = [&](int flow) {
      const auto& w = exact[0].after_sent[static_cast<std::size_t>(flow)];
      return std::set<int>(w.begin(), w.end());
    };
    CHECK(sent_waits(id(15, 14, 8)) == std::set<int>{id(15, 14, 7)});
    CHECK(sent_waits(id(8, 0, 8)) == std::set<int>{id(8, 0, 7)});
    CHECK(sent_waits(id(0, 8, 8)) == std::set<int>{id(0, 1, 7), id(0, 8, 7)});
    // A rank sends a chunk down to all its children as one (NCCL's one call to every child), up
    // to its one parent alone; every chunk names its pipeline, a tree's way up or down.
    // Expectation: chunk 8 from the root to 1 and 8 one group, led by the first of them;
    // 8 -> 0 alone; the first tree's flows up in pipeline 0, down in 1, the second (shifted) tree's
    // in 2 and 3 (node 7's chain, 14 and 15, in both trees: 15 -> 14 up, 14 -> 15 down).
    REQUIRE(exact[0].sent_with.size() == exact[0].flows.size());
    REQUIRE(exact[0].stream.size() == exact[0].flows.size());
    const auto with = [&](int flow) { return exact[0].sent_with[static_cast<std::size_t>(flow)]; };
    CHECK(with(id(0, 1, 8)) == id(0, 1, 8));
    CHECK(with(id(0, 8, 8)) == id(0, 1, 8));
    CHECK(with(id(8, 0, 8)) == id(8, 0, 8));
    CHECK(with(id(14, 15, 8)) == id(14, 15, 8)); // 14 has one child, the chain's last rank
    const auto stream = [&](int flow) { return exact[0].stream[static_cast<std::size_t>(flow)]; };
    CHECK(stream(id(8, 0, 8)) == 0);
    CHECK(stream(id(0, 8, 8)) == 1);
    std::multiset<int> on_chain; // the pipelines of chunk 8 between 14 and 15, a down one odd
    for (std::size_t i = per_chunk * 8; i < per_chunk * 9; ++i) {
      const Flow& f = exact[0].flows[i];
      if ((f.src == 15 && f.dst == 14) || (f.src == 14 && f.dst == 15)) {
        on_chain.insert(stream(static_cast<int>(i)));
        CHECK(stream(static_cast<int>(i)) % 2 == (f.src == 14 ? 1 : 0));
      }
    }
    CHECK(on_chain == (two ? std::multiset<int>{0, 1, 2, 3} : std::multiset<int>{0, 1}));
    std::set<int> streams(exact[0].stream.begin(), exact[0].stream.end());
    CHECK(streams == (two ? std::set<int>{0, 1, 2, 3} : std::set<int>{0, 1}));
  }
}

TEST_CASE("NCCL 2.7's LL128 trees stream up and down at once: the root sends each chunk down once reduced") {
  // The tree of the test above (D = 4), its block split in two (all_reduce.h,
  // ncclAllReduceTreeLL128Kernel). Expectation: one pipelined phase of K + 2D - 1 rounds, each
  // edge down from a rank at depth d - 1 first in round D + d - 1; exactly, the root's chunk 0 to
  // rank 8 waits for chunk 0 from each child, not their last.
  const Group g{.ranks = 16, .ranks_per_node = 2, .trees_up_and_down_together = true};
  const auto aggregated = allreduce_phases(Algorithm::PipelinedTree, g, 8e6);
  REQUIRE(aggregated.size() == 1);
  const int chunks = aggregated[0].chunks;
  CHECK(aggregated[0].steps == chunks + 2 * 4 - 1);
  CHECK(aggregated[0].flows.size() == 2 * 15u);
  for (std::size_t i = 0; i < aggregated[0].flows.size(); ++i)
    if (aggregated[0].flows[i].src == 14 && aggregated[0].flows[i].dst == 15) // down to depth 4
      CHECK(aggregated[0].first_round[i] == 4 + 4 - 1);
  const auto exact = allreduce_steps(Algorithm::PipelinedTree, g, 8e6);
  const auto& flows = exact[0].flows;
  const auto id = [&](int src, int dst) { // chunk 0's flow
    for (std::size_t i = 0; i < flows.size() / static_cast<std::size_t>(chunks); ++i)
      if (flows[i].src == src && flows[i].dst == dst)
        return static_cast<int>(i);
    return -1;
  };
  const auto& w = exact[0].after[static_cast<std::size_t>(id(0, 8))];
  CHECK(std::set<int>(w.begin(), w.end()) == std::set<int>{id(1, 0), id(8, 0)});
}

TEST_CASE("each NCCL channel's tree enters the node where its ring does, both trees on each ring where NCCL copies the rings") {
  // 2 nodes of 4 ranks, 2 channels, 8 MB (NCCL 2.4.8 setupChannel). Channel 0's chain starts at
  // local rank 0 (1 -> 0, 2 -> 1, 3 -> 2, and 5 -> 4, 6 -> 5, 7 -> 6), channel 1's at local
  // rank 1 (2 -> 1, 3 -> 2, 0 -> 3, and 6 -> 5, 7 -> 6, 4 -> 7). Across the nodes the heap-order
  // tree has node 0 the root (4 -> 0 on channel 0, 5 -> 1 on channel 1), its mirror node 1
  // (0 -> 4, 1 -> 5). Expectation, up edges: without copied rings channel 0 takes the first
  // tree and channel 1 the mirror, each with half the buffer; with them, each channel takes both
  // trees, each tree a quarter.
  const std::map<std::pair<int, int>, double> halves{
      {{1, 0}, 4e6}, {{2, 1}, 8e6}, {{3, 2}, 8e6}, {{4, 0}, 4e6}, {{5, 4}, 4e6}, {{6, 5}, 8e6}, {{7, 6}, 8e6},
      {{0, 3}, 4e6}, {{1, 5}, 4e6}, {{4, 7}, 4e6}};
  const std::map<std::pair<int, int>, double> quarters{
      {{1, 0}, 4e6}, {{2, 1}, 8e6}, {{3, 2}, 8e6}, {{5, 4}, 4e6}, {{6, 5}, 8e6}, {{7, 6}, 8e6}, {{0, 3}, 4e6},
      {{4, 7}, 4e6}, {{4, 0}, 2e6}, {{0, 4}, 2e6}, {{5, 1}, 2e6}, {{1, 5}, 2e6}};
  for (bool duplicated : {false, true}) {
    CAPTURE(duplicated);
    const Group g{.ranks = 8, .ranks_per_node = 4, .rings = 2, .both_trees_on_each_ring = duplicated};
    const auto plan = allreduce_phases(Algorithm::PipelinedDoubleTree, g, 8e6);
    REQUIRE(plan.size() == 2); // up, then down
    std::map<std::pair<int, int>, double> up;
    for (const auto& f : plan[0].flows) {
      CHECK(f.reduce_bytes == f.bytes);
      up[{f.src, f.dst}] += f.bytes;
    }
    CHECK(up == (duplicated ? quarters : halves));
    CHECK(plan[0].flows.size() == (duplicated ? 4u : 2u) * 7); // per tree, 7 non-root ranks
    CHECK(plan[1].flows.size() == plan[0].flows.size());
  }
}

TEST_CASE("NCCL 2.4 on a lone channel runs the first tree alone, with the whole buffer") {
  // 4 nodes of one rank, one ring, not run as two channels (one NIC, no NVLink, not Kepler):
  // setupChannel gives channel 0 < DIVUP(1, 2) the first tree. Expectation: 3 flows up of the
  // whole 8 MB (ncclGetBtree on 4 nodes: 2 -> 0, 1 -> 2, 3 -> 2), where the double tree as an
  // algorithm of its own runs both trees, 6 flows of 4 MB.
  const Group lone{.ranks = 4, .ranks_per_node = 1, .rings = 1, .both_trees_on_each_ring = false};
  const auto one = allreduce_phases(Algorithm::PipelinedDoubleTree, lone, 8e6);
  REQUIRE(one.size() == 2);
  std::set<std::pair<int, int>> up;
  for (const auto& f : one[0].flows) {
    CHECK(f.bytes == 8e6);
    up.insert({f.src, f.dst});
  }
  CHECK(up == std::set<std::pair<int, int>>{{2, 0}, {1, 2}, {3, 2}});
  const auto both = allreduce_phases(Algorithm::PipelinedDoubleTree, {.ranks = 4, .ranks_per_node = 1}, 8e6);
  REQUIRE(both.size() == 2);
  CHECK(both[0].flows.size() == 6);
  for (const auto& f : both[0].flows)
    CHECK(f.bytes == 4e6);
}

TEST_CASE("a last node with fewer ranks chains them from its channel's rank, and every rank but a tree's root sends up once") {
  // 10 ranks, 4 per node (the last node holds ranks 8 and 9), 3 channels, one tree each.
  // Expectation: 3 x 9 flows up and as many down; every rank sends up once per tree but channel
  // c's root, local rank c of node 0 (ranks 0, 1, 2); on the last node channel 2's chain starts
  // at its local rank 2 mod 2 = 0: rank 9 sends to rank 8, which sends to node 0's rank 2.
  const auto plan = allreduce_phases(Algorithm::PipelinedTree, {.ranks = 10, .ranks_per_node = 4, .rings = 3}, 3e6);
  REQUIRE(plan.size() == 2); // up, then down
  std::map<int, int> up_from;
  std::set<std::pair<int, int>> up;
  for (const auto& f : plan[0].flows) {
    CHECK(f.reduce_bytes > 0);
    ++up_from[f.src];
    up.insert({f.src, f.dst});
    CHECK(f.bytes == 1e6);
  }
  CHECK(plan[1].flows.size() == 27);
  for (int r = 0; r < 10; ++r)
    CHECK(up_from[r] == (r < 3 ? 2 : 3));
  CHECK(up.count({9, 8}) == 1);
  CHECK(up.count({8, 2}) == 1);
}

TEST_CASE("workers that aggregate locally reduce inside the node, exchange with the servers among nodes, then broadcast") {
  // 3 nodes of 4 ranks, servers on nodes 0 and 1 holding 30 and 10 of 40 bytes. Expectation:
  // 3 reduce steps inside the nodes (ranks 1, 2, 3 of each node to its first), the push of the
  // other nodes' first ranks to each server (node 1 -> node 0 with 30, nodes 0, 2 -> node 1 with
  // 10, node 2 -> node 0 with 30), the mirror pull, 3 broadcast steps.
  const auto plan = node_parameter_server_phases({12, 4}, 40, {30, 10});
  REQUIRE(plan.size() == 3 + 2 + 3);
  CHECK(plan[0].flows == std::vector<Flow>{{1, 0, 40, 40}, {5, 4, 40, 40}, {9, 8, 40, 40}});
  CHECK(plan[3].flows == std::vector<Flow>{{0, 4, 10, 10}, {4, 0, 30, 30}, {8, 0, 30, 30}, {8, 4, 10, 10}});
  CHECK(plan[4].flows.size() == 4);
  CHECK(plan.back().flows == std::vector<Flow>{{0, 1, 40, 0}, {4, 5, 40, 0}, {8, 9, 40, 0}});
}

TEST_CASE("hierarchical halving-doubling runs MPICH's reduce and broadcast inside the nodes, Rabenseifner among them") {
  // 4 nodes of 8 ranks, B = 1 MB (over MPICH's 2048-byte reduce and 524,288-byte broadcast
  // thresholds). Expectation, MPICH 3.2 reduce.c and bcast.c: inside each node a reduce-scatter
  // by recursive halving (distance 1, 2, 4: B/2, B/4, B/8, reduced) and a binomial gather to the
  // root (distance 4, 2, 1: B/8, B/4, B/2 from each sender), 6 steps; halving-doubling over ranks
  // 0, 8, 16, 24 (2 log2 4 = 4 steps, B/2 to the nearest first); then a binomial scatter from the
  // root (distance 4, 2, 1: B/2, B/4, B/8) and a ring all-gather of B/8 (7 steps).
  const auto plan = allreduce_steps(Algorithm::HierarchicalHalvingDoubling, {32, 8}, 1e6);
  REQUIRE(plan.size() == 6 + 4 + 3 + 7);
  CHECK(plan[0].flows.size() == 32);
  CHECK(plan[0].flows.front() == Flow{0, 1, 0.5e6, 0.5e6});
  CHECK(plan[2].flows.front() == Flow{0, 4, 0.125e6, 0.125e6});
  CHECK(plan[3].flows == std::vector<Flow>{{4, 0, 0.125e6, 0}, {5, 1, 0.125e6, 0}, {6, 2, 0.125e6, 0}, {7, 3, 0.125e6, 0},
                                           {12, 8, 0.125e6, 0}, {13, 9, 0.125e6, 0}, {14, 10, 0.125e6, 0}, {15, 11, 0.125e6, 0},
                                           {20, 16, 0.125e6, 0}, {21, 17, 0.125e6, 0}, {22, 18, 0.125e6, 0}, {23, 19, 0.125e6, 0},
                                           {28, 24, 0.125e6, 0}, {29, 25, 0.125e6, 0}, {30, 26, 0.125e6, 0}, {31, 27, 0.125e6, 0}});
  CHECK(plan[5].flows.front() == Flow{1, 0, 0.5e6, 0});
  CHECK(plan[6].flows.front() == Flow{0, 8, 0.5e6, 0.5e6});
  for (std::size_t p = 6; p < 10; ++p)
    for (const auto& f : plan[p].flows)
      CHECK((f.src % 8 == 0 && f.dst % 8 == 0));
  CHECK(plan[10].flows.front() == Flow{0, 4, 0.5e6, 0});
  CHECK(plan[12].flows.front() == Flow{0, 1, 0.125e6, 0});
  CHECK(plan[12].flows.size() == 4 * 4);
  for (std::size_t p = 13; p < plan.size(); ++p) {
    CHECK(plan[p].flows.size() == 32);
    CHECK(plan[p].flows.front() == Flow{0, 1, 0.125e6, 0});
  }
  // Into each node's root over the reduce: B (1 - 1/8) by the gather, B (1 - 1/8) reduced by the
  // reduce-scatter (Rabenseifner's halves).
  double gathered = 0;
  for (std::size_t p = 3; p < 6; ++p)
    for (const auto& f : plan[p].flows)
      gathered += f.dst == 0 ? f.bytes : 0.0;
  CHECK(gathered == doctest::Approx(1e6 * 7 / 8));
}

TEST_CASE("MPICH's node reduce and broadcast go by binomial trees for fp16, small messages and small nodes") {
  // Expectation: an fp16 sum (not built in) reduces by the binomial tree, whole buffer: ranks 1, 3
  // -> 0, 2 at mask 1, rank 2 -> 0 at mask 2; a node of 4 ranks (below MPIR_CVAR_BCAST_MIN_PROCS, 8)
  // broadcasts by the mirror tree; among the 2 nodes' roots, 2 halving-doubling steps.
  const Group fp16{.ranks = 8, .ranks_per_node = 4, .builtin_sum = false};
  const auto plan = allreduce_steps(Algorithm::HierarchicalHalvingDoubling, fp16, 1e6);
  REQUIRE(plan.size() == 2 + 2 + 2);
  CHECK(plan[0].flows == std::vector<Flow>{{1, 0, 1e6, 1e6}, {3, 2, 1e6, 1e6}, {5, 4, 1e6, 1e6}, {7, 6, 1e6, 1e6}});
  CHECK(plan[1].flows == std::vector<Flow>{{2, 0, 1e6, 1e6}, {6, 4, 1e6, 1e6}});
  CHECK(plan[4].flows == std::vector<Flow>{{0, 2, 1e6, 0}, {4, 6, 1e6, 0}});
  CHECK(plan[5].flows == std::vector<Flow>{{0, 1, 1e6, 0}, {2, 3, 1e6, 0}, {4, 5, 1e6, 0}, {6, 7, 1e6, 0}});
  // 2048 bytes or less: the binomial tree, built-in sum or not.
  const auto small = allreduce_steps(Algorithm::HierarchicalHalvingDoubling, {16, 8}, 2048);
  CHECK(small.front().flows.front() == Flow{1, 0, 2048, 2048});
}

TEST_CASE("MPICH's node broadcast changes at 12,288 bytes, 8 ranks and 524,288 bytes on a power of two") {
  // Expectation, MPICH 3.2 bcast.c (MPIR_CVAR_BCAST_SHORT_MSG_SIZE 12288, MIN_PROCS 8,
  // LONG_MSG_SIZE 524288, all strict): 2 nodes of 8 ranks, above the 2048-byte reduce limit, so
  // the reduce is 3 halving steps and 3 gather steps, and 2 halving-doubling steps join the two
  // roots; the broadcast is then a binomial tree (3 steps) below 12,288 bytes, a binomial scatter
  // (3) and a recursive-doubling all-gather (3) below 524,288, a scatter and a ring all-gather (7)
  // from 524,288 on; a node of 7 ranks (below 8) broadcasts by the binomial tree at any size.
  const auto steps = [](Group g, double bytes) { return allreduce_steps(Algorithm::HierarchicalHalvingDoubling, g, bytes).size(); };
  CHECK(steps({16, 8}, 12287) == 6 + 2 + 3);
  CHECK(steps({16, 8}, 12288) == 6 + 2 + 6);
  CHECK(steps({16, 8}, 524287) == 6 + 2 + 6);
  CHECK(steps({16, 8}, 524288) == 6 + 2 + 10);
  // 7 ranks a node, 1 MB: the broadcast, the plan's last ceil(log2 7) = 3 steps, is the binomial
  // tree, which sends the whole buffer on every step (a scatter would send parts of it).
  const auto seven = allreduce_steps(Algorithm::HierarchicalHalvingDoubling, {14, 7}, 1e6);
  for (std::size_t p = seven.size() - 3; p < seven.size(); ++p)
    for (const auto& f : seven[p].flows)
      CHECK(f.bytes == 1e6);
}

TEST_CASE("a tree's Simple chunk halves while its share holds fewer whole chunks than NCCL's rule asks") {
  // Expectation: src/enqueue.cc, chunkSize halved while nBytes / (nChannels x chunkSize), an
  // integer quotient, is below depth x 8 and chunkSize > 131072; x 4 and > 65536; x 1 and > 32768.
  const TreeChunks simple{.step_bytes = 524288, .depth = 1};
  CHECK(simple.chunk_bytes(524288 * 8.5, 9) == 524288); // 8 whole chunks: not below 8
  CHECK(simple.chunk_bytes(524288 * 7.9, 9) == 262144); // 7 < 8, then 15
  // Without a depth of NCCL's, the trees' deepest rank counts: 9 levels. 8 < 72, 17 < 72, 34 < 72
  // but 128 KiB is the first floor; 34 < 36, to 64 KiB: 68 chunks, enough for both rules left.
  CHECK(TreeChunks{.step_bytes = 524288}.chunk_bytes(524288 * 8.5, 9) == 65536);
  // A step that is not a power of two halves while above each floor, as NCCL compares:
  // 250,000 -> 125,000 (not above 131,072), -> 62,500 (not above 65,536), -> 31,250.
  CHECK(TreeChunks{.step_bytes = 250000, .depth = 100}.chunk_bytes(1e6, 1) == 31250);
}

TEST_CASE("a pipelined tree's chunks count as its chunking cuts the share: an LL step whatever the share") {
  // Expectation: 4 ranks on 4 nodes, one tree carrying 100 kB: in 16 KiB steps, ceil(100,000 /
  // 16,384) = 7 chunks; in the default Simple chunking (the tree's deepest rank at depth 2: 16, 8
  // and 2 chunks wanted), 512 KiB halved to 128 KiB by the first rule (the share holds none), to
  // 64 KiB by the second (0 < 8), to 32 KiB by the last (1 < 2), where 3 >= 2 stops it: 4 chunks.
  const Group g{.ranks = 4, .ranks_per_node = 1};
  const TreeChunks ll{.rule = TreeChunks::Rule::Step, .step_bytes = 16384};
  CHECK(allreduce_phases(Algorithm::PipelinedTree, g, 1e5, 1, ll)[0].chunks == 7);
  CHECK(allreduce_steps(Algorithm::PipelinedTree, g, 1e5, 1, ll)[0].flows.size() == 2 * 3 * 7);
  CHECK(allreduce_phases(Algorithm::PipelinedTree, g, 1e5)[0].chunks == static_cast<int>(std::ceil(1e5 / 32768)));
}
