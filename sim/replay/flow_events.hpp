// The next event of each of numbered flows, earliest first: FlowSharing's flows' ends, and its solver's link levels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ceiling::replay {

/// The next event of each flow (flows numbered from 0), earliest first: a 4-ary heap in which
/// every flow holds its place, so that a flow whose end moves is moved, not added again (a
/// heap of stale entries cost FlowSharing a quarter of its time on trees). Four children a node
/// halve a binary heap's levels, and the moves and cache misses of taking out the earliest, for
/// as many compares in all (a parameter server on 1,024 Piz Daint nodes: 3.7 % fewer
/// instructions, 3.3 % fewer first-level misses; tools/bench/HISTORY.md). Events come out in
/// the same order whatever the arity: the order is total (by time, tie, flow).
/// FlowSharing's solver keeps its links' levels in one too, a link's level for a flow's time.
class FlowEvents {
public:
  struct Event {
    double at_s;
    std::uint64_t tie; ///< orders the events of one instant
    std::uint32_t flow;
    /// By time, then by tie, then by flow.
    bool operator<(const Event& o) const {
      if (at_s != o.at_s)
        return at_s < o.at_s;
      return tie != o.tie ? tie < o.tie : flow < o.flow;
    }
  };

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The earliest event; the queue must not be empty.
  const Event& front() const { return heap_.front(); }

  /// Sets `flow`'s next event to `at_s`, adding it if it has none; events at one instant come out
  /// by `tie`, then by flow (FlowSharing ties a flow's events to the order the flows started, so
  /// that they never depend on which ids the flows were given).
  void set(std::uint32_t flow, double at_s, std::uint64_t tie = 0);

  /// The same without keeping the order (for many at once); restore() must follow before the
  /// queue is read again.
  void set_unordered(std::uint32_t flow, double at_s, std::uint64_t tie = 0);
  void restore();

  /// Whether `flow` has an event.
  bool contains(std::uint32_t flow) const { return flow < place_.size() && place_[flow] != none; }
  /// Takes out the earliest event; the queue must not be empty.
  void pop();
  /// Takes out `flow`'s event; it must have one.
  void erase(std::uint32_t flow);
  void clear();

  /// Takes out the events due by `now_s` (less than `within_s` after it), in order, onto `out`.
  /// When many are due (thousands of flows ending together), they leave in one pass.
  void take_due(double now_s, double within_s, std::vector<Event>& out);

private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  static constexpr std::size_t arity = 4;

  std::uint32_t& place_of(std::uint32_t flow);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  /// Sorts `out` from `first` on: by tie in one pass where they are 64 or more events at one
  /// instant whose ties are distinct and span less than twice their number (a fan that ends
  /// together), else by sort.
  void sort_due(std::vector<Event>& out, std::ptrdiff_t first);

  std::vector<Event> heap_;
  std::vector<Event> placed_; ///< sort_due's slots, by tie
  std::vector<std::uint32_t> place_; ///< by flow: its index in heap_, or none
};

} // namespace ceiling::replay
