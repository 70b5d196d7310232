// What is due at which simulated instant, behind one alarm: the replay's own delays.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

namespace ceiling::replay {

/// Items due at simulated instants, handed out in (instant, order of adding) order. The owner
/// keeps one alarm (a SimGrid kernel timer) at the earliest instant instead of a timer per
/// item: thousands of ranks that compute alike end at one instant and one alarm serves them
/// all, in rank order. It keeps no clock: the owner passes the simulated time.
///
/// Usage: set the alarm where add() says; when it rings, call drain(now, handle) and set the
/// alarm where drain() says. Items that `handle` adds while draining (a zero delay is due
/// now) are handed out in the same drain when due by then.
template <class T> class DueQueue {
public:
  /// Adds `item`, due at `at_s`. Returns the instant to set the alarm to, when the alarm must
  /// move (nothing was due, or this is due first); nothing while draining, since drain() says
  /// where the alarm goes next.
  std::optional<double> add(double at_s, T item) {
    const bool first = items_.empty() || at_s < items_.top().at_s;
    items_.push({at_s, next_order_++, std::move(item)});
    if (draining_ || !first)
      return std::nullopt;
    return at_s;
  }

  /// Hands every item due at or before `now_s` to `handle`, in order; returns the instant of
  /// the next item, where the alarm goes, or nothing when none is left.
  std::optional<double> drain(double now_s, const std::function<void(const T&)>& handle) {
    draining_ = true;
    while (!items_.empty() && items_.top().at_s <= now_s) {
      const T item = items_.top().item;
      items_.pop();
      handle(item);
    }
    draining_ = false;
    if (items_.empty())
      return std::nullopt;
    return items_.top().at_s;
  }

  bool empty() const { return items_.empty(); }

private:
  struct Due {
    double at_s;
    std::uint64_t order;
    T item;
    bool operator>(const Due& o) const { return at_s != o.at_s ? at_s > o.at_s : order > o.order; }
  };

  std::priority_queue<Due, std::vector<Due>, std::greater<>> items_;
  std::uint64_t next_order_ = 0;
  bool draining_ = false;
};

} // namespace ceiling::replay
