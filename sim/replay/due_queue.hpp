// What is due at which simulated instant, behind one alarm: the replay's own delays.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

namespace ceiling::replay {

/// Items due at simulated instants, handed out in (instant, order of adding) order. The owner
/// keeps one alarm (a SimGrid kernel timer) at earliest() instead of a timer per item:
/// thousands of ranks that compute alike end at one instant and one alarm serves them all, in
/// rank order. It keeps no clock: the owner passes the simulated time.
///
/// Usage: after adding, or after making items stale, drop the stale front and move the alarm
/// to earliest(); when the alarm rings, drain() and do the same. Items that drain's `handle`
/// adds (a zero delay is due now) come out in the same drain when due by then.
template <class T> class DueQueue {
public:
  void add(double at_s, T item) { items_.push({at_s, next_order_++, std::move(item)}); }

  /// Hands every item due at or before `now_s` to `handle`, in order.
  void drain(double now_s, const std::function<void(const T&)>& handle) {
    while (!items_.empty() && items_.top().at_s <= now_s) {
      const T item = items_.top().item;
      items_.pop();
      handle(item);
    }
  }

  /// Drops the items at the front that `is_stale` says nobody waits for any more, so that
  /// earliest() is an instant someone waits for.
  template <class Stale> void drop_stale_front(Stale is_stale) {
    while (!items_.empty() && is_stale(items_.top().item))
      items_.pop();
  }

  /// Forgets every item (a run that stops before its end).
  void clear() { items_ = {}; }

  /// The instant of the first item, or nothing when none is left.
  std::optional<double> earliest() const {
    if (items_.empty())
      return std::nullopt;
    return items_.top().at_s;
  }

private:
  struct Due {
    double at_s;
    std::uint64_t order;
    T item;
    bool operator>(const Due& o) const { return at_s != o.at_s ? at_s > o.at_s : order > o.order; }
  };

  std::priority_queue<Due, std::vector<Due>, std::greater<>> items_;
  std::uint64_t next_order_ = 0;
};

} // namespace ceiling::replay
