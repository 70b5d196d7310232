// Plans of each algorithm; formulas name their source in comments.
#include "collectives/collective_plan.hpp"

#include "support/enum_names.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>

namespace ceiling::collectives {
namespace {

constexpr support::EnumNames<Algorithm, 11> names{{{
    {Algorithm::Ring, "ring"},
    {Algorithm::HalvingDoubling, "halving-doubling"},
    {Algorithm::RecursiveDoubling, "recursive-doubling"},
    {Algorithm::BinaryTree, "binary-tree"},
    {Algorithm::DoubleBinaryTree, "double-binary-tree"},
    {Algorithm::Hierarchical, "hierarchical"},
    {Algorithm::HierarchicalHalvingDoubling, "hierarchical-halving-doubling"},
    {Algorithm::HierarchicalRecursiveDoubling, "hierarchical-recursive-doubling"},
    {Algorithm::ParameterServer, "parameter-server"},
    {Algorithm::PipelinedTree, "pipelined-tree"},
    {Algorithm::PipelinedDoubleTree, "pipelined-double-tree"},
}}};

constexpr support::EnumNames<Gather, 3> gather_names{{{
    {Gather::Ring, "ring"},
    {Gather::RecursiveDoubling, "recursive-doubling"},
    {Gather::Bruck, "bruck"},
}}};

/// Whether the receiver of a step combines what arrives into its buffer.
enum class Combine : bool { Copy, Reduce };

Flow flow(int src, int dst, double bytes, Combine combine) {
  return {src, dst, bytes, combine == Combine::Reduce ? bytes : 0.0};
}

Phase ring_step(const std::vector<int>& members, double bytes, Combine combine) {
  Phase p;
  const auto n = members.size();
  for (std::size_t i = 0; i < n; ++i)
    p.flows.push_back(flow(members[i], members[(i + 1) % n], bytes, combine));
  return p;
}

std::vector<int> iota(int n, int stride = 1) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    v.push_back(i * stride);
  return v;
}

/// `rounds` ring steps of `step_bytes` over `members`, or aggregated, one phase carrying them all.
void ring_rounds(std::vector<Phase>& plan, const std::vector<int>& members, int rounds, double step_bytes,
                 Combine combine, bool aggregate) {
  if (members.size() < 2)
    return;
  if (aggregate) {
    Phase p = ring_step(members, rounds * step_bytes, combine);
    p.steps = rounds;
    plan.push_back(std::move(p));
    return;
  }
  for (int s = 0; s < rounds; ++s)
    plan.push_back(ring_step(members, step_bytes, combine));
}

/// Ring all-reduce over `members` (Patarasuk and Yuan 2009): n-1 reduce-scatter steps of B/n,
/// each reducing what arrives, then n-1 all-gather steps of B/n. Aggregated, each is one phase
/// and allreduce() merges the two (same pattern): 2(n-1) steps that reduce (n-1)/n B.
void ring(std::vector<Phase>& plan, const std::vector<int>& members, double bytes, bool aggregate) {
  const int n = static_cast<int>(members.size());
  ring_rounds(plan, members, n - 1, bytes / n, Combine::Reduce, aggregate);
  ring_rounds(plan, members, n - 1, bytes / n, Combine::Copy, aggregate);
}

/// Rings side by side over all ranks (Group::rings, NCCL's channels), each carrying its share
/// of the buffer and visiting every node's ranks from its own local rank on: their steps run
/// together, one phase per step with every ring's flows.
void rings(std::vector<Phase>& plan, Group g, double bytes, bool aggregate) {
  const int per_node = std::max(1, g.ranks_per_node);
  const int count = std::clamp(g.rings, 1, per_node);
  // On one node every rotation is the same cycle: one ring.
  if (count == 1 || g.ranks <= per_node) {
    ring(plan, iota(g.ranks), bytes, aggregate);
    return;
  }
  assert(g.ranks % per_node == 0 && "rings: every node has ranks_per_node ranks");
  std::vector<std::vector<Phase>> each(static_cast<std::size_t>(count));
  for (int j = 0; j < count; ++j) {
    std::vector<int> members;
    for (int node = 0; node < g.ranks / per_node; ++node)
      for (int l = 0; l < per_node; ++l)
        members.push_back(node * per_node + (j + l) % per_node);
    ring(each[static_cast<std::size_t>(j)], members, bytes / count, aggregate);
  }
  for (std::size_t step = 0; step < each.front().size(); ++step) {
    Phase p = std::move(each.front()[step]);
    for (std::size_t j = 1; j < each.size(); ++j)
      for (Flow& f : each[j][step].flows)
        p.flows.push_back(f);
    plan.push_back(std::move(p));
  }
}

/// The same flows the other way, copied: a broadcast mirroring a reduce, a pull mirroring a
/// push, the doubling mirroring the halving.
Phase reversed(const Phase& p) {
  Phase back;
  back.flows.reserve(p.flows.size());
  for (const Flow& f : p.flows)
    back.flows.push_back(flow(f.dst, f.src, f.bytes, Combine::Copy));
  return back;
}

/// The power-of-two core of MPICH's all-reduces (MPICH 3.2 src/mpi/coll/allreduce.c,
/// MPIR_Allreduce_intra): with n = p + r ranks, p the largest power of two, the first 2r ranks
/// fold in pairs before the algorithm (the even rank sends its whole buffer to rank + 1, which
/// reduces it) and unfold after (the odd rank sends the result back); the core runs on the odd
/// ranks of the pairs and on ranks 2r..n-1. Returns the core's members, in order.
std::vector<int> fold_in(std::vector<Phase>& plan, int n, double bytes, Phase& unfold) {
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  const int r = n - p;
  std::vector<int> member;
  Phase fold;
  for (int i = 0; i < r; ++i) {
    member.push_back(2 * i + 1);
    fold.flows.push_back(flow(2 * i, 2 * i + 1, bytes, Combine::Reduce));
  }
  for (int i = 2 * r; i < n; ++i)
    member.push_back(i);
  if (r > 0) {
    plan.push_back(fold);
    unfold = reversed(fold);
  }
  return member;
}

/// A reduce-scatter by recursive halving over `member` (a power of two of them): partners at
/// distance 1, 2, 4, ... exchange half, a quarter, ... of `bytes`, each reducing what arrives
/// (MPICH 3.2 allreduce.c and reduce.c, `mask` from 0x1 up).
std::vector<Phase> recursive_halving(const std::vector<int>& member, double bytes) {
  const int p = static_cast<int>(member.size());
  std::vector<Phase> halving;
  double chunk = bytes;
  for (int distance = 1; distance < p; distance *= 2) {
    chunk /= 2;
    Phase step;
    for (int i = 0; i < p; ++i)
      step.flows.push_back(flow(member[i], member[i ^ distance], chunk, Combine::Reduce));
    halving.push_back(std::move(step));
  }
  return halving;
}

/// Rabenseifner (Thakur, Rabenseifner and Gropp 2005; MPICH's long-message all-reduce): for a
/// power of two p, log2 p halving steps (partner at distance 1, 2, 4, ..., bytes B/2, B/4, ...,
/// each reducing what arrives) then the mirror doubling steps, an all-gather: the largest halves
/// go to the nearest partners, as MPICH 3.2's reduce-scatter (src/mpi/coll/allreduce.c: `mask`
/// from 0x1 up) and Gloo's (allreduce_halving_doubling.h, 2017: bitmask 1 first) send them.
/// Other counts fold.
void halving_doubling(std::vector<Phase>& plan, int n, double bytes) {
  if (n < 2)
    return;
  Phase unfold;
  const std::vector<Phase> halving = recursive_halving(fold_in(plan, n, bytes, unfold), bytes);
  plan.insert(plan.end(), halving.begin(), halving.end());
  // Doubling: the halving steps' exchanges in reverse order, copying what arrives.
  for (auto it = halving.rbegin(); it != halving.rend(); ++it) {
    Phase step = *it;
    for (Flow& f : step.flows)
      f.reduce_bytes = 0;
    plan.push_back(std::move(step));
  }
  if (!unfold.flows.empty())
    plan.push_back(unfold);
}

/// Recursive doubling (MPICH's short-message all-reduce, same file): log2 p steps in which
/// partners at distance 1, 2, 4, ... exchange and reduce their whole buffer. Other counts fold.
void recursive_doubling(std::vector<Phase>& plan, int n, double bytes) {
  if (n < 2)
    return;
  Phase unfold;
  const std::vector<int> member = fold_in(plan, n, bytes, unfold);
  const int p = static_cast<int>(member.size());
  for (int distance = 1; distance < p; distance *= 2) {
    Phase step;
    for (int i = 0; i < p; ++i)
      step.flows.push_back(flow(member[i], member[i ^ distance], bytes, Combine::Reduce));
    plan.push_back(step);
  }
  if (!unfold.flows.empty())
    plan.push_back(unfold);
}

/// Binary tree over positions 0..n-1 (parent of k is (k-1)/2), ranks mapped by `rank_of`:
/// reduce level by level from the leaves (left children, then right children, so that a parent
/// receives one flow at a time), then broadcast in the mirror order.
void binary_tree(std::vector<Phase>& steps, int n, double bytes, auto rank_of) {
  int depth = 0;
  while ((1 << (depth + 1)) - 1 < n)
    ++depth; // positions at depth d are 2^d - 1 .. 2^(d+1) - 2
  std::vector<Phase> reduce;
  for (int d = depth; d >= 1; --d)
    for (int side : {1, 2}) { // left child = 2k+1, right child = 2k+2
      Phase step;
      for (int k = (1 << d) - 1; k < std::min(n, (1 << (d + 1)) - 1); ++k)
        if ((k - 1) % 2 == side - 1)
          step.flows.push_back(flow(rank_of(k), rank_of((k - 1) / 2), bytes, Combine::Reduce));
      if (!step.flows.empty())
        reduce.push_back(step);
    }
  steps.insert(steps.end(), reduce.begin(), reduce.end());
  for (auto it = reduce.rbegin(); it != reduce.rend(); ++it)
    steps.push_back(reversed(*it));
}

void trees(std::vector<Phase>& plan, int n, double bytes, bool two) {
  if (n < 2)
    return;
  if (!two) {
    binary_tree(plan, n, bytes, [](int k) { return k; });
    return;
  }
  // Double binary tree (Sanders, Speck and Träff 2009; NCCL 2.4): the second tree is the first
  // mirrored (position k -> rank n-1-k), so a rank inner in one tree is mostly a leaf in the
  // other; each tree reduces half the buffer, both at once.
  std::vector<Phase> first;
  std::vector<Phase> second;
  binary_tree(first, n, bytes / 2, [](int k) { return k; });
  binary_tree(second, n, bytes / 2, [n](int k) { return n - 1 - k; });
  for (std::size_t s = 0; s < first.size(); ++s) {
    Phase p = first[s];
    p.flows.insert(p.flows.end(), second[s].flows.begin(), second[s].flows.end());
    plan.push_back(std::move(p));
  }
}

/// Reduce inside each node to its first rank, one rank at a time, over the node's links.
std::vector<Phase> node_reduce(Group g, double bytes) {
  const int per_node = std::max(1, g.ranks_per_node);
  const int nodes = (g.ranks + per_node - 1) / per_node;
  std::vector<Phase> gather;
  for (int local = 1; local < per_node; ++local) {
    Phase step;
    for (int node = 0; node < nodes; ++node)
      if (node * per_node + local < g.ranks)
        step.flows.push_back(flow(node * per_node + local, node * per_node, bytes, Combine::Reduce));
    gather.push_back(step);
  }
  return gather;
}

/// `inner` (among the nodes' first ranks) between a reduce inside each node and the broadcast
/// that mirrors it.
void within_nodes(std::vector<Phase>& plan, Group g, double bytes, const std::vector<Phase>& inner) {
  const auto gather = node_reduce(g, bytes);
  plan.insert(plan.end(), gather.begin(), gather.end());
  plan.insert(plan.end(), inner.begin(), inner.end());
  for (auto it = gather.rbegin(); it != gather.rend(); ++it)
    plan.push_back(reversed(*it));
}

/// Reduce inside each node to its first rank (one rank at a time, over the node's links), a
/// ring among the node leaders, then broadcast inside in the mirror order.
void hierarchical(std::vector<Phase>& plan, Group g, double bytes, bool aggregate) {
  const int per_node = std::max(1, g.ranks_per_node);
  const int nodes = (g.ranks + per_node - 1) / per_node;
  std::vector<Phase> across;
  ring(across, iota(nodes, per_node), bytes, aggregate);
  within_nodes(plan, g, bytes, across);
}

/// The steps `local(q)` gives over local ranks 0..q-1 of a node of q ranks, run in every node at
/// once: step k of every node in one phase.
std::vector<Phase> in_every_node(Group g, auto local) {
  const int per_node = std::max(1, g.ranks_per_node);
  std::vector<Phase> steps;
  for (int first = 0; first < g.ranks; first += per_node) {
    const std::vector<Phase> own = local(std::min(per_node, g.ranks - first));
    if (steps.size() < own.size())
      steps.resize(own.size());
    for (std::size_t k = 0; k < own.size(); ++k)
      for (Flow f : own[k].flows) {
        f.src += first, f.dst += first;
        steps[k].flows.push_back(f);
      }
  }
  std::erase_if(steps, [](const Phase& p) { return p.flows.empty(); });
  return steps;
}

/// A binomial tree's reduce of `bytes` to local rank 0 over q ranks (MPICH 3.2
/// src/mpi/coll/reduce.c, MPIR_Reduce_binomial): at mask 1, 2, 4, ... the ranks whose lowest
/// set bit is the mask send their whole buffer to rank - mask, which reduces it.
std::vector<Phase> binomial_reduce(int q, double bytes) {
  std::vector<Phase> steps;
  for (int mask = 1; mask < q; mask *= 2) {
    Phase step;
    for (int r = mask; r < q; r += 2 * mask)
      step.flows.push_back(flow(r, r - mask, bytes, Combine::Reduce));
    steps.push_back(std::move(step));
  }
  return steps;
}

/// MPICH 3.2's reduce to a node's root (reduce.c, MPIR_Reduce_intra): over 2048 bytes
/// (MPIR_CVAR_REDUCE_SHORT_MSG_SIZE) of a built-in sum, Rabenseifner's reduce-scatter by
/// recursive halving (partners at distance 1, 2, ..., bytes B/2, B/4, ...) then a binomial
/// gather to the root (distance q/2 first, B/q from each sender, ..., B/2 last: reduce.c,
/// MPIR_Reduce_redscat_gather); otherwise the binomial tree. (MPICH folds a node of other than a
/// power of two ranks into the reduce-scatter; such a node takes the binomial tree here.)
std::vector<Phase> mpich_node_reduce(int q, double bytes, bool builtin_sum) {
  constexpr double short_message_bytes = 2048;
  if (bytes <= short_message_bytes || !builtin_sum || !std::has_single_bit(static_cast<unsigned>(q)))
    return binomial_reduce(q, bytes);
  std::vector<Phase> steps = recursive_halving(iota(q), bytes);
  for (int distance = q / 2; distance >= 1; distance /= 2) {
    Phase step;
    for (int r = distance; r < 2 * distance; ++r) // those still holding blocks: below 2 x distance
      step.flows.push_back(flow(r, r - distance, bytes / (2 * distance), Combine::Copy));
    steps.push_back(std::move(step));
  }
  return steps;
}

/// MPICH 3.2's broadcast from a node's root (bcast.c, MPIR_Bcast_intra): below 12288 bytes
/// (MPIR_CVAR_BCAST_SHORT_MSG_SIZE) or on fewer than 8 ranks (MPIR_CVAR_BCAST_MIN_PROCS), the
/// binomial tree (the binomial reduce mirrored); else a binomial scatter (the root sends half the
/// buffer to rank q/2 first; each sender the part of the ranks below its receiver's subtree,
/// scatter_for_bcast) and an all-gather: recursive doubling below 524288 bytes
/// (MPIR_CVAR_BCAST_LONG_MSG_SIZE) on a power of two, the ring otherwise.
std::vector<Phase> mpich_node_bcast(int q, double bytes) {
  constexpr double short_message_bytes = 12288;
  constexpr double long_message_bytes = 524288;
  constexpr int min_ranks = 8;
  std::vector<Phase> steps;
  if (bytes < short_message_bytes || q < min_ranks) {
    const auto up = binomial_reduce(q, bytes);
    for (auto it = up.rbegin(); it != up.rend(); ++it)
      steps.push_back(reversed(*it));
    return steps;
  }
  const double block = bytes / q;
  for (int mask = static_cast<int>(std::bit_floor(static_cast<unsigned>(q - 1))); mask >= 1; mask /= 2) {
    Phase step;
    for (int r = 0; r + mask < q; r += 2 * mask) // r + mask's subtree: ranks r + mask .. r + 2 mask - 1
      step.flows.push_back(flow(r, r + mask, block * (std::min(q, r + 2 * mask) - (r + mask)), Combine::Copy));
    steps.push_back(std::move(step));
  }
  const bool doubling = bytes < long_message_bytes && std::has_single_bit(static_cast<unsigned>(q));
  const auto gather = allgather_steps({.ranks = q}, block, doubling ? Gather::RecursiveDoubling : Gather::Ring);
  steps.insert(steps.end(), gather.begin(), gather.end());
  return steps;
}

/// MPICH 3.2's SMP path for several ranks per node (allreduce.c: reduce to the node's root, the
/// flat all-reduce `across` (halving_doubling or recursive_doubling) among the roots, broadcast
/// from the root), which also stands for Goyal et al. 2017 (arXiv:1706.02677, §4, Caffe2 with
/// Gloo: reduce inside the server, halving-doubling across servers, broadcast inside).
void hierarchical_doubling(std::vector<Phase>& plan, Group g, double bytes,
                           void (*across_nodes)(std::vector<Phase>&, int, double)) {
  const int per_node = std::max(1, g.ranks_per_node);
  const int nodes = (g.ranks + per_node - 1) / per_node;
  std::vector<Phase> across;
  across_nodes(across, nodes, bytes);
  for (Phase& p : across)
    for (Flow& f : p.flows)
      f.src *= per_node, f.dst *= per_node;
  const auto reduce = in_every_node(g, [&](int q) { return mpich_node_reduce(q, bytes, g.builtin_sum); });
  const auto bcast = in_every_node(g, [&](int q) { return mpich_node_bcast(q, bytes); });
  plan.insert(plan.end(), reduce.begin(), reduce.end());
  plan.insert(plan.end(), across.begin(), across.end());
  plan.insert(plan.end(), bcast.begin(), bcast.end());
}

/// k servers on ranks 0..k-1 each own B/k: every other rank pushes its share to each server,
/// which sums it in, then pulls the reduced share back (2 steps).
void parameter_server(std::vector<Phase>& plan, int n, double bytes, int servers) {
  const int k = std::clamp(servers, 1, n);
  const auto phases = parameter_server_phases(n, std::vector<double>(static_cast<std::size_t>(k), bytes / k));
  plan.insert(plan.end(), phases.begin(), phases.end());
}

/// The parent of position k > 0 in NCCL's binary tree over n positions (NCCL 2.4.8
/// src/misc/trees.cc, ncclGetBtree; the same in 2.7's src/graph/trees.cc): with b the lowest set
/// bit of k, (k xor b) | 2b, or k xor b where that is out of bounds. Position 0 is the root, whose
/// one child is the largest power of two below n: the tree is ceil(log2 n) deep.
int nccl_tree_parent(int k, int n) {
  int bit = 1;
  while (bit < n && (bit & k) == 0)
    bit <<= 1;
  const int up = (k ^ bit) | (bit << 1);
  return up >= n ? k ^ bit : up;
}

/// One channel's tree of a pipelined all-reduce over all ranks (NCCL 2.4.8 src/init.cc
/// setupChannel): inside each node a chain that follows the channel's ring, from the rank where
/// that ring enters the node (the node's master: local rank `first`, as rings() numbers the
/// rings) on, each rank's parent the one before it; across nodes NCCL's binary tree of the masters
/// (nccl_tree_parent, node positions mapped by `node_of`). Returns each rank's parent (-1: root).
std::vector<int> chain_and_tree(Group g, int first, auto node_of) {
  const int per_node = std::max(1, g.ranks_per_node);
  const int nodes = (g.ranks + per_node - 1) / per_node;
  // A last node with fewer ranks takes the chain from local rank first % its ranks.
  const auto local = [&](int k, int l) {
    const int base = node_of(k) * per_node;
    return base + (first + l) % std::min(per_node, g.ranks - base);
  };
  std::vector<int> parent(static_cast<std::size_t>(g.ranks), -1);
  for (int k = 0; k < nodes; ++k) {
    for (int l = 1; l < std::min(per_node, g.ranks - node_of(k) * per_node); ++l)
      parent[static_cast<std::size_t>(local(k, l))] = local(k, l - 1);
    if (k > 0)
      parent[static_cast<std::size_t>(local(k, 0))] = local(nccl_tree_parent(k, nodes), 0);
  }
  return parent;
}

/// The depth of each rank in the tree given by `parent` (-1: root), and the deepest.
std::pair<std::vector<int>, int> depths(const std::vector<int>& parent) {
  std::vector<int> depth(parent.size(), 0);
  int deepest = 0;
  for (std::size_t r = 0; r < parent.size(); ++r) { // parents are not ordered: walk up
    int d = 0;
    for (int q = parent[r]; q >= 0; q = parent[static_cast<std::size_t>(q)])
      ++d;
    depth[r] = d;
    deepest = std::max(deepest, d);
  }
  return {depth, deepest};
}

/// NCCL's FIFO depth: a connection holds NCCL_STEPS = 8 chunks (NCCL 2.4.8 src/include/devcomm.h;
/// the tree all-reduce moves one chunk per step), so a sender runs at most 8 chunks ahead of
/// what its receiver has passed on (src/collectives/device/primitives.h, waitSend).
constexpr int fifo_chunks = 8;

/// A pipelined all-reduce over the trees given by `parents`, each tree carrying `bytes` in K
/// chunks, as NCCL 2.4 and 2.7 run it (src/collectives/device/all_reduce.h,
/// ncclAllReduceTreeKernel and its LL twin): each channel's tree first reduces every chunk up
/// the tree (its up loop: recvReduceSend, the root's recvReduceCopy), then broadcasts every
/// chunk down (its down loop: send, recvCopySend, recv). With `together`, up and down at once
/// (NCCL 2.7's LL128 kernel: the root's recvReduceCopySend sends each chunk down once reduced).
/// Exact: one dataflow phase of every chunk on every edge, each waiting for what NCCL's
/// primitives wait for: a rank sends chunk j up once it has chunk j from each of its children;
/// the root sends down once it has reduced every chunk (together: chunk j), the others once they
/// have chunk j from their parent; a rank's send of chunk j goes to all its children at once, as
/// one send (Phase::sent_with), after its send of chunk j - 1 to each; each edge carries its
/// chunks in order, each chunk one of its tree's stream (Phase::stream); and a sender
/// waits while its receiver has not passed chunk j - 8 on (sent it on, or reduced it at the root
/// going up, but for `together`): a FIFO holds 8 chunks. Ranks wait for nothing else: there are
/// no rounds. A send that follows its sender's previous one waits only for its bytes to have
/// left, whose latency then runs beside the new bytes (Phase::after_sent), as a FIFO's chunks are
/// in flight together. Aggregated: every edge up with its whole share, then every edge down, two
/// pipelined phases of K + D - 1 rounds each (D the deepest rank's depth over all trees: the fill
/// and drain), paying the latencies of the first chunk's way; together, one phase of K + 2D - 1
/// rounds.
void pipelined_trees(std::vector<Phase>& plan, const std::vector<std::vector<int>>& parents, double bytes,
                     const TreeChunks& chunking, bool aggregate, bool together) {
  const std::size_t n = parents.front().size();
  if (n < 2)
    return;
  std::vector<std::vector<int>> depth;
  int deepest = 0;
  for (const auto& parent : parents) {
    auto [d, deepest_here] = depths(parent);
    depth.push_back(std::move(d));
    deepest = std::max(deepest, deepest_here);
  }
  const double chunk = chunking.chunk_bytes(bytes, deepest);
  const int chunks = static_cast<int>(std::ceil(bytes / chunk));
  if (aggregate) {
    // Up, the edge from a rank at depth d carries chunk j in round j + D - d; down, the edge to
    // it in round j + d - 1, or j + D + d - 1 when the two run together.
    const auto edges = [&](Phase& p, std::size_t t, bool up) { // tree t's edges one way
      for (std::size_t r = 0; r < n; ++r)
        if (const int parent = parents[t][r]; parent >= 0) {
          const int d = depth[t][r];
          p.flows.push_back(up ? flow(static_cast<int>(r), parent, bytes, Combine::Reduce)
                               : flow(parent, static_cast<int>(r), bytes, Combine::Copy));
          p.first_round.push_back(up ? deepest - d : d - 1 + (together ? deepest : 0));
        }
    };
    const auto finish = [&](Phase& p, int rounds) {
      p.steps = rounds;
      p.chunks = chunks;
      p.pipelines = static_cast<int>(parents.size());
      plan.push_back(std::move(p));
    };
    if (together) { // one phase, each tree's edges up, then the same down: one pipeline per tree
      Phase p;
      for (std::size_t t = 0; t < parents.size(); ++t)
        for (const bool up : {true, false})
          edges(p, t, up);
      finish(p, chunks + 2 * deepest - 1);
      return;
    }
    for (const bool up : {true, false}) { // a phase each way, each tree's edges a pipeline
      Phase p;
      for (std::size_t t = 0; t < parents.size(); ++t)
        edges(p, t, up);
      finish(p, chunks + deepest - 1);
    }
    return;
  }
  Phase p;
  // Flow ids: chunk by chunk, tree by tree, rank by rank: up, then down.
  const std::size_t trees = parents.size();
  const auto up = [&](std::size_t t, int r, int j) {
    return static_cast<int>(((static_cast<std::size_t>(j) * trees + t) * n + static_cast<std::size_t>(r)) * 2);
  };
  const auto down = [&](std::size_t t, int r, int j) { return up(t, r, j) + 1; };
  std::vector<std::vector<std::vector<int>>> children(trees, std::vector<std::vector<int>>(n));
  for (std::size_t t = 0; t < trees; ++t)
    for (std::size_t r = 0; r < n; ++r)
      if (parents[t][r] >= 0)
        children[t][static_cast<std::size_t>(parents[t][r])].push_back(static_cast<int>(r));
  // Flows not on an edge (a root's own) stay empty and wait for nothing: dropped below.
  p.flows.resize(static_cast<std::size_t>(up(0, 0, chunks)));
  p.after.resize(p.flows.size());
  p.after_sent.resize(p.flows.size());
  p.sent_with.resize(p.flows.size());
  p.stream.resize(p.flows.size());
  for (int j = 0; j < chunks; ++j) {
    const double size = j + 1 < chunks ? chunk : bytes - chunk * (chunks - 1);
    for (std::size_t t = 0; t < trees; ++t)
      for (int r = 0; r < static_cast<int>(n); ++r) {
        const int parent = parents[t][static_cast<std::size_t>(r)];
        if (parent < 0)
          continue;
        const auto& mine = children[t][static_cast<std::size_t>(r)];
        const bool parent_is_root = parents[t][static_cast<std::size_t>(parent)] < 0;
        const auto& siblings = children[t][static_cast<std::size_t>(parent)];
        // Up: chunk j from each child, chunk j - 1 sent, and the parent's FIFO not full.
        p.sent_with[static_cast<std::size_t>(up(t, r, j))] = up(t, r, j);
        // Down: one send to all the parent's children.
        p.sent_with[static_cast<std::size_t>(down(t, r, j))] = down(t, siblings.front(), j);
        // Each tree's pipeline, as the aggregated form has them: one per tree up and one down, or
        // one per tree up and down together.
        p.stream[static_cast<std::size_t>(up(t, r, j))] = together ? static_cast<int>(t) : 2 * static_cast<int>(t);
        p.stream[static_cast<std::size_t>(down(t, r, j))] = together ? static_cast<int>(t) : 2 * static_cast<int>(t) + 1;
        auto& u = p.after[static_cast<std::size_t>(up(t, r, j))];
        p.flows[static_cast<std::size_t>(up(t, r, j))] = flow(r, parent, size, Combine::Reduce);
        for (int c : mine)
          u.push_back(up(t, c, j));
        if (j > 0)
          p.after_sent[static_cast<std::size_t>(up(t, r, j))].push_back(up(t, r, j - 1));
        if (j >= fifo_chunks) { // the parent passed chunk j - 8 on: sent it on (up, or down at a
                                // root sending together), or reduced it (a root after); waited
                                // for until that arrives (the freed slot's word back to the
                                // sender taking about a latency)
          if (!parent_is_root)
            u.push_back(up(t, parent, j - fifo_chunks));
          else
            for (int c : siblings)
              u.push_back(together ? down(t, c, j - fifo_chunks) : up(t, c, j - fifo_chunks));
        }
        // Down: the parent has chunk j (the root: has reduced it, or every chunk unless together),
        // and its send of chunk j goes to all its children at once: after its send of chunk
        // j - 1 to each, and once none of their FIFOs is full.
        auto& d = p.after[static_cast<std::size_t>(down(t, r, j))];
        p.flows[static_cast<std::size_t>(down(t, r, j))] = flow(parent, r, size, Combine::Copy);
        if (!parent_is_root)
          d.push_back(down(t, parent, j));
        else if (together || j == 0) // (after, later chunks follow chunk 0)
          for (int c : siblings)
            d.push_back(up(t, c, together ? j : chunks - 1));
        for (int s : siblings) {
          if (j > 0)
            p.after_sent[static_cast<std::size_t>(down(t, r, j))].push_back(down(t, s, j - 1));
          if (j >= fifo_chunks)
            for (int c : children[t][static_cast<std::size_t>(s)])
              d.push_back(down(t, c, j - fifo_chunks));
        }
      }
  }
  // Drop the roots' empty slots, renumbering what waits for what.
  std::vector<int> id(p.flows.size(), -1);
  Phase kept;
  for (std::size_t i = 0; i < p.flows.size(); ++i)
    if (p.flows[i].src != p.flows[i].dst) {
      id[i] = static_cast<int>(kept.flows.size());
      kept.flows.push_back(p.flows[i]);
      kept.after.push_back(std::move(p.after[i]));
      kept.after_sent.push_back(std::move(p.after_sent[i]));
      kept.sent_with.push_back(p.sent_with[i]);
      kept.stream.push_back(p.stream[i]);
    }
  for (auto* lists : {&kept.after, &kept.after_sent})
    for (auto& waits : *lists)
      for (int& w : waits)
        w = id[static_cast<std::size_t>(w)];
  for (int& first : kept.sent_with)
    first = id[static_cast<std::size_t>(first)];
  plan.push_back(std::move(kept));
}

/// NCCL 2.4's trees, one per channel (Group::rings, at most one per local rank, one on a single
/// node as for the rings), each carrying its share of the buffer: channel c's chain starts at
/// local rank c, where rings() has ring c enter the node. With `two` (the double binary tree),
/// NCCL's tree across nodes and its complement, in which inner nodes of one are leaves of the
/// other (ncclGetDtree, NCCL 2.4 to 2.7: the first shifted by one node on an even node count,
/// mirrored on an odd one; 2.8 swapped them), channels below half the count, rounded up, taking
/// the first (setupChannel): on every ring where NCCL runs each ring as two channels
/// (Group::both_trees_on_each_ring), each tree with half the ring's share; else the first half
/// of the rings take the first tree and the others the second, a lone ring the first alone.
void pipelined(std::vector<Phase>& plan, Group g, double bytes, bool two, const TreeChunks& chunks, bool aggregate) {
  const int per_node = std::max(1, g.ranks_per_node);
  const int nodes = (g.ranks + per_node - 1) / per_node;
  const int channels = g.ranks <= per_node ? 1 : std::clamp(g.rings, 1, per_node);
  // Which node sits at position k of each tree.
  const auto first = [](int k) { return k; };
  const auto second = [nodes](int k) { return nodes % 2 == 1 ? nodes - 1 - k : (k + 1) % nodes; };
  const bool both_on_each = two && g.both_trees_on_each_ring;
  std::vector<std::vector<int>> parents;
  for (int c = 0; c < channels; ++c) {
    const bool second_tree = two && !both_on_each && c >= (channels + 1) / 2;
    parents.push_back(second_tree ? chain_and_tree(g, c, second) : chain_and_tree(g, c, first));
    if (both_on_each)
      parents.push_back(chain_and_tree(g, c, second));
  }
  pipelined_trees(plan, parents, bytes / static_cast<double>(parents.size()), chunks, aggregate,
                  g.trees_up_and_down_together);
}

std::vector<Phase> allreduce(Algorithm a, Group g, double bytes, int servers, const TreeChunks& chunks, bool aggregate) {
  std::vector<Phase> plan;
  switch (a) {
  case Algorithm::Ring: rings(plan, g, bytes, aggregate); break;
  case Algorithm::HalvingDoubling: halving_doubling(plan, g.ranks, bytes); break;
  case Algorithm::RecursiveDoubling: recursive_doubling(plan, g.ranks, bytes); break;
  case Algorithm::BinaryTree: trees(plan, g.ranks, bytes, false); break;
  case Algorithm::DoubleBinaryTree: trees(plan, g.ranks, bytes, true); break;
  case Algorithm::Hierarchical: hierarchical(plan, g, bytes, aggregate); break;
  case Algorithm::HierarchicalHalvingDoubling: hierarchical_doubling(plan, g, bytes, halving_doubling); break;
  case Algorithm::HierarchicalRecursiveDoubling: hierarchical_doubling(plan, g, bytes, recursive_doubling); break;
  case Algorithm::ParameterServer: parameter_server(plan, g.ranks, bytes, servers); break;
  case Algorithm::PipelinedTree: pipelined(plan, g, bytes, false, chunks, aggregate); break;
  case Algorithm::PipelinedDoubleTree: pipelined(plan, g, bytes, true, chunks, aggregate); break;
  }
  // The ring is aggregated as it is built (its exact plan is O(N^2)); the others have O(log N)
  // or O(1) steps, some of which repeat a pattern (halving-doubling on two ranks).
  return aggregate ? merge_equal_patterns(plan) : plan;
}

} // namespace

std::string_view to_string(Algorithm a) { return names.name(a); }
std::optional<Algorithm> algorithm_from_string(std::string_view text) { return names.parse(text); }
std::string algorithm_names() { return names.list(); }

std::vector<Phase> allreduce_steps(Algorithm a, Group g, double bytes, int servers, const TreeChunks& chunks) {
  return allreduce(a, g, bytes, servers, chunks, false);
}

std::vector<Phase> allreduce_phases(Algorithm a, Group g, double bytes, int servers, const TreeChunks& chunks) {
  return allreduce(a, g, bytes, servers, chunks, true);
}

double TreeChunks::chunk_bytes(double share_bytes, int deepest) const {
  double chunk = step_bytes;
  // NCCL compares the chunks the share holds whole: an integer quotient, nBytes / (nChannels x
  // chunkSize), a channel's share being nBytes / nChannels.
  const auto held = [&] { return std::floor(share_bytes / chunk); };
  switch (rule) {
  case Rule::Step: break;
  case Rule::HalvedByDepth: {
    const double levels = depth.value_or(deepest);
    for (auto [per_level, least] : {std::pair{8.0, 131072.0}, {4.0, 65536.0}, {1.0, 32768.0}})
      while (held() < levels * per_level && chunk > least)
        chunk /= 2;
    break;
  }
  case Rule::LL128: {
    assert(ll128_chunks[0] > 0 && ll128_chunks[1] > 0 && "LL128's counts come from nccl_tree_chunks");
    // (NCCL 2.7.8 computeColl compares its integer quotient with float counts)
    for (auto [chunks, least] : {std::pair{ll128_chunks[0], 131072.0}, {ll128_chunks[1], 32768.0}})
      while (static_cast<float>(held()) < chunks && chunk > least)
        chunk /= 2;
    // A line of 128 bytes carries 120 (NCCL_LL128_DATAELEMS of NCCL_LL128_LINEELEMS).
    chunk = chunk * 15 / 16;
    break;
  }
  }
  return chunk;
}

std::vector<Phase> parameter_server_phases(int ranks, const std::vector<double>& server_bytes, int stride) {
  const int workers = (ranks + stride - 1) / stride;
  if (workers < 2)
    return {};
  Phase push;
  for (int w = 0; w < workers; ++w)
    for (int s = 0; s < static_cast<int>(server_bytes.size()) && s < workers; ++s)
      if (w != s && server_bytes[static_cast<std::size_t>(s)] > 0)
        push.flows.push_back(flow(w * stride, s * stride, server_bytes[static_cast<std::size_t>(s)], Combine::Reduce));
  if (push.flows.empty())
    return {};
  return {push, reversed(push)};
}

std::vector<Phase> node_parameter_server_phases(Group g, double bytes, const std::vector<double>& server_bytes) {
  std::vector<Phase> plan;
  within_nodes(plan, g, bytes, parameter_server_phases(g.ranks, server_bytes, std::max(1, g.ranks_per_node)));
  return plan;
}

std::string_view to_string(Gather g) { return gather_names.name(g); }

namespace {

/// The all-gather's plan: the ring's N-1 steps (or aggregated, one phase); MPICH 3.2's recursive
/// doubling (src/mpi/coll/allgather.c, allgatherv.c: mask from 1, each step swapping what a rank
/// holds, `mask` blocks, with rank ^ mask); Bruck's (the same files, and Open MPI's
/// coll_base_allgatherv.c: step k sends min(2^k, N - 2^k) blocks to rank - 2^k, receives from
/// rank + 2^k; the final local rotation moves no bytes).
std::vector<Phase> allgather(Group g, double bytes, Gather how, bool aggregate) {
  const int n = g.ranks;
  std::vector<Phase> plan;
  if (n < 2)
    return plan;
  switch (how) {
  case Gather::Ring:
    ring_rounds(plan, iota(n), n - 1, bytes, Combine::Copy, aggregate);
    break;
  case Gather::RecursiveDoubling:
    assert(std::has_single_bit(static_cast<unsigned>(n)) && "recursive doubling needs a power of two");
    for (int mask = 1; mask < n; mask *= 2) {
      Phase step;
      for (int i = 0; i < n; ++i)
        step.flows.push_back(flow(i, i ^ mask, mask * bytes, Combine::Copy));
      plan.push_back(std::move(step));
    }
    break;
  case Gather::Bruck:
    for (int distance = 1; distance < n; distance *= 2) {
      Phase step;
      for (int i = 0; i < n; ++i)
        step.flows.push_back(flow(i, (i - distance + n) % n, std::min(distance, n - distance) * bytes, Combine::Copy));
      plan.push_back(std::move(step));
    }
    break;
  }
  return plan;
}

} // namespace

std::vector<Phase> allgather_steps(Group g, double bytes, Gather how) { return allgather(g, bytes, how, false); }

std::vector<Phase> allgather_phases(Group g, double bytes, Gather how) { return allgather(g, bytes, how, true); }

std::vector<Phase> merge_equal_patterns(const std::vector<Phase>& steps) {
  std::vector<Phase> merged;
  const auto same_pattern = [](const Phase& a, const Phase& b) {
    return a.chunks == 0 && b.chunks == 0 && a.after.empty() && b.after.empty() && a.flows.size() == b.flows.size() &&
           std::equal(a.flows.begin(), a.flows.end(), b.flows.begin(),
                      [](const Flow& x, const Flow& y) { return x.src == y.src && x.dst == y.dst; });
  };
  for (const Phase& step : steps) {
    if (!merged.empty() && same_pattern(merged.back(), step)) {
      for (std::size_t i = 0; i < step.flows.size(); ++i) {
        merged.back().flows[i].bytes += step.flows[i].bytes;
        merged.back().flows[i].reduce_bytes += step.flows[i].reduce_bytes;
      }
      merged.back().steps += step.steps;
    } else {
      merged.push_back(step);
    }
  }
  return merged;
}

double alpha_beta_seconds(const std::vector<Phase>& plan, double alpha_s, double bytes_per_s,
                          double overhead_s, double gamma_s_per_byte) {
  double total = 0;
  for (const Phase& p : plan) {
    assert(p.chunks == 0 && p.after.empty());
    double slowest = 0;
    for (const Flow& f : p.flows)
      slowest = std::max(slowest, f.bytes / bytes_per_s + f.reduce_bytes * gamma_s_per_byte);
    total += p.steps * (alpha_s + overhead_s) + slowest;
  }
  return total;
}

} // namespace ceiling::collectives
