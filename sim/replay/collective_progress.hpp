// Which flows of a running collective may start: the rendezvous rule, without SimGrid.
#pragma once

#include "collectives/collective_plan.hpp"

#include <vector>

namespace ceiling::replay {

/// A flow of a plan: phase index and flow index within the phase.
struct FlowRef {
  int phase = 0;
  int flow = 0;
  bool operator==(const FlowRef&) const = default;
};

/// Tracks one collective over `ranks` ranks. A flow of phase p starts when both its ends have
/// finished all their flows of earlier phases (a rendezvous: as MPI point-to-point steps do),
/// and, in a dataflow phase, once the flows it waits for have arrived (Phase::after) or sent
/// their bytes (Phase::after_sent), so ranks progress through the phases at their own pace; a
/// rank with no flows left is done. Ranks join together (start()), or one by one (join()).
///
/// A phase that merges several steps of one pattern (Phase::steps > 1, no chunks: an aggregated
/// ring's 2(N-1) steps) finishes for its ranks together, as its steps would: each step a rank
/// sends what it received in the step before, so after them every rank has waited for every
/// edge of its ring (the flows connected to it by shared ranks), the slowest included; a rank
/// leaves such a phase once all the flows connected to its own have ended. (Released at the end
/// of its own two flows, the ranks of a ring's faster edges finished its all-reduce before the
/// slowest edge had delivered: waiting, not communicating, the rest of it.)
class CollectiveProgress {
public:
  /// Indexes `plan` by rank once; the plan must outlive this object.
  CollectiveProgress(const std::vector<collectives::Phase>& plan, int ranks);

  /// Every rank has joined: appends the flows that can start and the ranks already done
  /// (those without any flow). Resets any earlier run.
  void start(std::vector<FlowRef>& to_start, std::vector<int>& done);

  /// Forgets any earlier run: no rank has joined.
  void reset();

  /// `rank` joins on its own (a rank that has not joined takes part in no flow yet): appends
  /// the flows that can start and, if it has none, the rank as done.
  void join(int rank, std::vector<FlowRef>& to_start, std::vector<int>& done);

  /// The bytes of `f`, a flow of a dataflow phase, have left its sender (its latency may still
  /// run): appends the flows that can now start, those that waited for that (Phase::after_sent).
  /// Nothing once `f` has finished.
  void sent(FlowRef f, std::vector<FlowRef>& to_start);

  /// `f` has ended (arrived; sent, if sent() was not called): appends the flows that can now
  /// start and the ranks now done.
  void finish(FlowRef f, std::vector<FlowRef>& to_start, std::vector<int>& done);

  const collectives::Flow& flow(FlowRef f) const {
    return plan_[static_cast<std::size_t>(f.phase)].flows[static_cast<std::size_t>(f.flow)];
  }

private:
  /// Moves `rank` to its first phase >= `from` with flows, collecting the startable ones.
  void enter(int rank, int from, std::vector<FlowRef>& to_start, std::vector<int>& done);
  /// Starts `f` if both its ends are in its phase and it waits for no flow, and has not started.
  void try_start(FlowRef f, std::vector<FlowRef>& to_start);
  /// ids[offsets[k] .. offsets[k+1]) are the flows of key k in one phase: of rank k (index_), or
  /// waiting for flow k (waiting_for_, waiting_for_sent_).
  struct PhaseIndex {
    std::vector<int> offsets;
    std::vector<int> ids;
  };
  /// The index of `items` items by key (0 .. keys - 1): ids[offsets[k] .. offsets[k+1]) are the
  /// items, in order, of which `for_each_key(i, key)` calls key(k).
  template <class ForEachKey>
  static PhaseIndex index_by(std::size_t keys, std::size_t items, ForEachKey for_each_key);
  /// For each of `flows` flows, the flows that wait for it in `waits` (one list per flow, or none:
  /// then an empty index).
  static PhaseIndex waiters(const std::vector<std::vector<int>>& waits, std::size_t flows);
  /// The flows of `f`'s dataflow phase that wait for `f` in `waiting`: one wait fewer each,
  /// those left with none started.
  void release(FlowRef f, const PhaseIndex& waiting, std::vector<FlowRef>& to_start);

  const std::vector<collectives::Phase>& plan_;
  std::vector<PhaseIndex> index_;
  std::vector<int> phase_of_; ///< per rank: the phase it is in, the plan's size once done, -1 before it joins
  std::vector<int> pending_;  ///< per rank: its unfinished flows in that phase
  std::vector<std::vector<char>> started_;
  std::vector<std::vector<char>> sent_; ///< per dataflow phase and flow: sent() called
  /// Per dataflow phase: ids[offsets[i] .. offsets[i+1]) wait for flow i to arrive (to have
  /// sent, in waiting_for_sent_); and per flow, how many of its waits are not over.
  std::vector<PhaseIndex> waiting_for_;
  std::vector<PhaseIndex> waiting_for_sent_;
  std::vector<std::vector<int>> unfinished_before_;
  /// Per merged phase (steps > 1, no chunks; else empty): the flows of each set connected by
  /// shared ranks (ids by set), each flow's set, and per set how many of its flows have not ended.
  std::vector<PhaseIndex> connected_;
  std::vector<std::vector<int>> set_of_;
  std::vector<std::vector<int>> unfinished_in_set_;
  /// Takes one flow's ends a flow fewer to wait for in its phase, moving on the ranks that have none.
  void release_ends(FlowRef f, std::vector<FlowRef>& to_start, std::vector<int>& done);
};

} // namespace ceiling::replay
